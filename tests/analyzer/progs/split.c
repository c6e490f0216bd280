/*
 * split.c - ground truth for shares: three leaves doing 50/30/20 of identical work under
 * two callers doing 70/30 of it.
 *
 *     split [ITERATIONS_PER_UNIT]          (default 6000000; 100 units in all)
 *
 *   caller_a: leaf1 40 units, leaf2 20, leaf3 10   -> 70
 *   caller_b: leaf1 10 units, leaf2 10, leaf3 10   -> 30
 *   leaves:   leaf1 50, leaf2 30, leaf3 20
 *
 * Each leaf's loop is on one line marked HOT so tests can find it; the leaves are copies,
 * not calls of one helper, so all their time is exclusive to them. Equal work is not equal
 * CPU time on a shared machine, so each leaf call measures itself and the program prints
 * the truth at the end, one line per caller and leaf:
 *
 *     cpu caller_a|caller_b leaf1|leaf2|leaf3 SECONDS
 */
#include <stdio.h>
#include <stdlib.h>

#include "thread_clocks.h"

volatile double sink;

/* One line per loop (the HOT markers): keep clang-format from splitting them. Each leaf
 * adds the CPU time it took to *cpu (its own clock reads: a caller timing it would have
 * callees besides the leaves). */
/* clang-format off */
__attribute__((noinline)) void leaf1(long n, double *cpu)
{
    double t0 = thread_cpu_s(), s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT leaf1 */
    sink += s;
    *cpu += thread_cpu_s() - t0;
}

__attribute__((noinline)) void leaf2(long n, double *cpu)
{
    double t0 = thread_cpu_s(), s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT leaf2 */
    sink += s;
    *cpu += thread_cpu_s() - t0;
}

__attribute__((noinline)) void leaf3(long n, double *cpu)
{
    double t0 = thread_cpu_s(), s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT leaf3 */
    sink += s;
    *cpu += thread_cpu_s() - t0;
}
/* clang-format on */

static double cpu[2][3]; /* [caller][leaf] */

/* Interleaved in rounds so no leaf runs in one long phase at one end of the run. */
__attribute__((noinline)) void caller_a(long unit, int round)
{
    (void)round;
    leaf1(4 * unit, &cpu[0][0]);
    leaf2(2 * unit, &cpu[0][1]);
    leaf3(1 * unit, &cpu[0][2]);
}

__attribute__((noinline)) void caller_b(long unit, int round)
{
    (void)round;
    leaf1(1 * unit, &cpu[1][0]);
    leaf2(1 * unit, &cpu[1][1]);
    leaf3(1 * unit, &cpu[1][2]);
}

int main(int argc, char **argv)
{
    long unit = argc > 1 ? atol(argv[1]) : 6000000;
    for (int round = 0; round < 10; round++) {
        caller_a(unit, round);
        caller_b(unit, round);
    }
    printf("split done %g\n", sink > 0 ? 1.0 : 0.0);
    for (int c = 0; c < 2; c++)
        for (int l = 0; l < 3; l++)
            printf("cpu caller_%c leaf%d %.6f\n", 'a' + c, l + 1, cpu[c][l]);
    return 0;
}
