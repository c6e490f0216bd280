/*
 * tail.c - the CPU time a thread used after its last sample, charged when it ends.
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
 * tail stays in thread_end.tail_cpu_ns, as before.
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "collector.h"

static uint64_t entry_pc;            /* AT_ENTRY */
static const void *our_base, *libc_base; /* load addresses, for the frames to leave out */

void hpc_tail_init(void)
{
    Dl_info i;
    entry_pc = getauxval(AT_ENTRY);
    if (dladdr((void *)hpc_tail_init, &i))
        our_base = i.dli_fbase;
    if (dladdr((void *)exit, &i))
        libc_base = i.dli_fbase;
}

/* Is pc in the collector or the C library (normal context: dladdr)? */
static bool ours_or_libc(uint64_t pc)
{
    Dl_info i;
    return dladdr((void *)(uintptr_t)pc, &i) && (i.dli_fbase == our_base || i.dli_fbase == libc_base);
}

/* The stack the tail is charged to (see above); 0 if none can be stored. */
static uint64_t tail_node(hpc_thread_priv *t, bool unwind)
{
    if (t->last_node)
        return t->last_node;
    int n = 0, from = 0;
    if (t->start_routine) {
        t->pcs[n++] = t->start_routine;
    } else if (unwind) {
        n = hpc_unwind_here_slots(t, 0, t->pcs, NULL, HPC_MAX_DEPTH);
        while (from < n && ours_or_libc(t->pcs[from]))
            from++;
        if (from == n)
            n = from = 0;
    }
    if (n == 0 && entry_pc)
        t->pcs[n++] = entry_pc;
    int err = 0;
    return n ? hpc_cct_insert(t, t->pcs + from, n - from, &err) : 0;
}

static void charge(hpc_thread_priv *t, uint64_t cpu, bool unwind)
{
    uint64_t now = hpc_now_ns();
    if (!hpc_P.cfg.clock_ns || cpu <= t->last_cpu_ns || !t->stream_ok || !hpc_recording_at(now))
        return;
    uint64_t node = tail_node(t, unwind);
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

void hpc_tail_charge(hpc_thread_priv *t, uint64_t cpu)
{
    charge(t, cpu, true);
}

void hpc_tail_charge_sigsafe(hpc_thread_priv *t)
{
    if (t->pub.busy || t->in_handler)
        return;
    hpcollect_write_begin(&t->pub);
    charge(t, hpc_thread_cpu_ns(), false);
    hpcollect_write_end(&t->pub);
}
