/*
 * omp_control - omp_control_tool pauses and resumes the profiler (OpenMP 5.0).
 *
 * Three phases of 2 threads burning 100 ms of CPU each: recorded, paused with
 * omp_control_tool(omp_control_tool_pause), recorded again after
 * omp_control_tool(omp_control_tool_start). A profile holds phase1 and phase3, not phase2.
 * Prints the tool's answer to each call ("control pause=R start=R"; 0 = success, -2 no
 * tool, -9 the runtime lacks the call).
 *
 * GNU libgomp has no omp_control_tool (gcc's omp.h does not declare it): declared here
 * weak with OpenMP 5.0's command values, so the gcc build links, and calls LLVM libomp's
 * when hpcollect runs it on libomp.
 */
#include <omp.h>
#include <stdio.h>

#include "omp_common.h"

extern int omp_control_tool(int command, int modifier, void *arg) __attribute__((weak));
enum { TOOL_START = 1, TOOL_PAUSE = 2 };

static int control(int command)
{
    return omp_control_tool ? omp_control_tool(command, 0, NULL) : -9;
}

__attribute__((noinline)) static void phase(int n)
{
#pragma omp parallel num_threads(2)
    burn_cpu(100000000ull);
    (void)n;
}

__attribute__((noinline)) static void phase1(void)
{
    phase(1);
}

__attribute__((noinline)) static void phase2(void)
{
    phase(2);
}

__attribute__((noinline)) static void phase3(void)
{
    phase(3);
}

int main(void)
{
    phase1();
    int p = control(TOOL_PAUSE);
    phase2();
    int s = control(TOOL_START);
    phase3();
    printf("control pause=%d start=%d\n", p, s);
    return 0;
}
