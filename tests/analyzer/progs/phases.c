/*
 * phases.c - ground truth for filters, sample periods and the code-level reports: two
 * threads doing equal work; the main thread in two phases that sample points separate.
 *
 *     phases [ITERATIONS_PER_UNIT]     (default 50000000; 10 units in all)
 *
 *   main thread (5 units):  phase_a: kernel_x 2 units, kernel_y 1 unit
 *                           sample point "A done"
 *                           phase_b: kernel_x 1 unit, kernel_y 1 unit
 *                           sample point "B done"
 *   worker thread (5 units): worker > spin 5 units, at the same time
 *
 * So: each thread holds half the CPU time; kernel_x 30%, kernel_y 20%, spin 50%;
 * kernel_x is called by phase_a (2/3) and phase_b (1/3); sample period 1 (ending at
 * "A done") holds all of phase_a and none of phase_b, period 2 ("B done") the reverse.
 * Sample points are recorded through the collector's hpcollect_sample_point, looked up
 * at run time: without the collector they are skipped. The loops are on lines marked HOT.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

volatile double sink;
static long unit;

/* clang-format off */
__attribute__((noinline)) void kernel_x(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT kernel_x */
    sink += s;
}

__attribute__((noinline)) void kernel_y(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT kernel_y */
    sink += s;
}

__attribute__((noinline)) void spin(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT spin */
    sink += s;
}
/* clang-format on */

__attribute__((noinline)) void phase_a(void)
{
    kernel_x(2 * unit); /* CALL phase_a kernel_x */
    kernel_y(unit);
}

__attribute__((noinline)) void phase_b(void)
{
    kernel_x(unit); /* CALL phase_b kernel_x */
    kernel_y(unit);
}

__attribute__((noinline)) static void *worker(void *arg)
{
    (void)arg;
    spin(5 * unit);
    return NULL;
}

static void sample_point(const char *label)
{
    void (*fn)(unsigned, const char *) =
        (void (*)(unsigned, const char *))dlsym(RTLD_DEFAULT, "hpcollect_sample_point");
    if (fn)
        fn(3 /* HPC_SAMPLE_API */, label);
}

int main(int argc, char **argv)
{
    unit = argc > 1 ? atol(argv[1]) : 50000000;
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0)
        return 1;
    phase_a();
    sample_point("A done");
    phase_b();
    sample_point("B done");
    pthread_join(th, NULL);
    printf("phases done %g\n", sink > 0 ? 1.0 : 0.0);
    return 0;
}
