/*
 * omp_nested - nested parallelism and explicit tasks.
 *
 * OUTER times: a region of 2 threads, each of which opens an inner region of 2 threads
 * (OMP_MAX_ACTIVE_LEVELS=2 makes them real teams) where every thread burns UNIT of CPU.
 * Then one region of 2 threads where a single thread creates TASKS tasks of UNIT each
 * and waits for them with taskwait (the other thread runs tasks from its barrier).
 * Known counts: OUTER outer regions, 2*OUTER inner regions, 1 task region, TASKS tasks;
 * CPU burnt in burn_cpu: (4*OUTER + TASKS) * UNIT.
 * Usage: omp_nested [outer [tasks [unit_ms]]]   (defaults 10, 40, 2)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

__attribute__((noinline)) static void inner(uint64_t unit_ns)
{
#pragma omp parallel num_threads(2)
    burn_cpu(unit_ns);
}

__attribute__((noinline)) static void nested(int outer, uint64_t unit_ns)
{
    for (int r = 0; r < outer; r++) {
#pragma omp parallel num_threads(2)
        inner(unit_ns);
    }
}

__attribute__((noinline)) static void tasks(int ntasks, uint64_t unit_ns)
{
#pragma omp parallel num_threads(2)
#pragma omp single
    {
        for (int i = 0; i < ntasks; i++) {
#pragma omp task
            burn_cpu(unit_ns);
        }
#pragma omp taskwait
    }
}

int main(int argc, char **argv)
{
    int outer = argc > 1 ? atoi(argv[1]) : 10;
    int ntasks = argc > 2 ? atoi(argv[2]) : 40;
    uint64_t unit_ns = (argc > 3 ? strtoull(argv[3], NULL, 10) : 2) * 1000000ull;
    nested(outer, unit_ns);
    tasks(ntasks, unit_ns);
    printf("omp_nested: %d outer, %d tasks, unit %llu ns, max active levels %d\n", outer, ntasks,
           (unsigned long long)unit_ns, omp_get_max_active_levels());
    return 0;
}
