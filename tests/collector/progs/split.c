/*
 * split.c - two functions doing identical work in a 60/40 split of the CPU time
 * (by iteration count, not by time), for comparing the clock sources' shares. Equal work
 * is not equal CPU time on a shared machine: it measures each part and prints the truth,
 *
 *     cpu part_a|part_b SECONDS
 */
#include <stdio.h>

#include "thread_clocks.h"

static volatile double sink;

__attribute__((noinline)) void part_a(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

__attribute__((noinline)) void part_b(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(void)
{
    const long unit = 4000000; /* about 10 ms per unit here */
    double a = 0, b = 0;
    for (int i = 0; i < 30; i++) {
        double t0 = thread_cpu_s();
        part_a(3 * unit);
        double t1 = thread_cpu_s();
        part_b(2 * unit);
        a += t1 - t0;
        b += thread_cpu_s() - t1;
    }
    printf("done\ncpu part_a %.6f\ncpu part_b %.6f\n", a, b);
    return 0;
}
