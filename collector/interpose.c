/*
 * interpose.c - the interposition layer (interpose.h): real functions looked up from the
 * table interpose.def, the bootstrap arena, the guard, and the frame of a traced call.
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <fcntl.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector.h"
#include "interpose.h"
#include "text_range.h"

hpc_real_fns hpc_real;
int hpc_real_ready;
__thread int hpc_guard_depth __attribute__((tls_model("initial-exec")));
hpc_tracer_cfg hpc_tracers[HPC_TRACER_COUNT_];
int hpc_trace_tsc;
double hpc_trace_ns_per_tick = 1;

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

size_t hpc_boot_room(const void *p)
{
    return hpc_boot_owns(p) ? (size_t)(arena + ARENA_SIZE - (const char *)p) : 0;
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
    hpc_text_range(info, &hpc_own_lo, &hpc_own_hi);
    return 1;
}

static void ctx_fork_child(void);

void hpc_interpose_init(void)
{
    hpc_real_init();
    pthread_atfork(NULL, NULL, ctx_fork_child);
    Dl_info me;
    if (dladdr((void *)&hpc_interpose_init, &me) && me.dli_fbase)
        hpc_dl_iterate(find_own, &me);
}

struct hpc_trace_ctx;
static void ctx_fill(struct hpc_trace_ctx *e, const hpc_trace *c, const uint64_t *pcs, int n);

/* The calling thread's stack by libunwind's fast path (unw_backtrace: a per-thread cache of
 * frame layouts, no signal mask changed, no system call once the cache is warm): callers'
 * pcs, return addresses minus one. Made between hpcollect_write_begin/end, so no sample of
 * ours enters libunwind meanwhile (rule 1: a sample that finds the thread busy does not
 * unwind); a fault while unwinding comes back here as the samples' do (rule 6), the
 * loader's lock as rule 7 says, memory is read by our accessor (sigsafe_unwind.c). With
 * e, the traced call c's entry of the stack cache is filled from the stack found (its
 * search of the stack is under the same fault recovery). */
static int unwind_fast(hpc_thread_priv *t, uint64_t *pcs, int max, struct hpc_trace_ctx *e,
                       const hpc_trace *c)
{
    volatile int n = 0, kept = 0;
    if (t->in_dl || !hpc_dl_unwind_begin(t))
        return 0;
    uint64_t user_blocked = hpc_user_blocked;
    t->unwind_gave_way = 0;
    if (sigsetjmp(t->unwind_env, 0)) { /* a fault: the stack if it was found, no entry */
        hpc_stat(t, HPC_STAT_UNWIND_FAULTS, 1);
        n = kept;
        goto out;
    }
    t->in_unwind = 1;
    n = unw_backtrace((void **)pcs, max);
    if (n == max)
        hpc_stat(t, HPC_STAT_UNWIND_TRUNCATED, 1);
    if (t->unwind_gave_way)
        hpc_stat(t, HPC_STAT_UNWIND_SKIPPED, 1);
    for (int i = 0; i < n; i++)
        pcs[i] -= 1;
    kept = n;
    if (e)
        ctx_fill(e, c, pcs, n);
out:
    t->in_unwind = 0;
    hpc_user_blocked = user_blocked;
    hpc_dl_unwind_end();
    return n;
}

int hpc_unwind_program(hpc_thread_priv *t, uint64_t *pcs, int max)
{
    int n = unwind_fast(t, pcs, max, NULL, NULL), ours = 0;
    while (ours < n && hpc_pc_ours(pcs[ours]))
        ours++;
    memmove(pcs, pcs + ours, sizeof *pcs * (size_t)(n - ours));
    return n - ours;
}

/* ------------------------------------------------------------ the trace clock */

/*
 * hpc_trace_ns: one mapping of the TSC to CLOCK_MONOTONIC ns for the whole process, so that
 * two threads' times compare as their TSC reads do (the heap tracer's frees and allocations
 * are matched by address across threads in time order). A segment maps ticks to ns by a
 * base and a slope; when a segment is older than its length, the first thread that finds
 * it so starts the next one where the old one ends at that tick (continuous: no time goes
 * back), with the slope that brings it onto CLOCK_MONOTONIC by the end of the next segment
 * (the slope of the whole run so far, corrected by the gap now): the mapping stays within
 * microseconds of the kernel's clock, which NTP may slew. Segments last 1 ms at first and
 * twice as long each time up to 100 ms (the start-up calibration's 2 ms slope is refined
 * soon). A segment starts only at a tight pair of clock reads around a TSC read (a thread
 * preempted between them tries again at its next call). Two segments alternate, each with
 * a sequence number: a writer rewrites the one not in use, a reader that met it being
 * rewritten reads again, and nobody waits for a writer (a thread that finds another one
 * writing goes on with the current segment). Signal-safe.
 */
#define ANCHOR_FIRST_NS 1000000ull   /* 1 ms */
#define ANCHOR_MAX_NS   100000000ull /* 100 ms */
#define ANCHOR_PAIR_NS  4000         /* the widest pair of clock reads a segment starts at */
#define ANCHOR_AGE_NS   100000       /* a thread's anchor of traced calls' times (end_ns) */
#define ANCHOR_TIGHT_NS 250          /* ... and the widest pair of clock reads it takes at once */

typedef struct tsc_segment {
    uint32_t seq; /* odd while written */
    uint64_t tsc, ns;
    double ns_per_tick;
} tsc_segment;

static tsc_segment segments[2];
static unsigned segment_cur;
static int segment_writing;
static uint64_t first_tsc, first_ns; /* the first segment's start: the run's slope */
static uint64_t anchor_ticks, anchor_max_ticks;
static uint64_t anchor_age_ticks; /* a thread's anchor of traced calls' times: end_ns */

/* Start the next segment after segment cur (o), unless another thread does. True when a
 * next segment is there. */
static bool segment_next(unsigned cur, const tsc_segment *o)
{
    if (__atomic_exchange_n(&segment_writing, 1, __ATOMIC_ACQUIRE))
        return false;
    bool done = __atomic_load_n(&segment_cur, __ATOMIC_ACQUIRE) != cur;
    uint64_t a = hpc_now_ns(), tk = __builtin_ia32_rdtsc(), b = hpc_now_ns();
    if (!done && b - a <= ANCHOR_PAIR_NS) {
        uint64_t mono = a + (b - a) / 2;
        uint64_t ns = o->ns + (uint64_t)(int64_t)((double)(int64_t)(tk - o->tsc) * o->ns_per_tick);
        double run = (double)(mono - first_ns) / (double)(tk - first_tsc);
        uint64_t len = anchor_ticks * 2 < anchor_max_ticks ? anchor_ticks * 2 : anchor_max_ticks;
        double slope = run + (double)(int64_t)(mono - ns) / (double)len;
        if (slope < run / 2 || slope > run * 2)
            slope = run; /* a gap that large: the run's own slope */
        tsc_segment *n = &segments[cur ^ 1];
        __atomic_store_n(&n->seq, n->seq + 1, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_RELEASE);
        __atomic_store_n(&n->tsc, tk, __ATOMIC_RELAXED);
        __atomic_store_n(&n->ns, ns, __ATOMIC_RELAXED);
        __atomic_store(&n->ns_per_tick, &slope, __ATOMIC_RELAXED);
        __atomic_store_n(&n->seq, n->seq + 1, __ATOMIC_RELEASE);
        __atomic_store_n(&anchor_ticks, len, __ATOMIC_RELAXED);
        __atomic_store_n(&segment_cur, cur ^ 1, __ATOMIC_RELEASE);
        done = true;
    }
    __atomic_store_n(&segment_writing, 0, __ATOMIC_RELEASE);
    return done;
}

uint64_t hpc_trace_ns(void)
{
#if defined(__x86_64__)
    while (__builtin_expect(hpc_trace_tsc, 1)) {
        unsigned cur = __atomic_load_n(&segment_cur, __ATOMIC_ACQUIRE);
        const tsc_segment *o = &segments[cur];
        uint32_t seq = __atomic_load_n(&o->seq, __ATOMIC_ACQUIRE);
        uint64_t base_tk = __atomic_load_n(&o->tsc, __ATOMIC_RELAXED);
        uint64_t base_ns = __atomic_load_n(&o->ns, __ATOMIC_RELAXED);
        double per;
        __atomic_load(&o->ns_per_tick, &per, __ATOMIC_RELAXED);
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if ((seq & 1) || __atomic_load_n(&o->seq, __ATOMIC_RELAXED) != seq)
            continue;                                            /* being rewritten: read again */
        int64_t d = (int64_t)(__builtin_ia32_rdtsc() - base_tk); /* may be a little < 0 */
        if (__builtin_expect(d > (int64_t)__atomic_load_n(&anchor_ticks, __ATOMIC_RELAXED), 0) &&
            segment_next(cur, o))
            continue; /* the next segment's */
        return base_ns + (uint64_t)(int64_t)((double)d * per);
    }
#endif
    return hpc_now_ns();
}

/* Is the kernel's clocksource the TSC? */
static bool kernel_uses_tsc(void)
{
    char buf[16] = {0};
    int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                  O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    return n >= 3 && !strncmp(buf, "tsc", 3) && (n == 3 || buf[3] == '\n');
}

void hpc_trace_clock_init(void)
{
#if defined(__x86_64__)
    if (hpc_trace_tsc || !kernel_uses_tsc())
        return;
    /* ns per tick over 2 ms of CLOCK_MONOTONIC; each end a TSC read between two clock
     * reads (a preemption between them would show as a wide pair: taken again) */
    uint64_t ns[2], tk[2];
    for (int e = 0; e < 2; e++) {
        if (e)
            for (uint64_t t0 = ns[0]; hpc_now_ns() - t0 < 2000000;)
                ;
        for (int tries = 0; tries < 16; tries++) {
            uint64_t a = hpc_now_ns();
            tk[e] = __builtin_ia32_rdtsc();
            uint64_t b = hpc_now_ns();
            ns[e] = a + (b - a) / 2;
            if (b - a < 2000)
                break;
        }
    }
    if (tk[1] <= tk[0] || ns[1] <= ns[0])
        return;
    hpc_trace_ns_per_tick = (double)(ns[1] - ns[0]) / (double)(tk[1] - tk[0]);
    first_tsc = tk[1];
    first_ns = ns[1];
    anchor_ticks = (uint64_t)((double)ANCHOR_FIRST_NS / hpc_trace_ns_per_tick);
    anchor_age_ticks = (uint64_t)((double)ANCHOR_AGE_NS / hpc_trace_ns_per_tick);
    anchor_max_ticks = (uint64_t)((double)ANCHOR_MAX_NS / hpc_trace_ns_per_tick);
    segments[0] =
        (tsc_segment){.tsc = first_tsc, .ns = first_ns, .ns_per_tick = hpc_trace_ns_per_tick};
    __atomic_store_n(&hpc_trace_tsc, 1, __ATOMIC_RELEASE);
#endif
}

void hpc_trace_set_threshold(unsigned kind, uint64_t ns)
{
    hpc_tracers[kind].threshold_ns = ns;
    hpc_tracers[kind].threshold_ticks = (uint64_t)((double)ns / hpc_trace_ns_per_tick + 0.5);
}

/* ns of a trace clock interval. */
static uint64_t ticks_ns(uint64_t ticks)
{
    /* as signed counts both ways: one instruction each to convert (an interval is far
     * below 2^63) */
    return hpc_trace_tsc ? (uint64_t)(int64_t)((double)(int64_t)ticks * hpc_trace_ns_per_tick + 0.5)
                         : ticks;
}

/* Recording now? Without a -t window the flags say (no clock read: the trace clock
 * gives the start). */
static inline bool recording_now(void)
{
    const hpc_config *cfg = &hpc_P.cfg;
    if (hpc_recording_always())
        return true;
    return hpc_recording_at(cfg->tstart_ns || cfg->tend_ns ? hpc_now_ns() : hpc_P.start_ns);
}

bool hpc_trace_begin_slow(hpc_trace *c, unsigned kind, hpc_thread_priv *known)
{
    hpc_thread_priv *t = known ? known : hpc_self();
    /* busy: a call made while the collector records for this thread, as libunwind's own
     * locks in a sample's unwind are (tracing it would unwind inside the unwinder); in a
     * sample's handler: the collector's own calls (known: the thread states checked
     * those: hpc_trace_begin_known) */
    if (!(known ? t->stream_ok : HPC_TRACE_THREAD_OK(t)) || !recording_now())
        return false;
    if (kind == HPC_TRACER_IO && t->pub.io_outer)
        return false; /* an MPI-IO call's own POSIX calls: the call is recorded (io.c) */
    c->t = t;
    c->kind = kind;
    c->ns = false;
    c->leaf = 0;
    c->start = c->end = hpc_trace_now();
    return true;
}

/*
 * The stacks of traced calls met before, per thread: unwinding costs microseconds, a
 * traced call should cost well under one. As mpi_wrap/context.c does for MPI calls: the
 * key is what the wrapper knows for free, its call site (return address) and CFA (the
 * caller's stack pointer at the call), with the leaf frame; a hit must also find, at
 * every stack address where a return address of the program's frames was (ctx_fill),
 * the same return address again (with the same site and stack pointer, frames of fixed
 * size put the same chain at the same places; frames sized at run time, alloca, could in
 * principle put an old chain back). Stacks deeper than CTX_SLOTS frames, and those with a
 * frame larger than the search reaches, are not kept: unwound each time. Direct-mapped; a
 * miss unwinds and replaces the entry. A fork child's tree starts anew: entries of
 * another epoch never hit. tests/heap/test_heap_callers and tests/io/test_io_pattern
 * reach one call site through different callers in turn.
 */
#define CTX_ENTRIES 64
#define CTX_SLOTS   64

typedef struct hpc_trace_ctx {
    uintptr_t site, cfa;
    uint64_t leaf, node;
    uint32_t epoch, nslots;
    struct {
        uintptr_t at, val; /* each where it is checked: a short stack's entry is two lines */
    } slot[CTX_SLOTS];
} hpc_trace_ctx;

static uint32_t ctx_epoch = 1;

static void ctx_fork_child(void)
{
    ctx_epoch++;
    segment_writing = 0; /* a thread the child does not have may have been starting one */
}

static inline __attribute__((always_inline)) hpc_trace_ctx *ctx_entry(hpc_thread_priv *t,
                                                                      const hpc_trace *c)
{
    if (!c->cfa)
        return NULL;
    if (!t->trace_ctx) {
        void *p = mmap(NULL, sizeof(hpc_trace_ctx) * CTX_ENTRIES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        t->trace_ctx = p; /* freed with the process (thread states are reused) */
    }
    uintptr_t h = c->site ^ (c->cfa >> 3) * 0x9E3779B97F4A7C15ull ^ c->leaf;
    return &t->trace_ctx[(h ^ h >> 29) % CTX_ENTRIES];
}

static inline __attribute__((always_inline)) bool ctx_hit(const hpc_trace_ctx *e,
                                                          const hpc_trace *c)
{
    if (!e || !e->node || e->epoch != ctx_epoch || e->site != c->site || e->cfa != c->cfa ||
        e->leaf != c->leaf)
        return false;
    for (uint32_t i = 0; i < e->nslots; i++)
        if (*(const volatile uintptr_t *)e->slot[i].at != e->slot[i].val)
            return false;
    return true;
}

/* Fill e with traced call c's stack pcs[0..n) (unwind_fast's, our frames first): where
 * each of the program's return addresses is on the stack. The wrapper's own, the call
 * site, is at its CFA minus a word; each caller's is the first word above the one before
 * that holds it (a frame keeps its return address at its top, above its locals: a copy of
 * that address among the callee's locals is the one way to pick another word, which
 * then holds the same value). One not found within CTX_SCAN_WORDS (a frame that large)
 * leaves the entry empty: that call is unwound each time. Runs under unwind_fast's fault
 * recovery (the search reads the stack above the frames found). */
#define CTX_SCAN_WORDS 4096

static void ctx_fill(hpc_trace_ctx *e, const hpc_trace *c, const uint64_t *pcs, int n)
{
    e->epoch = 0; /* empty until filled */
    e->node = 0;
    int i = 0;
    while (i < n && hpc_pc_ours(pcs[i]))
        i++;
    const uintptr_t *at = (const uintptr_t *)(c->cfa - sizeof(uintptr_t));
    if (i == 0 || i >= n || pcs[i] + 1 != c->site || *at != c->site)
        return; /* called another way (a tail call into the wrapper): not cached */
    if (n - i > CTX_SLOTS)
        return; /* deeper than an entry checks: unwound each time */
    uint32_t k = 0;
    for (;;) {
        e->slot[k].at = (uintptr_t)at;
        e->slot[k].val = *at;
        k++;
        if (++i >= n)
            break;
        const uintptr_t *end = at + CTX_SCAN_WORDS;
        do
            at++;
        while (at < end && *at != pcs[i] + 1);
        if (at == end)
            return;
    }
    e->nslots = k;
    e->site = c->site;
    e->cfa = c->cfa;
    e->leaf = c->leaf;
    e->epoch = ctx_epoch;
}

/* Unwind the caller's stack (c->leaf below it) into t's tree; remember it in e (when
 * ctx_fill could). Returns the node, 0 with *err. */
static uint64_t unwind_call(hpc_thread_priv *t, const hpc_trace *c, hpc_trace_ctx *e, int *err)
{
    int lf = c->leaf != 0;
    uint64_t *pcs = t->pcs + lf;
    int n = unwind_fast(t, pcs, HPC_MAX_DEPTH - lf, e, c), ours = 0;
    while (ours < n && hpc_pc_ours(pcs[ours]))
        ours++;
    memmove(pcs, pcs + ours, sizeof *pcs * (size_t)(n - ours));
    t->pcs[0] = lf ? c->leaf : t->pcs[0];
    uint64_t node = hpc_cct_insert(t, t->pcs, n - ours + lf, err);
    if (e && e->epoch == ctx_epoch)
        e->node = node; /* 0 (an error): the entry stays unused */
    return node;
}

/*
 * A traced call's end tick in CLOCK_MONOTONIC ns, against the thread's anchor: a TSC read
 * between two reads of the kernel's clock (the tightest of a few pairs: within
 * ANCHOR_TIGHT_NS / 2 of the kernel's clock), renewed when the tick is more than
 * ANCHOR_AGE_NS past it (x86-64 with the TSC only: hpc_trace_tsc). A clock read per call
 * was about a fifth of a traced 4 KiB read's cost on a virtual machine (bench/RESULTS.md);
 * within the anchor's age the start-up calibration's rate error (about 1e-4 where its
 * clock pairs were tight) moves a time by some ns more. Two calls of a thread converted against
 * different anchors can so be off by about ANCHOR_TIGHT_NS against each other: the I/O tracer's
 * calls only, which it keeps in order (io.c, write_io).
 */
static __attribute__((noinline)) void anchor_renew(hpc_thread_priv *t)
{
    /* a TSC read between two clock reads: the tightest pair of a few (one that was
     * preempted or interrupted between its reads is wide) */
    uint64_t best = UINT64_MAX;
    for (int tries = 0; tries < 8 && best > ANCHOR_TIGHT_NS; tries++) {
        uint64_t a = hpc_now_ns(), tk = hpc_trace_now(), b = hpc_now_ns();
        if (b - a < best) {
            best = b - a;
            t->trace_anchor_tk = tk;
            t->trace_anchor_ns = a + (b - a) / 2;
        }
    }
}

static inline uint64_t end_ns(hpc_thread_priv *t, uint64_t end)
{
    uint64_t age = end - t->trace_anchor_tk; /* huge if end is before it: renewed */
    if (__builtin_expect(age > anchor_age_ticks, 0)) {
        anchor_renew(t);
        return t->trace_anchor_ns - ticks_ns(t->trace_anchor_tk - end);
    }
    return t->trace_anchor_ns + ticks_ns(age);
}

/* The same against the kernel's clock now (the other tracers' calls and holds, whose
 * records may nest and are not put in order). */
static uint64_t end_now(uint64_t end)
{
    uint64_t now_tk = hpc_trace_now(), now = hpc_now_ns();
    return now - ticks_ns(now_tk - end);
}

/* hpc_trace_record's body: inline into hpc_trace_end too, every traced call's way. */
static inline __attribute__((always_inline)) void record(hpc_trace *c, hpc_trace_write_fn write,
                                                         const void *rec)
{
    int saved = errno;
    hpc_thread_priv *t = c->t;
    hpc_guard_enter();
    /* busy (rule 1): a sample meanwhile is counted blocked and leaves t->pcs alone */
    hpcollect_write_begin(&t->pub);
    int err = 0;
    hpc_trace_ctx *e = ctx_entry(t, c);
    uint64_t node = ctx_hit(e, c) ? e->node : unwind_call(t, c, e, &err);
    uint64_t start = c->start, duration = c->end - c->start;
    if (!c->ns && hpc_trace_tsc) { /* ticks to ns: the I/O tracer's by its anchor */
        duration = ticks_ns(duration);
        start = (c->kind == HPC_TRACER_IO ? end_ns(t, c->end) : end_now(c->end)) - duration;
    }
    if (!err)
        err = write(&t->pub.stream, node, start, duration, rec);
    if (err)
        hpc_stat(t, HPC_STAT_EVENTS_DROPPED, 1);
    hpcollect_write_end(&t->pub);
    hpc_guard_leave();
    errno = saved;
}

void hpc_trace_record(hpc_trace *c, hpc_trace_write_fn write, const void *rec)
{
    record(c, write, rec);
}

void hpc_trace_record_nostack(hpc_trace *c, hpc_trace_write_fn write, const void *rec)
{
    int saved = errno;
    hpc_thread_priv *t = c->t;
    hpc_guard_enter();
    hpcollect_write_begin(&t->pub);
    int err = write(&t->pub.stream, 0, c->start, c->end - c->start, rec);
    if (err)
        hpc_stat(t, HPC_STAT_EVENTS_DROPPED, 1);
    hpcollect_write_end(&t->pub);
    hpc_guard_leave();
    errno = saved;
}

void hpc_trace_flush(hpc_thread_priv *t)
{
    uint32_t n = t->screened_n;
    uint64_t ns = t->screened_ns + ticks_ns(t->screened_ticks);
    t->screened_n = 0;
    t->screened_ns = 0;
    t->screened_ticks = 0;
    if (n) {
        hpc_stat(t, HPC_STAT_TRACE_SCREENED, n);
        hpc_stat(t, HPC_STAT_TRACE_SCREENED_NS, ns);
    }
}

void hpc_trace_end(hpc_trace *c, hpc_trace_write_fn write, const void *rec)
{
    uint64_t duration = c->end - c->start;
    hpc_thread_priv *t = c->t;
    const hpc_tracer_cfg *k = &hpc_tracers[c->kind];
    if (duration >= (c->ns ? k->threshold_ns : k->threshold_ticks)) {
        if (t->screened_n)
            hpc_trace_flush(t);
        record(c, write, rec);
        return;
    }
    if (c->ns)
        t->screened_ns += duration;
    else
        t->screened_ticks += duration;
    if (++t->screened_n >= HPC_SCREENED_FLUSH)
        hpc_trace_flush(t);
}
