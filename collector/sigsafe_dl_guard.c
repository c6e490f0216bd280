/*
 * sigsafe_dl_guard.c - dl_iterate_phdr in sample handlers and across fork: rule 7 of
 * sigsafe.h, which states the protocol. What each part answers:
 *
 *   A sample handler that waits for the loader's dl_load_write_lock while a program
 *   thread holds it (in its own dl_iterate_phdr, e.g. exception unwinding) hangs if that
 *   thread waits for the interrupted one; checking "is a program thread inside?" before
 *   unwinding leaves a window, hence the two counters with sequentially consistent
 *   operations (at least one of two racing parties sees the other). Giving way returns
 *   through libunwind: Debian's libunwind, without a per-thread cache, holds its global
 *   cache lock across dl_iterate_phdr on every cache miss, and a siglongjmp from here
 *   left that lock held for ever (the hangs of test_export_trace in MPI_Finalize, and of
 *   test_dl_contend with the cache flushed before each unwind, 3 of 3 runs). The thread's
 *   own walk on the way in or out is a reason to give way: a recursive mutex interrupted
 *   between taking its lock word and recording its owner would make the handler wait
 *   for its own thread (seen: a sample at the helper's lock in test_dl_contend).
 *
 *   glibc's fork re-initialises dl_load_lock in the child but not dl_load_write_lock: a
 *   thread inside dl_iterate_phdr at the fork leaves it held in the child by a thread the
 *   child does not have, and every dl_iterate_phdr there waits forever (such children
 *   used to hang, and their parents in waitpid). An increment happens before the lock is
 *   taken and the decrement after it is released, so a child that inherited the lock
 *   held always inherited a non-zero count.
 *
 * Skipped and abandoned unwinds are counted in HPC_STAT_UNWIND_SKIPPED. hpc_dl_iterate
 * (a program's or a module scan's call) is normal context; the rest is signal-safe.
 */
#include <link.h>
#include <pthread.h>
#include <sched.h>

#include "collector.h"
#include "interpose.h"

static int unwinders;   /* threads unwinding (libunwind's calls) inside or entering now */
static int others;      /* program threads and module scans inside or entering now */
static int unwinding;   /* threads inside an unwind (hpc_dl_unwind_begin to _end) */
static int forking;     /* forks being prepared: sample handlers do not unwind */
static int child_stuck; /* this fork child may have inherited the lock held */

/* How long a fork waits for the callers to leave: a sample's unwind takes microseconds;
 * a program's own caller may take any time and cannot be waited for without risk. */
#define FORK_WAIT_NS 20000000ull

static int load(int *v)
{
    return __atomic_load_n(v, __ATOMIC_SEQ_CST);
}

/* Callers other than unwinders inside now, but for thread t's own while it is in a
 * callback (a signal of t may interrupt it between its counts: either order gives <= 0
 * when only t is inside). */
static int others_than(const hpc_thread_priv *t)
{
    int n = load(&others);
    return t && t->dl_in_callback > 0 ? n - t->dl_inside : n;
}

typedef struct walk {
    int (*cb)(struct dl_phdr_info *, size_t, void *);
    void *data;
    hpc_thread_priv *t;
} walk;

/* The caller's callback, with its thread marked as inside it (the lock wholly held). */
static int in_callback(struct dl_phdr_info *info, size_t size, void *arg)
{
    walk *w = arg;
    w->t->dl_in_callback++;
    int r = w->cb(info, size, w->data);
    w->t->dl_in_callback--;
    return r;
}

/* libunwind's call from an unwinding thread (sample handler or hpc_unwind_here). */
static int unwinder_iterate(hpc_thread_priv *t, int (*cb)(struct dl_phdr_info *, size_t, void *),
                            void *data)
{
    __atomic_add_fetch(&unwinders, 1, __ATOMIC_SEQ_CST);
    if (others_than(t) > 0 || load(&forking) || load(&child_stuck)) {
        __atomic_sub_fetch(&unwinders, 1, __ATOMIC_SEQ_CST);
        t->unwind_gave_way = 1;
        return 0; /* no object visited: libunwind finds no unwind info and unlocks */
    }
    int r = hpc_real.dl_iterate_phdr(cb, data);
    __atomic_sub_fetch(&unwinders, 1, __ATOMIC_SEQ_CST);
    return r;
}

static void other_left(void *arg)
{
    hpc_thread_priv *t = arg;
    __atomic_sub_fetch(&others, 1, __ATOMIC_SEQ_CST);
    if (t && --t->dl_inside == 0)
        t->dl_in_callback = 0; /* left by pthread_exit from a callback */
}

/* A callback may end its thread (pthread_exit, cancellation): glibc then releases the
 * lock in a cleanup handler, and other_left runs as ours, or the count would stay raised
 * and every later sample keep only its leaf. */
int hpc_dl_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    hpc_thread_priv *t = hpc_self();
    int r;
    hpc_real_init();
    if (t)
        t->dl_inside++;
    __atomic_add_fetch(&others, 1, __ATOMIC_SEQ_CST);
    pthread_cleanup_push(other_left, t);
    while (load(&unwinders))
        sched_yield();
    walk w = {cb, data, t};
    r = t ? hpc_real.dl_iterate_phdr(in_callback, &w) : hpc_real.dl_iterate_phdr(cb, data);
    pthread_cleanup_pop(1);
    return r;
}

HPC_INTERPOSE int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
    hpc_thread_priv *t = hpc_self();
    if (t && t->in_unwind) /* a thread state exists: the constructor has run */
        return unwinder_iterate(t, cb, data);
    return hpc_dl_iterate(cb, data);
}

/* libunwind's own locks (its global cache's, its memory pool's) are held across more
 * than dl_iterate_phdr: a fork while another thread's sample was inside an unwind left
 * one held in the child, whose first unwind (thread states' start, at the fork) then
 * waited for ever: chromium's browser forked a helper that never reached its exec (one
 * run of 53 under load). So a fork also waits for the unwinds in progress, by the same
 * protocol: an unwinder counts itself in (unwinding) and then looks for a fork. */
int hpc_dl_unwind_begin(hpc_thread_priv *t)
{
    __atomic_add_fetch(&unwinding, 1, __ATOMIC_SEQ_CST);
    if (!load(&forking) && others_than(t) <= 0 && !__atomic_load_n(&child_stuck, __ATOMIC_RELAXED))
        return 1;
    __atomic_sub_fetch(&unwinding, 1, __ATOMIC_SEQ_CST);
    return 0;
}

void hpc_dl_unwind_end(void)
{
    __atomic_sub_fetch(&unwinding, 1, __ATOMIC_SEQ_CST);
}

int hpc_dl_scan_ok(void)
{
    return !__atomic_load_n(&child_stuck, __ATOMIC_RELAXED);
}

static int inside(void)
{
    return load(&unwinders) + load(&others) + load(&unwinding);
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
    unwinders = others = unwinding = 0;
    __atomic_store_n(&forking, 0, __ATOMIC_SEQ_CST);
}
