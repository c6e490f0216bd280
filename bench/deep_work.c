/*
 * deep_work.c - the throttle benchmark's program: DIVES (argv[1]) times a recursion
 * DEPTH (argv[2], 400) deep, then a fixed amount of arithmetic at its bottom. The work is
 * fixed (no clock is read), so the time it takes under a collector shows the collector's
 * cost: at -p 50u one unwind of a 400-deep stack costs more than the interval.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void dive(int depth)
{
    if (depth <= 0) {
        double x = 1.0;
        for (int i = 0; i < 2000000; i++)
            x = x * 1.0000001 + 1e-9;
        sink += x;
        return;
    }
    dive(depth - 1);
    sink += depth; /* not a tail call */
}

int main(int argc, char **argv)
{
    int dives = argc > 1 ? atoi(argv[1]) : 500, depth = argc > 2 ? atoi(argv[2]) : 400;
    for (int i = 0; i < dives; i++)
        dive(depth);
    printf("%g\n", sink > 0 ? 1.0 : 0.0);
    return 0;
}
