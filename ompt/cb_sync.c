/*
 * cb_sync.c - OMPT callbacks for waits: barriers, taskwait, taskgroup, reductions, and
 * mutual exclusion (locks, nest locks, critical, ordered, atomic).
 *
 * A sync region (begin..end) puts the thread in its wait state; the runtime's wait
 * begin/end inside it are the times recorded in omp_sync. Explicit tasks the thread runs
 * while it waits push their own frame (cb_work.c), so their time is work, and their
 * omp_task begin/end records let the analyzer take them out of the wait interval.
 *
 * A mutex: acquire pushes a wait frame, acquired pops it and remembers the mutex as held,
 * released writes one omp_mutex record with request, acquired and released times.
 * test_lock never waits, so it pushes nothing. LLVM libomp 14 reports omp_test_lock and
 * omp_test_nest_lock with the kinds of set_lock (ompt_mutex_lock, ompt_mutex_nest_lock,
 * not the test kinds), and a failed test is followed by no callback at all: a wait frame
 * pushed for it would stay, the thread would show as waiting for the lock while it works
 * on, and failed tests in a loop would pile frames up until the stack overflowed and lost
 * track of its regions. So an acquire called from the runtime's test entry points (found
 * at initialize) is a test; and a wait frame still on top when anything else is pushed
 * is dropped (a thread waiting for a lock does nothing else), whatever the runtime.
 *
 * The sync tracer (-s, collector/sync.c) gets the same waits through hpcollect_sync_wait:
 * a lock, critical, ordered or atomic wait when it is acquired (its object the wait id),
 * a barrier's wait when it ends (its object the barrier's code address).
 *
 * libomp 14 reports barriers of gcc-built code (GOMP_barrier) as
 * ompt_sync_region_barrier_implementation: the runtime cannot tell an explicit barrier
 * from the one ending a worksharing construct there; we call them barriers, neither
 * (HPC_OMP_STATE_BARRIER, record kind HPC_OMP_SYNC_BARRIER_OTHER).
 */
#include <dlfcn.h>
#include <link.h>

#include "omptool.h"

/* The code address of the innermost region this thread forked, 0 if none. */
static uint64_t fork_codeptr(omptool_thread *th)
{
    uint32_t kept = th->depth < OMPTOOL_MAX_DEPTH ? th->depth : OMPTOOL_MAX_DEPTH;
    for (uint32_t i = kept; i-- > 0;)
        if (th->frames[i].kind == OMPTOOL_F_FORK)
            return th->frames[i].codeptr;
    return 0;
}

/*
 * enum hpc_omp_state and hpc_omp_sync for an OMPT sync region kind. libomp 14 reports
 * both the barrier ending a region and the one ending a worksharing construct as
 * ompt_sync_region_barrier_implicit (OpenMP 5.1 tells them apart: implicit_parallel and
 * implicit_workshare); the region's own barrier has no code address (a worker) or the
 * fork's (its encountering thread), a worksharing construct's barrier its own.
 */
static void sync_kind(omptool_thread *th, ompt_sync_region_t kind, const void *codeptr,
                      unsigned *state, unsigned *sync)
{
    uint64_t ra = (uint64_t)(uintptr_t)codeptr;
    switch ((int)kind) {
    case ompt_sync_region_barrier_explicit:
        *state = HPC_OMP_STATE_EXPLICIT_BARRIER, *sync = HPC_OMP_SYNC_EXPLICIT_BARRIER;
        return;
    case ompt_sync_region_barrier_implementation:
        *state = HPC_OMP_STATE_BARRIER, *sync = HPC_OMP_SYNC_BARRIER_OTHER;
        return;
    case ompt_sync_region_taskwait:
        *state = HPC_OMP_STATE_TASKWAIT, *sync = HPC_OMP_SYNC_TASKWAIT;
        return;
    case ompt_sync_region_taskgroup:
        *state = HPC_OMP_STATE_TASKGROUP, *sync = HPC_OMP_SYNC_TASKGROUP;
        return;
    case ompt_sync_region_reduction:
        *state = HPC_OMP_STATE_REDUCTION, *sync = HPC_OMP_SYNC_REDUCTION;
        return;
    case ompt_sync_region_barrier_implicit_workshare:
        *state = HPC_OMP_STATE_WORKSHARE_BARRIER, *sync = HPC_OMP_SYNC_WORKSHARE_BARRIER;
        return;
    case 2: /* ompt_sync_region_barrier_implicit (deprecated in 5.1, libomp 14's) */
        if (ra != 0 && ra != fork_codeptr(th)) {
            *state = HPC_OMP_STATE_WORKSHARE_BARRIER, *sync = HPC_OMP_SYNC_WORKSHARE_BARRIER;
            return;
        }
        *state = HPC_OMP_STATE_IMPLICIT_BARRIER, *sync = HPC_OMP_SYNC_IMPLICIT_BARRIER;
        return;
    default: /* barrier, implicit_parallel, teams */
        *state = HPC_OMP_STATE_IMPLICIT_BARRIER, *sync = HPC_OMP_SYNC_IMPLICIT_BARRIER;
        return;
    }
}

/* Is an omp_sync kind a barrier (for the sync tracer, -s)? */
static bool is_barrier(unsigned sync)
{
    return sync == HPC_OMP_SYNC_IMPLICIT_BARRIER || sync == HPC_OMP_SYNC_EXPLICIT_BARRIER ||
           sync == HPC_OMP_SYNC_BARRIER_OTHER || sync == HPC_OMP_SYNC_WORKSHARE_BARRIER;
}

static void write_sync(hpc_thread *self, const omptool_frame *f)
{
    uint64_t end = f->t_wait_end ? f->t_wait_end : omptool_now();
    hpc_thread *t = omptool_writer(self, end);
    if (t == NULL)
        return;
    hpc_rec_omp_sync r = {
        .time_begin = f->t_wait ? f->t_wait : f->t_begin,
        .time_end = end,
        .kind = f->sub,
        .region = f->region,
        .codeptr = f->codeptr,
    };
    hpcollect_write_begin(t);
    int rc = hpc_write_omp_sync(&t->stream, &r);
    hpcollect_write_end(t);
    omptool_check_write(t, rc);
    /* the sync tracer's view of a barrier, from its begin to its end: its code address is
     * the object (0 for the workers' implicit barrier at a region's end, which has none) */
    if (hpc_inlib_sync_on() && f->kind == OMPTOOL_F_SYNC && is_barrier(f->sub))
        hpcollect_sync_wait(t, HPC_SYNC_OMP_BARRIER, f->codeptr,
                            f->t_begin ? f->t_begin : r.time_begin, omptool_now());
}

/* enum hpc_sync_kind of an omp_mutex kind. */
static unsigned sync_of_mutex(unsigned hkind)
{
    switch (hkind) {
    case HPC_OMP_MUTEX_CRITICAL:
        return HPC_SYNC_OMP_CRITICAL;
    case HPC_OMP_MUTEX_ORDERED:
        return HPC_SYNC_OMP_ORDERED;
    case HPC_OMP_MUTEX_ATOMIC:
        return HPC_SYNC_OMP_ATOMIC;
    default:
        return HPC_SYNC_OMP_LOCK;
    }
}

static void sync_begin(unsigned frame_kind, ompt_sync_region_t kind, ompt_data_t *parallel_data,
                       const void *codeptr_ra)
{
    omptool_thread *th = omptool_self();
    unsigned state, sync;
    sync_kind(th, kind, codeptr_ra, &state, &sync);
    uint64_t region = parallel_data ? parallel_data->value : omptool_current_region(th);
    omptool_frame *f = omptool_push(th, omptool_collector(), frame_kind, state, region, 0,
                                    (uint64_t)(uintptr_t)codeptr_ra);
    if (f == NULL)
        return;
    f->sub = (uint8_t)sync;
    /* The wait callbacks give the times of a barrier's wait (omp_sync); the construct's
     * begin is the sync tracer's request time (the whole construct, as the program sees
     * it); a reduction has no wait callbacks. */
    f->t_begin = omptool_now();
    f->t_wait = f->t_wait_end = 0;
}

static void sync_end(unsigned frame_kind)
{
    hpc_thread *self = omptool_collector();
    omptool_frame *f = omptool_pop(omptool_self(), self, frame_kind, 0);
    if (f != NULL)
        write_sync(self, f);
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel_data, ompt_data_t *task_data,
                           const void *codeptr_ra)
{
    (void)task_data;
    if (endpoint == ompt_scope_begin)
        sync_begin(OMPTOOL_F_SYNC, kind, parallel_data, codeptr_ra);
    else
        sync_end(OMPTOOL_F_SYNC);
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr_ra)
{
    (void)kind, (void)parallel_data, (void)task_data, (void)codeptr_ra;
    omptool_frame *f = omptool_top(omptool_self());
    if (f == NULL || f->kind != OMPTOOL_F_SYNC)
        return;
    if (endpoint == ompt_scope_begin)
        f->t_wait = omptool_now();
    else
        f->t_wait_end = omptool_now();
}

static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                         ompt_data_t *parallel_data, ompt_data_t *task_data, const void *codeptr_ra)
{
    (void)task_data;
    if (endpoint == ompt_scope_begin)
        sync_begin(OMPTOOL_F_REDUCTION, kind, parallel_data, codeptr_ra);
    else
        sync_end(OMPTOOL_F_REDUCTION);
}

/* ------------------------------------------------------------------ mutexes */

static unsigned mutex_kind(ompt_mutex_t kind)
{
    switch (kind) {
    case ompt_mutex_lock:
    case ompt_mutex_test_lock:
        return HPC_OMP_MUTEX_LOCK;
    case ompt_mutex_nest_lock:
    case ompt_mutex_test_nest_lock:
        return HPC_OMP_MUTEX_NEST_LOCK;
    case ompt_mutex_critical:
        return HPC_OMP_MUTEX_CRITICAL;
    case ompt_mutex_atomic:
        return HPC_OMP_MUTEX_ATOMIC;
    case ompt_mutex_ordered:
        return HPC_OMP_MUTEX_ORDERED;
    }
    return HPC_OMP_MUTEX_LOCK;
}

static unsigned mutex_wait_state(unsigned hkind)
{
    switch (hkind) {
    case HPC_OMP_MUTEX_CRITICAL:
        return HPC_OMP_STATE_CRITICAL_WAIT;
    case HPC_OMP_MUTEX_ORDERED:
        return HPC_OMP_STATE_ORDERED_WAIT;
    case HPC_OMP_MUTEX_ATOMIC:
        return HPC_OMP_STATE_ATOMIC_WAIT;
    default:
        return HPC_OMP_STATE_LOCK_WAIT;
    }
}

static bool is_test(ompt_mutex_t kind)
{
    return kind == ompt_mutex_test_lock || kind == ompt_mutex_test_nest_lock;
}

/* Code of the runtime's lock-test entry points: [lo, hi) each. */
static struct {
    uintptr_t lo, hi;
} test_code[4];
static unsigned ntest_code;

/* Find the test entry points in the runtime that holds `runtime_fn`. */
static void find_test_code(const void *runtime_fn)
{
    static const char *const names[] = {"__kmpc_test_lock", "__kmpc_test_nest_lock",
                                        "omp_test_lock", "omp_test_nest_lock"};
    Dl_info info;
    if (runtime_fn == NULL || dladdr(runtime_fn, &info) == 0 || info.dli_fname == NULL)
        return;
    void *h = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL)
        return;
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        void *fn = dlsym(h, names[i]);
        const ElfW(Sym) *sym = NULL;
        if (fn == NULL || dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) == 0 || sym == NULL ||
            sym->st_size == 0)
            continue;
        test_code[ntest_code].lo = (uintptr_t)fn;
        test_code[ntest_code].hi = (uintptr_t)fn + sym->st_size;
        ntest_code++;
    }
    dlclose(h);
}

/* True if the callback returning to `ra` was called by a lock test. */
static bool called_by_test(const void *ra)
{
    uintptr_t a = (uintptr_t)ra;
    for (unsigned i = 0; i < ntest_code; i++)
        if (a >= test_code[i].lo && a < test_code[i].hi)
            return true;
    return false;
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    (void)hint, (void)impl;
    if (is_test(kind) || called_by_test(__builtin_return_address(0)))
        return;
    omptool_thread *th = omptool_self();
    unsigned hk = mutex_kind(kind);
    omptool_frame *f =
        omptool_push(th, omptool_collector(), OMPTOOL_F_MUTEX, mutex_wait_state(hk),
                     omptool_current_region(th), wait_id, (uint64_t)(uintptr_t)codeptr_ra);
    if (f == NULL)
        return;
    f->sub = (uint8_t)hk;
    f->t_begin = omptool_now();
    /* the runtime's futex wait for it is a lock wait (thread states) */
    f->wait = hpcollect_wait_begin(true);
}

/* Remember a held mutex until its release. When OMPTOOL_MAX_HELD are held at once the
 * new one is not tracked: its release is then written with request and acquired time 0. */
static void hold(omptool_thread *th, const omptool_held *h)
{
    for (unsigned i = 0; i < OMPTOOL_MAX_HELD; i++) {
        if (th->held[i].kind == 0) {
            th->held[i] = *h;
            return;
        }
    }
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    omptool_thread *th = omptool_self();
    hpc_thread *self = omptool_collector();
    uint64_t now = omptool_now();
    omptool_held h = {
        .wait_id = wait_id,
        .t_request = now,
        .t_acquired = now,
        .codeptr = (uint64_t)(uintptr_t)codeptr_ra,
        .region = omptool_current_region(th),
        .kind = (uint8_t)mutex_kind(kind),
    };
    /* Our wait frame is on top, unless the acquire was a test. */
    omptool_frame *top = omptool_top(th), *f;
    if (top != NULL && top->kind == OMPTOOL_F_MUTEX && top->id == wait_id) {
        /* the wait's sleep is charged now, while the thread still shows the lock wait */
        hpcollect_wait_end(top->wait);
        if ((f = omptool_pop(th, self, OMPTOOL_F_MUTEX, 0)) != NULL) {
            h.t_request = f->t_begin;
            h.codeptr = f->codeptr;
            /* the sync tracer (-s): a lock's wait, its object the runtime's wait id (the
             * lock's or the critical section's lock word) */
            hpc_thread *t = hpc_inlib_sync_on() ? omptool_writer(self, now) : NULL;
            if (t)
                hpcollect_sync_wait(t, sync_of_mutex(h.kind), wait_id, h.t_request, now);
        }
    }
    hold(th, &h);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra)
{
    omptool_thread *th = omptool_self();
    uint64_t now = omptool_now();
    omptool_held h = {.kind = (uint8_t)mutex_kind(kind),
                      .codeptr = (uint64_t)(uintptr_t)codeptr_ra,
                      .region = omptool_current_region(th)};
    for (unsigned i = 0; i < OMPTOOL_MAX_HELD; i++) {
        if (th->held[i].kind != 0 && th->held[i].wait_id == wait_id) {
            h = th->held[i];
            th->held[i].kind = 0;
            break;
        }
    }
    hpc_thread *t = omptool_writer(omptool_collector(), now);
    if (t == NULL)
        return;
    hpc_rec_omp_mutex r = {
        .kind = h.kind,
        .time_request = h.t_request, /* 0: acquired before we knew (not tracked) */
        .time_acquired = h.t_acquired,
        .time_released = now,
        .wait_id = wait_id,
        .codeptr = h.codeptr,
        .region = h.region,
    };
    hpcollect_write_begin(t);
    int rc = hpc_write_omp_mutex(&t->stream, &r);
    hpcollect_write_end(t);
    omptool_check_write(t, rc);
}

/* A nest lock taken again by its owner: no wait happened, drop the wait frame. */
static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id,
                         const void *codeptr_ra)
{
    (void)codeptr_ra;
    if (endpoint != ompt_scope_begin)
        return;
    omptool_thread *th = omptool_self();
    omptool_frame *f = omptool_top(th);
    if (f != NULL && f->kind == OMPTOOL_F_MUTEX && f->id == wait_id) {
        hpcollect_wait_end(f->wait);
        omptool_pop(th, omptool_collector(), OMPTOOL_F_MUTEX, 0);
    }
}

void omptool_register_sync(void)
{
    find_test_code((const void *)omptool_g.set_callback);
    omptool_register(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
    omptool_g.sync_wait =
        omptool_register(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region_wait);
    omptool_register(ompt_callback_reduction, (ompt_callback_t)on_reduction);
    omptool_register(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
    omptool_register(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex_acquired);
    omptool_register(ompt_callback_mutex_released, (ompt_callback_t)on_mutex_released);
    omptool_register(ompt_callback_nest_lock, (ompt_callback_t)on_nest_lock);
}
