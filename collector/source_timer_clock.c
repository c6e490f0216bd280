/*
 * source_timer_clock.c - the fallback clock source: a POSIX timer on the thread's CPU
 * clock (timer_create(CLOCK_THREAD_CPUTIME_ID) with SIGEV_THREAD_ID), for where
 * perf_event_open is refused (perf_event_paranoid, seccomp, containers, out of fds).
 * The kernel checks CPU timers at its tick, so samples come at most at HZ per second
 * whatever the interval; the weights (CPU time since the previous sample) stay exact.
 * The signal carries a cookie in si_value so foreign SIGPROF timers are told apart.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "source.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static int timer_open(hpc_thread_priv *t, uint64_t interval_ns)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = HPC_CLOCK_SIGNAL;
    ev.sigev_value.sival_ptr = (void *)(uintptr_t)hpc_timer_cookie(t);
    ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
    if (timer_create(CLOCK_THREAD_CPUTIME_ID, &ev, &t->timer) != 0)
        return -errno;
    t->timer_ok = 1;
    /* remember the interval in the timer's own setting, applied by start */
    struct itimerspec its = {
        {(time_t)(interval_ns / 1000000000ULL), (long)(interval_ns % 1000000000ULL)}, {0, 0}};
    its.it_value = its.it_interval;
    t->timer_spec = its;
    return 0;
}

static int timer_start(hpc_thread_priv *t)
{
    return timer_settime(t->timer, 0, &t->timer_spec, NULL) == 0 ? 0 : -errno;
}

static void timer_stop(hpc_thread_priv *t)
{
    if (t->timer_ok) {
        timer_delete(t->timer);
        t->timer_ok = 0;
    }
}

/* Timers are not inherited by a fork child. */
static void timer_abandon(hpc_thread_priv *t)
{
    t->timer_ok = 0;
}

const hpc_clock_ops hpc_timer_clock_ops = {
    .name = "timer_create CLOCK_THREAD_CPUTIME_ID",
    .id = HPC_CLOCK_POSIX_CPU_TIMER,
    .open = timer_open,
    .start = timer_start,
    .stop = timer_stop,
    .abandon = timer_abandon,
};
