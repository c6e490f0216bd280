/*
 * sigsafe_limits.c - when samples may be recorded: not paused, inside the -t window, under the
 * -L size limit; and the `limit` records that say when recording stopped or started.
 * Runs in the sample handler: no locks but the bounded process-stream trylock.
 */
#include "collector.h"

/* Write a limit record once (the flag says it is written). Signal-safe. */
static void note_once(volatile int *flag, unsigned what, uint64_t when, const char *detail)
{
    if (__atomic_load_n(flag, __ATOMIC_ACQUIRE))
        return;
    hpc_stream *s = hpc_proc_trylock();
    if (!s)
        return; /* this thread holds the lock: a later sample notes it */
    if (!__atomic_exchange_n(flag, 1, __ATOMIC_ACQ_REL)) {
        hpc_rec_limit r = {.time = when, .what = what, .detail = hpc_cstr(detail)};
        hpc_write_limit(s, &r);
    }
    hpc_proc_unlock();
}

void hpc_note_limit(unsigned what, uint64_t when, const char *detail)
{
    volatile int *flag = what == HPC_LIMIT_TIME_START ? &hpc_P.window_start_noted
                         : what == HPC_LIMIT_TIME_END ? &hpc_P.window_end_noted
                                                      : &hpc_P.limit_noted;
    note_once(flag, what, when, detail);
}

void hpc_limit_reached(void)
{
    note_once(&hpc_P.limit_noted, HPC_LIMIT_SIZE, hpc_now_ns(),
              "size limit (-L) reached: recording stopped, the program went on");
}

bool hpc_recording_at(uint64_t now)
{
    if (!hpc_P.active || hpc_P.paused)
        return false;
    if (__atomic_load_n(&hpc_P.budget.exceeded, __ATOMIC_RELAXED)) {
        hpc_limit_reached();
        return false;
    }
    const hpc_config *c = &hpc_P.cfg;
    uint64_t rel = now - hpc_P.start_ns;
    if (c->tstart_ns && rel < c->tstart_ns)
        return false;
    if (c->tend_ns && rel >= c->tend_ns) {
        if (!hpc_P.window_end_noted)
            hpc_note_limit(HPC_LIMIT_TIME_END, hpc_P.start_ns + c->tend_ns,
                           "end of the -t window: recording stopped");
        return false;
    }
    if (c->tstart_ns && !hpc_P.window_start_noted)
        hpc_note_limit(HPC_LIMIT_TIME_START, hpc_P.start_ns + c->tstart_ns,
                       "start of the -t window: recording started");
    return true;
}
