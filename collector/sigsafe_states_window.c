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
 * length of sleep). Time off the CPU that no interval covers is charged to the next
 * clock sample: Wait CPU as far as the run delay goes, and beyond it too (a virtual
 * machine's steal time: the guest thinks the thread ran, but its CPU clock, which leaves
 * steal out, did not advance; about 10% of the time on this shared VM), or Other Wait
 * when records were lost. The window's states then sum to `off`, and its Wait CPU to the
 * run delay plus steal time.
 *
 * With call times (the fallback without perf_event buffers) the intervals are blocking
 * calls' elapsed times: they hold the CPU time spent inside the calls (scaled down
 * together when they exceed `off`) and miss what happened outside them (preemption while
 * computing, sleeps in unwrapped code: what `off` leaves over, charged to the next
 * clock sample as Wait CPU as far as the run delay goes, Other Wait beyond).
 */
#include <string.h>

#include "collector.h"

/* share of x in parts n_part of n (n > 0, n_part <= n), in double: the product may not fit
 * 64 bits, and 128-bit division is a libgcc call (not signal-safe by our boundary) */
static uint64_t part(uint64_t x, uint64_t n_part, uint64_t n)
{
    uint64_t v = (uint64_t)((double)x * (double)n_part / (double)n);
    return v < x ? v : x;
}

/* The window's intervals as cells: state s read here (acc, cell s) or for the next
 * sample (pend, cell HPC_NMSTATES + s). */
#define NCELLS (2 * HPC_NMSTATES)

uint64_t hpc_states_window_settle(const hpc_states_window *w, uint64_t off_ns,
                                  uint64_t run_delay_ns, uint64_t acc[HPC_NMSTATES],
                                  uint64_t pend[HPC_NMSTATES])
{
    uint64_t raw[NCELLS], n[NCELLS], t[NCELLS], total = 0, ntot = 0;
    for (unsigned s = 0; s < HPC_NMSTATES; s++) {
        raw[s] = w->raw_acc[s];
        raw[HPC_NMSTATES + s] = w->raw_pend[s];
        n[s] = w->n_acc[s];
        n[HPC_NMSTATES + s] = w->n_pend[s];
    }
    for (unsigned c = 0; c < NCELLS; c++) {
        total += raw[c];
        ntot += n[c];
    }
    uint64_t outside = 0; /* off-CPU time outside every interval read */
    if (w->call_times && total > off_ns) {
        for (unsigned c = 0; c < NCELLS; c++)
            t[c] = part(raw[c], off_ns, total);
    } else if (total <= off_ns) {
        /* call times: what happened outside the calls; records: time off the CPU before
         * the records began (the thread's first moments), or lost records' */
        memcpy(t, raw, sizeof t);
        outside = off_ns - total;
    } else {
        /* the overlap per interval, taken out of each */
        uint64_t o = (total - off_ns) / ntot;
        for (unsigned c = 0; c < NCELLS; c++)
            t[c] = raw[c] - (n[c] * o < raw[c] ? n[c] * o : raw[c]);
    }
    /* run-queue delay after wakeups, out of the sleeps by their number, to Wait CPU read
     * in the same place */
    uint64_t preempt = t[HPC_MSTATE_WAIT_CPU] + t[HPC_NMSTATES + HPC_MSTATE_WAIT_CPU];
    uint64_t sleeps = ntot - n[HPC_MSTATE_WAIT_CPU] - n[HPC_NMSTATES + HPC_MSTATE_WAIT_CPU];
    uint64_t delay =
        run_delay_ns != UINT64_MAX && run_delay_ns > preempt ? run_delay_ns - preempt : 0;
    uint64_t moved = 0;
    for (unsigned c = 0; c < NCELLS && delay && sleeps; c++) {
        unsigned wait = c < HPC_NMSTATES ? HPC_MSTATE_WAIT_CPU : HPC_NMSTATES + HPC_MSTATE_WAIT_CPU;
        if (c == wait || !n[c])
            continue;
        uint64_t d = part(delay, n[c], sleeps);
        d = d < t[c] ? d : t[c];
        t[c] -= d;
        t[wait] += d;
        moved += d;
    }
    for (unsigned s = 0; s < HPC_NMSTATES; s++) {
        acc[s] += t[s];
        pend[s] += t[HPC_NMSTATES + s];
    }
    if (w->lost)
        return outside; /* unseen: charged as Other Wait */
    /* the rest of the run delay came outside the intervals read; with records, what is
     * left beyond it is time the thread was on a CPU for the kernel but not running:
     * a virtual machine's steal time, waiting for the hypervisor's CPU (sum_exec_runtime
     * leaves it out); with call times it may as well be a sleep no call saw */
    uint64_t d = delay - moved < outside ? delay - moved : outside;
    pend[HPC_MSTATE_WAIT_CPU] += d;
    pend[w->call_times ? HPC_MSTATE_OTHER_WAIT : HPC_MSTATE_WAIT_CPU] += outside - d;
    return 0;
}
