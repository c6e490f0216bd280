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
 * not calls of one helper, so all their time is exclusive to them.
 */
#include <stdio.h>
#include <stdlib.h>

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

/* Interleaved in rounds so no leaf runs in one long phase at one end of the run. */
__attribute__((noinline)) void caller_a(long unit, int round)
{
    (void)round;
    leaf1(4 * unit);
    leaf2(2 * unit);
    leaf3(1 * unit);
}

__attribute__((noinline)) void caller_b(long unit, int round)
{
    (void)round;
    leaf1(1 * unit);
    leaf2(1 * unit);
    leaf3(1 * unit);
}

int main(int argc, char **argv)
{
    long unit = argc > 1 ? atol(argv[1]) : 6000000;
    for (int round = 0; round < 10; round++) {
        caller_a(unit, round);
        caller_b(unit, round);
    }
    printf("split done %g\n", sink > 0 ? 1.0 : 0.0);
    return 0;
}
