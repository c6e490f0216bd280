/*
 * split.c - two functions doing identical work in a 60/40 split of the CPU time
 * (by iteration count, not by time), for comparing the clock sources' shares.
 */
#include <stdio.h>

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
    for (int i = 0; i < 30; i++) {
        part_a(3 * unit);
        part_b(2 * unit);
    }
    printf("done\n");
    return 0;
}
