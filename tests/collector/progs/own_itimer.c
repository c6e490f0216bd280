/*
 * own_itimer.c - a program that profiles itself with ITIMER_PROF and its own SIGPROF
 * handler (as gprof-style tools do), every 20 ms of process CPU time, while it burns 1 s
 * of CPU, and on until its timer has expired 50 times (or 20 s of CPU have passed). It
 * must complete and every expiration's SIGPROF must reach its handler.
 *
 * Expirations are counted apart from the signal: each one reloads the timer, which
 * getitimer shows as the time left jumping up. (How many expirations a second of CPU
 * gives is the kernel's business: on a busy virtual machine a loop that only burned CPU
 * for 1 s got 0-49 of them instead of 100, with or without a collector; so the program
 * counts them instead of assuming them.) Two kernel details shape the count:
 *  - a timer past its expiry that the kernel has not yet fired reads as one tick left
 *    (4 ms at HZ=250), which can be a jump too; it stays at that value until the next
 *    tick fires it, while a reloaded timer counts down at once. So a jump is confirmed by
 *    a fall, and a jump that follows an unconfirmed one replaces it; the loop ends only
 *    on a confirmed jump;
 *  - the reload keeps the timer's phase, so after a late tick the time left can be far
 *    below the interval (957 -> 8957 us seen for 20 ms).
 * The disarm's old value says whether one more expiration came after the last look; a
 * jump there is taken only above half the interval, where the one-tick reading is not.
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
#define INTERVAL 20000 /* us: more than two ticks at HZ >= 100 */

static volatile int ticks;

static void on_prof(int sig)
{
    (void)sig;
    ticks++;
}

static long us(const struct itimerval *it)
{
    return it->it_value.tv_sec * 1000000L + it->it_value.tv_usec;
}

static long left_us(void)
{
    struct itimerval it;
    getitimer(ITIMER_PROF, &it);
    return us(&it);
}

typedef struct count {
    int expired;
    int confirmed; /* the last jump was followed by a fall (else a new jump replaces it) */
    long left;
} count;

static void look(count *c, long now)
{
    if (now > c->left) {
        c->expired += c->confirmed;
        c->confirmed = 0;
    } else if (now < c->left) {
        c->confirmed = 1;
    }
    c->left = now;
}

int main(void)
{
    signal(SIGPROF, on_prof);
    struct itimerval it = {{0, INTERVAL}, {0, INTERVAL}};
    if (setitimer(ITIMER_PROF, &it, NULL) != 0)
        return 10;
    count c = {.expired = 0, .confirmed = 1, .left = left_us()};
    double start = thread_cpu_s(), cpu = 0;
    /* at most one expiration per 100 us of CPU */
    while ((c.expired < WANT || cpu < MIN_CPU || !c.confirmed) && cpu < MAX_CPU) {
        burn_cpu(0.0001);
        look(&c, left_us());
        cpu = thread_cpu_s() - start;
    }
    int expired = c.expired;
    struct itimerval off = {{0, 0}, {0, 0}}, last;
    setitimer(ITIMER_PROF, &off, &last);
    if (us(&last) > c.left && us(&last) > INTERVAL / 2)
        expired++; /* its signal came before setitimer returned */
    printf("own ITIMER_PROF ticks: %d of %d expirations\n", ticks, expired);
    return ticks == expired && expired > 0 ? 0 : 1;
}
