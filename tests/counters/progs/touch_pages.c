/*
 * touch_pages N: touches N fresh pages in touch() (one minor fault each: a private
 * anonymous mapping without huge pages), then computes for a while in compute(), which
 * touches no new memory. Prints the faults the kernel counted for the whole run
 * (ru_minflt) at the end, for the test to compare with.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

__attribute__((noinline)) static long touch(char *p, long pages, long page)
{
    long sum = 0;
    for (long i = 0; i < pages; i++) {
        p[i * page] = (char)i;
        sum += p[i * page];
    }
    return sum;
}

__attribute__((noinline)) static double compute(long n)
{
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    return x;
}

int main(int argc, char **argv)
{
    long pages = argc > 1 ? atol(argv[1]) : 20000;
    long iters = argc > 2 ? atol(argv[2]) : 100000000;
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return 1;
    madvise(p, (size_t)(pages * page), MADV_NOHUGEPAGE);
    long s = touch(p, pages, page);
    double x = compute(iters);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("touched %ld pages (sum %ld, x %.0f), minflt %ld\n", pages, s, x, ru.ru_minflt);
    return 0;
}
