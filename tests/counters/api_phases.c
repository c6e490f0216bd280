/*
 * api_phases: marks its phases with the collector API of include/hpcollect.h (built by
 * test_api.sh with -I include and no library): setup() ends sample period
 * "setup", solve() period "solve"; checkpoint() runs between hpc_pause() and
 * hpc_resume(), so nothing of it is recorded; finish() ends the run. Runs the same with
 * or without the collector.
 */
#include <stdio.h>

#include <hpcollect.h>

static double spin(long n)
{
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    return x;
}

__attribute__((noinline)) static double setup(void)
{
    return spin(30000000);
}

__attribute__((noinline)) static double solve(void)
{
    return spin(60000000);
}

__attribute__((noinline)) static double checkpoint(void)
{
    return spin(30000000);
}

__attribute__((noinline)) static double finish(void)
{
    return spin(30000000);
}

int main(void)
{
    double x = setup();
    hpc_sample("setup");
    x += solve();
    hpc_sample("solve");
    hpc_pause();
    x += checkpoint();
    hpc_resume();
    x += finish();
    hpc_sample(NULL);
    printf("done %.0f\n", x);
    return 0;
}
