/*
 * text_faults.c - text page faults: copies LIB (libbigtext.so: 512 functions, one per
 * page of code, none needing a relocation) to DIR, drops the copy from the page cache,
 * maps it executable with random access asked (the loader's dlopen would read it all
 * ahead), and calls each function of the copy once, in `run_text`, at the offsets the
 * original (opened normally) has them. Each first touch of an uncached part of the copy is
 * a major fault on code. It does so with COPIES copies (default 4), one after the other:
 * a kernel with large folios reads a whole copy in its first fault, and a fault does not
 * always sleep (the read may be done when the thread gets there), so several faults make
 * one that sleeps near certain. Sample points "copies mapped" and "run_text done" bound
 * the calls. Prints what its clocks measured around the calls:
 *
 *     phase run_text 0 WALL CPU UTIME STIME RUNDELAY MAJFLT
 *
 * Usage: text_faults LIB DIR [COPIES]
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "sample_point.h"
#include "thread_clocks.h"

typedef int (*fn_t)(int);

__attribute__((noinline)) int run_text(fn_t *fns, int n)
{
    int sum = 0;
    for (int i = 0; i < n; i++)
        sum += fns[i](1);
    return sum;
}

/* Copy lib to dir (copy number k), drop the copy from the page cache and map it for
 * executing, random access asked. NULL on failure. */
static char *map_copy(const char *lib, const char *dir, int k)
{
    static char path[4096], buf[1 << 16];
    snprintf(path, sizeof path, "%s/libbigtext.copy%d.so", dir, k);
    int in = open(lib, O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
    if (in < 0 || out < 0)
        return NULL;
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)n) != n)
            return NULL;
    fsync(out);
    posix_fadvise(out, 0, 0, POSIX_FADV_DONTNEED);
    close(out);
    close(in);
    int fd = open(path, O_RDONLY);
    off_t size = lseek(fd, 0, SEEK_END);
    char *copy = mmap(NULL, (size_t)size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
    close(fd);
    unlink(path); /* the mapping keeps it */
    if (copy == MAP_FAILED)
        return NULL;
    madvise(copy, (size_t)size, MADV_RANDOM);
    return copy;
}

#define MAX_COPIES 8

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int copies = argc > 3 ? atoi(argv[3]) : 4;
    if (copies < 1 || copies > MAX_COPIES)
        return 2;
    void *h = dlopen(argv[1], RTLD_NOW); /* the original: where its functions are */
    Dl_info info;
    if (!h || !dladdr(dlsym(h, "bigtext_all"), &info))
        return 1;
    unsigned nf = 0;
    const fn_t *(*table)(unsigned *) = (const fn_t *(*)(unsigned *))dlsym(h, "bigtext_table");
    const fn_t *orig = table ? table(&nf) : NULL;
    if (nf > 1024)
        nf = 1024;
    static fn_t fns[MAX_COPIES * 1024];
    for (int k = 0; k < copies; k++) {
        char *copy = map_copy(argv[1], argv[2], k);
        if (!copy)
            return 1;
        for (unsigned i = 0; i < nf; i++)
            fns[k * nf + i] =
                (fn_t)(void *)(copy + ((char *)(void *)orig[i] - (char *)info.dli_fbase));
    }
    sample_point("copies mapped");
    clocks a = clocks_now();
    int sum = run_text(fns, (int)nf * copies);
    clocks b = clocks_now();
    sample_point("run_text done");
    printf("phase run_text 0 %.6f %.6f %.6f %.6f %.6f %.0f\n", b.wall - a.wall, b.cpu - a.cpu,
           b.utime - a.utime, b.stime - a.stime, b.run_delay - a.run_delay, b.majflt - a.majflt);
    printf("sum %d of %u functions\n", sum, nf * (unsigned)copies);
    return 0;
}
