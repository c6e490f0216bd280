/*
 * sync.c - the sync tracer (-s): waits in the threads library's blocking calls, built on
 * the interposition layer (interpose.h, "traced calls").
 *
 * Every blocking call of interpose.def's sync lines (mutex, rwlock, condition, barrier,
 * join, semaphore, spin lock; C11's mtx_, cnd_ and thrd_join, which glibc 2.34+ makes
 * call the pthread functions directly, not through the PLT, so they are interposed
 * themselves) is timed around the real call; a call that lasted at least the threshold is
 * a sync_wait record at its grant (schema.def), with its stack (the call's own function
 * its leaf frame), object, kind and result; a shorter one is counted in the thread's
 * trace_screened statistics (count and time). The OpenMP tool reports its locks,
 * critical sections and barriers through hpcollect_sync_wait (collector_api.h), so one
 * record and one threshold serve both.
 *
 * The holder. A mutex's holder is the thread that last got it before a waiter did; the
 * waiter cannot see its stack, so the holder says so itself: each thread keeps the
 * mutexes it holds with their grant times (t->held: lock, trylock, a condition wait's
 * return push; unlock and a condition wait's start pop), and when it lets go of one that
 * the threads library marks as wanted (glibc's lock word: 2, or FUTEX_WAITERS for robust
 * and priority-inheriting mutexes) after holding it at least the threshold, it writes a
 * sync_hold record with its stack where it lets go (after the real unlock: the waiter is
 * not kept waiting for our unwinding). The analysis pairs a wait with the hold of the
 * same object that ended last before its grant. An uncontended pair costs the held list
 * two stores and a load of the lock word; no stack is taken.
 *
 * The threshold: -s on measures, at start-up, the mean time of an uncontended
 * pthread_mutex_lock as the wrappers see it (two trace clock reads around the real call:
 * interpose.h; the median of 5 means of 200 calls), times 6 (the reference's
 * calibration); -s N and -s all give it. The tracer record in process.hpe says which.
 *
 * Behaviour is the program's: the real call runs with the program's arguments and its
 * result and errno are returned; a cancelled wait (pthread_cond_wait, pthread_join and
 * sem_wait are cancellation points) unwinds through the wrapper, which holds nothing
 * across the real call (the guard is not held; the held list is only touched around it).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <threads.h>

#include "collector.h"
#include "interpose.h"

#define SYNC (&hpc_tracers[HPC_TRACER_SYNC])

/* ------------------------------------------------------------ records */

typedef struct sync_rec {
    unsigned kind;
    uint64_t object, aux;
    int64_t result;
} sync_rec;

static int write_wait(hpc_stream *s, uint64_t node, uint64_t start, uint64_t duration,
                      const void *rec)
{
    const sync_rec *w = rec;
    hpc_rec_sync_wait r = {.time_request = start,
                           .time_grant = start + duration,
                           .kind = w->kind,
                           .object = w->object,
                           .node = node,
                           .result = w->result,
                           .aux = w->aux};
    return hpc_write_sync_wait(s, &r);
}

static int write_hold(hpc_stream *s, uint64_t node, uint64_t start, uint64_t duration,
                      const void *rec)
{
    const sync_rec *h = rec;
    hpc_rec_sync_hold r = {
        .time_grant = start, .time_release = start + duration, .object = h->object, .node = node};
    return hpc_write_sync_hold(s, &r);
}

/* ------------------------------------------------------------ held mutexes */

static void held_push(hpc_thread_priv *t, const void *m, uint64_t grant)
{
    if (t->nheld == HPC_MAX_HELD) { /* the oldest goes (a lock another thread let go) */
        __builtin_memmove(t->held, t->held + 1, sizeof t->held[0] * (HPC_MAX_HELD - 1));
        t->nheld--;
    }
    t->held[t->nheld++] = (hpc_held){(uintptr_t)m, grant};
}

/* The grant time of the innermost hold of m, taken off the list; 0 if not held. The
 * common case, the innermost hold, is a compare and a decrement. */
static uint64_t held_pop(hpc_thread_priv *t, const void *m)
{
    int top = t->nheld - 1;
    if (top >= 0 && t->held[top].object == (uintptr_t)m) {
        t->nheld = top;
        return t->held[top].grant;
    }
    for (int i = top; i-- > 0;) {
        if (t->held[i].object != (uintptr_t)m)
            continue;
        uint64_t grant = t->held[i].grant;
        t->nheld--;
        __builtin_memmove(t->held + i, t->held + i + 1, sizeof t->held[0] * (size_t)(t->nheld - i));
        return grant;
    }
    return 0;
}

/* glibc's mutex word (nptl: pthread_mutex_t.__data, public in bits/struct_mutex.h): the
 * kind's flags, and whether another thread waits. */
#define MUTEX_KIND_MASK  3  /* PTHREAD_MUTEX_KIND_MASK_NP */
#define MUTEX_ROBUST     16 /* PTHREAD_MUTEX_ROBUST_NORMAL_NP */
#define MUTEX_PI         32 /* PTHREAD_MUTEX_PRIO_INHERIT_NP */
#define MUTEX_PP         64 /* PTHREAD_MUTEX_PRIO_PROTECT_NP: ceiling above the low bits */
#define FUTEX_WAITERS_ON 0x80000000u

/* Will this unlock let go of m (a recursive mutex held more than once does not), and
 * is another thread waiting for it? Read before the real unlock, by the owner. */
static bool mutex_handed_over(const pthread_mutex_t *m)
{
    unsigned lock = (unsigned)__atomic_load_n(&m->__data.__lock, __ATOMIC_RELAXED);
    int kind = m->__data.__kind;
    if ((kind & MUTEX_KIND_MASK) == PTHREAD_MUTEX_RECURSIVE && m->__data.__count > 1)
        return false;
    if (kind & (MUTEX_ROBUST | MUTEX_PI))
        return lock & FUTEX_WAITERS_ON;
    if (kind & MUTEX_PP)
        return (lock & 3) > 1;
    return lock > 1; /* 0 free, 1 held, 2 held and wanted (lll_lock) */
}

/* A hold of m from grant to now (trace clock) ended with a waiter: record it if long
 * enough. */
static void hold_end(hpc_thread_priv *t, const void *m, uint64_t grant, uint64_t now)
{
    if (now - grant < SYNC->threshold_ticks || !t->stream_ok || !hpc_recording_at(hpc_now_ns()))
        return;
    hpc_trace c = {.t = t, .kind = HPC_TRACER_SYNC, .start = grant, .end = now};
    sync_rec h = {.object = (uintptr_t)m};
    hpc_trace_record(&c, write_hold, &h);
}

/* ------------------------------------------------------------ the tracer's parts */

/* A wait ended: record or screen it. */
static void wait_end(hpc_trace *c, unsigned kind, const void *object, int64_t result,
                     const void *aux)
{
    sync_rec w = {kind, (uintptr_t)object, (uintptr_t)aux, result};
    hpc_trace_end(c, write_wait, &w);
}

/* A mutex call ended: held from its grant if it got it (a robust mutex whose owner died
 * is got with EOWNERDEAD). */
static void mutex_end(hpc_trace *c, const void *m, int r, int got)
{
    if (r == got || r == EOWNERDEAD)
        held_push(c->t, m, c->end);
    wait_end(c, HPC_SYNC_MUTEX, m, r, NULL);
}

/* One part per TRACED line of interpose.def: the wrapper calls it with the call's result
 * and arguments (the trailing ones unused: variadic). */
#define WAIT_PART(name, kind)                                                                      \
    static void hpc_trace_##name(hpc_trace *c, int r, const volatile void *object, ...)            \
    {                                                                                              \
        wait_end(c, kind, (const void *)object, r, NULL);                                          \
    }
#define MUTEX_PART(name, got)                                                                      \
    static void hpc_trace_##name(hpc_trace *c, int r, const void *m, ...)                          \
    {                                                                                              \
        mutex_end(c, m, r, got);                                                                   \
    }
MUTEX_PART(pthread_mutex_lock, 0)
MUTEX_PART(pthread_mutex_timedlock, 0)
MUTEX_PART(pthread_mutex_clocklock, 0)
MUTEX_PART(mtx_lock, thrd_success)
MUTEX_PART(mtx_timedlock, thrd_success)
WAIT_PART(pthread_rwlock_rdlock, HPC_SYNC_RWLOCK_RD)
WAIT_PART(pthread_rwlock_timedrdlock, HPC_SYNC_RWLOCK_RD)
WAIT_PART(pthread_rwlock_clockrdlock, HPC_SYNC_RWLOCK_RD)
WAIT_PART(pthread_rwlock_wrlock, HPC_SYNC_RWLOCK_WR)
WAIT_PART(pthread_rwlock_timedwrlock, HPC_SYNC_RWLOCK_WR)
WAIT_PART(pthread_rwlock_clockwrlock, HPC_SYNC_RWLOCK_WR)
WAIT_PART(pthread_barrier_wait, HPC_SYNC_BARRIER)
WAIT_PART(sem_wait, HPC_SYNC_SEM)
WAIT_PART(sem_timedwait, HPC_SYNC_SEM)
WAIT_PART(sem_clockwait, HPC_SYNC_SEM)
WAIT_PART(pthread_spin_lock, HPC_SYNC_SPIN)

/* A join's object is the thread waited for. */
#define JOIN_PART(name, type)                                                                      \
    static void hpc_trace_##name(hpc_trace *c, int r, type th, ...)                                \
    {                                                                                              \
        wait_end(c, HPC_SYNC_JOIN, (const void *)(uintptr_t)th, r, NULL);                          \
    }
JOIN_PART(pthread_join, pthread_t)
JOIN_PART(pthread_tryjoin_np, pthread_t)
JOIN_PART(pthread_timedjoin_np, pthread_t)
JOIN_PART(pthread_clockjoin_np, pthread_t)
JOIN_PART(thrd_join, thrd_t)

#define HPC_FN HPC_TRACED_GENERATE
#include "sync.def"
#undef HPC_FN

/* ------------------------------------------------------------ hand-written interposers */

/* A mutex lock's common case, the uncontended one: the real trylock gets the mutex at once
 * (the atomic exchange the real lock begins with), so nothing was waited for. No wait to
 * time and no thread state to follow: the hold begins at one trace clock read (its grant,
 * which the holder's record needs) and the call is screened, of length 0 (recorded, of
 * length 0, when the threshold is 0: -s all). A mutex the trylock does not get (held, or
 * an error such as EDEADLK that only the lock reports) goes to the real lock, timed as
 * every traced call (interpose.h). */
static __attribute__((noinline)) void got_at_once_slow(void *m, int r, int got, uintptr_t site,
                                                       uintptr_t cfa, void *leaf)
{
    hpc_trace c;
    if (!hpc_trace_begin_slow(&c, HPC_TRACER_SYNC, NULL)) /* start = end: one clock read */
        return;
    c.site = site;
    c.cfa = cfa;
    c.leaf = (uint64_t)(uintptr_t)leaf;
    mutex_end(&c, m, r, got);
}

/* The same, inline where it only counts (a threshold above 0, recording at any time). */
static inline void got_at_once(void *m, int r, int got, uintptr_t site, uintptr_t cfa, void *leaf)
{
    hpc_thread_priv *t = hpc_self();
    if (__builtin_expect(
            !HPC_TRACE_THREAD_OK(t) || !SYNC->threshold_ticks || !hpc_recording_always(), 0)) {
        got_at_once_slow(m, r, got, site, cfa, leaf);
        return;
    }
    held_push(t, m, hpc_trace_now());
    if (++t->screened_n >= HPC_SCREENED_FLUSH) /* screened_ticks: + 0 */
        hpc_trace_flush(t);
}

#define MUTEX_LOCK(name, type, try, got)                                                           \
    HPC_INTERPOSE int name(type *m)                                                                \
    {                                                                                              \
        hpc_real_init();                                                                           \
        int r0_ = HPC_REAL(try)(m);                                                                \
        if (r0_ == (got) || r0_ == EOWNERDEAD) {                                                   \
            if (__builtin_expect(SYNC->on, 0) && !HPC_CALLER_OURS())                               \
                got_at_once(m, r0_, got, (uintptr_t)__builtin_return_address(0),                   \
                            (uintptr_t)__builtin_dwarf_cfa(), (void *)HPC_REAL(name));             \
            return r0_;                                                                            \
        }                                                                                          \
        HPC_TRACED_BODY(name, int, HPC_TRACER_SYNC, (m))                                           \
    }
MUTEX_LOCK(pthread_mutex_lock, pthread_mutex_t, pthread_mutex_trylock, 0)
MUTEX_LOCK(mtx_lock, mtx_t, mtx_trylock, thrd_success)

/* Is the sync tracer on for this thread's own call (not the collector's)? */
static hpc_thread_priv *holder_self(void)
{
    if (__builtin_expect(!SYNC->on, 1))
        return NULL;
    hpc_thread_priv *t = hpc_self();
    return t && !hpc_guard_held() && !t->pub.busy ? t : NULL;
}

static int unlock_common(int (*real)(void *), void *m, int ok)
{
    hpc_thread_priv *t = holder_self();
    if (!t)
        return real(m);
    uint64_t grant = held_pop(t, m);
    bool wanted = grant && mutex_handed_over(m);
    int r = real(m);
    if (wanted && r == ok) {
        int e = errno;
        hold_end(t, m, grant, hpc_trace_now());
        errno = e;
    }
    return r;
}

static int trylock_common(int (*real)(void *), void *m, int ok)
{
    int r = real(m);
    hpc_thread_priv *t;
    if ((r == ok || (ok == 0 && r == EOWNERDEAD)) && (t = holder_self())) {
        int e = errno;
        held_push(t, m, hpc_trace_now());
        errno = e;
    }
    return r;
}

HPC_INTERPOSE int pthread_mutex_unlock(pthread_mutex_t *m)
{
    hpc_real_init();
    return unlock_common((int (*)(void *))HPC_REAL(pthread_mutex_unlock), m, 0);
}

HPC_INTERPOSE int mtx_unlock(mtx_t *m)
{
    hpc_real_init();
    return unlock_common((int (*)(void *))HPC_REAL(mtx_unlock), m, thrd_success);
}

HPC_INTERPOSE int pthread_mutex_trylock(pthread_mutex_t *m)
{
    hpc_real_init();
    return trylock_common((int (*)(void *))HPC_REAL(pthread_mutex_trylock), m, 0);
}

HPC_INTERPOSE int mtx_trylock(mtx_t *m)
{
    hpc_real_init();
    return trylock_common((int (*)(void *))HPC_REAL(mtx_trylock), m, thrd_success);
}

/* A condition wait lets go of m (a hold that may have had a waiter) and has it again
 * when it returns, whatever the result (glibc: also on a timeout or an error after the
 * wait). Before the real call: what the hold was; after it: the hold recorded, the new
 * hold begun, the wait recorded or screened. A cancelled wait never comes back here. */
typedef struct cond_hold {
    uint64_t grant;
    bool wanted;
} cond_hold;

static cond_hold cond_begin(hpc_trace *c, void *m)
{
    uint64_t grant = held_pop(c->t, m);
    return (cond_hold){grant, grant && mutex_handed_over(m)};
}

static void cond_end(hpc_trace *c, cond_hold h, const void *cv, void *m, int r, void *real)
{
    int e = errno;
    c->end = hpc_trace_now();
    c->leaf = (uint64_t)(uintptr_t)real;
    held_push(c->t, m, c->end);
    if (h.wanted)
        hold_end(c->t, m, h.grant, c->start);
    wait_end(c, HPC_SYNC_COND, cv, r, m);
    errno = e;
}

#define COND_WAIT(name, params, args)                                                              \
    HPC_INTERPOSE int name params                                                                  \
    {                                                                                              \
        hpc_real_init();                                                                           \
        HPC_STATES_CALL_BEGIN(HPC_TRACER_SYNC, name);                                              \
        hpc_trace c;                                                                               \
        if (!hpc_trace_begin(&c, HPC_TRACER_SYNC)) {                                               \
            int r = HPC_REAL(name) args;                                                           \
            HPC_STATES_CALL_END();                                                                 \
            return r;                                                                              \
        }                                                                                          \
        cond_hold h = cond_begin(&c, m);                                                           \
        int r = HPC_REAL(name) args;                                                               \
        HPC_STATES_CALL_END();                                                                     \
        cond_end(&c, h, cv, m, r, (void *)HPC_REAL(name));                                         \
        return r;                                                                                  \
    }
COND_WAIT(pthread_cond_wait, (pthread_cond_t *restrict cv, pthread_mutex_t *restrict m), (cv, m))
COND_WAIT(pthread_cond_timedwait,
          (pthread_cond_t *restrict cv, pthread_mutex_t *restrict m,
           const struct timespec *restrict abstime),
          (cv, m, abstime))
COND_WAIT(pthread_cond_clockwait,
          (pthread_cond_t *restrict cv, pthread_mutex_t *restrict m, clockid_t clk,
           const struct timespec *restrict abstime),
          (cv, m, clk, abstime))
COND_WAIT(cnd_wait, (cnd_t * cv, mtx_t *m), (cv, m))
COND_WAIT(cnd_timedwait,
          (cnd_t *restrict cv, mtx_t *restrict m, const struct timespec *restrict ts), (cv, m, ts))

/* ------------------------------------------------------------ OpenMP */

HPCOLLECT_API void hpcollect_sync_wait(hpc_thread *pub, unsigned kind, uint64_t object,
                                       uint64_t request, uint64_t grant)
{
    hpc_thread_priv *t = (hpc_thread_priv *)pub;
    if (!SYNC->on || !t || !t->stream_ok || t->pub.busy || hpc_guard_held() || grant < request ||
        !hpc_recording_at(grant))
        return;
    hpc_trace c = {.t = t, .kind = HPC_TRACER_SYNC, .ns = true, .start = request, .end = grant};
    wait_end(&c, kind, (const void *)(uintptr_t)object, 0, NULL);
}

/* ------------------------------------------------------------ start-up */

static uint64_t calibrated_call_ns;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The mean time of an uncontended pthread_mutex_lock as the wrapper times it (with the
 * trace clock), in ns: the median of 5 means of 200 calls (a preemption spoils one mean,
 * not the answer). */
static uint64_t calibrate(void)
{
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    uint64_t mean[5];
    for (int b = 0; b < 5; b++) {
        uint64_t sum = 0;
        for (int i = 0; i < 200; i++) {
            uint64_t a = hpc_trace_now();
            HPC_REAL(pthread_mutex_lock)(&m);
            sum += hpc_trace_now() - a;
            HPC_REAL(pthread_mutex_unlock)(&m);
        }
        mean[b] = (uint64_t)((double)sum / 200 * hpc_trace_ns_per_tick + 0.5);
    }
    qsort(mean, 5, sizeof mean[0], cmp_u64);
    return mean[2] ? mean[2] : 1;
}

void hpc_sync_init(void)
{
    const hpc_config *cfg = &hpc_P.cfg;
    if (!cfg->active || cfg->sync == 0)
        return;
    hpc_trace_clock_init();
    uint64_t threshold = cfg->sync_ns;
    if (cfg->sync == 1) {
        calibrated_call_ns = calibrate();
        threshold = 6 * calibrated_call_ns;
    }
    hpc_trace_set_threshold(HPC_TRACER_SYNC, threshold);
    __atomic_store_n(&SYNC->on, true, __ATOMIC_RELEASE);
}

void hpc_sync_write_settings(hpc_stream *s)
{
    if (!SYNC->on)
        return;
    hpc_rec_tracer r = {.kind = HPC_TRACE_SYNC,
                        .threshold_ns = SYNC->threshold_ns,
                        .calibrated = calibrated_call_ns != 0,
                        .call_ns = calibrated_call_ns};
    hpc_write_tracer(s, &r);
}
