/*
 * state.c - the per-thread OpenMP state machine of the tool.
 *
 * Each OpenMP thread keeps a stack of frames (omptool.h): the initial task at the bottom
 * of the initial thread, an implicit task per parallel region the thread works in, an
 * explicit task while one executes, a barrier/taskwait/taskgroup, a reduction or a mutex
 * wait on top. The innermost frame's state and region are what every sample records, so
 * after each push or pop we copy them into the collector's hpc_thread (two stores).
 *
 * Stacks are shallow (nesting depth of regions, tasks and waits: typically 2-5 frames);
 * deeper than OMPTOOL_MAX_DEPTH we keep counting but not storing, and the state shown is
 * the deepest kept frame's. Pops search down the stack because the runtime may report
 * ends out of the strict nesting order (a worker's implicit-barrier end arrives at the
 * next fork).
 */
#include <stdatomic.h>

#include "omptool.h"

omptool_global omptool_g;

/* initial-exec: every callback reaches it, and the general-dynamic model costs a
 * __tls_get_addr call each time (2% of an empty region's profile). libhpcollect.so is
 * always preloaded, never dlopen'ed, so its static TLS is reserved at start. */
static __thread omptool_thread omptool_tls __attribute__((tls_model("initial-exec")));

static _Atomic uint64_t next_region = 1;
static _Atomic uint64_t next_task = 1;

omptool_thread *omptool_self(void)
{
    return &omptool_tls;
}

uint64_t omptool_next_region_id(void)
{
    return atomic_fetch_add_explicit(&next_region, 1, memory_order_relaxed);
}

uint64_t omptool_next_task_id(void)
{
    return atomic_fetch_add_explicit(&next_task, 1, memory_order_relaxed);
}

omptool_frame *omptool_top(omptool_thread *th)
{
    uint32_t kept = th->depth < OMPTOOL_MAX_DEPTH ? th->depth : OMPTOOL_MAX_DEPTH;
    return kept ? &th->frames[kept - 1] : NULL;
}

uint64_t omptool_current_region(omptool_thread *th)
{
    omptool_frame *f = omptool_top(th);
    return f ? f->region : 0;
}

void omptool_publish(omptool_thread *th)
{
    hpc_thread *t = omptool_collector(th);
    if (t == NULL)
        return;
    omptool_frame *f = omptool_top(th);
    unsigned state = f ? f->state : th->base_state;
    /* Region first: a sample between the stores sees the new region with the old state,
     * which is right for a push (the state was already in this region's parent). */
    t->region = f ? f->region : 0;
    t->state = HPC_STATE_WITH_OMP(t->state, state);
}

omptool_frame *omptool_push(omptool_thread *th, unsigned kind, unsigned state, uint64_t region)
{
    /* A thread waiting for a mutex does nothing else: a mutex wait frame still on top was
     * pushed for a lock test that failed (cb_sync.c), and is over. */
    omptool_frame *top = omptool_top(th);
    if (top != NULL && top->kind == OMPTOOL_F_MUTEX && th->depth <= OMPTOOL_MAX_DEPTH) {
        hpcollect_wait_end(top->wait);
        th->depth--;
    }
    omptool_frame *f = NULL;
    if (th->depth < OMPTOOL_MAX_DEPTH) {
        f = &th->frames[th->depth];
        *f = (omptool_frame){.kind = (uint8_t)kind, .state = (uint8_t)state, .region = region};
    }
    th->depth++;
    if (f != NULL)
        omptool_publish(th);
    return f;
}

bool omptool_pop(omptool_thread *th, unsigned kind, uint64_t id, omptool_frame *out)
{
    if (th->depth > OMPTOOL_MAX_DEPTH) {
        /* The frame being closed was too deep to keep. */
        th->depth--;
        return false;
    }
    for (uint32_t i = th->depth; i-- > 0;) {
        omptool_frame *f = &th->frames[i];
        if (f->kind != kind || (id != 0 && f->id != id))
            continue;
        if (out != NULL)
            *out = *f;
        th->depth = i;
        omptool_publish(th);
        return true;
    }
    return false;
}
