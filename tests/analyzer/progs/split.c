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
 * CPU time on a shared machine, so the callers measure each leaf call and the program
 * prints the truth at the end, one line per caller and leaf:
 *
 *     cpu caller_a|caller_b leaf1|leaf2|leaf3 SECONDS
 */
#include <stdio.h>
#include <stdlib.h>

#include "thread_clocks.h"

volatile double sink;

/* One line per loop (the HOT markers): keep clang-format from splitting them. */
/* clang-format off */
__attribute__((noinline)) void leaf1(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT leaf1 */
    sink += s;
}

__attribute__((noinline)) void leaf2(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT leaf2 */
    sink += s;
}

__attribute__((noinline)) void leaf3(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT leaf3 */
    sink += s;
}
/* clang-format on */

static double cpu[2][3]; /* [caller][leaf] */

/* Calls a leaf and adds the CPU time it took to cpu[caller][leaf]. Inlined, so the
 * callers stay the leaves' only callers. */
static inline __attribute__((always_inline)) void timed(int caller, int leaf, long n)
{
    void (*const leaves[3])(long) = {leaf1, leaf2, leaf3};
    double t0 = thread_cpu_s();
    leaves[leaf](n);
    cpu[caller][leaf] += thread_cpu_s() - t0;
}

/* Interleaved in rounds so no leaf runs in one long phase at one end of the run. */
__attribute__((noinline)) void caller_a(long unit, int round)
{
    (void)round;
    timed(0, 0, 4 * unit);
    timed(0, 1, 2 * unit);
    timed(0, 2, 1 * unit);
}

__attribute__((noinline)) void caller_b(long unit, int round)
{
    (void)round;
    timed(1, 0, 1 * unit);
    timed(1, 1, 1 * unit);
    timed(1, 2, 1 * unit);
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
