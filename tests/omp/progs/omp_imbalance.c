/*
 * omp_imbalance - ground truth for OpenMP Work and Wait.
 *
 * REGIONS parallel regions of 2 threads in imbalanced(); in each, thread t burns (t+1)
 * units of CPU and then meets the barrier: with 2 threads thread 0 works 1 unit and
 * waits 1, thread 1 works 2, so work is 3/4 and wait 1/4 of the threads' time when the
 * waiting thread spins (OMP_WAIT_POLICY=active) and both threads get the same share of
 * the CPUs. Each thread also measures its own CPU and wall-clock time working and at the
 * barrier and prints it ("truth" lines): on a loaded machine the scheduler moves the
 * split away from 3/4, and the tests compare the profile with what really happened.
 *
 * Arguments: [regions [unit_ms [mode]]], defaults 40 5 explicit. mode:
 *   explicit  the barrier is `#pragma omp barrier` (measured by the threads)
 *   implicit  the region's implicit barrier at its end (not measurable from inside)
 *   alt       implicit, and thread t does 2-t units in odd regions: both threads wait
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_common.h"

static truth work[2], waits[2];
static stopwatch body_end[2]; /* where each thread's region body ended */

__attribute__((noinline)) static void imbalanced(int regions, uint64_t unit_ns, int mode)
{
    for (int r = 0; r < regions; r++) {
#pragma omp parallel num_threads(2) /* CONSTRUCT imbalanced */
        {
            int t = omp_get_thread_num();
            stopwatch w = stopwatch_start();
            burn_cpu((uint64_t)((mode == 2 && r % 2) ? 2 - t : t + 1) * unit_ns);
            stopwatch_lap(&w, &work[t]);
            if (mode == 0) {
#pragma omp barrier
                stopwatch_lap(&w, &waits[t]);
            }
            body_end[t] = w;
        }
        /* The master also waits at the region's end for the worker to leave its body. */
        if (mode == 0)
            stopwatch_lap(&body_end[0], &waits[0]);
    }
}

int main(int argc, char **argv)
{
    int regions = argc > 1 ? atoi(argv[1]) : 40;
    uint64_t unit_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 5) * 1000000ull;
    const char *m = argc > 3 ? argv[3] : "explicit";
    int mode = strcmp(m, "explicit") == 0 ? 0 : strcmp(m, "implicit") == 0 ? 1 : 2;
    imbalanced(regions, unit_ns, mode);
    printf("omp_imbalance: %d regions, unit %llu ns, %s barrier\n", regions,
           (unsigned long long)unit_ns, m);
    for (int t = 0; t < 2; t++) {
        truth_print(t, "work", &work[t]);
        if (mode == 0)
            truth_print(t, "wait", &waits[t]);
    }
    return 0;
}
