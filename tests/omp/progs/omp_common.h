/* omp_common.h - helpers for the OpenMP ground-truth programs: burn a known amount of
 * this thread's CPU time; measure the CPU and wall-clock time a thread spends somewhere
 * (the programs print their own truth, which the tests compare with the profile: on a
 * loaded machine a spinning wait's CPU time depends on how the scheduler shares the
 * cores, so the truth is measured, not assumed). */
#ifndef OMP_COMMON_H
#define OMP_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

static inline uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline uint64_t thread_cpu_ns(void)
{
    return clock_ns(CLOCK_THREAD_CPUTIME_ID);
}

static volatile double omp_sink;

/* Spin until this thread has used `ns` more nanoseconds of CPU. noinline so it shows as a
 * function of its own in profiles. */
__attribute__((noinline, unused)) static void burn_cpu(uint64_t ns)
{
    uint64_t end = thread_cpu_ns() + ns;
    double x = omp_sink;
    do {
        for (int i = 0; i < 2000; i++)
            x = x * 0.999999 + 1e-9;
    } while (thread_cpu_ns() < end);
    omp_sink = x;
}

/* CPU and wall-clock time of one thread in one kind of activity. */
typedef struct truth {
    uint64_t cpu_ns, wall_ns;
} truth;

typedef struct stopwatch {
    uint64_t cpu, wall;
} stopwatch;

static inline stopwatch stopwatch_start(void)
{
    return (stopwatch){thread_cpu_ns(), clock_ns(CLOCK_MONOTONIC)};
}

/* Add the time since w to t and restart w. */
static inline void stopwatch_lap(stopwatch *w, truth *t)
{
    stopwatch now = stopwatch_start();
    t->cpu_ns += now.cpu - w->cpu;
    t->wall_ns += now.wall - w->wall;
    *w = now;
}

/* "truth thread=T what=W cpu_ns=N wall_ns=N", one line, for the tests. */
static inline void truth_print(int thread, const char *what, const truth *t)
{
    printf("truth thread=%d what=%s cpu_ns=%llu wall_ns=%llu\n", thread, what,
           (unsigned long long)t->cpu_ns, (unsigned long long)t->wall_ns);
}

#endif
