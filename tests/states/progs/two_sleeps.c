/*
 * two_sleeps - two sleeps in a row, each in its own function, each measured by the
 * thread's own clocks:
 *
 *     phase FUNC WALL CPU RUNDELAY   (seconds: CLOCK_MONOTONIC, thread CPU time,
 *                                     /proc/thread-self/schedstat's run delay)
 *
 * first() sleeps FIRST_MS in nanosleep, second() SECOND_MS right after it.
 * tests/states/test_window_edge.sh runs it with the collector's end of a window held up
 * after its records were read (HPCOLLECT_DEBUG_STATES_GAP): that time must stay first's,
 * second's sleep its own.
 * Usage: two_sleeps [first_ms second_ms]   (default 300 500)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "thread_clocks.h"

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static void report(const char *fn, clocks a, clocks b)
{
    printf("phase %s %.6f %.6f %.6f\n", fn, b.wall - a.wall, b.cpu - a.cpu,
           b.run_delay - a.run_delay);
}

__attribute__((noinline)) void first(long ms)
{
    sleep_ms(ms);
}

__attribute__((noinline)) void second(long ms)
{
    sleep_ms(ms);
}

int main(int argc, char **argv)
{
    long a = argc > 2 ? atol(argv[1]) : 300, b = argc > 2 ? atol(argv[2]) : 500;
    clocks c0 = clocks_now();
    first(a);
    clocks c1 = clocks_now();
    second(b);
    clocks c2 = clocks_now();
    report("first", c0, c1);
    report("second", c1, c2);
    return 0;
}
