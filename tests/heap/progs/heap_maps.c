/*
 * heap_maps.c - heap tracing's ground truth for anonymous mappings cut and moved: partial
 * munmaps and mremap (tests/heap/test_heap_maps.sh holds the numbers). P = the page size;
 * in use after each function (a sample point named after it marks the moment):
 *
 *   trim_head     mmap 4P, munmap its first page: 3P held, never unmapped (a leak of 3P)
 *   trim_tail     mmap 4P, munmap its last page, then the other 3: nothing left
 *   punch_hole    mmap 5P, munmap pages 1-2: pages 0 and 3-4 held (a leak of 3P)
 *   remap_grow    mmap 2P, mremap to 6P (may move): 6P held (a leak, on mremap's caller)
 *   remap_shrink  mmap 4P (the peak: 3P + 3P + 6P + 4P = 16P), mremap to P in place,
 *                 munmap it: nothing left
 *   remap_move    mmap 2P, mremap it to a fixed address elsewhere, over a range it mapped
 *                 for that (2P, PROT_NONE: the kernel unmaps it, a free nobody calls: a
 *                 block freed unseen; a range unmapped first could be taken by anybody's
 *                 mmap before the mremap), munmap it there: nothing left
 *   file_remap    a file mapping (2 pages of the program's own file) shrunk by mremap and
 *                 unmapped: no allocation, two frees of no traced block
 *
 *   in use:   trim_head 3P, trim_tail 3P, punch_hole 6P, remap_grow 12P, remap_shrink 12P,
 *             remap_move 12P (at the end too: the leaks, 3P + 3P + 6P)
 *
 * Output: one line through write() (stdio would allocate its buffer), "ok" or what went
 * wrong.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hpcollect.h>

static size_t P;
static void *volatile sink[8];
static int bad;

static void fail(const char *what)
{
    (void)!write(1, what, strlen(what));
    (void)!write(1, "\n", 1);
    bad = 1;
}

static inline __attribute__((always_inline)) char *map(size_t n)
{
    void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        fail("mmap failed");
        return NULL;
    }
    memset(p, 1, n);
    return p;
}

static inline __attribute__((always_inline)) void unmap(void *p, size_t n)
{
    if (munmap(p, n) != 0)
        fail("munmap failed");
}

__attribute__((noinline)) static void trim_head(void)
{
    char *p = map(4 * P);
    unmap(p, P);
    sink[0] = p + P;
}

__attribute__((noinline)) static void trim_tail(void)
{
    char *p = map(4 * P);
    unmap(p + 3 * P, P);
    unmap(p, 3 * P);
}

__attribute__((noinline)) static void punch_hole(void)
{
    char *p = map(5 * P);
    unmap(p + P, 2 * P);
    sink[1] = p;
}

__attribute__((noinline)) static void remap_grow(void)
{
    char *p = map(2 * P);
    char *q = mremap(p, 2 * P, 6 * P, MREMAP_MAYMOVE);
    if (q == MAP_FAILED || q[2 * P - 1] != 1)
        fail("mremap grow");
    sink[2] = q;
}

__attribute__((noinline)) static void remap_shrink(void)
{
    char *p = map(4 * P);
    char *q = mremap(p, 4 * P, P, 0);
    if (q != p)
        fail("mremap shrink moved");
    unmap(q, P);
}

__attribute__((noinline)) static void remap_move(void)
{
    char *p = map(2 * P);
    void *target = mmap(NULL, 2 * P, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (target == MAP_FAILED) {
        fail("mmap of the target");
        return;
    }
    char *q = mremap(p, 2 * P, 2 * P, MREMAP_MAYMOVE | MREMAP_FIXED, target);
    if (q != target || q[0] != 1)
        fail("mremap move");
    unmap(q, 2 * P);
}

__attribute__((noinline)) static void file_remap(void)
{
    int fd = open("/proc/self/exe", O_RDONLY);
    char *p = fd < 0 ? MAP_FAILED : mmap(NULL, 2 * P, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
        fail("mmap of the program's file");
        return;
    }
    close(fd);
    char *q = mremap(p, 2 * P, P, 0);
    if (q != p || q[1] != 'E')
        fail("mremap of a file mapping");
    unmap(q, P);
}

int main(void)
{
    P = (size_t)sysconf(_SC_PAGESIZE);
    trim_head();
    hpc_sample("trim_head");
    trim_tail();
    hpc_sample("trim_tail");
    punch_hole();
    hpc_sample("punch_hole");
    remap_grow();
    hpc_sample("remap_grow");
    remap_shrink();
    hpc_sample("remap_shrink");
    remap_move();
    hpc_sample("remap_move");
    file_remap();
    if (!bad)
        (void)!write(1, "ok\n", 3);
    return bad;
}
