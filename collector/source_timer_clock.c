/*
 * source_timer_clock.c - the fallback clock source: a POSIX timer on the thread's CPU
 * clock (timer_create(CLOCK_THREAD_CPUTIME_ID) with SIGEV_THREAD_ID), for where
 * perf_event_open is refused (perf_event_paranoid, seccomp, containers, out of fds), and
 * every new thread's first clock until its first sample (source.h: lazy). The kernel
 * checks CPU timers at its tick, so samples come at most at HZ per second whatever the
 * interval; the weights (CPU time since the previous sample) stay exact. The signal
 * carries a cookie in si_value so foreign SIGPROF timers are told apart. The timer is
 * the kernel's, by raw system calls, so the handler's steps (sigsafe_clock.c) are too.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "source.h"

static int timer_open(hpc_thread_priv *t, uint64_t interval_ns)
{
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_signo = HPC_CLOCK_SIGNAL;
    ev.sigev_value.sival_ptr = (void *)(uintptr_t)hpc_timer_cookie(t);
    ev.sigev_notify_thread_id = t->pub.tid ? t->pub.tid : (pid_t)syscall(SYS_gettid);
    if (syscall(SYS_timer_create, CLOCK_THREAD_CPUTIME_ID, &ev, &t->timer_id) != 0)
        return -errno;
    t->timer_ok = 1;
    t->clock_period = interval_ns; /* applied by start */
    return 0;
}

static int timer_start(hpc_thread_priv *t)
{
    if (t->clock_lazy && hpc_P.cfg.debug_lazy_timer_mute) /* tests: it never fires */
        return hpc_timer_set_period(t, 1000000000000000ull);
    return hpc_timer_set_period(t, t->clock_period);
}

static void timer_stop(hpc_thread_priv *t)
{
    hpc_timer_release(t);
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
