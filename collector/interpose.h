/*
 * interpose.h - the one interposition layer of the collector: how an interposed function
 * finds the real one, how the collector's own calls stay out of what it traces, and the
 * frame of a traced call (the sync, heap and I/O tracers build on it). collector/README.md
 * ("Interposing") says how to add an interposer or a tracer.
 *
 * The functions are the table interpose.def. For each line:
 *
 *   HPC_REAL(name)  the next definition of name (the C library's, or a library after
 *                   ours in the search order): looked up once, in the constructor or at
 *                   the first call of any interposer before it (hpc_real_init), never
 *                   in a signal handler. Calling it is as cheap as a call through a
 *                   pointer. Signal-safe once resolved (rule 8 of sigsafe.h).
 *
 * Bootstrap. Our interposers can run before our constructor (another library's
 * constructor calls sigaction, malloc, write) and while the dynamic loader is not done.
 * dlsym may allocate (glibc's dlerror state), so while a thread resolves
 * (hpc_resolving()), an interposed allocator must not ask the real one, which is being
 * looked up: it answers from a static arena (hpc_boot_alloc) and free ignores what the
 * arena gave (hpc_boot_owns). Real functions are resolved all at once, so a lookup never
 * recurses into itself.
 *
 * The guard. A per-thread depth (hpc_guard_*) is held while the collector does its own
 * work in a program thread: its constructor, thread start and end, building a
 * descendant's environment, scanning modules, writing the end of a process. A traced call
 * made under it is the collector's own (its malloc, its stdio, its writes) and is not
 * traced. Interposers hold it around their own work only, never around the real call: a
 * dlopen's constructors, a thread's start routine and a program's signal handler are the
 * program's. The parts inside the program that are ours but not the collector's (mpi_wrap,
 * ompt) take it through hpcollect_guard_enter/leave (collector_api.h).
 *
 * A traced call (TRACED lines of interpose.def; tracer `kind`, enum hpc_tracer):
 *
 *     hpc_trace c;
 *     if (!hpc_trace_begin(&c, kind))        off, not followed, paused, or our own call:
 *         return HPC_REAL(name)(args);       one predictable branch when the tracer is off
 *     ret r = HPC_REAL(name)(args);
 *     c.end = hpc_now_ns();                  the call's end, before the tracer's work
 *     hpc_trace_<name>(&c, r, args);         the tracer's: builds its record, and calls
 *                                            hpc_trace_end(&c, write, &rec)
 *
 * hpc_trace_end screens the call (c.end - c.start): a call shorter than the tracer's
 * threshold is counted (HPC_STAT_TRACE_SCREENED, its time in HPC_STAT_TRACE_SCREENED_NS)
 * and not recorded; else the caller's stack is captured (hpc_unwind_program) into
 * the thread's calling-context tree (the program's frames only: the wrapper's are
 * skipped; a stack met before is found in a per-thread cache without unwinding, by the
 * wrapper's call site and stack pointer, checked return address by return address; c.leaf, the
 * traced function's entry in the library that defines it, is put below them as the leaf frame, as
 * an MPI call's own frame is its leaf) and write(stream, node, start, duration, rec) writes the
 * tracer's record between hpcollect_write_begin/end (rule 1 of sigsafe.h), a failed write counted
 * in HPC_STAT_EVENTS_DROPPED. errno is the real call's when the wrapper returns.
 */
#ifndef HPC_COLLECTOR_INTERPOSE_H
#define HPC_COLLECTOR_INTERPOSE_H

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <semaphore.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "experiment.h"

/* ------------------------------------------------------------ real functions */

#define HPC_FN_REAL_HAND(file)           1
#define HPC_FN_REAL_HAND_ONLY(file)      0
#define HPC_FN_REAL_REAL                 1
#define HPC_FN_REAL_TRACED(kind, args)   1
#define HPC_FN_REAL_TRACED_VOID(kind, a) 1
#define HPC_FN_REAL_BLOCKING(state, a)   1

/* Every line declared as the table says: a line that differs from the C library's
 * declaration, or a hand-written interposer that differs from its line, fails to compile
 * (conflicting types). */
#define HPC_FN(name, ret, params, body) extern ret name params;
#include "interpose.def"
#undef HPC_FN

/* The real functions, one member per line of interpose.def (those with no real function
 * of their own stay NULL). */
typedef struct hpc_real_fns {
#define HPC_FN(name, ret, params, body) ret(*name) params;
#include "interpose.def"
#undef HPC_FN
} hpc_real_fns;

extern hpc_real_fns hpc_real;
extern int hpc_real_ready;

/* Look every real function up (aborts with a message naming one the C library lacks).
 * NOT signal-safe: dlsym. Idempotent. */
void hpc_real_resolve(void);

/* Make sure the real functions are there: a load and a branch once they are. Every
 * interposer calls it first (it may run before the constructor). */
static inline void hpc_real_init(void)
{
    if (__builtin_expect(!__atomic_load_n(&hpc_real_ready, __ATOMIC_ACQUIRE), 0))
        hpc_real_resolve();
}

#define HPC_REAL(name) (hpc_real.name)

/* ------------------------------------------------------------ bootstrap */

/* True while this thread looks real functions up (dlsym may call an allocator). */
bool hpc_resolving(void);
/* n bytes (16-aligned) from a static arena for an allocation made while resolving; NULL
 * when the arena (64 KiB) is spent. Never freed. Signal-safe. */
void *hpc_boot_alloc(size_t n);
/* Did p come from hpc_boot_alloc? (free must not pass it on.) Signal-safe. */
bool hpc_boot_owns(const void *p);
/* Bytes from p (a block of the arena) to the arena's end: at most what realloc can copy
 * out of it. Signal-safe. */
size_t hpc_boot_room(const void *p);

/* ------------------------------------------------------------ the guard */

extern __thread int hpc_guard_depth __attribute__((tls_model("initial-exec")));

/* Hold (nested) / let go of the collector's guard in this thread. Signal-safe. */
static inline void hpc_guard_enter(void)
{
    hpc_guard_depth++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void hpc_guard_leave(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    hpc_guard_depth--;
}
/* Is this thread doing the collector's own work? Signal-safe. */
static inline bool hpc_guard_held(void)
{
    return hpc_guard_depth != 0;
}
/* Hold the guard from here to the end of the enclosing block (every return included):
 * the first statement of a function that does the collector's own work. */
static inline int hpc_guard_scope_begin(void)
{
    hpc_guard_enter();
    return 0;
}
static inline void hpc_guard_scope_end(int *scope)
{
    (void)scope;
    hpc_guard_leave();
}
#define HPC_GUARD_SCOPE                                                                            \
    __attribute__((cleanup(hpc_guard_scope_end), unused)) int hpc_guard_scope_ =                   \
        hpc_guard_scope_begin()

/* ------------------------------------------------------------ traced calls */

/* At start-up (the constructor): the real functions, and where our own code is. NOT
 * signal-safe. */
void hpc_interpose_init(void);
/* The calling thread's stack, leaf first, without our own frames (the wrapper's, the
 * tracer's): libunwind's fast path (unw_backtrace, its per-thread cache of frame layouts;
 * about 10x cheaper than the samples' step-by-step walk with its signal mask changes),
 * safe because it runs under hpcollect_write_begin (interpose.c). NOT signal-safe. */
struct hpc_thread_priv;
int hpc_unwind_program(struct hpc_thread_priv *t, uint64_t *pcs, int max);
/* Is pc in libhpcollect.so's own code (known once hpc_interpose_init ran)? Signal-safe. */
extern uintptr_t hpc_own_lo, hpc_own_hi;
static inline bool hpc_pc_ours(uint64_t pc)
{
    return pc >= hpc_own_lo && pc < hpc_own_hi;
}

/* The tracers, each turned on by its settings (each adds itself here, to settings.def and
 * to interpose.def). */
enum hpc_tracer {
    HPC_TRACER_SYNC = 0, /* sync.c: waits in the threads library (-s) */
    HPC_TRACER_HEAP,     /* heap.c: allocations and frees (-H) */
    HPC_TRACER_IO,       /* io.c: POSIX and C stdio I/O (-i) */
    HPC_TRACER_COUNT_
};

typedef struct hpc_tracer_cfg {
    bool on;
    uint64_t threshold_ns;    /* shorter calls are counted, not recorded */
    uint64_t threshold_ticks; /* the same in trace clock ticks (hpc_trace_set_threshold) */
} hpc_tracer_cfg;
extern hpc_tracer_cfg hpc_tracers[HPC_TRACER_COUNT_];

/* CLOCK_MONOTONIC ns (sigsafe_util.c). Signal-safe. */
uint64_t hpc_now_ns(void);

/*
 * The trace clock: what a wrapper reads before and after the real call. Where the
 * kernel keeps time with the TSC (its clocksource is "tsc": invariant and synchronized
 * across CPUs, as the kernel checked), the TSC itself, read in a few ns where
 * clock_gettime takes about 30 (a virtual machine's vDSO): the two reads are most of an
 * uncontended call's cost. Else CLOCK_MONOTONIC ns. A recorded call's ticks become ns
 * at its record (hpc_trace_record: against a CLOCK_MONOTONIC read then, so the TSC's
 * drift from the kernel's clock never accumulates; the I/O tracer's against a clock read
 * of its thread's at most 100 us old, interpose.c: end_ns); screened calls' ticks at their
 * flush. hpc_trace_clock_init decides, once, before any tracer turns on (each tracer that
 * reads the trace clock calls it at its start).
 */
extern int hpc_trace_tsc;            /* 1: ticks are TSC cycles */
extern double hpc_trace_ns_per_tick; /* 1 without the TSC */
void hpc_trace_clock_init(void);
static inline uint64_t hpc_trace_now(void)
{
#if defined(__x86_64__)
    if (__builtin_expect(hpc_trace_tsc, 1))
        return __builtin_ia32_rdtsc();
#endif
    return hpc_now_ns();
}
/* CLOCK_MONOTONIC ns from the TSC, by one mapping for all threads (kept on the kernel's
 * clock every 100 ms: interpose.c): times that order across threads as the TSC does, at a
 * TSC read's cost. hpc_now_ns without the TSC. Signal-safe. */
uint64_t hpc_trace_ns(void);
/* A tracer's threshold, in ns and in ticks. */
void hpc_trace_set_threshold(unsigned kind, uint64_t ns);

struct hpc_thread_priv;
/* One traced call in flight. */
typedef struct hpc_trace {
    struct hpc_thread_priv *t;
    unsigned kind;
    bool ns;        /* start and end are CLOCK_MONOTONIC ns (hpc_now_ns: the OpenMP tool's,
                       the heap tracer's), not trace clock ticks: set it when you read them */
    uint64_t start; /* trace clock before the real call */
    uint64_t end;   /* ... and after it (the generated wrapper sets it) */
    uint64_t leaf;  /* the traced function's address, the stack's leaf frame; 0 = none */
    uintptr_t site; /* the wrapper's return address and CFA (the caller's stack pointer at */
    uintptr_t cfa;  /* the call): the key of its stack in the thread's cache; 0 = none */
} hpc_trace;

/* In an interposer that traces: where it was called from, the key of the stack cache. */
#define HPC_TRACE_SITE(c)                                                                          \
    ((c).site = (uintptr_t)__builtin_return_address(0), (c).cfa = (uintptr_t)__builtin_dwarf_cfa())

/* May thread state t's traced call be recorded, as far as the thread says: followed (t),
 * not the collector's own work (the guard), not while it records (busy: a sample's unwind
 * holds libunwind's locks) or takes a sample (in_handler). Recording itself (pause, -t,
 * -L) is the caller's test. Signal-safe; needs collector.h (the thread's state). */
#define HPC_TRACE_THREAD_OK(t)                                                                     \
    ((t) && !hpc_guard_held() && !(t)->pub.busy && (t)->stream_ok && !(t)->in_handler)

/* Start tracing a call for tracer kind: false when the tracer is off (the only test when
 * it is: one predictable branch), the thread is not followed, the collector's guard is
 * held, the thread is busy recording (a sample's unwind: libunwind's locks), or recording
 * is paused or outside -t. NOT signal-safe (the program's calls). */
bool hpc_trace_begin_slow(hpc_trace *c, unsigned kind, struct hpc_thread_priv *known);
static inline bool hpc_trace_begin(hpc_trace *c, unsigned kind)
{
    if (__builtin_expect(!hpc_tracers[kind].on, 1))
        return false;
    return hpc_trace_begin_slow(c, kind, NULL);
}
/* The same after thread states' part of the wrapper (HPC_STATES_CALL_BEGIN) found the
 * thread: st, when not NULL, is the calling thread, followed, neither busy nor in a
 * handler nor under the guard, so what HPC_TRACE_THREAD_OK asks besides is its stream. */
static inline bool hpc_trace_begin_known(hpc_trace *c, unsigned kind, struct hpc_thread_priv *st)
{
    if (__builtin_expect(!hpc_tracers[kind].on, 1))
        return false;
    return hpc_trace_begin_slow(c, kind, st);
}

/* The tracer's record writer: write one record to s with the call's calling context
 * node, start time and duration; returns 0 or an hpc_err. */
typedef int (*hpc_trace_write_fn)(hpc_stream *s, uint64_t node, uint64_t start, uint64_t duration,
                                  const void *rec);
/* End a call that hpc_trace_begin started (c->end set): screen it by the tracer's
 * threshold, or capture its stack and write it. errno is kept. NOT signal-safe. */
void hpc_trace_end(hpc_trace *c, hpc_trace_write_fn write, const void *rec);

/* Screened calls are counted in the thread (t->screened_n, _ticks, _ns) and added to its
 * stream's statistics every HPC_SCREENED_FLUSH of them, before a record of the thread
 * and at its end (hpc_trace_flush): a process killed meanwhile loses at most that many
 * counts per thread. Signal-safe. */
#define HPC_SCREENED_FLUSH 64
void hpc_trace_flush(struct hpc_thread_priv *t);

/* Capture the caller's stack (c->leaf below it) and write rec with it, unscreened (what
 * hpc_trace_end does for a call at or above the threshold): for a tracer's records that
 * are not calls (the sync tracer's holds). errno is kept. NOT signal-safe. */
void hpc_trace_record(hpc_trace *c, hpc_trace_write_fn write, const void *rec);
/* The same without a stack (node 0, no unwinding): for events nobody reports a stack of
 * (a heap free). errno is kept. NOT signal-safe. */
void hpc_trace_record_nostack(hpc_trace *c, hpc_trace_write_fn write, const void *rec);

/* Thread states' part of a wrapper around a call the program may block in (states.h:
 * its time off the CPU is charged to the call's stack): the sync tracer's calls (the
 * threads library's waits) are User Lock or Other Wait by the function, the I/O tracer's Other Wait
 * (sigsafe_states.c: hpc_blocking_state). Other tracers' calls have none. errno is kept.
 * Signal-safe. */
struct hpc_thread_priv *hpc_states_call_begin(unsigned *slot, unsigned state, void *fn);
void hpc_states_call_end(struct hpc_thread_priv *t, unsigned slot);
#define HPC_STATES_BY_FN 255u /* a call's state: hpc_blocking_state(fn), when it is charged */
#define HPC_STATES_CALL_BEGIN(kind, name)                                                          \
    unsigned st_slot_ = 0;                                                                         \
    struct hpc_thread_priv *st_t_ =                                                                \
        ((kind) == HPC_TRACER_SYNC || (kind) == HPC_TRACER_IO)                                     \
            ? hpc_states_call_begin(&st_slot_, HPC_STATES_BY_FN, (void *)HPC_REAL(name))           \
            : NULL
#define HPC_STATES_CALL_END()                                                                      \
    if (st_t_)                                                                                     \
    hpc_states_call_end(st_t_, st_slot_)
/* Was the interposer called by the collector's own code (the experiment writer's open,
 * ftruncate, mmap and close, in a sample's signal handler too, where the guard is not
 * held)? Such a call is not the program's. Tested only when tracing. */
#define HPC_CALLER_OURS() hpc_pc_ours((uint64_t)(uintptr_t)__builtin_return_address(0))

/* The generated wrapper of a TRACED line: the real call, and the tracer's part
 * hpc_trace_<name>(hpc_trace *, ret, args...) when tracing. */
#define HPC_UNPAREN(...) __VA_ARGS__
#define HPC_TRACED_WRAPPER(name, ret, params, kind, args)                                          \
    __attribute__((visibility("default"))) ret name params                                         \
    {                                                                                              \
        hpc_real_init();                                                                           \
        HPC_TRACED_BODY(name, ret, kind, args)                                                     \
    }
/* Its body, after hpc_real_init: for an interposer that does more first (sync.c's mutex
 * locks), in the interposer itself (it reads the return address and CFA). */
#define HPC_TRACED_BODY(name, ret, kind, args)                                                     \
    {                                                                                              \
        HPC_STATES_CALL_BEGIN(kind, name);                                                         \
        hpc_trace c_;                                                                              \
        if (!hpc_trace_begin_known(&c_, kind, st_t_) || HPC_CALLER_OURS()) {                       \
            ret r_ = HPC_REAL(name) args;                                                          \
            HPC_STATES_CALL_END();                                                                 \
            return r_;                                                                             \
        }                                                                                          \
        ret r_ = HPC_REAL(name) args;                                                              \
        int e_ = errno;                                                                            \
        c_.end = hpc_trace_now();                                                                  \
        HPC_STATES_CALL_END();                                                                     \
        HPC_TRACE_SITE(c_);                                                                        \
        c_.leaf = (uint64_t)(uintptr_t)HPC_REAL(name);                                             \
        hpc_trace_##name(&c_, r_, HPC_UNPAREN args);                                               \
        errno = e_;                                                                                \
        return r_;                                                                                 \
    }
#define HPC_TRACED_VOID_WRAPPER(name, params, kind, args)                                          \
    __attribute__((visibility("default"))) void name params                                        \
    {                                                                                              \
        hpc_real_init();                                                                           \
        hpc_trace c_;                                                                              \
        if (!hpc_trace_begin(&c_, kind) || HPC_CALLER_OURS()) {                                    \
            HPC_REAL(name) args;                                                                   \
            return;                                                                                \
        }                                                                                          \
        HPC_REAL(name) args;                                                                       \
        int e_ = errno;                                                                            \
        c_.end = hpc_trace_now();                                                                  \
        HPC_TRACE_SITE(c_);                                                                        \
        c_.leaf = (uint64_t)(uintptr_t)HPC_REAL(name);                                             \
        hpc_trace_##name(&c_, HPC_UNPAREN args);                                                   \
        errno = e_;                                                                                \
    }

/* A tracer's file makes the wrappers of its TRACED lines (after its hpc_trace_<name>
 * parts) with its table:  #define HPC_FN HPC_TRACED_GENERATE, #include "its.def". */
#define HPC_TRACED_GENERATE(name, ret, params, body) HPC_GEN_(name, ret, params, HPC_GEN_##body)
#define HPC_GEN_(...)                                HPC_GEN__(__VA_ARGS__)
#define HPC_GEN__(name, ret, params, what, a, b)     HPC_GEN_DO_##what(name, ret, params, a, b)
#define HPC_GEN_TRACED(kind, args)                   TRACED, kind, args
#define HPC_GEN_TRACED_VOID(kind, args)              TRACED_VOID, kind, args
#define HPC_GEN_HAND(file)                           NONE, 0, 0
#define HPC_GEN_HAND_ONLY(file)                      NONE, 0, 0
#define HPC_GEN_REAL                                 NONE, 0, 0
#define HPC_GEN_DO_TRACED(name, ret, params, kind, args)                                           \
    HPC_TRACED_WRAPPER(name, ret, params, kind, args)
#define HPC_GEN_DO_TRACED_VOID(name, ret, params, kind, args)                                      \
    HPC_TRACED_VOID_WRAPPER(name, params, kind, args)
#define HPC_GEN_DO_NONE(...)

#endif
