/*
 * evgen.c - thread-stream records -> events with local ids (see evgen.h).
 */
#include "evgen.h"

#include "iodefs.h"
#include "omp_model.h"

#include <errno.h>
#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_Events.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODE_GAP 65536 /* CCT ids may skip (lost records), but not wildly */

enum special_region { SR_NOSTACK = 1, SR_UNKNOWN_FRAME = 2 };

/* A direct-mapped cache in front of the job's hash maps, for the few keys a stream
 * repeats millions of times (its MPI functions, communicators, construct sites). Values
 * cached are ids and indices that never change once given. */
#define MEMO_SIZE 64
typedef struct memo {
    uint64_t key[MEMO_SIZE];
    uint64_t val[MEMO_SIZE];
} memo;

static void memo_init(memo *m)
{
    memset(m->key, 0xff, sizeof(m->key));
}

static inline unsigned memo_slot(uint64_t key)
{
    return (unsigned)((key * 0x9e3779b97f4a7c15ull) >> 58);
}

static inline bool memo_get(const memo *m, uint64_t key, uint64_t *val)
{
    unsigned i = memo_slot(key);
    if (m->key[i] != key)
        return false;
    *val = m->val[i];
    return true;
}

static inline void memo_put(memo *m, uint64_t key, uint64_t val)
{
    unsigned i = memo_slot(key);
    m->key[i] = key;
    m->val[i] = val;
}

typedef struct gen {
    mg_job *job;
    mg_proc *proc;
    mg_loc *loc;
    int pass;
    mg_ev_sink sink;
    void *ctx;
    uint64_t ord;
    /* the MPI call whose detail records may follow */
    bool call_open;
    uint64_t call_enter, call_leave, call_site;
    uint32_t call_fn; /* index in proc->fns, UINT32_MAX if unknown */
    uint32_t call_region;
    hpa_mpi_call acc; /* pass 1: the call for the MPI numbers (mpi_stats.h), raw times */
    /* OpenMP records as items (model/omp_model.h): pairing, the thread's own times */
    hpa_omp_timeline tl;
    /* pass 1: sampled CPU time per CCT node, for the functions summary */
    uint64_t *node_ns, *node_n;
    size_t nnode_w;
    uint32_t *path; /* one node's path (sum_functions) */
    size_t path_cap;
    /* caches: fn id -> index << 32 | region; comm id -> local comm; codeptr+construct ->
     * region; parallel region id -> construct region; summary keys -> entry index; code
     * address -> function */
    memo fn_memo, comm_memo, omp_memo, site_memo, sum_memo, func_memo;
    /* the latest sample in stream order: where the thread was (caller contexts) */
    uint32_t last_node; /* UINT32_MAX: none yet */
    uint64_t last_time; /* raw */
    /* pass 1: OpenMP thread type (omp_thread) and CPU of samples before the runtime ran */
    uint32_t omp_thread_type;
    uint64_t pre_runtime_ns;
    /* problems counted once per location */
    uint64_t bad_comm, bad_node, cut_node, bad_fn, orphan_detail, bad_call_node;
    uint64_t to_missing; /* messages with a rank that left no data */
    uint64_t bad_peer;   /* peers beyond their communicator */
    uint64_t io_ops;     /* I/O calls so far: their operations' matching ids */

} gen;

static inline uint64_t ct(gen *g, uint64_t t)
{
    return mg_clock_apply(&g->proc->clock, t);
}

static inline uint64_t clamp(uint64_t t, uint64_t lo, uint64_t hi)
{
    return t < lo ? lo : t > hi ? hi : t;
}

static void emit(gen *g, uint64_t t, uint32_t type, uint32_t a, uint32_t b, uint64_t c, uint64_t d,
                 uint64_t e)
{
    mg_ev ev = {t, g->ord++, type, a, b, c, d, e};
    g->sink(g->ctx, &ev);
}

/* Enter of a region met at caller `hint` (caller_hint() and friends; cctx.h says how the
 * writer uses it). */
static void emit_enter(gen *g, uint64_t t, uint32_t region, uint64_t hint)
{
    emit(g, t, MG_EV_ENTER, region, (uint32_t)(hint >> 32), (uint32_t)hint, 0, 0);
}

/* ------------------------------------------------------------ regions */

static uint32_t special_region(gen *g, enum special_region which)
{
    static const char *names[] = {
        [SR_NOSTACK] = "<no stack>", [SR_UNKNOWN_FRAME] = "<unknown frame>"};
    return mg_proc_region(g->proc, MG_RKEY_SPECIAL(which), names[which], "", 0,
                          OTF2_REGION_ROLE_ARTIFICIAL, MG_PAR_SAMPLING);
}

static mg_symproc *symproc(gen *g)
{
    if (!g->proc->sym)
        g->proc->sym = mg_symproc_open(g->job->syms, g->proc->hp);
    return g->proc->sym;
}

/* OTF2's role of an OpenMP construct (model/omp_model.h's roles). */
static uint8_t omp_role(unsigned construct)
{
    static const uint8_t roles[] = {
        [HPA_OMP_ROLE_CODE] = OTF2_REGION_ROLE_CODE,
        [HPA_OMP_ROLE_PARALLEL] = OTF2_REGION_ROLE_PARALLEL,
        [HPA_OMP_ROLE_IMPLICIT_BARRIER] = OTF2_REGION_ROLE_IMPLICIT_BARRIER,
        [HPA_OMP_ROLE_BARRIER] = OTF2_REGION_ROLE_BARRIER,
        [HPA_OMP_ROLE_TASK_WAIT] = OTF2_REGION_ROLE_TASK_WAIT,
        [HPA_OMP_ROLE_CRITICAL] = OTF2_REGION_ROLE_CRITICAL,
        [HPA_OMP_ROLE_CRITICAL_SBLOCK] = OTF2_REGION_ROLE_CRITICAL_SBLOCK,
        [HPA_OMP_ROLE_ORDERED] = OTF2_REGION_ROLE_ORDERED,
        [HPA_OMP_ROLE_ORDERED_SBLOCK] = OTF2_REGION_ROLE_ORDERED_SBLOCK,
        [HPA_OMP_ROLE_WRAPPER] = OTF2_REGION_ROLE_WRAPPER,
        [HPA_OMP_ROLE_ATOMIC] = OTF2_REGION_ROLE_ATOMIC,
        [HPA_OMP_ROLE_LOOP] = OTF2_REGION_ROLE_LOOP,
        [HPA_OMP_ROLE_SECTIONS] = OTF2_REGION_ROLE_SECTIONS,
        [HPA_OMP_ROLE_SINGLE] = OTF2_REGION_ROLE_SINGLE,
        [HPA_OMP_ROLE_WORKSHARE] = OTF2_REGION_ROLE_WORKSHARE,
        [HPA_OMP_ROLE_TASK] = OTF2_REGION_ROLE_TASK,
        [HPA_OMP_ROLE_MASTER] = OTF2_REGION_ROLE_MASTER,
    };
    unsigned r = hpa_omp_construct(construct)->role;
    return r < sizeof(roles) ? roles[r] : OTF2_REGION_ROLE_CODE;
}

/* The region of construct c at source site `where` (function, line), in code of function
 * lang_func's language: "#pragma omp for @solver.c:42", "!$omp do @solver.f90:42", "omp
 * task" where nothing is known. */
static uint32_t omp_region_at(gen *g, unsigned c, mg_symloc where, uint32_t lang_func, bool known)
{
    uint64_t key = MG_RKEY_OMP(c, where.line);
    uint64_t id;
    if (hpa_u64map_get(&g->proc->region_by_key, key, &id))
        return (uint32_t)id;
    uint32_t lineno = 0;
    const char *file = known ? mg_syms_line_file(g->job->syms, where.line, &lineno) : "";
    char cname[128], name[1024];
    mg_syms_omp_name(g->job->syms, c, known ? lang_func : 0, cname, sizeof(cname));
    if (lineno) {
        const char *base = strrchr(file, '/');
        snprintf(name, sizeof(name), "%s @%s:%u", cname, base ? base + 1 : file, lineno);
    } else if (known) {
        snprintf(name, sizeof(name), "%s @%s", cname, mg_syms_func_name(g->job->syms, where.func));
    } else {
        snprintf(name, sizeof(name), "%s", cname);
    }
    return mg_proc_region(g->proc, key, name, file, lineno, omp_role(c), MG_PAR_OPENMP);
}

/* Region of OpenMP construct c whose runtime call returns to codeptr (0: unknown). */
static uint32_t omp_region(gen *g, unsigned c, uint64_t codeptr)
{
    uint64_t key = codeptr ^ ((uint64_t)c << 56), v;
    if (memo_get(&g->omp_memo, key, &v))
        return (uint32_t)v;
    mg_symloc where = {0, 0};
    if (codeptr)
        where = mg_symproc_resolve(symproc(g), codeptr - 1);
    uint32_t region = omp_region_at(g, c, where, where.func, codeptr != 0);
    memo_put(&g->omp_memo, key, region);
    return region;
}

/* Region of a parallel construct: where its pragma is (hpa_omp_site: the outlined body
 * and clang's source string name it even when the fork was a tail call or inlined). */
static uint32_t parallel_region(gen *g, const hpc_rec_omp_parallel_begin *r)
{
    bool known = r->outlined || r->codeptr || r->psource;
    mg_symloc where = {0, 0}, code = {0, 0};
    if (known) {
        where = mg_symproc_omp_site(symproc(g), r->outlined, r->codeptr, r->psource);
        code = mg_symproc_resolve(symproc(g), r->outlined ? r->outlined : r->codeptr - 1);
    }
    /* the language of the construct's code (the site's function may be one made up: a
     * function inlined everywhere) */
    return omp_region_at(g, HPA_OC_PARALLEL, where, code.func, known);
}

static unsigned mpi_role(const mg_fninfo *f)
{
    switch (f->coll_op) {
    case HPC_COLL_NONE:
        break;
    case HPC_COLL_BARRIER:
        return OTF2_REGION_ROLE_BARRIER;
    case HPC_COLL_BCAST:
    case HPC_COLL_SCATTER:
    case HPC_COLL_SCATTERV:
        return OTF2_REGION_ROLE_COLL_ONE2ALL;
    case HPC_COLL_GATHER:
    case HPC_COLL_GATHERV:
    case HPC_COLL_REDUCE:
        return OTF2_REGION_ROLE_COLL_ALL2ONE;
    case HPC_COLL_SCAN:
    case HPC_COLL_EXSCAN:
        return OTF2_REGION_ROLE_COLL_OTHER;
    default:
        return OTF2_REGION_ROLE_COLL_ALL2ALL;
    }
    switch (f->family) {
    case HPC_MPI_P2P:
        return OTF2_REGION_ROLE_POINT2POINT;
    case HPC_MPI_COLL:
        return OTF2_REGION_ROLE_COLL_OTHER;
    case HPC_MPI_ONESIDED:
        return OTF2_REGION_ROLE_RMA;
    case HPC_MPI_IO:
        return OTF2_REGION_ROLE_FILE_IO;
    default:
        return OTF2_REGION_ROLE_FUNCTION;
    }
}

/* Region of MPI function id fn; *index gets its index in proc->fns (UINT32_MAX if the
 * id is not in the process's mpi_fn table: then the region is "MPI_<id>"). */
static uint32_t mpi_region(gen *g, uint64_t fn, uint32_t *index)
{
    mg_proc *p = g->proc;
    uint64_t i;
    if (memo_get(&g->fn_memo, fn, &i)) {
        *index = (uint32_t)(i >> 32);
        return (uint32_t)i;
    }
    if (hpa_u64map_get(&p->fn_by_id, fn, &i)) {
        *index = (uint32_t)i;
        mg_fninfo *f = &p->fns[i];
        if (f->region == UINT32_MAX)
            f->region = mg_proc_region(p, MG_RKEY_MPI(fn), f->name, "", 0, mpi_role(f), MG_PAR_MPI);
        memo_put(&g->fn_memo, fn, (i << 32) | f->region);
        return f->region;
    }
    *index = UINT32_MAX;
    g->bad_fn++;
    char name[40];
    snprintf(name, sizeof(name), "MPI_function_%llu", (unsigned long long)fn);
    return mg_proc_region(p, MG_RKEY_MPI(fn), name, "", 0, OTF2_REGION_ROLE_FUNCTION, MG_PAR_MPI);
}

/* ------------------------------------------------------------ CCT */

static void cc_reserve(mg_loc *l, size_t n)
{
    size_t old = l->capcc;
    mg_grow((void **)&l->cc, &l->capcc, n, sizeof(mg_ccnode));
    memset(l->cc + old, 0, (l->capcc - old) * sizeof(mg_ccnode));
    if (l->ncc < n)
        l->ncc = n;
}

/* A node beyond the calling contexts one OTF2 mapping table holds: only its parent is
 * kept, for its samples to climb to an ancestor within the limit. */
static void deep_node(gen *g, const hpc_rec_cct_node *n, uint64_t offset)
{
    mg_loc *l = g->loc;
    size_t limit = g->job->cc_limit, k = n->id - limit;
    if (k > l->ndeep + MAX_NODE_GAP || n->parent >= n->id) {
        if (g->pass == 1)
            hpc_diag_report(g->job->diag, HPC_WARNING, l->path, offset, __FILE__, __LINE__,
                            "CCT node id %llu out of range; ignored", (unsigned long long)n->id);
        return;
    }
    if (k >= l->ndeep) {
        size_t cap = l->ndeep;
        mg_grow((void **)&l->deep, &cap, k + 1, sizeof(uint32_t));
        memset(l->deep + l->ndeep, 0, (cap - l->ndeep) * sizeof(uint32_t));
        l->ndeep = cap;
    }
    if (!l->deep[k])
        l->deep[k] = (uint32_t)n->parent + 1;
}

static void cct_node(gen *g, const hpc_rec_cct_node *n, uint64_t offset)
{
    mg_loc *l = g->loc;
    if (n->id >= g->job->cc_limit) {
        deep_node(g, n, offset);
        return;
    }
    if (n->id == 0 || n->id > l->ncc + MAX_NODE_GAP) {
        if (g->pass == 1)
            hpc_diag_report(g->job->diag, HPC_WARNING, l->path, offset, __FILE__, __LINE__,
                            "CCT node id %llu out of range (%zu nodes so far); ignored",
                            (unsigned long long)n->id, l->ncc);
        return;
    }
    cc_reserve(l, n->id + 1);
    mg_ccnode *c = &l->cc[n->id];
    if (c->depth)
        return; /* pass 2, or a duplicate: the first definition stands */
    uint32_t parent =
        n->parent < n->id && (n->parent == 0 || l->cc[n->parent].depth) ? (uint32_t)n->parent : 0;
    mg_symloc where = mg_symproc_resolve(symproc(g), n->pc);
    uint64_t region;
    if (!hpa_u64map_get(&g->proc->region_by_key, MG_RKEY_FUNC(where.func), &region)) {
        /* a function region says where the function begins */
        mg_symloc entry = mg_symproc_func_entry(symproc(g), n->pc);
        uint32_t lineno = 0;
        const char *file = mg_syms_line_file(g->job->syms, entry.line, &lineno);
        region = mg_proc_region(g->proc, MG_RKEY_FUNC(where.func),
                                mg_syms_func_name(g->job->syms, where.func), file, lineno,
                                OTF2_REGION_ROLE_FUNCTION, MG_PAR_SAMPLING);
    }
    c->region = (uint32_t)region;
    c->func = where.func;
    c->parent = parent;
    c->depth = parent ? l->cc[parent].depth + 1 : 1;
}

/* A sample's node, or 0 ("no stack") when it does not name a defined node. */
static uint32_t sample_node(gen *g, uint64_t node)
{
    if (node == 0)
        return 0;
    if (node >= g->job->cc_limit) {
        const mg_loc *l = g->loc;
        g->cut_node++;
        while (node >= g->job->cc_limit && node - g->job->cc_limit < l->ndeep &&
               l->deep[node - g->job->cc_limit])
            node = l->deep[node - g->job->cc_limit] - 1;
    }
    if (node < g->loc->ncc && g->loc->cc[node].depth)
        return (uint32_t)node;
    g->bad_node++;
    return 0;
}

/*
 * Callers of instrumented regions (ENTER hints). The collector records a call path for
 * samples and parallel constructs, not for each MPI call or construct; their code address
 * (the call's return address, the construct's codeptr) names the function they were met
 * in. A hint is func << 32 | (node + 1): the caller's function and, when the stream shows
 * it exactly, the caller's node (a sample inside an MPI call holds the interposer's frame,
 * a parallel construct's record its path); otherwise node + 1 = 0 and the writer, which
 * sees events in time order, looks for the function's frame (evwrite.c).
 */
static uint32_t func_at(gen *g, uint64_t pc)
{
    uint64_t v;
    if (!pc)
        return 0;
    if (memo_get(&g->func_memo, pc, &v))
        return (uint32_t)v;
    uint32_t func = mg_symproc_resolve(symproc(g), pc - 1).func;
    memo_put(&g->func_memo, pc, func);
    return func;
}

static uint64_t hint_of(uint32_t func, uint32_t node)
{
    return ((uint64_t)func << 32) | (node == UINT32_MAX ? 0 : node + 1);
}

/* The deepest frame of function func on the path of node n, or UINT32_MAX. */
static uint32_t frame_of(gen *g, uint32_t n, uint32_t func)
{
    const mg_ccnode *cc = g->loc->cc;
    for (unsigned steps = 0; func && n < g->loc->ncc && cc[n].depth && steps < 65536; steps++) {
        if (cc[n].func == func)
            return n;
        if (cc[n].depth <= 1)
            break;
        n = cc[n].parent;
    }
    return UINT32_MAX;
}

/* Hint for a region met at code address pc (0 = unknown). */
static uint64_t caller_hint(gen *g, uint64_t pc)
{
    return hint_of(func_at(g, pc), UINT32_MAX);
}

/* Hint for an MPI call [enter, leave] of function `name` made at callsite: exact when the
 * call recorded its calling context (mpi_call.node: the interposer's frame, whose parent is
 * the caller's) or the latest sample was inside the call. */
static uint64_t mpi_hint(gen *g, const char *name, uint64_t enter, uint64_t leave,
                         uint64_t callsite, uint64_t node)
{
    const mg_ccnode *cc = g->loc->cc;
    uint32_t n = g->last_node, func = func_at(g, callsite);
    if (node && node < g->loc->ncc && cc[node].depth > 1)
        return hint_of(func, cc[node].parent);
    if (node && g->pass == 1)
        g->bad_call_node++; /* placed as if it had recorded none */
    if (n != UINT32_MAX && g->last_time >= enter && g->last_time <= leave) {
        for (unsigned steps = 0; n < g->loc->ncc && cc[n].depth > 1 && steps < 65536; steps++) {
            if (cc[n].func && strcmp(mg_syms_func_name(g->job->syms, cc[n].func), name) == 0)
                return hint_of(func, cc[n].parent);
            n = cc[n].parent;
        }
    }
    return hint_of(func, UINT32_MAX);
}

/* Undefined ids below ncc (gaps) still need a definition for the mapping table. */
static void cc_fill_gaps(gen *g)
{
    mg_loc *l = g->loc;
    cc_reserve(l, 1);
    if (!l->cc[0].depth)
        l->cc[0] = (mg_ccnode){0, special_region(g, SR_NOSTACK), 1, 0};
    for (size_t i = 1; i < l->ncc; i++)
        if (!l->cc[i].depth)
            l->cc[i] = (mg_ccnode){0, special_region(g, SR_UNKNOWN_FRAME), 1, 0};
}

/* ------------------------------------------------------------ samples */

static void node_weight(gen *g, uint32_t node, uint64_t ns)
{
    if (node >= g->nnode_w) {
        size_t n = g->nnode_w ? g->nnode_w : 256;
        while (n <= node)
            n *= 2;
        g->node_ns = mg_xrealloc(g->node_ns, n * sizeof(uint64_t));
        g->node_n = mg_xrealloc(g->node_n, n * sizeof(uint64_t));
        memset(g->node_ns + g->nnode_w, 0, (n - g->nnode_w) * sizeof(uint64_t));
        memset(g->node_n + g->nnode_w, 0, (n - g->nnode_w) * sizeof(uint64_t));
        g->nnode_w = n;
    }
    g->node_ns[node] += ns;
    g->node_n[node]++;
}

/* The execution of parallel region `region` into *x; false if its records were lost. */
static bool omp_exec(gen *g, uint64_t region, mg_ompreg *x)
{
    return region && g->proc->omptab && mg_regtab_get(g->proc->omptab, region, x);
}

/* What the rules of model/omp_model.h need of execution x. */
static hpa_omp_exec exec_of(const mg_ompreg *x)
{
    return (hpa_omp_exec){.t_end = x->end, .enc_seq = x->enc_seq};
}

/*
 * OpenMP Work / Wait of one sample, classified as hpanalyze does: by the rules of
 * model/omp_model.h. A sample inside an MPI call is MPI time, neither. A sample outside
 * every region without a state waits for the stream's end (pre_runtime_ns), where the
 * thread's type decides it.
 */
static void sum_omp_sample(gen *g, unsigned state, uint64_t region, uint64_t time, uint64_t ns)
{
    if (hpa_omp_sample_cat(state) == HPA_OMP_CAT_MPI)
        return;
    unsigned s = HPC_STATE_OMP(state);
    if (hpa_omp_sample_unreported(s, region)) {
        g->pre_runtime_ns += ns;
        return;
    }
    enum hpa_omp_cat cat = hpa_omp_state_cat(s);
    if (cat != HPA_OMP_CAT_WORK && cat != HPA_OMP_CAT_WAIT)
        return; /* the rules only turn wait into idle */
    mg_ompreg xr, *x = omp_exec(g, region, &xr) ? &xr : NULL;
    hpa_omp_exec ex = x ? exec_of(x) : (hpa_omp_exec){0};
    s = hpa_omp_sample_state(s, region, x ? &ex : NULL, g->loc->seq, time, g->omp_thread_type);
    cat = hpa_omp_state_cat(s);
    if (cat != HPA_OMP_CAT_WORK && cat != HPA_OMP_CAT_WAIT)
        return; /* idle */
    mg_tsum *t = &g->loc->sum;
    if (cat == HPA_OMP_CAT_WORK)
        t->omp_work_ns += ns;
    else
        t->omp_wait_ns += ns;
    if (!x)
        return;
    uint64_t k;
    if (!memo_get(&g->sum_memo, region, &k)) {
        mg_ompstat *o = mg_psum_omp(&g->proc->sum, x->lregion, g->proc->regions[x->lregion].name);
        uint32_t oi = (uint32_t)(o - g->proc->sum.omps);
        mg_ompthr *ot = mg_psum_ompthr(&g->proc->sum, oi, g->loc->seq);
        k = ((uint64_t)oi << 32) | (uint64_t)(ot - g->proc->sum.ompthr);
        memo_put(&g->sum_memo, region, k);
    }
    mg_ompstat *o = &g->proc->sum.omps[k >> 32];
    mg_ompthr *ot = &g->proc->sum.ompthr[(uint32_t)k];
    if (cat == HPA_OMP_CAT_WORK) {
        o->work_ns += ns;
        ot->work_ns += ns;
    } else {
        o->wait_ns += ns;
        ot->wait_ns += ns;
    }
}

static void sample_clock(gen *g, const hpc_rec_sample_clock *s)
{
    uint32_t node = sample_node(g, s->node);
    uint64_t time = ct(g, s->time), sys = s->sys_ns < s->cpu_ns ? s->sys_ns : s->cpu_ns;
    uint32_t sm = g->proc->state_metric; /* User and System CPU as thread-state metrics */
    if (sm != UINT32_MAX) {
        emit(g, time, MG_EV_METRIC, sm + HPC_MSTATE_USER, 0, 0, s->cpu_ns - sys, 0);
        emit(g, time, MG_EV_METRIC, sm + HPC_MSTATE_SYSTEM, 0, 0, sys, 0);
    }
    emit(g, time, MG_EV_SAMPLE, node, 0, 0, 0, 0);
    g->last_node = node;
    g->last_time = s->time;
    if (g->pass != 1)
        return;
    mg_tsum *t = &g->loc->sum;
    t->samples++;
    t->sample_cpu_ns += s->cpu_ns;
    t->state_ns[HPC_MSTATE_USER] += s->cpu_ns - sys;
    t->state_ns[HPC_MSTATE_SYSTEM] += sys;
    node_weight(g, node, s->cpu_ns);
    sum_omp_sample(g, (unsigned)s->state, s->region, s->time, s->cpu_ns);
}

/* Off-CPU time charged to a call stack: its state's metric grows, and a sample at the
 * stack shows where (the clock's interrupt generator: thread states ride on clock
 * profiling). */
static void sample_state(gen *g, const hpc_rec_sample_state *s)
{
    uint32_t sm = g->proc->state_metric;
    if (sm == UINT32_MAX || s->mstate >= HPC_NMSTATES || s->mstate <= HPC_MSTATE_SYSTEM)
        return;
    uint64_t time = ct(g, s->time);
    uint32_t node = sample_node(g, s->node);
    emit(g, time, MG_EV_METRIC, sm + (uint32_t)s->mstate, 0, 0, s->ns, 0);
    emit(g, time, MG_EV_SAMPLE, node, 0, 0, 0, 0);
    g->last_node = node;
    g->last_time = s->time;
    if (g->pass == 1)
        g->loc->sum.state_ns[s->mstate] += s->ns;
}

static void sample_counter(gen *g, const hpc_rec_sample_counter *s)
{
    mg_ctrinfo *c = mg_proc_counter(g->proc, s->counter);
    uint64_t t = ct(g, s->time);
    uint32_t node = sample_node(g, s->node);
    emit(g, t, MG_EV_METRIC, c->metric, 0, 0, s->value, 0);
    emit(g, t, MG_EV_SAMPLE, node, c->igen, 0, 0, 0);
    g->last_node = node;
    g->last_time = s->time;
    if (g->pass != 1)
        return;
    g->loc->sum.counter_samples++;
    mg_psum *ps = &g->proc->sum;
    size_t k = (size_t)(c - g->proc->ctrs);
    while (ps->nctrs <= k) {
        mg_ctrinfo *ci = &g->proc->ctrs[ps->nctrs];
        mg_ctrstat *cs = MG_PUSH(ps->ctrs, ps->nctrs, ps->capctrs);
        *cs = (mg_ctrstat){mg_xstrdup(ci->name), mg_xstrdup(ci->unit), 0, 0};
    }
    ps->ctrs[k].samples++;
    ps->ctrs[k].value += s->value;
}

/* ------------------------------------------------------------ MPI */

static uint32_t local_comm(gen *g, uint64_t comm, bool *ok)
{
    uint64_t i;
    if (memo_get(&g->comm_memo, comm, &i)) {
        *ok = true;
        return (uint32_t)i;
    }
    *ok = hpa_u64map_get(&g->proc->comm_by_id, comm, &i);
    if (!*ok) {
        g->bad_comm++;
        return 0;
    }
    memo_put(&g->comm_memo, comm, i);
    return (uint32_t)i;
}

static void close_call(gen *g)
{
    if (!g->call_open)
        return;
    g->call_open = false;
    emit(g, g->call_leave, MG_EV_LEAVE, g->call_region, 0, 0, 0, 0);
    if (g->pass != 1)
        return;
    if (!g->acc.open)
        return; /* no mpi_fn record names the function: not counted (as hpanalyze) */
    g->acc.open = false;
    uint64_t ns = hpa_mpi_call_ns(&g->acc);
    mg_tsum *t = &g->loc->sum;
    mg_psum *ps = &g->proc->sum;
    t->mpi_ns += ns;
    t->mpi_calls++;
    const char *name = g->proc->regions[g->call_region].name;
    bool lifecycle = hpa_mpi_is_lifecycle(name);
    hpa_mpi_rank_add(&ps->mpi, &ps->win, &g->acc, lifecycle);
    if (lifecycle)
        return;
    hpa_mpi_sum_add(&mg_psum_call(ps, g->call_region, name)->s, ns, &g->acc.d);
    /* call site: the return address's line, per MPI function */
    uint64_t memo_key = g->call_site ^ ((uint64_t)g->call_region << 48), idx;
    if (memo_get(&g->site_memo, memo_key, &idx)) {
        hpa_mpi_sum_add(&ps->sites[idx].s, ns, &g->acc.d);
        return;
    }
    mg_symloc where = {MG_SYM_UNKNOWN, 0};
    if (g->call_site)
        where = mg_symproc_resolve(symproc(g), g->call_site - 1);
    if (!where.line)
        where.line = mg_syms_func_line(g->job->syms, where.func);
    uint64_t key = ((uint64_t)where.line << 24) | (g->call_region & 0xffffff);
    mg_callstat *site;
    if (hpa_u64map_get(&ps->site_by_key, key, &idx)) {
        site = &ps->sites[idx];
    } else {
        uint32_t lineno = 0;
        const char *file = mg_syms_line_file(g->job->syms, where.line, &lineno);
        const char *fname = mg_syms_func_name(g->job->syms, where.func);
        char desc[1024];
        if (lineno) {
            const char *base = strrchr(file, '/');
            snprintf(desc, sizeof(desc), "%s %s:%u", fname, base ? base + 1 : file, lineno);
        } else {
            snprintf(desc, sizeof(desc), "%s", fname);
        }
        site = mg_psum_site(ps, key, name, desc);
    }
    memo_put(&g->site_memo, memo_key, (uint64_t)(site - ps->sites));
    hpa_mpi_sum_add(&site->s, ns, &g->acc.d);
}

static void mpi_call(gen *g, const hpc_rec_mpi_call *c)
{
    close_call(g);
    g->call_open = true;
    g->call_enter = ct(g, c->time_enter);
    g->call_leave = ct(g, c->time_leave);
    if (g->call_leave < g->call_enter)
        g->call_leave = g->call_enter;
    g->call_site = c->callsite;
    g->call_region = mpi_region(g, c->fn, &g->call_fn);
    if (g->pass == 1 && g->call_fn != UINT32_MAX)
        hpa_mpi_call_open(&g->acc, g->call_fn, c);
    uint64_t hint = mpi_hint(g, g->proc->regions[g->call_region].name, c->time_enter, c->time_leave,
                             c->callsite, c->node);
    emit_enter(g, g->call_enter, g->call_region, hint);
}

/* Time of a detail record: inside its call. */
static uint64_t detail_time(gen *g, uint64_t t)
{
    t = ct(g, t);
    if (!g->call_open) {
        g->orphan_detail++;
        return t;
    }
    return clamp(t, g->call_enter, g->call_leave);
}

static void mpi_p2p(gen *g, const hpc_rec_mpi_p2p *m)
{
    if (g->pass == 1)
        hpa_mpi_call_p2p(&g->acc, m);
    uint64_t t = detail_time(g, m->time);
    bool ok;
    uint32_t comm = local_comm(g, m->comm, &ok);
    bool needs_peer = m->op == HPC_P2P_SEND || m->op == HPC_P2P_ISEND || m->op == HPC_P2P_RECV ||
                      m->op == HPC_P2P_IRECV_COMPLETE;
    if ((needs_peer && (m->peer < 0 || !ok)) || m->peer == -1)
        return; /* MPI_PROC_NULL moves nothing, not even a request; an unknown comm cannot
                   be named */
    if (needs_peer && (uint64_t)m->peer >= g->proc->comms[comm].size) {
        g->bad_peer++; /* damaged: no such rank in the communicator */
        return;
    }
    uint32_t peer = (uint32_t)m->peer;
    if (g->pass == 1 && needs_peer && mg_job_rank_missing(g->job, m->peer_world))
        g->to_missing++;
    uint64_t tag = (uint32_t)m->tag;
    switch (m->op) {
    case HPC_P2P_SEND:
        emit(g, t, MG_EV_MPI_SEND, peer, comm, tag, m->bytes, 0);
        break;
    case HPC_P2P_ISEND:
        emit(g, t, MG_EV_MPI_ISEND, peer, comm, tag, m->bytes, m->request);
        break;
    case HPC_P2P_RECV:
        emit(g, t, MG_EV_MPI_RECV, peer, comm, tag, m->bytes, 0);
        break;
    case HPC_P2P_IRECV_COMPLETE:
        emit(g, t, MG_EV_MPI_IRECV, peer, comm, tag, m->bytes, m->request);
        break;
    case HPC_P2P_ISEND_COMPLETE:
        emit(g, t, MG_EV_MPI_ISEND_COMPLETE, 0, 0, 0, 0, m->request);
        break;
    case HPC_P2P_IRECV_REQUEST:
        emit(g, t, MG_EV_MPI_IRECV_REQUEST, 0, 0, 0, 0, m->request);
        break;
    case HPC_P2P_REQUEST_CANCELLED:
        emit(g, t, MG_EV_MPI_REQUEST_CANCELLED, 0, 0, 0, 0, m->request);
        break;
    default:
        break;
    }
}

static void mpi_coll(gen *g, const hpc_rec_mpi_coll *m)
{
    if (g->pass == 1)
        hpa_mpi_call_coll(&g->acc, m);
    bool ok;
    uint32_t comm = local_comm(g, m->comm, &ok);
    if (!ok || m->op == HPC_COLL_NONE || m->op > HPC_COLL_REDUCE_SCATTER_BLOCK)
        return;
    uint64_t tb = detail_time(g, m->time_begin), te = detail_time(g, m->time_end);
    if (te < tb)
        te = tb;
    uint32_t root = m->root < 0 || (uint64_t)m->root >= g->proc->comms[comm].size
                        ? UINT32_MAX
                        : (uint32_t)m->root;
    emit(g, tb, MG_EV_MPI_COLL_BEGIN, 0, 0, 0, 0, 0);
    emit(g, te, MG_EV_MPI_COLL_END, comm, root, m->op - 1, m->bytes_sent, m->bytes_recv);
}

/* ------------------------------------------------------------ OpenMP */

/* Where the encountering thread met a construct: codeptr's function and its deepest frame
 * on the recorded path (in both passes: caller hints remember frames). */
static uint64_t fork_hint(gen *g, const hpc_rec_omp_parallel_begin *r, uint32_t *func)
{
    bool node_ok = r->node && r->node < g->loc->ncc && g->loc->cc[r->node].depth;
    *func = func_at(g, r->codeptr);
    return hint_of(*func, node_ok ? frame_of(g, (uint32_t)r->node, *func) : UINT32_MAX);
}

/* Pass 1: the execution of the region a fork begins, for the threads of its team (from
 * the record, as it is read: the samples that follow it name the region). */
static void region_begins(gen *g, const hpc_rec_omp_parallel_begin *r, uint64_t hint, uint32_t func)
{
    mg_proc *p = g->proc;
    mg_ompreg x;
    if (omp_exec(g, r->region, &x))
        return;
    uint32_t lregion = parallel_region(g, r);
    mg_psum_omp(&p->sum, lregion, p->regions[lregion].name)->instances++;
    if (!p->omptab && !p->omptab_failed && !(p->omptab = mg_regtab_open())) {
        p->omptab_failed = true;
        mg_job_problem(g->job,
                       "%s: no temporary file for its parallel regions (%s): samples are "
                       "not attributed to them",
                       p->hp ? p->hp->dir : p->name, strerror(errno));
    }
    x = (mg_ompreg){lregion, g->loc->seq, r->time, 0, (uint32_t)hint, func};
    if (p->omptab)
        mg_regtab_put(p->omptab, r->region, &x);
}

/* Pass 1: the region's end and wall time. */
static void region_ends(gen *g, const hpc_rec_omp_parallel_end *r)
{
    mg_ompreg x;
    if (!omp_exec(g, r->region, &x) || x.end || r->time < x.begin)
        return;
    x.end = r->time;
    mg_regtab_put(g->proc->omptab, r->region, &x);
    mg_psum_omp(&g->proc->sum, x.lregion, g->proc->regions[x.lregion].name)->wall_ns +=
        r->time - x.begin;
}

/* The parallel construct's region of an implicit task (named by its fork's thread). */
static uint32_t task_region(gen *g, uint64_t region)
{
    mg_ompreg x;
    return omp_exec(g, region, &x) ? x.lregion : omp_region(g, HPA_OC_PARALLEL, 0);
}

/* An implicit task begins: this location joins a team. */
static void implicit_begin(gen *g, const hpa_omp_item *it)
{
    uint32_t size = it->team ? it->team : 1;
    uint32_t team = mg_proc_team(g->proc, size);
    uint64_t claim = ((uint64_t)size << 32) | it->thread_num;
    if (!hpa_u64map_get(&g->loc->claim_set, claim, NULL)) {
        mg_xput(&g->loc->claim_set, claim, 1);
        *MG_PUSH(g->loc->claims, g->loc->nclaims, g->loc->capclaims) = claim;
    }
    /* the encountering thread met the construct at the path its begin recorded */
    mg_ompreg x;
    uint64_t hint = omp_exec(g, it->region, &x) && x.enc_seq == g->loc->seq
                        ? ((uint64_t)x.func << 32) | x.hint
                        : 0;
    uint64_t t = ct(g, it->begin);
    emit(g, t, MG_EV_TEAM_BEGIN, team, 0, 0, 0, 0);
    emit_enter(g, t, task_region(g, it->region), hint);
}

static void implicit_end(gen *g, const hpa_omp_item *it)
{
    uint64_t t = ct(g, it->end);
    emit(g, t, MG_EV_LEAVE, task_region(g, it->region), 0, 0, 0, 0);
    emit(g, t, MG_EV_TEAM_END, mg_proc_team(g->proc, it->team ? it->team : 1), 0, 0, 0, 0);
}

static void enter_leave(gen *g, uint32_t region, uint64_t tb, uint64_t te, uint64_t hint)
{
    if (te < tb)
        te = tb;
    emit_enter(g, tb, region, hint);
    emit(g, te, MG_EV_LEAVE, region, 0, 0, 0, 0);
}

/* A worker's implicit barrier has no code address: name it after its parallel region
 * ("#pragma omp parallel @f.c:9" -> "#pragma omp implicit barrier @f.c:9"). */
static uint32_t implicit_barrier_of(gen *g, uint64_t region)
{
    mg_ompreg x;
    if (!omp_exec(g, region, &x))
        return omp_region(g, HPA_OC_IMPLICIT_BARRIER, 0);
    const mg_region *par = &g->proc->regions[x.lregion];
    const char *at = strstr(par->name, " @");
    const char *parallel = hpa_omp_construct(HPA_OC_PARALLEL)->name;
    const char *construct = strstr(par->name, parallel);
    int pre = construct ? (int)(construct - par->name) : 0;
    char name[1024];
    snprintf(name, sizeof(name), "%.*s%s%s", pre, par->name,
             hpa_omp_construct(HPA_OC_IMPLICIT_BARRIER)->name, at ? at : "");
    return mg_proc_region(g->proc, MG_RKEY_OMP(HPA_OC_IMPLICIT_BARRIER, 0x80000000u | x.lregion),
                          name, par->file, par->line, omp_role(HPA_OC_IMPLICIT_BARRIER),
                          MG_PAR_OPENMP);
}

/* A wait, worksharing or masked interval: Enter/Leave of its construct; critical and
 * ordered also of the block held, locks and atomics only of the wait. */
static void omp_span(gen *g, const hpa_omp_item *it)
{
    uint64_t tb = ct(g, it->begin), ta = ct(g, it->acquired), te = ct(g, it->end);
    uint64_t hint = caller_hint(g, it->codeptr);
    switch (it->construct) {
    case HPA_OC_IMPLICIT_BARRIER:
        enter_leave(g,
                    it->codeptr ? omp_region(g, it->construct, it->codeptr)
                                : implicit_barrier_of(g, it->region),
                    tb, te, hint);
        return;
    case HPA_OC_CRITICAL:
    case HPA_OC_ORDERED: {
        uint32_t outer = omp_region(g, it->construct, it->codeptr);
        uint32_t inner = omp_region(g, hpa_omp_held_construct(it->construct), it->codeptr);
        emit_enter(g, tb, outer, hint);
        emit_enter(g, ta, inner, 0);
        emit(g, te, MG_EV_LEAVE, inner, 0, 0, 0, 0);
        emit(g, te, MG_EV_LEAVE, outer, 0, 0, 0, 0);
        return;
    }
    case HPA_OC_LOCK:
    case HPA_OC_NEST_LOCK:
    case HPA_OC_ATOMIC:
        enter_leave(g, omp_region(g, it->construct, it->codeptr), tb, ta, hint);
        return;
    default:
        enter_leave(g, omp_region(g, it->construct, it->codeptr), tb, te, hint);
        return;
    }
}

/* One item of the thread's OpenMP timeline (model/omp_model.h) as events. */
static void omp_item(void *arg, const hpa_omp_item *it)
{
    gen *g = arg;
    switch (it->kind) {
    case HPA_OMP_IT_FORK:
        emit(g, ct(g, it->begin), MG_EV_THREAD_FORK, it->team, 0, 0, 0, 0);
        break;
    case HPA_OMP_IT_JOIN:
        emit(g, ct(g, it->end), MG_EV_THREAD_JOIN, 0, 0, 0, 0, 0);
        break;
    case HPA_OMP_IT_OPEN:
        if (it->construct == HPA_OC_PARALLEL)
            implicit_begin(g, it);
        else
            emit_enter(g, ct(g, it->begin), omp_region(g, it->construct, it->codeptr),
                       caller_hint(g, it->codeptr));
        break;
    case HPA_OMP_IT_CLOSE:
        if (it->construct == HPA_OC_PARALLEL)
            implicit_end(g, it);
        else
            emit(g, ct(g, it->end), MG_EV_LEAVE, omp_region(g, it->construct, it->codeptr), 0, 0, 0,
                 0);
        break;
    default:
        omp_span(g, it);
        break;
    }
}

/* Hint for a traced call whose record names its calling context `node`, the traced
 * function itself its leaf frame (sync waits, I/O calls): the leaf's parent, exactly. */
static uint64_t leaf_caller_hint(gen *g, uint64_t node)
{
    const mg_ccnode *cc = g->loc->cc;
    if (!node || node >= g->loc->ncc || cc[node].depth <= 1)
        return 0;
    uint32_t parent = cc[node].parent;
    return hint_of(cc[parent].func, parent);
}

/* ------------------------------------------------------------ sync waits (-s) */

/* The region of a wait in the threads library, one per kind, named as the functions
 * (OpenMP waits are not here: the OpenMP constructs' regions hold them already). */
static uint32_t sync_region(gen *g, unsigned kind)
{
    static const char *const names[] = {
        [HPC_SYNC_MUTEX] = "mutex lock (pthread_mutex_lock, mtx_lock)",
        [HPC_SYNC_RWLOCK_RD] = "pthread_rwlock_rdlock",
        [HPC_SYNC_RWLOCK_WR] = "pthread_rwlock_wrlock",
        [HPC_SYNC_COND] = "condition wait (pthread_cond_wait, cnd_wait)",
        [HPC_SYNC_BARRIER] = "pthread_barrier_wait",
        [HPC_SYNC_JOIN] = "thread join (pthread_join, thrd_join)",
        [HPC_SYNC_SEM] = "sem_wait",
        [HPC_SYNC_SPIN] = "pthread_spin_lock",
    };
    const char *name =
        kind < sizeof names / sizeof names[0] && names[kind] ? names[kind] : "synchronization wait";
    return mg_proc_region(g->proc, MG_RKEY_SYNC(kind), name, "", 0, OTF2_REGION_ROLE_FUNCTION,
                          MG_PAR_PTHREAD);
}

/* A recorded wait: summed per thread (pass 1), and a region from its request to its
 * grant, entered below its caller's calling context, the object's address an attribute
 * of the Enter. */
static void sync_wait(gen *g, const hpc_rec_sync_wait *w)
{
    uint64_t tb = ct(g, w->time_request), te = ct(g, w->time_grant);
    if (g->pass == 1) {
        g->loc->sum.sync_ns +=
            w->time_grant > w->time_request ? w->time_grant - w->time_request : 0;
        g->loc->sum.sync_waits++;
    }
    if (w->kind >= HPC_SYNC_OMP_LOCK)
        return;
    uint64_t hint = leaf_caller_hint(g, w->node);
    uint32_t region = sync_region(g, (unsigned)w->kind);
    emit(g, tb, MG_EV_ENTER, region, (uint32_t)(hint >> 32), (uint32_t)hint, w->object, 1);
    emit(g, te < tb ? tb : te, MG_EV_LEAVE, region, 0, 0, 0, 0);
}

/* ------------------------------------------------------------ I/O (-i) */

/* The region of an I/O function, named as the program called it: transfers and flushes
 * are file I/O, the rest file metadata (Score-P's roles and paradigm). */
static uint32_t io_region(gen *g, unsigned fn)
{
    const char *name = hpc_io_fn_name(fn);
    char unknown[40];
    if (!name) {
        snprintf(unknown, sizeof unknown, "I/O function %u", fn);
        name = unknown;
    }
    unsigned act = hpc_io_fn_act(fn);
    bool data = act == HPC_IO_ACT_READ || act == HPC_IO_ACT_WRITE || act == HPC_IO_ACT_SYNC;
    return mg_proc_region(g->proc, MG_RKEY_IO(fn), name, "", 0,
                          data ? OTF2_REGION_ROLE_FILE_IO : OTF2_REGION_ROLE_FILE_IO_METADATA,
                          MG_PAR_NONE);
}

/* An MPI-IO call's I/O record (mpi_wrap/io.c): a detail of the mpi_call before it, in
 * whose region its I/O records go (it has no region of its own). */
static bool mpiio_record(uint64_t fn)
{
    return hpc_io_fn_paradigm((unsigned)fn) == HPC_IO_MPIIO;
}

/*
 * One traced I/O call, as Score-P's I/O adapters write it: the call's region below its
 * caller and inside it what the call did to its handle: IoCreateHandle (an open that
 * succeeded), IoDestroyHandle (a close, which frees the handle even when it fails),
 * IoDuplicateHandle (dup), IoOperationBegin at the call's start and IoOperationComplete
 * at its end with the bytes asked and done (reads, writes; flushes as FLUSH), and
 * IoDeleteFile (unlink, MPI_File_delete). A call without a handle (a descriptor the tracer does not
 * follow, EBADF) is its region alone; seeks, stat and mmap too. An MPI-IO call's records
 * go into its MPI call's region instead, at its times.
 */
static void io_op(gen *g, const hpc_rec_io_op *o)
{
    mg_proc *p = g->proc;
    uint64_t tb = ct(g, o->time), te = ct(g, o->time + o->duration);
    if (te < tb)
        te = tb;
    uint32_t h = mg_io_op_handle(p, o), region = UINT32_MAX;
    if (mpiio_record(o->fn)) {
        tb = detail_time(g, o->time); /* inside its MPI call's region */
        te = detail_time(g, o->time + o->duration);
    } else {
        region = io_region(g, (unsigned)o->fn);
        emit_enter(g, tb, region, leaf_caller_hint(g, o->node));
    }
    bool ok = o->error == 0, has = h != UINT32_MAX;
    uint64_t match = ((uint64_t)g->loc->seq << 40) | g->io_ops++;
    unsigned act = hpc_io_fn_act((unsigned)o->fn);
    switch (act) {
    case HPC_IO_ACT_OPEN:
        if (ok && has)
            emit(g, te, MG_EV_IO_CREATE, h, p->iohs[h].mode, p->iohs[h].creation, p->iohs[h].status,
                 0);
        break;
    case HPC_IO_ACT_CLOSE:
        if (has)
            emit(g, te, MG_EV_IO_DESTROY, h, 0, 0, 0, 0);
        break;
    case HPC_IO_ACT_READ:
    case HPC_IO_ACT_WRITE:
    case HPC_IO_ACT_SYNC: {
        uint32_t mode = act == HPC_IO_ACT_READ    ? OTF2_IO_OPERATION_MODE_READ
                        : act == HPC_IO_ACT_WRITE ? OTF2_IO_OPERATION_MODE_WRITE
                                                  : OTF2_IO_OPERATION_MODE_FLUSH;
        if (has) {
            emit(g, tb, MG_EV_IO_BEGIN, h, mode, o->requested, match, 0);
            emit(g, te, MG_EV_IO_COMPLETE, h, 0, o->done, match, 0);
        }
        break;
    }
    case HPC_IO_ACT_DUP:
        if (ok && has && p->iohs[h].parent != UINT32_MAX)
            emit(g, te, MG_EV_IO_DUP, p->iohs[h].parent, h, 0, p->iohs[h].status, 0);
        break;
    case HPC_IO_ACT_META:
        if (ok && (o->fn == HPC_IO_FN_unlink || o->fn == HPC_IO_FN_MPI_File_delete) && o->path.n)
            emit(g, te, MG_EV_IO_DELETE, hpc_io_fn_paradigm((unsigned)o->fn) - 1,
                 mg_xintern(&p->iofiles, o->path.p, o->path.n), 0, 0, 0);
        break;
    default:
        break;
    }
    if (region != UINT32_MAX)
        emit(g, te, MG_EV_LEAVE, region, 0, 0, 0, 0);
}

/* ------------------------------------------------------------ the stream */

static void thread_facts(gen *g, const hpc_record *r)
{
    mg_tsum *t = &g->loc->sum;
    if (r->kind == HPC_K_omp_thread) {
        g->omp_thread_type = (uint32_t)r->u.omp_thread.type;
    } else if (r->kind == HPC_K_thread_begin) {
        t->tid = r->u.thread_begin.tid;
        t->t_begin = r->u.thread_begin.time;
        if (r->u.thread_begin.name.n) {
            free(t->name);
            t->name = mg_strdup_n(r->u.thread_begin.name.p, r->u.thread_begin.name.n);
        }
    } else if (r->kind == HPC_K_thread_end) {
        t->ended = true;
        t->cpu_ns = r->u.thread_end.cpu_ns;
        t->life_ns =
            t->t_begin && r->u.thread_end.time > t->t_begin ? r->u.thread_end.time - t->t_begin : 0;
        hpa_mpi_window_seen(&g->proc->sum.win, r->u.thread_end.time);
    }
}

static void dispatch(gen *g, const hpc_record *r)
{
    bool detail = r->kind == HPC_K_mpi_p2p || r->kind == HPC_K_mpi_coll ||
                  (r->kind == HPC_K_io_op && mpiio_record(r->u.io_op.fn)) ||
                  (r->kind == HPC_K_io_handle && r->u.io_handle.paradigm == HPC_IO_MPIIO);
    if (!detail)
        close_call(g);
    /* the OpenMP timeline's clocks rule and its last time (before the call's Enter) */
    if (r->kind == HPC_K_mpi_call || r->kind == HPC_K_sample_clock ||
        r->kind == HPC_K_sample_counter || r->kind == HPC_K_thread_end)
        hpa_omp_timeline_feed(&g->tl, r);
    switch (r->kind) {
    case HPC_K_cct_node:
        cct_node(g, &r->u.cct_node, r->offset);
        break;
    case HPC_K_sample_clock:
        sample_clock(g, &r->u.sample_clock);
        break;
    case HPC_K_sample_counter:
        sample_counter(g, &r->u.sample_counter);
        break;
    case HPC_K_sample_state:
        sample_state(g, &r->u.sample_state);
        break;
    case HPC_K_mpi_call:
        mpi_call(g, &r->u.mpi_call);
        break;
    case HPC_K_mpi_p2p:
        mpi_p2p(g, &r->u.mpi_p2p);
        break;
    case HPC_K_mpi_coll:
        mpi_coll(g, &r->u.mpi_coll);
        break;
    case HPC_K_omp_parallel_begin: {
        uint32_t func;
        uint64_t hint = fork_hint(g, &r->u.omp_parallel_begin, &func);
        if (g->pass == 1)
            region_begins(g, &r->u.omp_parallel_begin, hint, func);
        hpa_omp_timeline_feed(&g->tl, r);
        break;
    }
    case HPC_K_omp_parallel_end:
        if (g->pass == 1)
            region_ends(g, &r->u.omp_parallel_end);
        hpa_omp_timeline_feed(&g->tl, r);
        break;
    case HPC_K_sync_wait:
        sync_wait(g, &r->u.sync_wait);
        break;
    case HPC_K_io_handle:
        mg_io_handle(g->proc, &r->u.io_handle);
        break;
    case HPC_K_io_op:
        io_op(g, &r->u.io_op);
        break;
    case HPC_K_omp_implicit_task:
    case HPC_K_omp_sync:
    case HPC_K_omp_mutex:
    case HPC_K_omp_work:
    case HPC_K_omp_task:
    case HPC_K_omp_masked:
        hpa_omp_timeline_feed(&g->tl, r);
        break;
    case HPC_K_omp_thread:
    case HPC_K_thread_begin:
    case HPC_K_thread_end:
        if (g->pass == 1)
            thread_facts(g, r);
        break;
    default:
        break;
    }
}

/* Node n's path, root first, into g->path (grown as needed); returns its length. */
static size_t path_of(gen *g, size_t n)
{
    mg_loc *l = g->loc;
    size_t len = 0;
    for (size_t k = n, steps = 0; steps < 100000; k = l->cc[k].parent, steps++) {
        if (len == g->path_cap) {
            g->path_cap = g->path_cap ? 2 * g->path_cap : 256;
            g->path = mg_xrealloc(g->path, g->path_cap * sizeof(*g->path));
        }
        g->path[len++] = (uint32_t)k;
        if (k == 0 || l->cc[k].parent == 0)
            break;
    }
    for (size_t i = 0; i < len / 2; i++) {
        uint32_t t = g->path[i];
        g->path[i] = g->path[len - 1 - i];
        g->path[len - 1 - i] = t;
    }
    return len;
}

/* Sampled time per function: exclusive to the leaf, inclusive once per path; an MPI call
 * is a leaf, as in hpanalyze's user view (model/mpi_leaf.h). */
static void sum_functions(gen *g)
{
    mg_loc *l = g->loc;
    mg_psum *ps = &g->proc->sum;
    hpa_u64map seen = {0};
    for (size_t n = 0; n < g->nnode_w && n < l->ncc; n++) {
        if (!g->node_n[n])
            continue;
        uint64_t w = g->node_ns[n];
        size_t len = path_of(g, n), kept = 0;
        hpa_mpi_leaf mpi = {0};
        uint32_t prev = 0;
        for (size_t i = 0; i < len; i++) { /* the frames shown, in place */
            uint32_t func = l->cc[g->path[i]].func;
            if (mg_syms_mpi_hides(g->job->syms, &mpi, prev, func))
                continue;
            prev = func ? func : prev;
            g->path[kept++] = g->path[i];
        }
        hpa_u64map_clear(&seen);
        for (size_t i = kept; i-- > 0;) {
            size_t k = g->path[i];
            uint32_t region = l->cc[k].region;
            if (hpa_u64map_get(&seen, region, NULL))
                continue;
            mg_xput(&seen, region, 1);
            const char *module =
                l->cc[k].func ? mg_syms_func_module(g->job->syms, l->cc[k].func) : "";
            mg_funcstat *f = mg_psum_func(ps, region, g->proc->regions[region].name, module);
            f->incl_ns += w;
            if (i == kept - 1) {
                f->excl_ns += w;
                f->samples += g->node_n[n];
            }
        }
    }
    hpa_u64map_free(&seen);
}

/* One problem line "PATH: N WHAT" for a count of bad input, when there was any. */
static void report_count(gen *g, uint64_t n, const char *what)
{
    if (n)
        mg_job_problem(g->job, "%s: %llu %s", g->loc->path, (unsigned long long)n, what);
}

static void report_counts(gen *g)
{
    report_count(g, g->bad_comm,
                 "MPI events name a communicator the process never defined; left out of the "
                 "trace");
    report_count(g, g->bad_node, "samples name an undefined calling context; shown as <no stack>");
    if (g->cut_node)
        mg_job_problem(g->job,
                       "%s: %llu samples in calling contexts beyond the %zu one OTF2 mapping "
                       "table holds; written at their nearest ancestor within",
                       g->loc->path, (unsigned long long)g->cut_node, g->job->cc_limit);
    report_count(g, g->bad_fn, "MPI calls name a function id without mpi_fn record");
    report_count(g, g->bad_peer,
                 "messages name a peer beyond their communicator's size; left out of the trace");
    report_count(g, g->to_missing,
                 "messages to or from ranks that left no data have no partner in the trace");
    report_count(g, g->orphan_detail, "MPI detail records without their mpi_call");
    report_count(g, g->bad_call_node,
                 "MPI calls name an undefined calling context; placed by their call site");
    const hpa_omp_timeline *tl = &g->tl;
    if (tl->repaired)
        mg_job_problem(g->job,
                       "%s: %llu OpenMP events moved by up to %llu ns to nest with the thread's "
                       "MPI calls (the MPI wrapper's and the OpenMP tool's clocks differ "
                       "slightly; MPI times are kept as measured)",
                       g->loc->path, (unsigned long long)tl->repaired,
                       (unsigned long long)tl->max_shift_ns);
    report_count(
        g, tl->closed_at_end,
        "OpenMP tasks or parallel regions without an end, closed at the end of the thread's "
        "stream");
    report_count(g, tl->unpaired, "OpenMP task ends without their begin; left out");
}

/* The process's heap in use (-H) on its first location, after the stream's events: the
 * few earlier ones are set aside and sorted in (order.h). */
static void heap_points(gen *g)
{
    const mg_proc *p = g->proc;
    if (p->heap_metric == UINT32_MAX || g->loc != &p->locs[0])
        return;
    for (size_t k = 0; k < p->nheap; k++)
        emit(g, p->heap_t[k], MG_EV_METRIC_POINT, p->heap_metric, 0, 0, p->heap_bytes[k], 0);
}

int mg_gen_location(mg_job *job, mg_loc *loc, hpc_reader *r, int pass, mg_ev_sink sink, void *ctx)
{
    gen g = {.job = job,
             .proc = loc->proc,
             .loc = loc,
             .pass = pass,
             .sink = sink,
             .ctx = ctx,
             .last_node = UINT32_MAX};
    memo_init(&g.fn_memo);
    memo_init(&g.comm_memo);
    memo_init(&g.omp_memo);
    memo_init(&g.site_memo);
    memo_init(&g.sum_memo);
    memo_init(&g.func_memo);
    hpa_omp_timeline_init(&g.tl, omp_item, &g);
    cc_fill_gaps(&g);
    if (!r) {
        heap_points(&g);
        return 0;
    }
    hpc_reader_rewind(r);
    hpc_record rec;
    uint64_t nrec = 0;
    while (hpc_reader_next(r, &rec) > 0) {
        nrec++;
        dispatch(&g, &rec);
        if ((++job->progress_records & 0xffff) == 0 && job->tick)
            job->tick(job);
    }
    close_call(&g);
    hpa_omp_timeline_end(&g.tl); /* tasks still open close at the stream's last time */
    cc_fill_gaps(&g);
    heap_points(&g);
    if (pass == 1) {
        loc->sum.records = nrec;
        loc->sum.damaged = hpc_reader_damaged(r);
        loc->sum.unknown = hpc_reader_unknown(r);
        if (loc->sum.damaged)
            mg_job_problem(job, "%s: %llu damaged records skipped", loc->path,
                           (unsigned long long)loc->sum.damaged);
        /* the collector ends every thread's stream with thread_end when its process ends
         * normally: a stream cut at a record boundary shows only this way */
        if (!loc->sum.ended && loc->proc->hp && !loc->proc->hp->ended_early)
            mg_job_problem(job,
                           "%s: the stream ends without thread_end although its process ended "
                           "normally (cut short?): its data stops at its last record",
                           loc->path);
        /* samples before the OpenMP runtime started: the thread's type decides (rule 2) */
        if (loc->proc->ompt &&
            hpa_omp_state_cat(hpa_omp_unreported_state(g.omp_thread_type)) == HPA_OMP_CAT_WORK)
            loc->sum.omp_work_ns += g.pre_runtime_ns;
        sum_functions(&g);
        report_counts(&g);
    }
    free(g.node_ns);
    free(g.path);
    free(g.node_n);
    return 0;
}
