/*
 * libs.c - code in three kinds of objects: this PIE executable, a shared library linked
 * at build time (libana_shared.so) and one loaded with dlopen (libana_dl.so, unloaded
 * again at the end). Each does the same work: a third of the samples each.
 *
 *     libs PATH_OF_libana_dl.so [ITERATIONS]
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

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
    for (int r = 0; r < 4; r++) {
        exe_work(n / 4);
        shared_work(n / 4);
        dl_work(n / 4);
    }
    dlclose(h);
    return 0;
}
