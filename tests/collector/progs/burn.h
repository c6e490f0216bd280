/* burn.h - CPU work of a known amount for the collector's ground-truth programs. */
#ifndef BURN_H
#define BURN_H
#include <time.h>

static inline double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline double process_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Spin until this thread has used `seconds` more CPU time. */
static volatile double burn_sink;
static inline void burn_cpu(double seconds)
{
    double end = thread_cpu_s() + seconds, x = 1.0;
    while (thread_cpu_s() < end)
        for (int i = 0; i < 20000; i++)
            x = x * 1.0000001 + 1e-9;
    burn_sink = x;
}
#endif
