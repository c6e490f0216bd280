/*
 * states_blocking.c - the thread-states benchmark's blocking-heavy program: two threads
 * pass a token over two pipes ROUNDS times, each computing WORK_US microseconds of CPU
 * before passing it on, so each blocks in read() once per round: with WORK_US = 50 about
 * 10 000 context switches per second per thread here. Prints the token.
 *
 *     states_blocking [ROUNDS [WORK_US]]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int up[2], down[2];
static long rounds, iters;
static volatile double sink;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}

static void spin(long n)
{
    double x = 1;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

/* Iterations of spin() per WORK_US, measured once (best of 5 tries of 10 ms). */
static long calibrate(double work_s)
{
    double best = 1e9;
    long n = 1000000;
    for (int k = 0; k < 5; k++) {
        double t0 = now();
        spin(n);
        double t = now() - t0;
        best = t < best ? t : best;
    }
    return (long)(n * work_s / best);
}

static void work(void)
{
    spin(iters);
}

static void *peer(void *arg)
{
    long v;
    for (long i = 0; i < rounds; i++) {
        if (read(up[0], &v, sizeof v) != sizeof v)
            abort();
        work();
        v++;
        if (write(down[1], &v, sizeof v) != sizeof v)
            abort();
    }
    return arg;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atol(argv[1]) : 20000;
    iters = calibrate((argc > 2 ? atof(argv[2]) : 50) * 1e-6);
    if (pipe(up) || pipe(down))
        return 1;
    pthread_t t;
    pthread_create(&t, NULL, peer, NULL);
    long v = 0;
    for (long i = 0; i < rounds; i++) {
        work();
        v++;
        if (write(up[1], &v, sizeof v) != sizeof v || read(down[0], &v, sizeof v) != sizeof v)
            abort();
    }
    pthread_join(t, NULL);
    printf("%ld\n", v);
    return 0;
}
