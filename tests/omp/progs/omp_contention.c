/*
 * omp_contention - a contended critical section, then a contended lock.
 *
 * critical_phase(): one parallel region of 2 threads; each enters `#pragma omp critical`
 * ITERS times and holds it for HOLD of CPU. lock_phase(): the same with an omp_lock_t.
 * Each thread holds the mutex ITERS times: 2*ITERS critical and 2*ITERS lock
 * acquisitions; while one holds, the other waits, so wait is about half the threads'
 * time in each region, and of the right kind only.
 * Usage: omp_contention [iters [hold_us]]   (defaults 100, 2000)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static omp_lock_t lock;

__attribute__((noinline)) static void critical_phase(int iters, uint64_t hold_ns)
{
#pragma omp parallel num_threads(2)
    for (int i = 0; i < iters; i++) {
#pragma omp critical(phase1)
        burn_cpu(hold_ns);
    }
}

__attribute__((noinline)) static void lock_phase(int iters, uint64_t hold_ns)
{
#pragma omp parallel num_threads(2)
    for (int i = 0; i < iters; i++) {
        omp_set_lock(&lock);
        burn_cpu(hold_ns);
        omp_unset_lock(&lock);
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
    return 0;
}
