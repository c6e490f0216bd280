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

__thread omptool_thread omptool_tls __attribute__((tls_model("initial-exec")));

static _Atomic uint64_t next_region = 1;
static _Atomic uint64_t next_task = 1;

uint64_t omptool_next_region_id(void)
{
    return atomic_fetch_add_explicit(&next_region, 1, memory_order_relaxed);
}

uint64_t omptool_task_id_block(void)
{
    return atomic_fetch_add_explicit(&next_task, OMPTOOL_TASK_ID_BLOCK, memory_order_relaxed);
}

omptool_frame *omptool_push_slow(omptool_thread *th, hpc_thread *t, unsigned kind, unsigned state,
                                 uint64_t region, uint64_t id, uint64_t codeptr)
{
    /* A thread waiting for a mutex does nothing else: a mutex wait frame still on top was
     * pushed for a lock test that failed (cb_sync.c), and is over. */
    omptool_frame *top = omptool_top(th);
    if (top != NULL && top->kind == OMPTOOL_F_MUTEX && th->depth <= OMPTOOL_MAX_DEPTH) {
        hpcollect_wait_end(top->wait);
        th->depth--;
    }
    if (th->depth < OMPTOOL_MAX_DEPTH)
        return omptool_push(th, t, kind, state, region, id, codeptr);
    th->depth++;
    return NULL;
}

omptool_frame *omptool_pop_slow(omptool_thread *th, hpc_thread *t, unsigned kind, uint64_t id)
{
    if (th->depth > OMPTOOL_MAX_DEPTH) {
        /* The frame being closed was too deep to keep. */
        th->depth--;
        return NULL;
    }
    for (uint32_t i = th->depth; i-- > 0;) {
        omptool_frame *f = &th->frames[i];
        if (f->kind != kind || (id != 0 && f->id != id))
            continue;
        th->depth = i;
        omptool_publish(th, t);
        return f;
    }
    return NULL;
}
