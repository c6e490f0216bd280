/*
 * omp_contention - a contended critical section, then a contended lock.
 *
 * critical_phase(): one parallel region of 2 threads; each enters `#pragma omp critical`
 * ITERS times and holds it for HOLD of CPU. lock_phase(): the same with an omp_lock_t.
 * 2*ITERS critical and 2*ITERS lock acquisitions; while one thread holds the mutex the
 * other waits, so each waits about half of its time, of the right kind only. Each thread
 * measures its time waiting to enter (CPU and wall) and prints it ("truth" lines,
 * what=critical_wait / lock_wait).
 * Usage: omp_contention [iters [hold_us]]   (defaults 100, 2000)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static omp_lock_t lock;
static truth crit_wait[2], lock_wait[2], held[2];

__attribute__((noinline)) static void critical_phase(int iters, uint64_t hold_ns)
{
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        for (int i = 0; i < iters; i++) {
            stopwatch w = stopwatch_start();
#pragma omp critical(phase1)
            {
                stopwatch_lap(&w, &crit_wait[t]);
                burn_cpu(hold_ns);
                stopwatch_lap(&w, &held[t]);
            }
        }
    }
}

__attribute__((noinline)) static void lock_phase(int iters, uint64_t hold_ns)
{
#pragma omp parallel num_threads(2)
    {
        int t = omp_get_thread_num();
        for (int i = 0; i < iters; i++) {
            stopwatch w = stopwatch_start();
            omp_set_lock(&lock);
            stopwatch_lap(&w, &lock_wait[t]);
            burn_cpu(hold_ns);
            omp_unset_lock(&lock);
        }
    }
}

int main(int argc, char **argv)
{
    int iters = argc > 1 ? atoi(argv[1]) : 100;
    uint64_t hold_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 2000) * 1000ull;
    omp_init_lock(&lock);
    critical_phase(iters, hold_ns);
    lock_phase(iters, hold_ns);
    omp_destroy_lock(&lock);
    printf("omp_contention: %d iterations, hold %llu ns\n", iters, (unsigned long long)hold_ns);
    for (int t = 0; t < 2; t++) {
        truth_print(t, "critical_wait", &crit_wait[t]);
        truth_print(t, "lock_wait", &lock_wait[t]);
    }
    return 0;
}
