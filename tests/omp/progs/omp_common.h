/* omp_common.h - helpers for the OpenMP ground-truth programs: burn a known amount of
 * this thread's CPU time. */
#ifndef OMP_COMMON_H
#define OMP_COMMON_H

#include <stdint.h>
#include <time.h>

static inline uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static volatile double omp_sink;

/* Spin until this thread has used `ns` more nanoseconds of CPU. noinline so it shows as a
 * function of its own in profiles. */
__attribute__((noinline)) static void burn_cpu(uint64_t ns)
{
    uint64_t end = thread_cpu_ns() + ns;
    double x = omp_sink;
    do {
        for (int i = 0; i < 2000; i++)
            x = x * 0.999999 + 1e-9;
    } while (thread_cpu_ns() < end);
    omp_sink = x;
}

#endif
