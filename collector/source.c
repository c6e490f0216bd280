/*
 * source.c - the table of clock sources and the fallback between them.
 *
 * A thread's counter group (-h, source_counter.c) and its thread-state events
 * (states.c) live and die with its clock: each arm/start/stop/abandon below does the same
 * for them, so new threads, fork children and exec see all three.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "config.h"
#include "source.h"

/* In order of preference. */
static const hpc_clock_ops *const sources[] = {&hpc_perf_clock_ops, &hpc_timer_clock_ops};
#define NSOURCES (sizeof sources / sizeof sources[0])

static const hpc_clock_ops *ops_of(int id)
{
    for (size_t i = 0; i < NSOURCES; i++)
        if (sources[i]->id == id)
            return sources[i];
    return NULL;
}

void hpc_clock_arm(hpc_thread_priv *t, uint64_t interval_ns, int choice, bool lazy, char *note,
                   size_t cap)
{
    note[0] = 0;
    t->clock_source = HPC_CLOCK_NONE;
    t->clock_lazy = 0;
    t->perf_fd = t->perf_fd_prev = -1;
    t->perf_map = NULL;
    hpc_counters_open(t, note, cap);
    hpc_states_open(t, lazy);
    if (interval_ns == 0)
        return;
    if (lazy && choice == HPC_CLOCK_CHOICE_AUTO &&
        hpc_timer_clock_ops.open(t, interval_ns) == 0) { /* perf at its first sample */
        t->clock_source = hpc_timer_clock_ops.id;
        t->clock_lazy = 1;
        return;
    }
    size_t first = choice == HPC_CLOCK_CHOICE_TIMER ? 1 : 0;
    if (choice == HPC_CLOCK_CHOICE_TIMER)
        snprintf(note, cap, "timer forced by HPCOLLECT_CLOCK_SOURCE");
    for (size_t i = first; i < NSOURCES; i++) {
        int err = sources[i]->open(t, interval_ns);
        if (err == 0) {
            t->clock_source = sources[i]->id;
            return;
        }
        size_t n = strlen(note);
        snprintf(note + n, cap - n, "%s%s: %s", n ? "; " : "", sources[i]->name, strerror(-err));
    }
}

void hpc_clock_start(hpc_thread_priv *t)
{
    hpc_counters_start(t);
    hpc_states_start(t);
    const hpc_clock_ops *o = ops_of(t->clock_source);
    if (o && o->start(t) != 0) {
        o->stop(t);
        t->clock_source = HPC_CLOCK_NONE;
    }
}

void hpc_clock_stop(hpc_thread_priv *t)
{
    hpc_counters_stop(t);
    hpc_states_stop(t);
    const hpc_clock_ops *o = ops_of(t->clock_source);
    if (o)
        o->stop(t);
}

void hpc_clock_abandon(hpc_thread_priv *t)
{
    hpc_counters_abandon(t);
    hpc_states_abandon(t);
    const hpc_clock_ops *o = ops_of(t->clock_source);
    if (o)
        o->abandon(t);
    t->clock_source = HPC_CLOCK_NONE;
}
