/*
 * libs.c - code in three kinds of objects: this PIE executable, a shared library linked
 * at build time (libana_shared.so) and one loaded with dlopen (libana_dl.so, unloaded
 * again at the end). Each does the same work, about a third of the samples each; the
 * ground truth is the CPU time each took, measured around each call and printed:
 *
 *     cpu exe_work|shared_work|dl_work SECONDS
 *
 *     libs PATH_OF_libana_dl.so [ITERATIONS]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "thread_clocks.h"

void shared_work(long n);
volatile double sink;

__attribute__((noinline)) void exe_work(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s = s * 0.999999 + 1.0;
    sink += s;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: libs libana_dl.so [iterations]\n");
        return 2;
    }
    long n = argc > 2 ? atol(argv[2]) : 200000000;
    void *h = dlopen(argv[1], RTLD_NOW);
    void (*dl_work)(long) = h ? (void (*)(long))dlsym(h, "dl_work") : NULL;
    if (!dl_work) {
        fprintf(stderr, "libs: %s\n", dlerror());
        return 1;
    }
    /* Interleaved in rounds so no part runs in one long phase at one end of the run. */
    enum { ROUNDS = 16 };
    void (*work[3])(long) = {exe_work, shared_work, dl_work};
    const char *name[3] = {"exe_work", "shared_work", "dl_work"};
    double cpu[3] = {0};
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < 3; k++) {
            double t0 = thread_cpu_s();
            work[k](n / ROUNDS);
            cpu[k] += thread_cpu_s() - t0;
        }
    dlclose(h);
    for (int k = 0; k < 3; k++)
        printf("cpu %s %.6f\n", name[k], cpu[k]);
    return 0;
}
