/*
 * omp_imbalance - ground truth for OpenMP Work and Wait.
 *
 * REGIONS parallel regions of 2 threads in imbalanced(); in each, thread t burns (t+1)
 * units of CPU and then meets the implicit barrier at the region's end. With 2 threads
 * and spinning waits (OMP_WAIT_POLICY=active), thread 0 works 1 unit and waits 1, thread
 * 1 works 2: work is 3/4 and wait 1/4 of the threads' time in the regions.
 * With "alt" as third argument the roles swap in odd regions (thread t does 2-t units),
 * so both threads wait at the barrier; the totals stay 3/4 and 1/4.
 * Usage: omp_imbalance [regions [unit_ms [alt]]]   (defaults 40, 5)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp_common.h"

__attribute__((noinline)) static void imbalanced(int regions, uint64_t unit_ns, int alt)
{
    for (int r = 0; r < regions; r++) {
#pragma omp parallel num_threads(2) /* CONSTRUCT imbalanced */
        {
            int t = omp_get_thread_num();
            burn_cpu((uint64_t)((alt && r % 2) ? 2 - t : t + 1) * unit_ns);
        }
    }
}

int main(int argc, char **argv)
{
    int regions = argc > 1 ? atoi(argv[1]) : 40;
    uint64_t unit_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 5) * 1000000ull;
    int alt = argc > 3 && strcmp(argv[3], "alt") == 0;
    imbalanced(regions, unit_ns, alt);
    printf("omp_imbalance: %d regions, unit %llu ns\n", regions, (unsigned long long)unit_ns);
    return 0;
}
