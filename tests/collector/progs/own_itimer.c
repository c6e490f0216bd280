/*
 * own_itimer.c - a program that profiles itself with ITIMER_PROF and its own SIGPROF
 * handler (as gprof-style tools do). It must complete, its handler must see its timer's
 * ticks, and the collector's samples must stay intact. Prints the tick count; exit 0 if
 * the program saw at least half of the ticks its timer should give for the CPU used.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "burn.h"

static volatile int ticks;

static void on_prof(int sig)
{
    (void)sig;
    ticks++;
}

int main(void)
{
    signal(SIGPROF, on_prof);
    struct itimerval it = {{0, 10000}, {0, 10000}}; /* 10 ms of process CPU time */
    if (setitimer(ITIMER_PROF, &it, NULL) != 0)
        return 10;
    burn_cpu(1.0);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    printf("own ITIMER_PROF ticks: %d\n", ticks);
    return ticks >= 50 ? 0 : 1;
}
