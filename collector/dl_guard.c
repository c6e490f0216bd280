/*
 * dl_guard.c - dl_iterate_phdr in sample handlers and across fork.
 *
 * libunwind finds unwind tables with dl_iterate_phdr, which holds the loader's
 * dl_load_write_lock while it walks the objects. Two hazards follow:
 *
 *   A sample handler waits for that lock. If the program thread that holds it (in its own
 *   dl_iterate_phdr, e.g. exception unwinding) waits for the interrupted thread, neither
 *   goes on. So while a program thread is inside, handlers keep only the leaf.
 *
 *   glibc's fork re-initialises dl_load_lock in the child but not dl_load_write_lock: a
 *   thread inside dl_iterate_phdr at the fork leaves it held in the child by a thread the
 *   child does not have, and every dl_iterate_phdr there waits forever. The collector's
 *   child scans its modules and unwinds samples with it, so such a child used to hang
 *   (and the parent in waitpid with it). The prepare handler stops new unwinds and waits,
 *   for a bounded time, until nobody is inside; the child reads the counts it inherited:
 *   non-zero means the lock may be stuck, and that child keeps leaf-only samples and its
 *   inherited module table. An increment happens before the lock is taken and the
 *   decrement after it is released, so a child that inherited the lock held always
 *   inherited a non-zero count.
 *
 * Every call is counted: the collector's own (its module scans, libunwind while a thread
 * of ours unwinds) and the program's, which this interposer sees. Skipped unwinds are
 * counted in HPC_STAT_UNWIND_SKIPPED.
 */
#include <link.h>
#include <sched.h>

#include "collector.h"
#include "real.h"

static int ours;        /* collector threads inside dl_iterate_phdr now */
static int theirs;      /* program threads inside it now */
static int forking;     /* forks being prepared: sample handlers do not unwind */
static int child_stuck; /* this fork child may have inherited the lock held */

/* How long a fork waits for the callers to leave: a sample's unwind takes microseconds;
 * a program's own caller may take any time and cannot be waited for without risk. */
#define FORK_WAIT_NS 20000000ull

static int counted(int *count, int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    hpc_real_init();
    __atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
    int r = hpc_real.dl_iterate_phdr(cb, data);
    __atomic_sub_fetch(count, 1, __ATOMIC_SEQ_CST);
    return r;
}

int hpc_dl_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    return counted(&ours, cb, data);
}

/* libunwind's calls arrive here too: they are ours while the thread unwinds */
HPC_INTERPOSE int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    hpc_thread_priv *t = hpc_self();
    return counted(t && t->in_unwind ? &ours : &theirs, cb, data);
}

int hpc_dl_unwind_ok(void)
{
    return !__atomic_load_n(&forking, __ATOMIC_SEQ_CST) &&
           !__atomic_load_n(&theirs, __ATOMIC_SEQ_CST) &&
           !__atomic_load_n(&child_stuck, __ATOMIC_RELAXED);
}

int hpc_dl_scan_ok(void)
{
    return !__atomic_load_n(&child_stuck, __ATOMIC_RELAXED);
}

static int inside(void)
{
    return __atomic_load_n(&ours, __ATOMIC_SEQ_CST) + __atomic_load_n(&theirs, __ATOMIC_SEQ_CST);
}

void hpc_dl_fork_prepare(void)
{
    __atomic_add_fetch(&forking, 1, __ATOMIC_SEQ_CST);
    uint64_t deadline = hpc_now_ns() + FORK_WAIT_NS;
    while (inside() && hpc_now_ns() < deadline)
        sched_yield();
}

void hpc_dl_fork_parent(void)
{
    __atomic_sub_fetch(&forking, 1, __ATOMIC_SEQ_CST);
}

void hpc_dl_fork_child(void)
{
    if (inside()) /* even if it is the forking thread: the lock's owner is a thread id */
        child_stuck = 1;
    ours = theirs = 0;
    __atomic_store_n(&forking, 0, __ATOMIC_SEQ_CST);
}
