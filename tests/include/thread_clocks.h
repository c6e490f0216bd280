/*
 * thread_clocks.h - the ground truth the thread-state, MPI and OpenMP test programs print:
 * what the calling thread's own clocks say, in seconds:
 *
 *     wall       CLOCK_MONOTONIC
 *     cpu        CLOCK_THREAD_CPUTIME_ID (thread_cpu_s: this alone)
 *     utime, stime, majflt, switches   getrusage(RUSAGE_THREAD) (switches: voluntary and
 *                                      involuntary context switches)
 *     run_delay  /proc/thread-self/schedstat's time runnable but not running
 *
 * Header-only (static inline), for programs of one file each (-Itests/include).
 */
#ifndef THREAD_CLOCKS_H
#define THREAD_CLOCKS_H

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>

#ifndef RUSAGE_THREAD /* a program built without _GNU_SOURCE: Linux's value */
#define RUSAGE_THREAD 1
#endif

typedef struct clocks {
    double wall, cpu, utime, stime, run_delay, majflt, switches;
} clocks;

static inline double ts_s(struct timespec t)
{
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static inline double tv_s(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

static inline double run_delay_s(void)
{
    unsigned long long run = 0, delay = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (f) {
        if (fscanf(f, "%llu %llu", &run, &delay) != 2)
            delay = 0;
        fclose(f);
    }
    return (double)delay * 1e-9;
}

/* The calling thread's CPU time alone: what work-split programs measure around each part,
 * since equal work is not equal CPU time on a shared machine (a neighbour on the other
 * hyperthread, the hypervisor's steal). */
static inline double thread_cpu_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return ts_s(t);
}

static inline clocks clocks_now(void)
{
    clocks c = {0};
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    c.wall = ts_s(t);
    c.cpu = thread_cpu_s();
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    c.utime = tv_s(ru.ru_utime);
    c.stime = tv_s(ru.ru_stime);
    c.majflt = (double)ru.ru_majflt;
    c.switches = (double)(ru.ru_nvcsw + ru.ru_nivcsw);
    c.run_delay = run_delay_s();
    return c;
}

#endif /* THREAD_CLOCKS_H */
