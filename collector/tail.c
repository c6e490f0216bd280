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
#include <link.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "collector.h"

static uint64_t entry_pc; /* AT_ENTRY */

/* The collector's and the C library's address ranges, found once at start-up: at the end
 * no loader call may be made (a fork child may have inherited the loader's lock held,
 * and dladdr hung chromium's zygote children). */
typedef struct range {
    uintptr_t lo, hi;
} range;
static range skip_ranges[2];

static int find_ranges(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    const uintptr_t *want = data;
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        lo = a < lo ? a : lo;
        hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
    }
    for (int k = 0; k < 2; k++)
        if (want[k] >= lo && want[k] < hi)
            skip_ranges[k] = (range){lo, hi};
    return 0;
}

void hpc_tail_init(void)
{
    entry_pc = getauxval(AT_ENTRY);
    uintptr_t want[2] = {(uintptr_t)hpc_tail_init, (uintptr_t)exit};
    hpc_dl_iterate(find_ranges, want);
}

/* Is pc in the collector or the C library? */
static bool ours_or_libc(uint64_t pc)
{
    for (int k = 0; k < 2; k++)
        if (pc >= skip_ranges[k].lo && pc < skip_ranges[k].hi)
            return true;
    return false;
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
