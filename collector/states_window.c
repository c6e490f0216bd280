/*
 * states_window.c - from the intervals the context-switch records give to the time the
 * kernel itself accounts (thread states, states.h). Pure arithmetic, signal-safe.
 *
 * A window runs from one read of the thread's clocks to the next; the thread is on a
 * CPU at both ends, so its time off the CPU in the window is exactly
 *     off = elapsed wall time - thread CPU time.
 * The records' intervals overshoot it: a switch-out record is written before the
 * scheduler's own work on the way out and a switch-in record after the work on the way
 * in, which the kernel counts as CPU time (about 1 us per switch on this VM, 4 us with
 * the clock's task-clock event switched too: docs/thread-states.md). That overlap is
 * about the same for every switch, so it is taken out per interval. And they cannot see
 * run-queue delay after a wakeup (the records say when the thread ran, not when it was
 * woken): what schedstat's run delay grew beyond the preempted intervals is moved from
 * the sleeps to Wait CPU, shared by their number (the delay is per wakeup, not per
 * length of sleep). When no records were lost, the window's states then sum to `off`,
 * and its Wait CPU to the run delay.
 *
 * With call times (the fallback without perf_event buffers) the intervals are blocking
 * calls' elapsed times: they hold the CPU time spent inside the calls (scaled down
 * together when they exceed `off`) and miss what happened outside them (preemption while
 * computing, sleeps in unwrapped code: what `off` leaves over, charged to the next
 * clock sample as Wait CPU as far as the run delay goes, Other Wait beyond).
 */
#include <string.h>

#include "collector.h"

/* share of x in parts n_part of n (rounded down; n > 0) */
static uint64_t part(uint64_t x, uint64_t n_part, uint64_t n)
{
    return (uint64_t)((unsigned __int128)x * n_part / n);
}

uint64_t hpc_states_window_settle(const hpc_states_window *w, uint64_t off_ns,
                                  uint64_t run_delay_ns, uint64_t acc[HPC_NMSTATES],
                                  uint64_t pend[HPC_NMSTATES])
{
    uint64_t raw[HPC_NMSTATES], n[HPC_NMSTATES], t[HPC_NMSTATES], total = 0, ntot = 0;
    for (unsigned s = 0; s < HPC_NMSTATES; s++) {
        raw[s] = w->raw_acc[s] + w->raw_pend[s];
        n[s] = (uint64_t)w->n_acc[s] + w->n_pend[s];
        total += raw[s];
        ntot += n[s];
    }
    if (ntot == 0 && !w->call_times)
        return 0;
    uint64_t outside = 0; /* call times: off-CPU time outside every call */
    if (w->call_times && total > off_ns) {
        for (unsigned s = 0; s < HPC_NMSTATES; s++)
            t[s] = part(raw[s], off_ns, total);
    } else if (w->call_times) {
        memcpy(t, raw, sizeof t);
        outside = off_ns - total;
    } else {
        /* the overlap per interval, taken out of each */
        uint64_t o = total > off_ns ? (total - off_ns) / ntot : 0;
        for (unsigned s = 0; s < HPC_NMSTATES; s++)
            t[s] = raw[s] - (n[s] * o < raw[s] ? n[s] * o : raw[s]);
    }
    /* run-queue delay after wakeups, out of the sleeps */
    uint64_t wake[HPC_NMSTATES] = {0};
    uint64_t preempt = t[HPC_MSTATE_WAIT_CPU], sleeps = ntot - n[HPC_MSTATE_WAIT_CPU];
    uint64_t delay =
        run_delay_ns != UINT64_MAX && run_delay_ns > preempt ? run_delay_ns - preempt : 0;
    for (unsigned s = 0; s < HPC_NMSTATES && delay && sleeps; s++) {
        if (s == HPC_MSTATE_WAIT_CPU || !n[s])
            continue;
        uint64_t d = part(delay, n[s], sleeps);
        wake[s] = d < t[s] ? d : t[s];
        t[s] -= wake[s];
    }
    if (w->call_times) { /* the rest of the run delay came outside the calls */
        for (unsigned s = 0; s < HPC_NMSTATES; s++)
            delay -= wake[s];
        uint64_t d = delay < outside ? delay : outside;
        pend[HPC_MSTATE_WAIT_CPU] += d;
        pend[HPC_MSTATE_OTHER_WAIT] += outside - d;
    }
    /* into acc and pend, each interval's share where it was read */
    uint64_t seen = 0;
    for (unsigned s = 0; s < HPC_NMSTATES; s++) {
        if (!n[s])
            continue;
        uint64_t a = part(t[s], w->n_acc[s], n[s]), wa = part(wake[s], w->n_acc[s], n[s]);
        acc[s] += a;
        pend[s] += t[s] - a;
        acc[HPC_MSTATE_WAIT_CPU] += wa;
        pend[HPC_MSTATE_WAIT_CPU] += wake[s] - wa;
        seen += t[s] + wake[s];
    }
    /* off-CPU time no interval covered: switch records the kernel lost */
    return w->lost && off_ns > seen ? off_ns - seen : 0;
}
