/*
 * counter_work UNITS: a workload for the counter benchmark (bench/counter_bench.py): each
 * unit touches 2000 fresh pages (2000 page faults), sleeps 20 times 100 us (20 context
 * switches) and computes about 2 ms. Software events all fire at realistic rates.
 */
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static void touch(long pages)
{
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(1);
    madvise(p, (size_t)(pages * page), MADV_NOHUGEPAGE);
    for (long i = 0; i < pages; i++)
        p[i * page] = 1;
    munmap(p, (size_t)(pages * page));
}

static double compute(long n)
{
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    return x;
}

int main(int argc, char **argv)
{
    int units = argc > 1 ? atoi(argv[1]) : 50;
    for (int u = 0; u < units; u++) {
        touch(2000);
        for (int i = 0; i < 20; i++) {
            struct timespec t = {0, 100000};
            nanosleep(&t, NULL);
        }
        compute(2000000);
    }
    return 0;
}
