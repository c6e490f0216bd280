/*
 * interpose.c - the interposition layer (interpose.h): real functions looked up from the
 * table interpose.def, the bootstrap arena, the guard, and the frame of a traced call.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector.h"
#include "interpose.h"

hpc_real_fns hpc_real;
int hpc_real_ready;
__thread int hpc_guard_depth __attribute__((tls_model("initial-exec")));
hpc_tracer_cfg hpc_tracers[HPC_TRACER_COUNT_];

/* ------------------------------------------------------------ lookup */

static const struct {
    const char *name;
    size_t offset;
    int real; /* has a real function of its own (HPC_FN_REAL_*) */
} fns[] = {
#define HPC_FN(name, ret, params, body) {#name, offsetof(hpc_real_fns, name), HPC_FN_REAL_##body},
#include "interpose.def"
#undef HPC_FN
};

static __thread int resolving __attribute__((tls_model("initial-exec")));
static int resolve_lock;

bool hpc_resolving(void)
{
    return resolving != 0;
}

static void *next(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        static const char msg[] = "hpcollect: libc function not found: ";
        (void)!write(2, msg, sizeof msg - 1);
        (void)!write(2, name, strlen(name));
        (void)!write(2, "\n", 1);
        abort();
    }
    return p;
}

/* One thread resolves, once; another that comes meanwhile waits for it (a lookup takes
 * microseconds). The table is filled aside and published at once, so a reader never sees
 * it half done. */
void hpc_real_resolve(void)
{
    if (__atomic_load_n(&hpc_real_ready, __ATOMIC_ACQUIRE) || resolving)
        return; /* resolving: dlsym called an interposer of ours: the arena answers */
    while (__atomic_exchange_n(&resolve_lock, 1, __ATOMIC_ACQUIRE))
        if (__atomic_load_n(&hpc_real_ready, __ATOMIC_ACQUIRE))
            return;
    if (!__atomic_load_n(&hpc_real_ready, __ATOMIC_ACQUIRE)) {
        resolving = 1;
        hpc_real_fns r;
        memset(&r, 0, sizeof r);
        for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
            if (fns[i].real)
                *(void **)((char *)&r + fns[i].offset) = next(fns[i].name);
        hpc_real = r;
        resolving = 0;
        __atomic_store_n(&hpc_real_ready, 1, __ATOMIC_RELEASE);
    }
    __atomic_store_n(&resolve_lock, 0, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ bootstrap arena */

#define ARENA_SIZE (64 * 1024)
static _Alignas(16) char arena[ARENA_SIZE];
static size_t arena_used;

void *hpc_boot_alloc(size_t n)
{
    size_t want = (n + 15) & ~(size_t)15;
    if (want < n)
        return NULL;
    size_t at = __atomic_fetch_add(&arena_used, want, __ATOMIC_RELAXED);
    if (at > ARENA_SIZE || want > ARENA_SIZE - at)
        return NULL;
    return arena + at; /* zeroed: static storage, never reused (calloc's answer too) */
}

bool hpc_boot_owns(const void *p)
{
    return (const char *)p >= arena && (const char *)p < arena + ARENA_SIZE;
}

/* ------------------------------------------------------------ traced calls */

/* The executable mappings of libhpcollect.so: a traced call's stack starts at the first
 * frame outside them (the wrapper and the tracer's part are ours, whatever the compiler
 * inlined). */
uintptr_t hpc_own_lo, hpc_own_hi;

static int find_own(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const Dl_info *me = arg;
    if ((void *)info->dlpi_addr != me->dli_fbase)
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        hpc_own_lo = hpc_own_lo && hpc_own_lo < lo ? hpc_own_lo : lo;
        hpc_own_hi = hpc_own_hi > hi ? hpc_own_hi : hi;
    }
    return 1;
}

void hpc_interpose_init(void)
{
    hpc_real_init();
    Dl_info me;
    if (dladdr((void *)&hpc_interpose_init, &me) && me.dli_fbase)
        hpc_dl_iterate(find_own, &me);
}

int hpc_unwind_program(hpc_thread_priv *t, uint64_t *pcs, int max)
{
    int n = hpc_unwind_here_slots(t, 0, pcs, NULL, max), ours = 0;
    while (ours < n && hpc_pc_ours(pcs[ours]))
        ours++;
    memmove(pcs, pcs + ours, sizeof *pcs * (size_t)(n - ours));
    return n - ours;
}

bool hpc_trace_begin_slow(hpc_trace *c, unsigned kind)
{
    hpc_thread_priv *t = hpc_self();
    /* a sample's handler or a record being written: the collector's own calls */
    if (!t || hpc_guard_held() || !t->stream_ok || t->in_handler || t->pub.busy)
        return false;
    uint64_t now = hpc_now_ns(); /* one clock read: the window's test and the start */
    if (!hpc_recording_at(now))
        return false;
    c->t = t;
    c->kind = kind;
    c->start = now;
    c->end = now;
    c->leaf = 0;
    return true;
}

void hpc_trace_record(hpc_trace *c, hpc_trace_write_fn write, const void *rec)
{
    int saved = errno;
    hpc_thread_priv *t = c->t;
    hpc_guard_enter();
    /* busy (rule 1): a sample meanwhile is counted blocked and leaves t->pcs alone */
    hpcollect_write_begin(&t->pub);
    int lf = c->leaf != 0;
    int n = hpc_unwind_program(t, t->pcs + lf, HPC_MAX_DEPTH - lf) + lf;
    t->pcs[0] = lf ? c->leaf : t->pcs[0];
    int err = 0;
    uint64_t node = hpc_cct_insert(t, t->pcs, n, &err);
    if (!err)
        err = write(&t->pub.stream, node, c->start, c->end - c->start, rec);
    if (err)
        hpc_stat(t, HPC_STAT_EVENTS_DROPPED, 1);
    hpcollect_write_end(&t->pub);
    hpc_guard_leave();
    errno = saved;
}

void hpc_trace_end(hpc_trace *c, hpc_trace_write_fn write, const void *rec)
{
    uint64_t duration = c->end - c->start;
    if (duration >= hpc_tracers[c->kind].threshold_ns) {
        hpc_trace_record(c, write, rec);
        return;
    }
    hpc_stat(c->t, HPC_STAT_TRACE_SCREENED, 1);
    hpc_stat(c->t, HPC_STAT_TRACE_SCREENED_NS, duration);
}
