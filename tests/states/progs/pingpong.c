/*
 * pingpong.c - two threads pass a counter back and forth over two pipes N times (each
 * blocks in read about N times), then print the counter and, per thread, what its own
 * clocks say of the exchange:
 *
 *     thread FUNC WALL CPU RUNDELAY SWITCHES
 *
 * (seconds; SWITCHES its voluntary + involuntary context switches, rusage).
 * Usage: pingpong [N]
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "thread_clocks.h"

static int up[2], down[2];
static long rounds;
static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;

static void report(const char *func, clocks a, clocks b)
{
    pthread_mutex_lock(&out);
    printf("thread %s %.6f %.6f %.6f %.0f\n", func, b.wall - a.wall, b.cpu - a.cpu,
           b.run_delay - a.run_delay, b.switches - a.switches);
    pthread_mutex_unlock(&out);
}

__attribute__((noinline)) long pong(void)
{
    long v = 0;
    for (long i = 0; i < rounds; i++) {
        if (read(up[0], &v, sizeof v) != sizeof v)
            abort();
        v++;
        if (write(down[1], &v, sizeof v) != sizeof v)
            abort();
    }
    return v;
}

static void *ponger(void *arg)
{
    clocks a = clocks_now();
    pong();
    report("pong", a, clocks_now());
    return arg;
}

__attribute__((noinline)) long ping(void)
{
    long v = 0;
    for (long i = 0; i < rounds; i++) {
        v++;
        if (write(up[1], &v, sizeof v) != sizeof v || read(down[0], &v, sizeof v) != sizeof v)
            abort();
    }
    return v;
}

int main(int argc, char **argv)
{
    rounds = argc > 1 ? atol(argv[1]) : 20000;
    if (pipe(up) || pipe(down))
        return 1;
    pthread_t t;
    pthread_create(&t, NULL, ponger, NULL);
    clocks a = clocks_now();
    long v = ping();
    report("ping", a, clocks_now());
    pthread_join(t, NULL);
    printf("counter %ld after %ld rounds\n", v, rounds);
    return v == 2 * rounds ? 0 : 1;
}
