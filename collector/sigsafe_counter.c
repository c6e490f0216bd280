/*
 * sigsafe_counter.c - one counter-overflow sample, in the SIGPROF handler.
 *
 * The sample's value is what the event counted since this thread's previous recorded
 * sample of it, read from the event itself: an overflow signal that merged with another
 * pending SIGPROF, or a sample lost while the thread was writing, is not lost as a count,
 * it goes into the next sample (which then exceeds the interval). When the group was
 * multiplexed (time_running < time_enabled since the previous sample) the value is scaled
 * by enabled/running, as perf stat does, and both deltas are recorded so reports can say
 * how much was scaled. Lost samples bump the same slots as clock samples
 * (sigsafe_sample.c); counts while paused are dropped with them.
 */
#include <sched.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"

typedef struct counter_read {
    uint64_t value, enabled, running;
} counter_read;

static int read_counter(int fd, counter_read *r)
{
    return read(fd, r, sizeof *r) == (ssize_t)sizeof *r ? 0 : -1;
}

/* Forget what was counted up to now (paused, or out of the -t window). */
static void skip_to(hpc_counter_group *g, int i, const counter_read *r)
{
    g->last_value[i] = r->value;
    g->last_enabled[i] = r->enabled;
    g->last_running[i] = r->running;
}

/* Value since the previous sample, scaled when the group ran only part of the time. */
static uint64_t scaled_delta(const hpc_counter_group *g, int i, const counter_read *r,
                             uint64_t *d_enabled, uint64_t *d_running)
{
    uint64_t dv = r->value - g->last_value[i];
    *d_enabled = r->enabled - g->last_enabled[i];
    *d_running = r->running - g->last_running[i];
    if (*d_running && *d_running < *d_enabled)
        dv = (uint64_t)((double)dv * (double)*d_enabled / (double)*d_running + 0.5);
    return dv;
}

int hpc_counter_of_signal(const hpc_thread_priv *t, const siginfo_t *si)
{
    if (si->si_code != POLL_IN)
        return -1;
    for (int i = 0; i < t->ctr.n; i++)
        if (t->ctr.fd[i] == si->si_fd)
            return i;
    return -1;
}

void hpc_sample_counter(hpc_thread_priv *t, int i, void *ucontext)
{
    hpc_counter_group *g = &t->ctr;
    counter_read r;
    if (t->in_handler)
        return;
    t->in_handler = 1;
    if (t->pub.busy) { /* the count stays for the next sample */
        hpc_stat(t, HPC_STAT_BLOCKED, 1);
        goto out;
    }
    if (read_counter(g->fd[i], &r) != 0) {
        hpc_stat(t, HPC_STAT_DROPPED_IO, 1);
        goto out;
    }
    uint64_t now = hpc_now_ns();
    if (!hpc_recording_at(now)) {
        hpc_stat(t, hpc_P.budget.exceeded ? HPC_STAT_DROPPED_LIMIT : HPC_STAT_PAUSED, 1);
        skip_to(g, i, &r);
        goto out;
    }
    uint64_t cpu = hpc_thread_cpu_ns();
    if (hpc_throttle_skip(t, cpu))
        goto out; /* the count stays for the next sample */
    hpcollect_write_begin(&t->pub);
    hpc_sample_mask(&t->sample_mask);
    t->masked = 1;
    int n = hpc_unwind_signal(t, ucontext, t->pcs, HPC_MAX_DEPTH);
    t->masked = 0;
    int err = 0;
    uint64_t node = hpc_cct_insert(t, t->pcs, n, &err);
    if (!err) {
        uint64_t d_enabled, d_running;
        hpc_rec_sample_counter s = {
            .time = now,
            .node = node,
            .counter = (uint64_t)i,
            .value = scaled_delta(g, i, &r, &d_enabled, &d_running),
            .cpu = (uint64_t)sched_getcpu(),
            .state = t->pub.state,
            .region = t->pub.region,
            .mpi_fn = t->pub.mpi_fn,
            .enabled_ns = d_enabled,
            .running_ns = d_running,
        };
        if ((err = hpc_write_sample_counter(&t->pub.stream, &s)) == 0) {
            skip_to(g, i, &r);
            hpc_stat(t, HPC_STAT_COUNTER_SAMPLES, 1);
        }
    }
    if (err)
        hpc_stat_write_failed(t, err);
    hpcollect_write_end(&t->pub);
    hpc_points_catch_up(hpc_now_ns());
    hpc_throttle_spent(t, cpu);
out:
    t->in_handler = 0;
}
