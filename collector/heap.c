/*
 * heap.c - the heap tracer (-H, tracer HPC_TRACER_HEAP): every block the program gets
 * from malloc, calloc, realloc, reallocarray, memalign, posix_memalign, aligned_alloc,
 * valloc, pvalloc, an anonymous mmap or an mremap is a heap_alloc record with the caller's
 * stack; every free, munmap and mremap's old range a heap_free record without one
 * (experiment/schema.def). C++
 * new/delete and Fortran ALLOCATE come through these. Readers match frees to blocks by
 * address, across the process's threads, in time order (model/heap.c): leaks, peak, in
 * use over time.
 *
 * Order across threads. A free's record carries the time read before the real free; an
 * allocation's block exists from the time read after the real call returned. So when
 * thread B gets an address thread A just freed, A's free time is earlier than B's
 * allocation time, whatever order the two records reach their streams: both times are
 * hpc_trace_ns (interpose.h), one mapping of the TSC for all threads.
 *
 * Bootstrap (interpose.h): while this thread looks the real functions up, dlsym may
 * allocate: malloc, calloc and realloc answer from the static arena, free ignores the
 * arena's blocks and anything else it gets then (nothing the real free knows of exists
 * yet). A block of the arena given to realloc later is copied out to a real one.
 *
 * What is not the program's is not traced: the collector's own allocations (the guard),
 * its own writes and mappings (a thread busy writing its stream, rule 1 of sigsafe.h;
 * inside a sample handler, rule 6: a chunk change maps memory from there), threads the
 * collector does not follow. Failed calls write nothing; errno and return values are the
 * real calls'.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "collector.h"
#include "interpose.h"

/* What a heap call writes besides its time, duration and stack. */
typedef struct heap_event {
    unsigned fn; /* enum hpc_heap_fn */
    uint64_t addr, size, old;
} heap_event;

void hpc_heap_init(void)
{
    hpc_tracers[HPC_TRACER_HEAP].on = hpc_P.cfg.active && hpc_P.cfg.heap;
    hpc_tracers[HPC_TRACER_HEAP].threshold_ns = 0; /* every block: leaks need them all */
    if (hpc_tracers[HPC_TRACER_HEAP].on)
        hpc_trace_clock_init(); /* hpc_trace_ns: the TSC's cost, not the vDSO's */
}

/* Set while a traced call runs the real one: a heap call the C library makes inside it
 * (glibc's reallocarray calls realloc) is part of it, not a block of its own. */
static __thread int inside __attribute__((tls_model("initial-exec")));

/* The checks of hpc_trace_begin_slow without its clock: a heap call reads the clock once,
 * before the real call for a free (mark_start), after it for an allocation (alloc_end):
 * the clock is a third of the tracer's cost on a virtual machine. */
static __attribute__((noinline)) bool begin_slow(hpc_trace *c)
{
    hpc_thread_priv *t = hpc_self();
    if (!HPC_TRACE_THREAD_OK(t) || inside)
        return false;
    *c = (hpc_trace){.t = t, .kind = HPC_TRACER_HEAP, .ns = true}; /* times: hpc_trace_ns */
    inside = 1;
    return true;
}

/* A call that gives a block back: its time is read before the real call. */
static inline void mark_start(hpc_trace *c)
{
    c->start = hpc_trace_ns();
}

/* Trace this call? One predictable branch when -H is off. When it says yes, the caller
 * makes the real call and then ends it with alloc_end, free_end or leave. */
static inline bool begin(hpc_trace *c)
{
    if (__builtin_expect(!hpc_tracers[HPC_TRACER_HEAP].on, 1))
        return false;
    return begin_slow(c);
}

/* The real call of a traced call returned. */
static inline void leave(void)
{
    inside = 0;
}

static int write_alloc(hpc_stream *s, uint64_t node, uint64_t start, uint64_t duration,
                       const void *rec)
{
    const heap_event *e = rec;
    hpc_rec_heap_alloc r = {.time = start,
                            .duration = duration,
                            .node = node,
                            .fn = e->fn,
                            .addr = e->addr,
                            .size = e->size,
                            .old = e->old};
    return hpc_write_heap_alloc(s, &r);
}

static int write_free(hpc_stream *s, uint64_t node, uint64_t start, uint64_t duration,
                      const void *rec)
{
    (void)node, (void)duration;
    const heap_event *e = rec;
    hpc_rec_heap_free r = {.time = start, .fn = e->fn, .addr = e->addr, .size = e->size};
    return hpc_write_heap_free(s, &r);
}

/* The traced call returned block p (NULL: it failed, nothing is written). */
static void alloc_end(hpc_trace *c, unsigned fn, const void *p, uint64_t size, const void *old)
{
    leave();
    uint64_t now = hpc_trace_ns(); /* after the real call: the block exists from now on */
    if (!c->start)
        c->start = now;
    c->end = now;
    if (!p || !(hpc_recording_always() || hpc_recording_at(c->start)))
        return;
    heap_event e = {fn, (uintptr_t)p, size, (uintptr_t)old};
    hpc_trace_record(c, write_alloc, &e); /* no threshold: leaks need every block */
}

static void free_end(hpc_trace *c, unsigned fn, const void *p, uint64_t size)
{
    leave();
    if (!(hpc_recording_always() || hpc_recording_at(c->start)))
        return;
    c->end = c->start; /* a point in time */
    heap_event e = {fn, (uintptr_t)p, size, 0};
    hpc_trace_record_nostack(c, write_free, &e);
}

/* ------------------------------------------------------------ malloc & co. */

HPC_INTERPOSE void *malloc(size_t size)
{
    hpc_real_init();
    if (__builtin_expect(!HPC_REAL(malloc), 0)) /* resolving: dlsym's own allocation */
        return hpc_boot_alloc(size);
    hpc_trace c;
    if (!begin(&c))
        return HPC_REAL(malloc)(size);
    HPC_TRACE_SITE(c);
    void *p = HPC_REAL(malloc)(size);
    alloc_end(&c, HPC_HEAP_MALLOC, p, size, NULL);
    return p;
}

HPC_INTERPOSE void *calloc(size_t n, size_t size)
{
    hpc_real_init();
    size_t bytes;
    if (__builtin_mul_overflow(n, size, &bytes))
        bytes = SIZE_MAX; /* the real calloc fails it */
    if (__builtin_expect(!HPC_REAL(calloc), 0))
        return bytes == SIZE_MAX ? NULL : hpc_boot_alloc(bytes); /* zeroed */
    hpc_trace c;
    if (!begin(&c))
        return HPC_REAL(calloc)(n, size);
    HPC_TRACE_SITE(c);
    void *p = HPC_REAL(calloc)(n, size);
    alloc_end(&c, HPC_HEAP_CALLOC, p, bytes, NULL);
    return p;
}

/* realloc of a block of the bootstrap arena: a real block with its bytes (the arena
 * keeps no sizes; it copies what can be there, never past the arena's end). */
static void *realloc_boot(void *ptr, size_t size)
{
    void *p = malloc(size);
    if (p) {
        size_t room = hpc_boot_room(ptr);
        memcpy(p, ptr, size < room ? size : room);
    }
    return p;
}

/* realloc's (and reallocarray's) record: a new block replacing ptr, or ptr freed. */
static void realloc_end(hpc_trace *c, unsigned fn, void *p, void *ptr, uint64_t size)
{
    if (!p && ptr && size == 0) /* glibc frees ptr and returns NULL */
        free_end(c, HPC_HEAP_FREE, ptr, 0);
    else
        alloc_end(c, fn, p, size, ptr);
}

HPC_INTERPOSE void *realloc(void *ptr, size_t size)
{
    hpc_real_init();
    if (__builtin_expect(!HPC_REAL(realloc), 0))
        return ptr ? NULL : hpc_boot_alloc(size);
    if (__builtin_expect(ptr && hpc_boot_owns(ptr), 0))
        return realloc_boot(ptr, size);
    hpc_trace c;
    if (!begin(&c))
        return HPC_REAL(realloc)(ptr, size);
    HPC_TRACE_SITE(c);
    mark_start(&c);
    void *p = HPC_REAL(realloc)(ptr, size);
    realloc_end(&c, HPC_HEAP_REALLOC, p, ptr, size);
    return p;
}

HPC_INTERPOSE void *reallocarray(void *ptr, size_t n, size_t size)
{
    hpc_real_init();
    size_t bytes;
    if (__builtin_expect(!HPC_REAL(reallocarray), 0))
        return ptr || __builtin_mul_overflow(n, size, &bytes) ? NULL : hpc_boot_alloc(bytes);
    if (__builtin_expect(ptr && hpc_boot_owns(ptr), 0)) {
        if (__builtin_mul_overflow(n, size, &bytes)) {
            errno = ENOMEM;
            return NULL;
        }
        return realloc_boot(ptr, bytes);
    }
    hpc_trace c;
    if (!begin(&c))
        return HPC_REAL(reallocarray)(ptr, n, size);
    HPC_TRACE_SITE(c);
    mark_start(&c);
    void *p = HPC_REAL(reallocarray)(ptr, n, size);
    if (__builtin_mul_overflow(n, size, &bytes))
        leave(); /* failed: nothing to write */
    else
        realloc_end(&c, HPC_HEAP_REALLOCARRAY, p, ptr, bytes);
    return p;
}

HPC_INTERPOSE void free(void *ptr)
{
    if (!ptr)
        return;
    hpc_real_init();
    if (__builtin_expect(hpc_boot_owns(ptr) || !HPC_REAL(free), 0))
        return; /* the arena's, or given back while resolving (see above) */
    hpc_trace c;
    if (!begin(&c)) {
        HPC_REAL(free)(ptr);
        return;
    }
    mark_start(&c);
    HPC_REAL(free)(ptr);
    free_end(&c, HPC_HEAP_FREE, ptr, 0);
}

/* The aligned allocators: one shape, the real function's name and its record's fn. */
#define ALIGNED_ALLOC(name, fn, params, args, size)                                                \
    HPC_INTERPOSE void *name params                                                                \
    {                                                                                              \
        hpc_real_init();                                                                           \
        if (__builtin_expect(!HPC_REAL(name), 0)) { /* resolving: not for dlsym */                 \
            errno = ENOMEM;                                                                        \
            return NULL;                                                                           \
        }                                                                                          \
        hpc_trace c;                                                                               \
        if (!begin(&c))                                                                            \
            return HPC_REAL(name) args;                                                            \
        HPC_TRACE_SITE(c);                                                                         \
        void *p = HPC_REAL(name) args;                                                             \
        alloc_end(&c, fn, p, size, NULL);                                                          \
        return p;                                                                                  \
    }
ALIGNED_ALLOC(memalign, HPC_HEAP_MEMALIGN, (size_t align, size_t size), (align, size), size)
ALIGNED_ALLOC(aligned_alloc, HPC_HEAP_ALIGNED_ALLOC, (size_t align, size_t size), (align, size),
              size)
ALIGNED_ALLOC(valloc, HPC_HEAP_VALLOC, (size_t size), (size), size)
ALIGNED_ALLOC(pvalloc, HPC_HEAP_PVALLOC, (size_t size), (size), size)

HPC_INTERPOSE int posix_memalign(void **ptr, size_t align, size_t size)
{
    hpc_real_init();
    if (__builtin_expect(!HPC_REAL(posix_memalign), 0))
        return ENOMEM;
    hpc_trace c;
    if (!begin(&c))
        return HPC_REAL(posix_memalign)(ptr, align, size);
    HPC_TRACE_SITE(c);
    int rc = HPC_REAL(posix_memalign)(ptr, align, size);
    alloc_end(&c, HPC_HEAP_POSIX_MEMALIGN, rc == 0 ? *ptr : NULL, size, NULL);
    return rc;
}

/* ------------------------------------------------------------ mappings */

/* Anonymous mappings are allocations (the reference counts mmap as one); file mappings
 * are not: they are I/O (-i, io.c). */
HPC_INTERPOSE void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
    hpc_real_init();
    hpc_trace c;
    if (!(flags & MAP_ANONYMOUS))
        return hpc_io_mmap(addr, len, prot, flags, fd, off, (uintptr_t)__builtin_return_address(0),
                           (uintptr_t)__builtin_dwarf_cfa());
    if (!begin(&c))
        return HPC_REAL(mmap)(addr, len, prot, flags, fd, off);
    HPC_TRACE_SITE(c);
    void *p = HPC_REAL(mmap)(addr, len, prot, flags, fd, off);
    alloc_end(&c, HPC_HEAP_MMAP, p == MAP_FAILED ? NULL : p, len, NULL);
    return p;
}

/* Every munmap is written: readers free the anonymous mapping that starts at addr. */
HPC_INTERPOSE int munmap(void *addr, size_t len)
{
    hpc_real_init();
    hpc_trace c;
    if (!begin(&c))
        return HPC_REAL(munmap)(addr, len);
    mark_start(&c);
    int rc = HPC_REAL(munmap)(addr, len);
    if (rc == 0)
        free_end(&c, HPC_HEAP_MUNMAP, addr, len);
    else
        leave();
    return rc;
}

/* mremap is realloc's way for mappings: its old range given back (a heap_free of [old,
 * old + old_size) at the call's start, as a munmap's), its result a block of new_size at
 * the caller's stack (heap_alloc, old = the old address). Readers make no block of it
 * when no traced mapping was there (a file mapping's: model/heap.h). MREMAP_DONTUNMAP
 * leaves the old range mapped: no free then. */
HPC_INTERPOSE void *mremap(void *old, size_t old_size, size_t new_size, int flags, ...)
{
    void *target = NULL;
    if (flags & MREMAP_FIXED) {
        va_list ap;
        va_start(ap, flags);
        target = va_arg(ap, void *);
        va_end(ap);
    }
    hpc_real_init();
    hpc_trace c;
    if (!begin(&c))
        return HPC_REAL(mremap)(old, old_size, new_size, flags, target);
    HPC_TRACE_SITE(c);
    mark_start(&c);
    void *p = HPC_REAL(mremap)(old, old_size, new_size, flags, target);
    if (p == MAP_FAILED) {
        leave();
        return p;
    }
    if (!(flags & MREMAP_DONTUNMAP))
        free_end(&c, HPC_HEAP_MREMAP, old, old_size);
    alloc_end(&c, HPC_HEAP_MREMAP, p, new_size, old);
    return p;
}
