/*
 * sigsafe_tail.c - the CPU time a thread used after its last sample, charged when it ends.
 *
 * A sample weighs the thread's CPU time since the previous one, so everything up to the
 * last sample is accounted; what the thread ran after it (up to one clock interval,
 * or all of it for a thread shorter than one) was reported only as thread_end's
 * tail_cpu_ns. 2000 threads of a few ms each were sampled at 0.27 of their CPU time,
 * 200 short fork children at 0.38. So when a thread ends (its return, pthread_exit,
 * cancellation, the process's exit, an exec, a fatal signal) that tail becomes one
 * more clock sample, on:
 *   - the thread's last sampled stack, where it was last seen running; else
 *   - its start routine, for a thread from pthread_create; else
 *   - the main thread's stack where it ends (exit() called from the program, an exec),
 *     without the collector's and the C library's own frames; else
 *   - the program's entry point (_start).
 * Not while paused or outside -t, not past -L, not with clock profiling off: then the
 * tail stays in thread_end.tail_cpu_ns, as before. This file writes the sample (also from
 * a fatal signal's handler, where the end stack is not unwound); tail.c finds the main
 * thread's end stack.
 */
#include <sched.h>

#include "collector.h"

uint64_t hpc_tail_entry_pc; /* AT_ENTRY, set by hpc_tail_init */

uint64_t hpc_tail_node_known(hpc_thread_priv *t)
{
    if (t->last_node)
        return t->last_node;
    uint64_t pc = t->start_routine ? t->start_routine : hpc_tail_entry_pc;
    int err = 0;
    return pc ? hpc_cct_insert(t, &pc, 1, &err) : 0;
}

bool hpc_tail_due(const hpc_thread_priv *t, uint64_t cpu, uint64_t now)
{
    return hpc_P.cfg.clock_ns && cpu > t->last_cpu_ns && t->stream_ok && hpc_recording_at(now);
}

void hpc_tail_write(hpc_thread_priv *t, uint64_t cpu, uint64_t now, uint64_t node)
{
    if (!node)
        return;
    hpc_rec_sample_clock r = {
        .time = now,
        .node = node,
        .cpu_ns = cpu - t->last_cpu_ns,
        .cpu = (uint64_t)sched_getcpu(),
        .state = t->pub.state,
        .region = t->pub.region,
        .mpi_fn = t->pub.mpi_fn,
    };
    if (hpc_write_sample_clock(&t->pub.stream, &r) == 0) {
        t->last_cpu_ns = cpu;
        hpc_stat(t, HPC_STAT_SAMPLES, 1);
    }
}

void hpc_tail_charge_sigsafe(hpc_thread_priv *t)
{
    if (t->pub.busy || t->in_handler)
        return;
    hpcollect_write_begin(&t->pub);
    uint64_t cpu = hpc_thread_cpu_ns(), now = hpc_now_ns();
    if (hpc_tail_due(t, cpu, now))
        hpc_tail_write(t, cpu, now, hpc_tail_node_known(t));
    hpcollect_write_end(&t->pub);
}
