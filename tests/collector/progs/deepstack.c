/*
 * deepstack.c - many distinct deep stacks (recursion 600 deep through four functions
 * chosen at random at each level) for SECONDS of CPU: every sample's stack is new, so
 * the experiment grows fast (used to reach the -L size limit). Prints "done" at the end.
 */
#include <stdio.h>
#include <stdlib.h>

#include "burn.h"

static unsigned seed = 12345;
static volatile double sink;

static void dive(int depth);
#define LEVEL(name)                                                                                \
    __attribute__((noinline)) static void name(int depth)                                          \
    {                                                                                              \
        dive(depth - 1);                                                                           \
        sink += depth;                                                                             \
    }
LEVEL(a)
LEVEL(b)
LEVEL(c)
LEVEL(d)

__attribute__((noinline)) static void dive(int depth)
{
    if (depth <= 0) {
        burn_cpu(0.002);
        return;
    }
    seed = seed * 1103515245u + 12345u;
    switch ((seed >> 16) & 3) {
    case 0:
        a(depth);
        break;
    case 1:
        b(depth);
        break;
    case 2:
        c(depth);
        break;
    default:
        d(depth);
        break;
    }
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    double end = thread_cpu_s() + seconds;
    while (thread_cpu_s() < end)
        dive(600);
    printf("done\n");
    return 0;
}
