/*
 * dl_guard.c - dl_iterate_phdr in sample handlers and across fork.
 *
 * libunwind finds unwind tables with dl_iterate_phdr, which holds the loader's
 * dl_load_write_lock while it walks the objects. Two hazards follow:
 *
 *   A sample handler that waits for that lock while a program thread holds it (in its own
 *   dl_iterate_phdr, e.g. exception unwinding) hangs if that thread waits for the
 *   interrupted one. Checking "is a program thread inside?" before unwinding leaves a
 *   window: the program thread may enter between the check and libunwind's call. So the
 *   two sides use Dekker's protocol on two counters: an unwinder announces itself
 *   (unwinders++) and then looks for others; anybody else announces itself (others++)
 *   and then waits until no unwinder is inside. With sequentially consistent operations
 *   at least one of two racing parties sees the other: an unwinder that sees somebody
 *   gives way at once (its dl_iterate_phdr returns without visiting any object and
 *   marks t->unwind_gave_way; the walk stops there and the sample keeps the frames
 *   found so far); the others wait only for unwinders, which never wait for anybody, so
 *   nobody waits in a cycle. Giving way must return through libunwind, never jump
 *   out of it: libunwind (Debian's, without a per-thread cache) holds its global cache
 *   lock across dl_iterate_phdr on every cache miss, and a siglongjmp from here left
 *   that lock held for ever (every later sample of the process then waited for it: the
 *   hangs of test_export_trace in MPI_Finalize, and of test_dl_contend with the cache
 *   flushed before each unwind, 3 of 3 runs). The interrupted thread's own
 *   walk (a sample in a module scan's callback, or in the program's) is no reason to
 *   give way while it is inside its callback: the lock is then held, and recursive. On
 *   the way in or out it is: a recursive mutex interrupted between taking its lock word
 *   and recording its owner (or the reverse on unlock) would make the handler wait for
 *   its own thread (seen: a sample at the helper's lock in test_dl_contend).
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
 * Skipped and abandoned unwinds are counted in HPC_STAT_UNWIND_SKIPPED.
 */
#include <link.h>
#include <pthread.h>
#include <sched.h>

#include "collector.h"
#include "real.h"

static int unwinders;   /* threads unwinding (libunwind's calls) inside or entering now */
static int others;      /* program threads and module scans inside or entering now */
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

int hpc_dl_unwind_ok(hpc_thread_priv *t)
{
    return !load(&forking) && others_than(t) <= 0 &&
           !__atomic_load_n(&child_stuck, __ATOMIC_RELAXED);
}

int hpc_dl_scan_ok(void)
{
    return !__atomic_load_n(&child_stuck, __ATOMIC_RELAXED);
}

static int inside(void)
{
    return load(&unwinders) + load(&others);
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
    unwinders = others = 0;
    __atomic_store_n(&forking, 0, __ATOMIC_SEQ_CST);
}
