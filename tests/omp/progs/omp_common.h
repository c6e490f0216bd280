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

#include "thread_clocks.h"

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

/* CPU and wall-clock time of one thread in one kind of activity, and how long of that
 * wall-clock time it was runnable but not running (schedstat's run delay: a bound on the
 * preemption inside the window that a tracer's narrower interval does not see). */
typedef struct truth {
    uint64_t cpu_ns, wall_ns, delay_ns;
} truth;

typedef struct stopwatch {
    uint64_t cpu, wall, delay;
} stopwatch;

static inline uint64_t run_delay_ns(void)
{
    return (uint64_t)(run_delay_s() * 1e9 + 0.5);
}

static inline stopwatch stopwatch_start(void)
{
    stopwatch w;
    w.delay = run_delay_ns(); /* the slow read outside the window */
    w.cpu = thread_cpu_ns();
    w.wall = clock_ns(CLOCK_MONOTONIC);
    return w;
}

/* Add the time since w to t and restart w. */
static inline void stopwatch_lap(stopwatch *w, truth *t)
{
    uint64_t wall = clock_ns(CLOCK_MONOTONIC), cpu = thread_cpu_ns();
    uint64_t delay = run_delay_ns();
    t->cpu_ns += cpu - w->cpu;
    t->wall_ns += wall - w->wall;
    t->delay_ns += delay - w->delay;
    *w = stopwatch_start();
}

/* "truth thread=T what=W cpu_ns=N wall_ns=N delay_ns=N", one line, for the tests. */
static inline void truth_print(int thread, const char *what, const truth *t)
{
    printf("truth thread=%d what=%s cpu_ns=%llu wall_ns=%llu delay_ns=%llu\n", thread, what,
           (unsigned long long)t->cpu_ns, (unsigned long long)t->wall_ns,
           (unsigned long long)t->delay_ns);
}

#endif
