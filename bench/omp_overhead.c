/*
 * omp_overhead - OpenMP microbenchmarks for the cost of the OMPT tool (bench/omp_bench.sh).
 *
 *   omp_overhead empty N          N empty parallel regions of 2 threads
 *   omp_overhead barrier N        one region of 2 threads passing N explicit barriers
 *   omp_overhead loop N US        N regions, each a parallel for whose iterations take
 *                                 US microseconds of computation per thread in total
 *
 * Prints "<mode> <ops> <seconds> <ns/op>" on stdout. Time is wall-clock
 * (CLOCK_MONOTONIC) around the measured part only.
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
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

static double run_empty(long n)
{
    double t0 = now();
    for (long i = 0; i < n; i++) {
#pragma omp parallel num_threads(2)
        {
            sink = 0;
        }
    }
    return now() - t0;
}

static double run_barrier(long n)
{
    double t0 = now();
#pragma omp parallel num_threads(2)
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
        fprintf(stderr, "usage: omp_overhead empty|barrier N | loop N US\n");
        return 2;
    }
    long n = atol(argv[2]);
    double s;
    if (strcmp(argv[1], "empty") == 0)
        s = run_empty(n);
    else if (strcmp(argv[1], "barrier") == 0)
        s = run_barrier(n);
    else if (strcmp(argv[1], "loop") == 0 && argc > 3)
        s = run_loop(n, atol(argv[3]));
    else {
        fprintf(stderr, "omp_overhead: unknown mode %s\n", argv[1]);
        return 2;
    }
    printf("%s %ld %.6f %.1f\n", argv[1], n, s, s * 1e9 / (double)n);
    return 0;
}
