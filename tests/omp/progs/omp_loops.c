/*
 * omp_loops - worksharing constructs with known imbalance in one parallel region (built
 * -O2 by both compilers). REPS times, a region of 2 threads runs:
 *   loop A   schedule(static), 2 iterations: thread 0 burns 3 UNIT, thread 1 1 UNIT
 *            (imbalance: most over mean = 3 / 2 = 1.5)
 *   loop B   schedule(static), 2 iterations: thread 0 burns 2 UNIT, thread 1 1 UNIT
 *            (imbalance 2 / 1.5 = 1.33)
 *   loop C   schedule(static), 2 iterations of 1 UNIT each (imbalance 1.0)
 * each ended by its implicit barrier, where the thread with less work waits. gcc leaves no
 * record of a static loop on libomp, only its barrier; clang's loops report their own.
 * The pragmas are marked "LOOP name".
 * Usage: omp_loops [reps [unit_ms]]   (defaults 10, 10)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static uint64_t unit_ns;

__attribute__((noinline)) static void loops(int reps)
{
    for (int r = 0; r < reps; r++) {
#pragma omp parallel num_threads(2)
        {
#pragma omp for schedule(static) /* LOOP A */
            for (int i = 0; i < 2; i++)
                burn_cpu(i == 0 ? 3 * unit_ns : unit_ns);
#pragma omp for schedule(static) /* LOOP B */
            for (int i = 0; i < 2; i++)
                burn_cpu(i == 0 ? 2 * unit_ns : unit_ns);
#pragma omp for schedule(static) /* LOOP C */
            for (int i = 0; i < 2; i++)
                burn_cpu(unit_ns);
        }
    }
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    unit_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 10) * 1000000ull;
    loops(reps);
    printf("omp_loops: %d reps of %llu ns\n", reps, (unsigned long long)unit_ns);
    return 0;
}
