/*
 * context.c - the encountering thread's call path at a parallel construct, cheaply.
 *
 * The user view puts a worker's samples under the master's call path at the construct,
 * so every parallel-begin record carries that path as a CCT node. Unwinding costs
 * microseconds, too much for regions of 100 us; instead each thread caches, per construct
 * (codeptr_ra), the paths it has seen: for every frame from the construct's caller up to
 * the stack's root, where its return address lies relative to the runtime entry's frame
 * address (OMPT's enter_frame) and what it was. A later encounter with the same codeptr
 * reads those stack slots and compares them (a few tens of loads): if every return
 * address matches, the call path is the same and so is the CCT node. Otherwise the
 * collector unwinds once, for the node and the slots together, and we cache the new path
 * (4 paths per construct, least recently used replaced). (A second unwind of our own,
 * with libunwind's default memory accessor, made libunwind reopen its validation pipe:
 * it closed the descriptor numbers its first pipe had, which the collector had closed at
 * start-up and the program or the collector had reused since; issue 24.)
 *
 * Reads are safe: slots are compared innermost first and we stop at the first mismatch;
 * while they match, the next slot lies inside the frames the match proved to be there.
 * A stack-bounds check guards the remaining case (frame sizes changed by alloca).
 *
 * Cache size: 16 sets x 4 ways x ~800 bytes = 51 KiB per thread that encounters parallel
 * constructs, mapped on first use (not malloc: we run inside the program's runtime).
 * x86-64 only (return address just below the caller's stack pointer); elsewhere every
 * construct is unwound.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "omptool.h"

#define CTX_SETS           16
#define CTX_WAYS           4
#define CTX_MAX_FRAMES     64
#define CTX_RUNTIME_FRAMES 32 /* room for the runtime's frames below the construct's caller */

typedef struct ctx_entry {
    uintptr_t codeptr; /* 0 = empty */
    uint64_t node;
    uint32_t nframes;
    uint32_t stamp;               /* last use, for replacement */
    uint32_t hi_off;              /* the largest off[]: the path's end on the stack */
    uint32_t off[CTX_MAX_FRAMES]; /* slot address - enter_frame */
    uintptr_t ra[CTX_MAX_FRAMES];
} ctx_entry;

struct omptool_ctx_cache {
    uint32_t clock;
    uintptr_t stack_hi; /* end of this thread's stack, 0 = unknown */
    ctx_entry e[CTX_SETS][CTX_WAYS];
};

static uintptr_t stack_end(void)
{
    pthread_attr_t a;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &a) != 0)
        return 0;
    int rc = pthread_attr_getstack(&a, &addr, &size);
    pthread_attr_destroy(&a);
    return rc == 0 ? (uintptr_t)addr + size : 0;
}

static __attribute__((noinline)) struct omptool_ctx_cache *cache_of(omptool_thread *th)
{
    if (th->ctx == NULL) {
        void *p = mmap(NULL, sizeof(struct omptool_ctx_cache), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        th->ctx = p; /* zero-filled */
        th->ctx->stack_hi = stack_end();
    }
    return th->ctx;
}

void omptool_context_release(omptool_thread *th)
{
    if (th->ctx != NULL)
        munmap(th->ctx, sizeof(struct omptool_ctx_cache));
    th->ctx = NULL;
}

/* Every slot lies in [enter, enter + hi_off]: one bound check for the path, since the
 * stack is whole between enter_frame (inside it) and its end. */
static bool path_matches(const ctx_entry *e, uintptr_t enter, uintptr_t stack_hi)
{
    if (stack_hi != 0 && enter + e->hi_off > stack_hi - sizeof(uintptr_t))
        return false;
    for (uint32_t i = 0; i < e->nframes; i++)
        if (*(const uintptr_t *)(enter + e->off[i]) != e->ra[i])
            return false;
    return true;
}

/*
 * Record where the return addresses from the construct's caller up lie on the stack, from
 * the slots of the unwind that made the construct's node (hpcollect_capture_context_slots:
 * the collector's one unwind, through its own memory accessor). Returns the number of
 * frames, or -1 when the path cannot be checked this way (the construct's return address
 * not found, below enter_frame, too deep, the unwind cut short).
 */
static int learn_path(ctx_entry *e, uintptr_t enter, uintptr_t codeptr, const uintptr_t *slots,
                      int nslots, int max)
{
#if defined(__x86_64__)
    if (nslots >= max)
        return -1; /* perhaps cut short: a partial path could match another one */
    bool found = false;
    uint32_t n = 0;
    e->hi_off = 0;
    for (int i = 0; i < nslots; i++) {
        uintptr_t slot = slots[i], ra = *(const uintptr_t *)slot;
        if (!found && ra != codeptr)
            continue;
        found = true;
        if (slot < enter || slot - enter > UINT32_MAX || n == CTX_MAX_FRAMES)
            return -1;
        e->off[n] = (uint32_t)(slot - enter);
        e->ra[n] = ra;
        if (e->off[n] > e->hi_off)
            e->hi_off = e->off[n];
        n++;
    }
    return found ? (int)n : -1;
#else
    (void)e, (void)enter, (void)codeptr, (void)slots, (void)nslots, (void)max;
    return -1;
#endif
}

static ctx_entry *victim(ctx_entry *set)
{
    ctx_entry *v = &set[0];
    for (int w = 0; w < CTX_WAYS; w++) {
        if (set[w].codeptr == 0)
            return &set[w];
        if (set[w].stamp < v->stamp)
            v = &set[w];
    }
    return v;
}

/*
 * A miss (or no cache yet): the collector's one unwind gives the node and the slots, and
 * the path is learnt into the set's least recently used way. Out of line, so that a hit
 * saves no registers. skip 2: this function and omptool_context_at_construct (which
 * calls it not as a tail call): the unwind starts at the callback, as it always has.
 */
static __attribute__((noinline)) uint64_t context_miss(omptool_thread *th, hpc_thread *t,
                                                       uintptr_t enter, uintptr_t ra)
{
    struct omptool_ctx_cache *c =
        (enter && ra && !omptool_g.no_context_cache) ? cache_of(th) : NULL;
    if (c == NULL)
        return hpcollect_capture_context(t, 2);
    ctx_entry *set = c->e[(ra >> 4) % CTX_SETS];
    uintptr_t slots[CTX_MAX_FRAMES + CTX_RUNTIME_FRAMES];
    int nslots = 0, max = (int)(sizeof slots / sizeof slots[0]);
    uint64_t node = hpcollect_capture_context_slots(t, 2, slots, max, &nslots);
    ctx_entry *e = victim(set);
    int n = hpcollect_last_unwind_whole(t) ? learn_path(e, enter, ra, slots, nslots, max) : -1;
    if (n <= 0 || node == 0) {
        e->codeptr = 0;
        return node;
    }
    e->codeptr = ra;
    e->nframes = (uint32_t)n;
    e->node = node;
    e->stamp = ++c->clock;
    return node;
}

__attribute__((noinline)) uint64_t omptool_context_at_construct(omptool_thread *th, hpc_thread *t,
                                                                const void *enter_frame,
                                                                const void *codeptr)
{
    uintptr_t enter = (uintptr_t)enter_frame, ra = (uintptr_t)codeptr;
    struct omptool_ctx_cache *c = th->ctx;
    if (__builtin_expect(c != NULL && enter != 0 && ra != 0, 1)) {
        ctx_entry *set = c->e[(ra >> 4) % CTX_SETS];
        c->clock++;
        for (int w = 0; w < CTX_WAYS; w++) {
            ctx_entry *e = &set[w];
            if (e->codeptr == ra && path_matches(e, enter, c->stack_hi)) {
                e->stamp = c->clock;
                return e->node;
            }
        }
    }
    uint64_t node = context_miss(th, t, enter, ra);
    __asm__ volatile("" ::: "memory"); /* not a tail call: context_miss skips this frame */
    return node;
}
