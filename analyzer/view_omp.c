/*
 * view_omp.c - the OpenMP user and expert views (--view user|expert), as stack transforms
 * (view.h).
 *
 * user    A thread's samples in a parallel region appear under the call path at which the
 *         region's construct was encountered (as if every thread had been cloned from the
 *         master there), with the OpenMP runtime's frames removed and the compiler's
 *         outlined body folded into the function that holds the construct. The thread's
 *         OpenMP state, when it is not working, is a pseudo leaf: <OMP-implicit_barrier>,
 *         <OMP-explicit_barrier>, <OMP-workshare_barrier>, <OMP-barrier> (gcc-built code
 *         on libomp: explicit or worksharing), <OMP-taskwait>, <OMP-taskgroup>,
 *         <OMP-lock_wait>, <OMP-critical_section_wait>, <OMP-ordered_section_wait>,
 *         <OMP-atomic_wait>, <OMP-reduction>, <OMP-overhead>; a worker outside any region
 *         is <OMP-idle>.
 *
 *             native (worker)                        user view
 *             start_thread                           main
 *             __kmp_launch_thread  (libomp)          compute        (line of the body)
 *             __kmp_invoke_microtask (libomp)        burn_cpu
 *             .omp_outlined.                  -->
 *             burn_cpu
 *
 * expert  As user, but the outlined body stays a frame of its own, named
 *         "compute -- OMP parallel region from line 12" (the construct's line).
 *
 * machine is the identity (frames as recorded, ours included: it is where the collector's
 * own cost and its interposition can be seen). Processes that ran without OMPT show their
 * frames as recorded in every view, but for the collector's (below).
 *
 * The views make functions and lines up (pseudo functions, expert names, body lines moved
 * into the construct's function). Reports size their tables by the symbol table before
 * walking paths, so hpa_omp_views_prepare() walks every path once right after loading:
 * every id a view can make exists before any report runs (transforms are deterministic).
 *
 * How frames are recognised: runtime frames by their module (libomp, libiomp5, libgomp;
 * what they call, libc, is hidden with them until they call the program's code again);
 * the collector's frames by their module's flag: our trampolines and internal functions
 * (thread_start at the root of every thread) and the hpcollect_* functions the tool and
 * the MPI wrappers call (a start-up sample fell in hpcollect_guard_enter, called by
 * ompt/fork.c's constructor) are hidden alone, our other exported functions
 * (interposers: pthread_create, MPI_Send; the user API) stay as what the program called
 * (collector_frame), and an MPI call is a leaf: what is below it is hidden until the
 * program's code is called back (model/mpi_leaf.h), in every process; outlined bodies by the
 * compilers' names (clang ".omp_outlined.",
 * ".omp_task_entry.", gcc "func._omp_fn.N"). The region body's entry is the innermost
 * outlined frame called by a runtime frame (deeper outlined frames are tasks run inside
 * the region, or bodies of serialized inner regions).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_leaf.h"
#include "omp_proc.h"
#include "view.h"

/* FK_COLLECTOR: our trampolines (thread_start) and internal functions; FK_ENTRY: our
 * exported functions (interposers such as pthread_create or MPI_Send, the user API). */
enum { FK_UNKNOWN = 0, FK_USER, FK_RUNTIME, FK_OUTLINED, FK_COLLECTOR, FK_ENTRY };

/* Per-function classification, by function id of the current symbol table. */
static struct {
    const hpa_symtab *st;
    uint8_t *kind;
    uint32_t n;
    uint32_t pseudo[16]; /* <OMP-...> function id per enum hpc_omp_state, 0 = not made */
} cache;

static bool has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

static unsigned classify_func(const hpa_func *f)
{
    if (f->collector) /* hpcollect_*: exported for ompt/ and mpi_wrap/, never the program's call */
        return f->exported && !has_prefix(f->name ? f->name : "", "hpcollect_") ? FK_ENTRY
                                                                                : FK_COLLECTOR;
    const char *m = f->module ? f->module : "";
    if (has_prefix(m, "libomp.so") || has_prefix(m, "libiomp5") || has_prefix(m, "libgomp.so") ||
        has_prefix(m, "libhpcollect"))
        return FK_RUNTIME;
    const char *n = f->name ? f->name : "";
    if (has_prefix(n, ".omp_outlined.") || has_prefix(n, ".omp_task_entry.") ||
        has_prefix(n, "__omp_outlined__") || strstr(n, "._omp_fn.") != NULL)
        return FK_OUTLINED;
    return FK_USER;
}

static unsigned fkind(hpa_symtab *st, uint32_t func)
{
    if (cache.st != st) {
        free(cache.kind);
        memset(&cache, 0, sizeof(cache));
        cache.st = st;
    }
    if (func >= cache.n) {
        uint32_t n = hpa_symtab_nfuncs(st) + 64;
        uint8_t *k = realloc(cache.kind, n);
        if (!k)
            return FK_USER;
        memset(k + cache.n, 0, n - cache.n);
        cache.kind = k;
        cache.n = n;
    }
    if (cache.kind[func] == FK_UNKNOWN)
        cache.kind[func] = (uint8_t)classify_func(hpa_symtab_func(st, func));
    return cache.kind[func];
}

/* The pseudo function <OMP-state> of a state that is not work, or 0. */
static uint32_t state_leaf(hpa_symtab *st, unsigned omp_state)
{
    enum hpa_omp_cat cat = hpa_omp_state_cat(omp_state);
    if (cat == HPA_OMP_CAT_WORK || cat == HPA_OMP_CAT_NONE || omp_state >= 16)
        return 0;
    if (cache.pseudo[omp_state] == 0) {
        char name[64];
        snprintf(name, sizeof(name), "<OMP-%s>", hpa_omp_state_name(omp_state));
        cache.pseudo[omp_state] = hpa_symtab_pseudo(st, name);
    }
    return cache.pseudo[omp_state];
}

/* What the transform of one stack needs to know. */
typedef struct tx {
    const hpa_profile *prof;
    hpa_symtab *st;
    const hpa_process *proc;
    hpa_omp_proc *m;
    bool expert;
    hpa_frame *out;
    unsigned cap, k;
    hpa_mpi_leaf mpi; /* inside an MPI call */
} tx;

static void emit(tx *t, hpa_frame f)
{
    if (t->k < t->cap)
        t->out[t->k++] = f;
}

/* The MPI library's frames below an MPI call are hidden (model/mpi_leaf.h). */
static bool inside_mpi(tx *t, hpa_frame f)
{
    const hpa_func *prev = t->k > 0 ? hpa_symtab_func(t->st, t->out[t->k - 1].func) : NULL;
    return hpa_mpi_leaf_hides(&t->mpi, prev, hpa_symtab_func(t->st, f.func));
}

/*
 * The collector's frames in the user and expert views, in every process. Our trampolines
 * and internal functions (thread_start at the root of every thread, bookkeeping) are
 * hidden; what they call stays (the program's start routine, signal handler). Our exported
 * functions are what the program called by that name (pthread_create, MPI_Send, the user
 * API): they stay, and the real function an interposer forwards to under the same name
 * (libc's pthread_create) merges into it. Returns true if frame f was taken care of here.
 */
static bool collector_frame(tx *t, hpa_frame f, unsigned kind)
{
    if (inside_mpi(t, f))
        return true;
    if (kind == FK_COLLECTOR)
        return true;
    if (kind == FK_ENTRY) {
        emit(t, f);
        return true;
    }
    if (t->k == 0 || fkind(t->st, t->out[t->k - 1].func) != FK_ENTRY)
        return false;
    const hpa_func *entry = hpa_symtab_func(t->st, t->out[t->k - 1].func);
    return strcmp(entry->name, hpa_symtab_func(t->st, f.func)->name) == 0;
}

static const hpa_omp_thread *thread_by_seq(const hpa_omp_proc *m, uint32_t seq);

static bool program_code(hpa_symtab *st, uint32_t func)
{
    unsigned k = fkind(st, func);
    return func >= HPA_FUNC_FIRST && (k == FK_USER || k == FK_OUTLINED);
}

hpa_loc hpa_omp_construct_loc(const hpa_profile *p, const hpa_process *pr, uint32_t c)
{
    hpa_omp_con *con = &pr->omp->cons[c];
    if (con->loc_known)
        return con->loc;
    con->loc = con->codeptr || con->outlined || con->psource
                   ? hpa_omp_site(p->syms, pr->map, con->outlined, con->codeptr, con->psource)
                   : hpa_modmap_resolve(pr->map, 0);
    con->loc_known = true; /* before the recursion below: a damaged parent chain ends */
    const hpa_omp_thread *et = thread_by_seq(pr->omp, con->rep_seq);
    for (uint32_t id = con->rep_node;
         !program_code(p->syms, con->loc.func) && et && id && id < et->cct.n;
         id = et->cct.parent[id]) {
        hpa_loc l = hpa_modmap_resolve(pr->map, et->cct.pc[id]);
        if (program_code(p->syms, l.func))
            con->loc = l;
    }
    uint64_t parent;
    if (fkind(p->syms, con->loc.func) == FK_OUTLINED && con->rep_parent &&
        hpa_u64map_get(&pr->omp->region_index, con->rep_parent, &parent)) {
        uint32_t f = hpa_omp_construct_loc(p, pr, pr->omp->regions[parent].con).func;
        con->loc = (hpa_loc){.func = f, .line = hpa_symtab_line_in(p->syms, f, con->loc.line)};
    }
    return con->loc;
}

hpa_loc hpa_omp_part_loc(const hpa_profile *p, const hpa_process *pr, uint32_t i)
{
    hpa_omp_part *part = &pr->omp->parts[i];
    if (part->loc_known)
        return part->loc;
    hpa_loc l = hpa_modmap_resolve(pr->map, part->codeptr ? part->codeptr - 1 : 0);
    hpa_loc con = hpa_omp_construct_loc(p, pr, part->con);
    uint32_t f = con.func;
    if (part->construct == HPA_OC_IMPLICIT_BARRIER) /* the region's end: the region's line */
        l = con;
    else if (!part->codeptr || !program_code(p->syms, l.func)) /* in the runtime */
        l = (hpa_loc){.func = f, .line = hpa_symtab_func_line(p->syms, f)};
    else if (fkind(p->syms, l.func) == FK_OUTLINED) /* in the body: the construct's function */
        l = (hpa_loc){.func = f, .line = hpa_symtab_line_in(p->syms, f, l.line)};
    part->loc = l;
    part->loc_known = true;
    return l;
}

/* Function and line of the construct of context c. */
static hpa_loc construct_loc(tx *t, uint32_t c)
{
    return hpa_omp_construct_loc(t->prof, t->proc, t->m->ctxs[c].con);
}

/* "func -- OMP parallel region from line N" (or "func -- OMP task" for task bodies). */
static uint32_t expert_name(tx *t, hpa_loc con, bool task)
{
    const hpa_func *f = hpa_symtab_func(t->st, con.func);
    const hpa_line *l = hpa_symtab_line(t->st, con.line);
    char name[512];
    if (task)
        snprintf(name, sizeof(name), "%s -- OMP task", f->name);
    else if (l && l->lineno)
        snprintf(name, sizeof(name), "%s -- OMP parallel region from line %u", f->name, l->lineno);
    else
        snprintf(name, sizeof(name), "%s -- OMP parallel region", f->name);
    return hpa_symtab_pseudo(t->st, name);
}

/* True if the outlined frame in[i] is a parallel region's body: the runtime called it
 * through its microtask invoker (libomp's __kmp_invoke_microtask, with a wrapper between
 * for gcc-built code) or, on the encountering thread of gcc-built code, from
 * GOMP_parallel*; task bodies are called from the task scheduler. */
static bool called_for_region(tx *t, const hpa_frame *in, unsigned i)
{
    while (i-- > 0 && fkind(t->st, in[i].func) == FK_RUNTIME) {
        const char *name = hpa_symtab_func(t->st, in[i].func)->name;
        if (strstr(name, "invoke_microtask") || strncmp(name, "GOMP_parallel", 13) == 0)
            return true;
    }
    return false;
}

/* The module of construct c's code (its outlined body's, else its call's): where a body
 * that ended in a tail call jumps to (NULL if unknown). */
static const char *construct_module(tx *t, uint32_t c)
{
    const hpa_omp_con *con = &t->m->cons[t->m->ctxs[c].con];
    uint64_t at = con->outlined ? con->outlined : con->codeptr;
    return at ? hpa_modmap_module_of(t->proc->map, at) : NULL;
}

/* Index of the region body's entry: the innermost program frame the runtime called, its
 * outlined body, or, when the body ended in a tail call (`#pragma omp parallel` over just
 * `work();` at -O2: the outlined frame is gone), the function it jumped to, in the
 * construct's module (what the runtime calls in other libraries, sched_yield in libc, is
 * the runtime's business). */
static int body_entry(tx *t, const hpa_frame *in, unsigned n, const char *module)
{
    for (unsigned i = n; i-- > 1;) {
        if (!program_code(t->st, in[i].func) || fkind(t->st, in[i - 1].func) != FK_RUNTIME)
            continue;
        const char *m = hpa_symtab_func(t->st, in[i].func)->module;
        if (fkind(t->st, in[i].func) == FK_OUTLINED || (module && m && strcmp(m, module) == 0))
            return (int)i;
    }
    return -1;
}

/*
 * Frames in[from..n) as the view shows them: runtime frames and whatever the runtime
 * calls (libc) are dropped until the runtime calls user code again (an outlined task
 * body); outlined frames fold into the construct's function `con` (user) or are named
 * after it (expert, the body entry only). con.func 0: no construct (serial code).
 */
static void walk(tx *t, const hpa_frame *in, unsigned from, unsigned n, hpa_loc con)
{
    bool in_runtime = false;
    for (unsigned i = from; i < n; i++) {
        hpa_frame f = in[i];
        unsigned k = fkind(t->st, f.func);
        if (!in_runtime && collector_frame(t, f, k))
            continue;
        if (k == FK_COLLECTOR || k == FK_ENTRY)
            continue; /* called by the runtime: hidden with it */
        if (k == FK_RUNTIME) {
            in_runtime = true;
            continue;
        }
        if (k == FK_USER && con.func != 0 && i == from) {
            /* the body's entry is the function its outlined frame tail-called: the expert
             * view still shows the body, at the construct's line */
            in_runtime = false;
            if (t->expert) {
                uint32_t body = expert_name(t, con, !called_for_region(t, in, i));
                emit(t,
                     (hpa_frame){.func = body, .line = hpa_symtab_line_in(t->st, body, con.line)});
            }
            emit(t, f);
            continue;
        }
        if (k == FK_USER || con.func == 0) {
            if (!in_runtime)
                emit(t, f);
            continue;
        }
        in_runtime = false;
        if (t->expert) {
            if (i == from) {
                f.func = expert_name(t, con, !called_for_region(t, in, i));
                f.line = hpa_symtab_line_in(t->st, f.func, f.line);
            }
            emit(t, f);
            continue;
        }
        f.func = con.func;
        f.line = hpa_symtab_line_in(t->st, con.func, f.line);
        if (t->k > 0 && t->out[t->k - 1].func == con.func)
            t->out[t->k - 1] = f; /* the body continues the construct's frame */
        else
            emit(t, f);
    }
}

static const hpa_omp_thread *thread_by_seq(const hpa_omp_proc *m, uint32_t seq)
{
    size_t lo = 0, hi = m->nthreads;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->threads[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nthreads && m->threads[lo].seq == seq ? &m->threads[lo] : NULL;
}

static void transform_region(tx *t, const hpa_frame *in, unsigned n, uint32_t c);

/* Build (once) the frames of context c: the encountering path, itself transformed. */
static void build_context(tx *t, uint32_t c)
{
    hpa_omp_ctx *x = &t->m->ctxs[c];
    int v = t->expert;
    if (x->built[v])
        return;
    x->built[v] = true; /* also stops a malformed parent chain from recursing forever */
    const hpa_omp_thread *et = thread_by_seq(t->m, x->enc_seq);
    unsigned depth = 0;
    for (uint32_t i = x->node; et && i && i < et->cct.n && depth < 4096; i = et->cct.parent[i])
        depth++;
    hpa_frame *native = calloc(depth + 1, sizeof(*native));
    unsigned cap = 2 * depth + 64;
    for (uint32_t p = x->parent_ctx; p; p = t->m->ctxs[p].parent_ctx) {
        build_context(t, p);
        cap += t->m->ctxs[p].nframes[v];
        if (cap > 1u << 20)
            break;
    }
    hpa_frame *out = calloc(cap, sizeof(*out));
    if (!native || !out) {
        free(native), free(out);
        return;
    }
    unsigned i = depth;
    for (uint32_t id = x->node; et && id && i > 0; id = et->cct.parent[id]) {
        hpa_loc l = hpa_modmap_resolve(t->proc->map, et->cct.pc[id]);
        native[--i] = (hpa_frame){.func = l.func, .line = l.line, .pc = et->cct.pc[id]};
    }
    tx sub = *t;
    sub.out = out, sub.cap = cap, sub.k = 0;
    transform_region(&sub, native, depth, x->parent_ctx);
    /* The path ends in the function holding the construct, at the construct's line. */
    hpa_loc con = construct_loc(t, c);
    if (sub.k > 0 && sub.out[sub.k - 1].func == con.func)
        sub.out[sub.k - 1].line = con.line;
    else
        emit(&sub, (hpa_frame){.func = con.func, .line = con.line, .pc = 0});
    free(native);
    x->frames[v] = out;
    x->nframes[v] = sub.k;
}

/* A stack of context c (0: serial code) without its state leaf. */
static void transform_region(tx *t, const hpa_frame *in, unsigned n, uint32_t c)
{
    if (c == 0 || c >= t->m->nctx) {
        walk(t, in, 0, n, (hpa_loc){0});
        return;
    }
    build_context(t, c);
    const hpa_omp_ctx *x = &t->m->ctxs[c];
    for (unsigned i = 0; i < x->nframes[t->expert]; i++)
        emit(t, x->frames[t->expert][i]);
    int entry = body_entry(t, in, n, construct_module(t, c));
    if (entry >= 0)
        walk(t, in, (unsigned)entry, n, construct_loc(t, c));
}

static unsigned transform(const hpa_view *v, const hpa_path_ctx *ctx, const hpa_frame *in,
                          unsigned n, hpa_frame *out, unsigned cap)
{
    hpa_omp_proc *m = ctx->proc->omp;
    tx t = {.prof = ctx->prof,
            .st = ctx->prof->syms,
            .proc = ctx->proc,
            .m = m,
            .expert = strcmp(v->name, "expert") == 0,
            .out = out,
            .cap = cap};
    if (!m || !m->ompt) { /* the frames as recorded, but for the collector's */
        for (unsigned i = 0; i < n; i++)
            if (!collector_frame(&t, in[i], fkind(t.st, in[i].func)))
                emit(&t, in[i]);
        return t.k;
    }
    unsigned state = HPC_STATE_OMP(ctx->bucket->state);
    uint32_t leaf = state_leaf(t.st, state);
    if (!(state == HPC_OMP_STATE_IDLE && ctx->bucket->omp_ctx == 0)) {
        if (cap > 0)
            t.cap = cap - 1; /* room for the leaf */
        transform_region(&t, in, n, ctx->bucket->omp_ctx);
        t.cap = cap;
    }
    if (leaf)
        emit(&t, (hpa_frame){.func = leaf, .line = hpa_symtab_func_line(t.st, leaf)});
    if (t.k == 0) /* everything was runtime: keep the sample visible */
        emit(&t, (hpa_frame){
                     .func = state_leaf(t.st, HPC_OMP_STATE_OVERHEAD),
                     .line = hpa_symtab_func_line(t.st, state_leaf(t.st, HPC_OMP_STATE_OVERHEAD))});
    return t.k;
}

const hpa_view hpa_view_omp_user = {
    .name = "user",
    .help = "OpenMP threads under the construct's call path; runtime frames removed; "
            "outlined bodies folded; <OMP-...> states",
    .transform = transform,
};

const hpa_view hpa_view_omp_expert = {
    .name = "expert",
    .help = "as user, with outlined bodies shown as 'func -- OMP parallel region from line N'",
    .transform = transform,
};

static void ignore_path(void *arg, const hpa_path_ctx *ctx, const hpa_frame *frames, unsigned n,
                        const uint64_t *vals)
{
    (void)arg, (void)ctx, (void)frames, (void)n, (void)vals;
}

int hpa_omp_views_prepare(const hpa_profile *p)
{
    bool any = false;
    for (size_t i = 0; i < p->nprocs; i++)
        any |= p->procs[i].omp && p->procs[i].omp->ompt;
    if (!any)
        return 0;
    int rc = hpa_profile_paths(p, &hpa_view_omp_user, ignore_path, NULL);
    return rc ? rc : hpa_profile_paths(p, &hpa_view_omp_expert, ignore_path, NULL);
}

/* ---------------------------------------------------------------- load hooks */

/* The note about runtimes without OMPT comes with the metrics, once per load. */
static int add_metrics(hpa_profile *p)
{
    int rc = hpa_omp_add_metrics(p);
    hpa_omp_note_native(p);
    return rc;
}

static uint32_t classify(hpa_process *pr, uint32_t seq, uint64_t time, uint64_t region,
                         uint32_t *state)
{
    return hpa_omp_classify(pr->omp, seq, time, region, state);
}

static void sampled(hpa_process *pr, uint32_t seq, uint64_t time, uint64_t region, uint32_t state,
                    uint64_t cpu_ns)
{
    hpa_omp_sample_part(pr->omp, seq, time, region, state, cpu_ns);
}

static void close_process(hpa_process *pr)
{
    hpa_omp_free(pr->omp);
    pr->omp = NULL;
}

const hpa_load_hooks hpa_view_omp_hooks = {
    .load_process = hpa_omp_load,
    .add_metrics = add_metrics,
    .classify = classify,
    .sampled = sampled,
    .loaded = hpa_omp_views_prepare,
    .path_room = hpa_omp_context_room,
    .close_process = close_process,
};
