/*
 * context.c - the calling context of a recorded MPI call: a cct_node id of the thread's
 * calling-context tree whose leaf is the MPI function's own frame (the wrapper), so the
 * MPI metrics (MPI Time, Sends, Bytes ...) sit on full call stacks like samples do, at
 * any depth (mpi_call.node).
 *
 * Unwinding costs microseconds, a call should cost tens of nanoseconds: a per-thread
 * cache remembers each stack met before. Its key is what the wrapper knows for free: the
 * call site (return address), the caller's stack pointer at the call (the wrapper's CFA)
 * and the function. A hit must also find, at every stack address where the unwinder
 * found a return address of that stack (hpcollect_capture_context_slots), the same
 * return address again: with the same site and stack pointer, frames of fixed size put
 * the same chain of return addresses at the same places, so the whole path is the same.
 * (A frame that sizes itself at run time, alloca or a variable-length array, could in
 * principle put an old chain's words back where they were; stacks deeper than
 * CTX_SLOTS frames are checked in their innermost CTX_SLOTS frames.) A miss unwinds and
 * replaces the entry; entries are direct-mapped by a hash of the key. A call the MPI
 * library's Fortran binding made takes its site from the stack (site_outside_binding).
 */
#include <stdlib.h>

#include "mpiw.h"

#define CTX_ENTRIES 128 /* per thread, about 70 KiB, allocated at the thread's first call */
#define CTX_SLOTS   32

typedef struct ctx_entry {
    uintptr_t site, cfa;
    uint32_t fn, nslots;
    uint64_t node;
    uintptr_t slot[CTX_SLOTS];
    uintptr_t val[CTX_SLOTS];
} ctx_entry;

static __thread ctx_entry *cache __attribute__((tls_model("initial-exec")));

static bool same_stack(const ctx_entry *e)
{
    for (uint32_t i = 0; i < e->nslots; i++)
        if (*(const volatile uintptr_t *)e->slot[i] != e->val[i])
            return false;
    return true;
}

/* The frames between the unwinder and the wrapper: hpcw_context, hpcw_write_call. */
#define SKIP_TO_WRAPPER 2

void hpcw_context_prepare(void)
{
    if (!cache)
        cache = calloc(CTX_ENTRIES, sizeof *cache);
}

/* A call from inside the MPI library's Fortran binding (MPICH's binding calls the C
 * functions: its sends, collectives, file transfers) gets as its site the first return
 * address of the stack outside it: the program's line, not the binding's. */
static void site_outside_binding(hpcw_call *c, const ctx_entry *e)
{
    if (!hpcw_in_binding(c->site))
        return;
    for (uint32_t i = 1; i < e->nslots; i++)
        if (!hpcw_in_binding(e->val[i])) {
            c->site = e->val[i];
            return;
        }
}

__attribute__((noinline)) uint64_t hpcw_context(hpcw_call *c)
{
    if (!c->cfa || !cache)
        return 0;
    uintptr_t h = c->site ^ (c->cfa >> 3) * 0x9E3779B97F4A7C15ull ^ c->fn;
    ctx_entry *e = &cache[(h ^ h >> 29) % CTX_ENTRIES];
    if (e->node && e->site == c->site && e->cfa == c->cfa && e->fn == c->fn && same_stack(e)) {
        site_outside_binding(c, e);
        return e->node;
    }
    int n = 0;
    uint64_t node = hpcollect_capture_context_slots(c->t, SKIP_TO_WRAPPER, e->slot, CTX_SLOTS, &n);
    e->node = 0;
    if (!node || n < 1 || e->slot[0] != c->cfa - sizeof(uintptr_t))
        return 0; /* the leaf is not the wrapper's frame (called another way): no context */
    for (int i = 0; i < n; i++)
        e->val[i] = *(const uintptr_t *)e->slot[i];
    e->nslots = (uint32_t)n;
    e->site = c->site;
    e->cfa = c->cfa;
    e->fn = c->fn;
    e->node = node;
    site_outside_binding(c, e);
    return node;
}
