/*
 * tail.c - the stack a main thread's last CPU time is charged to when it has no sample
 * of its own: where it ends (exit() called from the program, an exec), without the
 * collector's and the C library's own frames (sigsafe_tail.c says the rest).
 */
#include <link.h>
#include <stdlib.h>
#include <sys/auxv.h>

#include "collector.h"

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
    hpc_tail_entry_pc = getauxval(AT_ENTRY);
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

/* Where the calling thread is, without the collector's and the C library's frames; 0 when
 * nothing else is on its stack. */
static uint64_t stack_here(hpc_thread_priv *t)
{
    int n = hpc_unwind_here_slots(t, 0, t->pcs, NULL, HPC_MAX_DEPTH), from = 0;
    while (from < n && ours_or_libc(t->pcs[from]))
        from++;
    if (from == n)
        return 0;
    int err = 0;
    return hpc_cct_insert(t, t->pcs + from, n - from, &err);
}

/* The stack the tail is charged to: sigsafe_tail.c's, but where that would be the entry
 * point, the stack where the main thread ends. */
static uint64_t tail_node(hpc_thread_priv *t)
{
    if (t->last_node || t->start_routine)
        return hpc_tail_node_known(t);
    uint64_t node = stack_here(t);
    return node ? node : hpc_tail_node_known(t);
}

/* A sample of the calling thread where it calls (a sample point the program records): its
 * CPU since its last sample is charged before the point, at the stack a sample now would
 * see, so each period holds the CPU the thread spent in it, and what follows (its tail at
 * its end) is charged from there, not to a stack it had left before the point. */
void hpc_tail_sample_here(hpc_thread_priv *t)
{
    uint64_t cpu = hpc_thread_cpu_ns(), now = hpc_now_ns();
    if (!hpc_tail_due(t, cpu, now))
        return;
    uint64_t node = stack_here(t);
    if (!node)
        return;
    hpc_tail_write(t, cpu, now, node);
    if (t->last_cpu_ns == cpu)
        t->last_node = node;
}

void hpc_tail_charge(hpc_thread_priv *t, uint64_t cpu)
{
    uint64_t now = hpc_now_ns();
    if (hpc_tail_due(t, cpu, now))
        hpc_tail_write(t, cpu, now, tail_node(t));
}
