/*
 * own_itimer.c - a program that profiles itself with ITIMER_PROF and its own SIGPROF
 * handler (as gprof-style tools do), every 10 ms of process CPU time, while it burns 1 s
 * of CPU, and on until its timer has expired 50 times (or 20 s of CPU have passed). It
 * must complete and every expiration's SIGPROF must reach its handler.
 *
 * Expirations are counted apart from the signal: each one reloads the timer, which
 * getitimer shows as the time left going up. (How many expirations a second of CPU
 * gives is the kernel's business: on a busy virtual machine a loop that only burned CPU
 * for 1 s got 0-49 of them instead of 100, with or without a collector; so the program
 * counts them instead of assuming them.)
 *
 * Prints "own ITIMER_PROF ticks: T of E expirations"; exit 0 when T == E and E > 0.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "burn.h"

#define WANT     50
#define MIN_CPU  1.0
#define MAX_CPU  20.0
#define INTERVAL 10000 /* us */

static volatile int ticks;

static void on_prof(int sig)
{
    (void)sig;
    ticks++;
}

static long left_us(void)
{
    struct itimerval it;
    getitimer(ITIMER_PROF, &it);
    return it.it_value.tv_sec * 1000000L + it.it_value.tv_usec;
}

int main(void)
{
    signal(SIGPROF, on_prof);
    struct itimerval it = {{0, INTERVAL}, {0, INTERVAL}};
    if (setitimer(ITIMER_PROF, &it, NULL) != 0)
        return 10;
    int expired = 0;
    long left = left_us();
    double start = thread_cpu_s(), cpu = 0;
    while ((expired < WANT || cpu < MIN_CPU) && cpu < MAX_CPU) {
        burn_cpu(0.0001);
        long now = left_us();
        expired += now > left; /* reloaded: at most one expiration per 100 us of CPU */
        left = now;
        cpu = thread_cpu_s() - start;
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    printf("own ITIMER_PROF ticks: %d of %d expirations\n", ticks, expired);
    return ticks == expired && expired > 0 ? 0 : 1;
}
