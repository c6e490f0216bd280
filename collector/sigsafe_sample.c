/*
 * sigsafe_sample.c - one clock-profiling sample, in the SIGPROF handler.
 *
 * Every way a sample can be lost bumps a named slot in the thread's stream header
 * (hpcrun's sample_event.c is the model):
 *   - the thread was writing (busy, rule 1 of sigsafe.h): HPC_STAT_BLOCKED; its
 *     CPU time stays unrecorded and goes into the next sample's weight
 *   - paused or outside the -t window: HPC_STAT_PAUSED; its CPU time is dropped
 *   - the size limit: HPC_STAT_DROPPED_LIMIT; the file could not grow: HPC_STAT_DROPPED_IO
 *   - handlers over their share of the thread's CPU: HPC_STAT_THROTTLED (weight kept,
 *     sigsafe_throttle.c)
 * The weight of a recorded sample is the thread CPU time since its previous recorded
 * sample, so the sampled total matches the CPU time the kernel accounted.
 */
#include <sched.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"
#include "source.h"

/* Every signal but faults is blocked while the clock handler runs (signals.c installs
 * it so): libunwind's own sigprocmask calls around its cache lock (two per frame) are
 * then answered from t->sample_mask without a system call. */
static void hold_signals(hpc_thread_priv *t)
{
    hpc_sample_mask(&t->sample_mask);
    t->masked = 1;
}

void hpc_sample_clock(hpc_thread_priv *t, void *ucontext)
{
    if (t->in_handler)
        return; /* re-entered through a nested signal: the outer sample goes on */
    t->in_handler = 1;
    if (t->pub.busy) {
        hpc_stat(t, HPC_STAT_BLOCKED, 1);
        goto out;
    }
    uint64_t now = hpc_now_ns();
    uint64_t cpu = hpc_thread_cpu_ns();
    if (!hpc_recording_at(now)) {
        hpc_stat(t, hpc_P.budget.exceeded ? HPC_STAT_DROPPED_LIMIT : HPC_STAT_PAUSED, 1);
        t->last_cpu_ns = cpu;
        goto out;
    }
    if (hpc_throttle_skip(t, cpu))
        goto out; /* its CPU time goes into the next recorded sample */
    hpcollect_write_begin(&t->pub);
    hold_signals(t);
    int n = hpc_unwind_signal(t, ucontext, t->pcs, HPC_MAX_DEPTH);
    t->masked = 0;
    int err = 0;
    uint64_t node = hpc_cct_insert(t, t->pcs, n, &err);
    if (err) {
        hpc_stat_write_failed(t, err);
    } else {
        hpc_rec_sample_clock r = {
            .time = now,
            .node = node,
            .cpu_ns = cpu - t->last_cpu_ns,
            .cpu = (uint64_t)sched_getcpu(),
            .state = t->pub.state,
            .region = t->pub.region,
            .mpi_fn = t->pub.mpi_fn,
        };
        err = hpc_write_sample_clock(&t->pub.stream, &r);
        if (err) {
            hpc_stat_write_failed(t, err);
        } else {
            t->last_cpu_ns = cpu;
            t->last_node = node;
            t->samples++;
            hpc_stat(t, HPC_STAT_SAMPLES, 1);
        }
    }
    hpcollect_write_end(&t->pub);
    hpc_points_catch_up(now);
    hpc_throttle_spent(t, cpu);
    hpc_clock_upgrade(t);
out:
    t->in_handler = 0;
}
