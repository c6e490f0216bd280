/*
 * omptool.h - the OpenMP tool inside libhpcollect.so (internal to ompt/).
 *
 * LLVM libomp finds our exported ompt_start_tool when it initializes; we register OMPT
 * callbacks that keep, for every OpenMP thread, a small stack of what the thread is doing
 * (serial code, a parallel region's implicit task, an explicit task, a barrier or
 * taskwait, a mutex wait, a reduction). The innermost entry gives the thread's OpenMP
 * state and parallel-region id, which we publish in the collector's hpc_thread so every
 * clock and counter sample carries them; region, wait and mutex begin/end times go to the
 * thread's stream as omp_* records (experiment/schema.def), so work and wait are exact.
 *
 * Per-event cost is a TLS access, a clock read (vDSO) and at most one record write; the
 * call path at a parallel construct comes from a per-thread cache checked against the
 * return addresses on the stack (context.c), so we never unwind per event.
 *
 * Threading: every callback runs on the thread it describes, in normal context (not in
 * a signal handler). Per-thread state lives in TLS; the only shared state is the id
 * counters (atomics). Nothing here runs when no OpenMP runtime with OMPT is present.
 */
#ifndef HPC_OMPTOOL_H
#define HPC_OMPTOOL_H

#include <stdbool.h>
#include <stdint.h>

#include <omp-tools.h>

#include "collector_api.h"
#include "inlib.h"

/* Frames of the per-thread stack (what the thread is inside). */
enum omptool_frame_kind {
    OMPTOOL_F_INITIAL = 1, /* the initial task: serial code */
    OMPTOOL_F_FORK,        /* between parallel-begin and parallel-end on the encountering thread */
    OMPTOOL_F_IMPLICIT,    /* an implicit task of a parallel region */
    OMPTOOL_F_EXPLICIT,    /* an explicit task being executed */
    OMPTOOL_F_SYNC,        /* barrier, taskwait, taskgroup */
    OMPTOOL_F_REDUCTION,   /* reduction */
    OMPTOOL_F_MUTEX,       /* waiting for a lock, critical, ordered, atomic */
};

typedef struct omptool_frame {
    uint8_t kind;        /* enum omptool_frame_kind */
    uint8_t state;       /* enum hpc_omp_state while this frame is innermost */
    uint8_t sub;         /* hpc_omp_sync / hpc_omp_mutex kind */
    uint64_t region;     /* parallel region id (0 = none) */
    uint64_t id;         /* task id, or mutex wait id */
    uint64_t t_begin;    /* construct begin (sync, mutex request) */
    uint64_t t_wait;     /* sync: wait begin, 0 if the runtime did not say */
    uint64_t t_wait_end; /* sync: wait end */
    uint64_t codeptr;
    unsigned wait; /* mutex: the collector's thread-state token (hpcollect_wait_begin) */
} omptool_frame;

/* A mutex held by this thread: written as one omp_mutex record on release. */
typedef struct omptool_held {
    uint64_t wait_id;
    uint64_t t_request, t_acquired;
    uint64_t codeptr, region;
    uint8_t kind; /* hpc_omp_mutex, 0 = free slot */
} omptool_held;

typedef struct omptool_work {
    uint64_t t_begin, count, codeptr;
    uint8_t kind;
} omptool_work;

#define OMPTOOL_MAX_DEPTH 48
#define OMPTOOL_MAX_HELD  16
#define OMPTOOL_MAX_WORK  8

struct omptool_ctx_cache; /* context.c */

typedef struct omptool_thread {
    uint32_t depth;     /* frames in use; may exceed OMPTOOL_MAX_DEPTH (deeper ones not kept) */
    uint8_t base_state; /* state with no frame: SERIAL (initial), IDLE (worker), NONE */
    uint8_t started;    /* thread-begin seen */
    omptool_frame frames[OMPTOOL_MAX_DEPTH];
    omptool_held held[OMPTOOL_MAX_HELD];
    uint32_t nwork;
    omptool_work work[OMPTOOL_MAX_WORK];
    uint64_t masked_begin;
    uint64_t task_next, task_end;  /* this thread's block of task ids: [next, end) */
    struct omptool_ctx_cache *ctx; /* call paths at parallel constructs, lazily mapped */
} omptool_thread;

/* The tool's global facts, set once in initialize. */
typedef struct omptool_global {
    bool active;
    ompt_get_parallel_info_t get_parallel_info;
    ompt_set_callback_t set_callback;
    bool no_context_cache; /* HPCOLLECT_OMP_CONTEXT=unwind: unwind at every construct (bench) */
    bool sync_wait;        /* the runtime reports wait begin/end inside sync regions */
    char runtime_version[128];
    char runtime_path[512];
} omptool_global;

extern omptool_global omptool_g;

/* ---- state.c: the per-thread stack ---- */

/* This thread's tool state. initial-exec: every callback reaches it, and the
 * general-dynamic model costs a __tls_get_addr call each time (2% of an empty region's
 * profile). libhpcollect.so is always preloaded, never dlopen'ed, so its static TLS is
 * reserved at start. */
extern __thread omptool_thread omptool_tls __attribute__((tls_model("initial-exec")));

static inline omptool_thread *omptool_self(void)
{
    return &omptool_tls;
}

/* The innermost kept frame, or NULL. */
static inline omptool_frame *omptool_top(omptool_thread *th)
{
    uint32_t kept = th->depth < OMPTOOL_MAX_DEPTH ? th->depth : OMPTOOL_MAX_DEPTH;
    return kept ? &th->frames[kept - 1] : NULL;
}

/* Region id of the innermost frame (0 = not in a parallel region). */
static inline uint64_t omptool_current_region(omptool_thread *th)
{
    omptool_frame *f = omptool_top(th);
    return f ? f->region : 0;
}

/* Write th's current state and region into the collector's per-thread record t (the
 * calling thread's, omptool_collector(); nothing when NULL): two stores. */
static inline void omptool_publish(omptool_thread *th, hpc_thread *t)
{
    if (t == NULL)
        return;
    omptool_frame *f = omptool_top(th);
    unsigned state = f ? f->state : th->base_state;
    /* Region first: a sample between the stores sees the new region with the old state,
     * which is right for a push (the state was already in this region's parent). */
    t->region = f ? f->region : 0;
    t->state = HPC_STATE_WITH_OMP(t->state, state);
}

/* The slow cases of push and pop (a mutex wait frame on top, too deep, out of order). */
omptool_frame *omptool_push_slow(omptool_thread *th, hpc_thread *t, unsigned kind, unsigned state,
                                 uint64_t region, uint64_t id, uint64_t codeptr);
omptool_frame *omptool_pop_slow(omptool_thread *th, hpc_thread *t, unsigned kind, uint64_t id);

/* Push a frame (kind, state, region, id, codeptr; sub 0; the other fields are the
 * pusher's to set, if its kind uses them) and publish the new state into t; returns the
 * frame, or NULL when deeper than OMPTOOL_MAX_DEPTH (the frame is then only counted). */
static inline omptool_frame *omptool_push(omptool_thread *th, hpc_thread *t, unsigned kind,
                                          unsigned state, uint64_t region, uint64_t id,
                                          uint64_t codeptr)
{
    uint32_t d = th->depth;
    /* a mutex wait frame on top (d - 1 wraps when empty), or no room: state.c */
    if (__builtin_expect(
            d >= OMPTOOL_MAX_DEPTH || (d != 0 && th->frames[d - 1].kind == OMPTOOL_F_MUTEX), 0))
        return omptool_push_slow(th, t, kind, state, region, id, codeptr);
    omptool_frame *f = &th->frames[d];
    f->kind = (uint8_t)kind;
    f->state = (uint8_t)state;
    f->sub = 0;
    f->region = region;
    f->id = id;
    f->codeptr = codeptr;
    th->depth = d + 1;
    if (t != NULL) {
        t->region = region;
        t->state = HPC_STATE_WITH_OMP(t->state, state);
    }
    return f;
}

/* Pop frames down to and including the innermost frame of `kind` (with id `id` if id is
 * not 0) and publish the state below it into t. Returns that frame (valid until the
 * next push), or NULL if no such frame is kept (nothing is popped then). */
static inline omptool_frame *omptool_pop(omptool_thread *th, hpc_thread *t, unsigned kind,
                                         uint64_t id)
{
    uint32_t d = th->depth;
    if (__builtin_expect(d == 0 || d > OMPTOOL_MAX_DEPTH, 0))
        return omptool_pop_slow(th, t, kind, id);
    omptool_frame *f = &th->frames[d - 1];
    if (__builtin_expect(f->kind != kind || (id != 0 && f->id != id), 0))
        return omptool_pop_slow(th, t, kind, id);
    th->depth = d - 1;
    omptool_publish(th, t);
    return f;
}

/* ---- fork.c: what the last fork entry point of this thread was given ---- */

typedef struct omptool_fork_slot {
    uint64_t outlined; /* the outlined body */
    uint64_t ident;    /* clang's ident_t *, 0 for gcc's entries */
    uint64_t ra;       /* the entry's return address: OMPT's codeptr_ra of that fork */
} omptool_fork_slot;   /* offsets 0, 8, 16: fork.c's trampolines write them */

extern __thread omptool_fork_slot omptool_fork __attribute__((tls_model("initial-exec")));

/* ---- write helpers ---- */

/* The calling thread's collector state, or NULL: once per callback (inlib.h, one TLS
 * load). Not kept in the tool's state: the collector ends a thread's state before the
 * thread's TLS destructors run, and libomp reports the end of a user pthread's initial
 * task from one of those. */
static inline hpc_thread *omptool_collector(void)
{
    return hpc_inlib_self();
}

/* CLOCK_MONOTONIC ns, as hpcollect_now(): the one clock read of a callback. */
static inline uint64_t omptool_now(void)
{
    return hpc_now_ns_inline();
}

/* t (the calling thread's collector state, omptool_collector()) when a record of time
 * `now` (just read with omptool_now()) should be written, else NULL. */
static inline hpc_thread *omptool_writer(hpc_thread *t, uint64_t now)
{
    return t != NULL && hpc_inlib_recording_at(now) ? t : NULL;
}

/* Count a record the stream refused (size limit, I/O). */
static inline void omptool_check_write(hpc_thread *t, int rc)
{
    if (rc < 0)
        hpc_stream_stat_add(&t->stream, HPC_STAT_EVENTS_DROPPED, 1);
}

/* Process-unique ids for parallel regions and tasks (never 0). Task ids come from a block
 * of OMPTOOL_TASK_ID_BLOCK the thread takes at a time: every thread starts an implicit task
 * per region, and one counter for all would move between the cores at each of them. */
uint64_t omptool_next_region_id(void);
uint64_t omptool_task_id_block(void);
#define OMPTOOL_TASK_ID_BLOCK 1024
static inline uint64_t omptool_next_task_id(omptool_thread *th)
{
    if (__builtin_expect(th->task_next == th->task_end, 0)) {
        th->task_next = omptool_task_id_block();
        th->task_end = th->task_next + OMPTOOL_TASK_ID_BLOCK;
    }
    return th->task_next++;
}

/* ---- context.c: call path at a parallel construct ---- */

/*
 * CCT node of the calling thread's call path at a parallel construct, from the per-thread
 * cache when the return addresses on the stack above `enter_frame` (the runtime entry's
 * frame address from OMPT) match a cached path, else by unwinding (and caching).
 * Call between hpcollect_write_begin/end. NOT signal-safe.
 */
uint64_t omptool_context_at_construct(omptool_thread *th, hpc_thread *t, const void *enter_frame,
                                      const void *codeptr);

/* Release the thread's cache (thread end). */
void omptool_context_release(omptool_thread *th);

/* ---- callbacks, one file per family; each registers its own ---- */

/* Register a callback; returns false when the runtime never delivers it. */
bool omptool_register(ompt_callbacks_t event, ompt_callback_t cb);

void omptool_register_parallel(void); /* cb_parallel.c: threads, regions, implicit tasks */
void omptool_register_sync(void);     /* cb_sync.c: barriers, taskwait, reductions, mutexes */
void omptool_register_work(void);     /* cb_work.c: worksharing, masked, tasks, control */

/* ---- runtime.c: which OpenMP runtime ran ---- */

/* Write omp_runtime to the process stream for the runtime that started the tool. */
void omptool_note_llvm_runtime(unsigned omp_version, const char *runtime_version,
                               const void *lookup_fn);

/*
 * If an OpenMP runtime without OMPT (GNU libgomp) is loaded and ours did not start, write
 * omp_runtime {mode native, ompt 0}. Safe to call at any time after the collector has
 * opened the process stream; does nothing once a runtime was recorded. NOT signal-safe.
 */
void omptool_note_native_runtime(void);

#endif /* HPC_OMPTOOL_H */
