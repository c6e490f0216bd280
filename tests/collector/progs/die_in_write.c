/*
 * die_in_write.c - a killing signal that comes while the collector writes a record of
 * the thread (rule 1 of collector/sigsafe.h: its stream is busy), made deterministic:
 * the program itself holds its stream busy through the collector's in-process API
 * (collector_api.h, as the MPI wrappers and the thread-state code do), sends itself
 * SIGTERM there, and burns CPU before it lets go. The end must wait for the write's end
 * and then record the thread's last CPU time (and, in an MPI rank, the call it dies in);
 * before, it found the stream busy and wrote neither.
 *
 *     die_in_write MS_BEFORE MS_INSIDE
 *
 * burns MS_BEFORE ms of CPU in burn_before (clock samples), then MS_INSIDE ms in
 * burn_inside with the stream held (samples there are blocked: their CPU goes to the
 * next sample, here the end's). Prints "held" once SIGTERM was sent and "survived" if
 * it is still alive after the stream is let go (it must not be). Runs under hpcollect
 * only.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "collector_api.h"

/* the collector's, from the preloaded library (weak: the program links without it) */
#pragma weak hpcollect_self
#pragma weak hpcollect_die_deferred

static volatile double sink;

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void burn(double s)
{
    double end = thread_cpu() + s;
    while (thread_cpu() < end)
        for (int i = 0; i < 1000; i++)
            sink += i;
}

__attribute__((noinline)) void burn_before(double s)
{
    burn(s);
}

__attribute__((noinline)) void burn_inside(double s)
{
    burn(s);
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    hpc_thread *t = hpcollect_self ? hpcollect_self() : NULL;
    if (!t) {
        fprintf(stderr, "die_in_write: not under hpcollect\n");
        return 2;
    }
    burn_before(atof(argv[1]) / 1000);
    hpcollect_write_begin(t);
    kill(getpid(), SIGTERM); /* delivered to this thread before kill returns */
    printf("held\n");
    fflush(stdout);
    burn_inside(atof(argv[2]) / 1000);
    hpcollect_write_end(t);
    printf("survived\n");
    return 0;
}
