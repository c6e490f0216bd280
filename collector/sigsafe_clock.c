/*
 * sigsafe_clock.c - the signal handler's side of the clock sources (source.h): is a
 * SIGPROF delivery one of our clock samples? perf events signal with si_code POLL_IN and
 * the event's descriptor in si_fd; the timer source with SI_TIMER and its cookie in
 * si_value. The program's own SIGPROF (setitimer, its timers, kill) carries neither.
 * Signal-safe.
 */
#include "source.h"

bool hpc_perf_clock_is_ours(const hpc_thread_priv *t, const siginfo_t *si)
{
    if (si->si_code != POLL_IN)
        return false;
    return t ? si->si_fd == t->perf_fd : true;
}

bool hpc_timer_clock_is_ours(const hpc_thread_priv *t, const siginfo_t *si)
{
    if (si->si_code != SI_TIMER)
        return false;
    uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
    return t ? v == hpc_timer_cookie(t) : (v & HPC_TIMER_COOKIE_MASK) == HPC_TIMER_COOKIE_MAGIC;
}

bool hpc_clock_is_ours(const hpc_thread_priv *t, const siginfo_t *si)
{
    if (!t) /* a thread no longer followed: any of our sources' */
        return hpc_perf_clock_is_ours(NULL, si) || hpc_timer_clock_is_ours(NULL, si);
    switch (t->clock_source) {
    case HPC_CLOCK_PERF_TASK_CLOCK:
        return hpc_perf_clock_is_ours(t, si);
    case HPC_CLOCK_POSIX_CPU_TIMER:
        return hpc_timer_clock_is_ours(t, si);
    default:
        return false;
    }
}
