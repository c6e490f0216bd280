/*
 * omp_overhead - OpenMP microbenchmarks for the cost of the OMPT tool (bench/omp_bench.sh).
 *
 *   omp_overhead empty N          N empty parallel regions of 2 threads
 *   omp_overhead barrier N        one region of 2 threads passing N explicit barriers
 *   omp_overhead loop N US        N regions, each a parallel for whose iterations take
 *                                 US microseconds of computation per thread in total
 *   omp_overhead empty1 N         N empty parallel regions of 1 thread
 *   omp_overhead barrier1 N       one region of 1 thread passing N explicit barriers
 *
 * Prints "<mode> <ops> <seconds> <ns/op> <cpu seconds>" on stdout: wall-clock time
 * (CLOCK_MONOTONIC) around the measured part only, and the main thread's CPU time there.
 * The 1-thread modes make the same OMPT events per thread without any waiting, so their
 * CPU time is the cost of the events themselves even on a loaded machine.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static double now(void)
{
    return clock_s(CLOCK_MONOTONIC);
}

static volatile double sink;

/* Iterations of the inner kernel per microsecond, measured once serially. */
static long iters_per_us(void)
{
    long n = 1000000;
    double x = 0, t0 = now();
    for (long i = 0; i < n; i++)
        x = x * 0.999999 + 1e-9;
    sink = x;
    double us = (now() - t0) * 1e6;
    return us > 0 ? (long)(n / us) : 1000;
}

static double run_empty(long n, int threads)
{
    double t0 = now();
    for (long i = 0; i < n; i++) {
#pragma omp parallel num_threads(threads)
        {
            sink = 0;
        }
    }
    return now() - t0;
}

static double run_barrier(long n, int threads)
{
    double t0 = now();
#pragma omp parallel num_threads(threads)
    for (long i = 0; i < n; i++) {
#pragma omp barrier
    }
    return now() - t0;
}

static double run_loop(long n, long us)
{
    long per_iter = iters_per_us();
    long chunks = 64; /* iterations of the parallel loop per region */
    long inner = per_iter * us * 2 / chunks;
    double t0 = now();
    for (long r = 0; r < n; r++) {
#pragma omp parallel for num_threads(2) schedule(static)
        for (long c = 0; c < chunks; c++) {
            double x = c;
            for (long i = 0; i < inner; i++)
                x = x * 0.999999 + 1e-9;
            if (x == 42.0)
                sink = x;
        }
    }
    return now() - t0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: omp_overhead empty|barrier|empty1|barrier1 N | loop N US\n");
        return 2;
    }
    long n = atol(argv[2]);
    double s, c0 = clock_s(CLOCK_THREAD_CPUTIME_ID);
    if (strcmp(argv[1], "empty") == 0)
        s = run_empty(n, 2);
    else if (strcmp(argv[1], "barrier") == 0)
        s = run_barrier(n, 2);
    else if (strcmp(argv[1], "empty1") == 0)
        s = run_empty(n, 1);
    else if (strcmp(argv[1], "barrier1") == 0)
        s = run_barrier(n, 1);
    else if (strcmp(argv[1], "loop") == 0 && argc > 3)
        s = run_loop(n, atol(argv[3]));
    else {
        fprintf(stderr, "omp_overhead: unknown mode %s\n", argv[1]);
        return 2;
    }
    double cpu = clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
    printf("%s %ld %.6f %.1f %.6f\n", argv[1], n, s, s * 1e9 / (double)n, cpu);
    return 0;
}
