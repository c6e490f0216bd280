/*
 * cpu_bound.c - the collector benchmark's program: a fixed amount of floating-point
 * work (argv[1] units of 10^7 iterations, about 25 ms each here) in one steady stack.
 */
#include <stdio.h>
#include <stdlib.h>

static volatile double sink;

__attribute__((noinline)) static void kernel(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    int units = argc > 1 ? atoi(argv[1]) : 40;
    for (int u = 0; u < units; u++)
        kernel(10000000);
    printf("%.6f\n", sink);
    return 0;
}
