/*
 * sync_pairs.c - the sync tracer's cost per call: N uncontended pthread_mutex_lock/unlock
 * pairs in one thread, timed by the program itself (its thread CPU time around the loop), and
 * the floor a tracer cannot go below: N pairs of clock_gettime(CLOCK_MONOTONIC) reads, as
 * a wrapper makes around each call, and N reads of the TSC (the tracers' trace clock, where
 * the kernel's clocksource is the TSC). Prints "pair_ns X clocks_ns Y tsc_ns Z" (ns per
 * iteration).
 * Usage: sync_pairs [N]   (default 10 000 000)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The thread's CPU time: a loaded machine's preemptions are not the loop's cost. */
static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    volatile uint64_t sink = 0;
    uint64_t a = now_ns();
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&m);
        sink += (uint64_t)i;
        pthread_mutex_unlock(&m);
    }
    uint64_t pairs = now_ns() - a;
    a = now_ns();
    for (long i = 0; i < n; i++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        sink += (uint64_t)(t1.tv_nsec - t0.tv_nsec);
    }
    uint64_t clocks = now_ns() - a;
    uint64_t tsc = 0;
#if defined(__x86_64__)
    a = now_ns();
    for (long i = 0; i < n; i++)
        sink += __builtin_ia32_rdtsc();
    tsc = now_ns() - a;
#endif
    printf("pair_ns %.2f clocks_ns %.2f tsc_ns %.2f\n", (double)pairs / (double)n,
           (double)clocks / (double)n, (double)tsc / (double)n);
    return 0;
}
