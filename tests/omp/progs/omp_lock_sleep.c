/*
 * omp_lock_sleep - an OpenMP lock held by a sleeping thread: the other thread's wait in
 * omp_set_lock is a lock wait (thread states: User Lock), the holder's sleep Other Wait.
 *
 * A region of 2 threads, twice (an omp_lock_t, then an omp_nest_lock_t: NESTED 0, 1):
 * thread 0 takes the lock, lets thread 1 go and sleeps HOLD_MS in nanosleep (in `holder`)
 * before it lets the lock go; thread 1 waits in omp_set_lock (in `lock_waiter`). Each
 * prints its own clocks around its wait (the sleep, the lock wait):
 *     phase FUNC NESTED WALL CPU RUNDELAY   (seconds: CLOCK_MONOTONIC, thread CPU time,
 *                                            /proc/thread-self/schedstat's run delay)
 * How libomp waits for a lock depends on KMP_LOCK_KIND: the default (queuing) spins and
 * yields, futex sleeps in the kernel.
 * Usage: omp_lock_sleep [hold_ms]   (default 700)
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "thread_clocks.h"

#include "omp_common.h"

static omp_lock_t lock;
static omp_nest_lock_t nest;
static atomic_int taken;

static void print_since(const char *fn, int nested, clocks c0)
{
    clocks c = clocks_now();
    printf("phase %s %d %.6f %.6f %.6f\n", fn, nested, c.wall - c0.wall, c.cpu - c0.cpu,
           c.run_delay - c0.run_delay);
}

__attribute__((noinline)) static void holder(int nested, long hold_ms)
{
    if (nested)
        omp_set_nest_lock(&nest);
    else
        omp_set_lock(&lock);
    atomic_store(&taken, 1);
    struct timespec ts = {hold_ms / 1000, (hold_ms % 1000) * 1000000L};
    clocks c0 = clocks_now();
    nanosleep(&ts, NULL);
    print_since("holder", nested, c0);
    if (nested)
        omp_unset_nest_lock(&nest);
    else
        omp_unset_lock(&lock);
}

__attribute__((noinline)) static void lock_waiter(int nested)
{
    while (!atomic_load(&taken))
        ;
    clocks c0 = clocks_now();
    if (nested)
        omp_set_nest_lock(&nest);
    else
        omp_set_lock(&lock);
    print_since("lock_waiter", nested, c0);
    if (nested)
        omp_unset_nest_lock(&nest);
    else
        omp_unset_lock(&lock);
}

int main(int argc, char **argv)
{
    long hold_ms = argc > 1 ? atol(argv[1]) : 700;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
    for (int nested = 0; nested < 2; nested++) {
        atomic_store(&taken, 0);
#pragma omp parallel num_threads(2)
        {
            if (omp_get_thread_num() == 0)
                holder(nested, hold_ms);
            else
                lock_waiter(nested);
        }
    }
    omp_destroy_lock(&lock);
    omp_destroy_nest_lock(&nest);
    return 0;
}
