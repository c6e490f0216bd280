/*
 * omp_proc.c - loading a process's OpenMP records into the model of omp_proc.h.
 *
 * One pass per thread stream keeps: the CCT of threads that encounter parallel
 * constructs (for the call path at the construct), the regions (from parallel begin/end),
 * and the thread's implicit-task, wait, mutex and task intervals. After all threads:
 * regions get their construct context (recursively through parent regions, which may be
 * in another thread's stream), and intervals become traced sums per (thread, construct),
 * clipped to the region's end (a worker's implicit barrier ends at the next fork) and
 * without the explicit tasks a waiting thread ran meanwhile.
 */
#include "omp_proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "profile.h"

/* ---------------------------------------------------------------- loading */

/* Intervals of one thread, kept until all streams are read. */
typedef struct ivl {
    uint64_t b, e, region;
    int kind;      /* wait kind, or -1 for implicit tasks / task execution */
    uint32_t team; /* implicit tasks: the team's actual size, 0 if not reported */
} ivl;

typedef struct ivls {
    size_t n, cap;
    ivl *v;
} ivls;

typedef struct thread_ivls {
    ivls implicit, waits, tasks;
} thread_ivls;

static int ivls_push(ivls *l, ivl x)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        ivl *v = realloc(l->v, sizeof(*v) * cap);
        if (!v)
            return HPC_E_NOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return 0;
}

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * elem);
    if (q)
        *cap = c;
    return q;
}

static int cct_add(hpa_omp_cct *c, size_t *cap, const hpc_rec_cct_node *n)
{
    if (n->id == 0 || n->id > UINT32_MAX / 2)
        return 0;
    uint32_t id = (uint32_t)n->id;
    size_t pcap = *cap;
    uint32_t *parent = grow(c->parent, &pcap, (size_t)id + 1, sizeof(*parent));
    if (!parent)
        return HPC_E_NOMEM;
    c->parent = parent;
    uint64_t *pc = grow(c->pc, cap, (size_t)id + 1, sizeof(*pc));
    if (!pc)
        return HPC_E_NOMEM;
    c->pc = pc;
    for (uint32_t i = c->n; i < id; i++)
        c->parent[i] = 0, c->pc[i] = 0;
    if (id < c->n)
        return 0; /* repeated id: keep the first */
    c->parent[id] = n->parent < id ? (uint32_t)n->parent : 0;
    c->pc[id] = n->pc;
    c->n = id + 1;
    return 0;
}

static uint32_t construct_of(hpa_omp_proc *m, uint64_t codeptr)
{
    uint32_t i;
    if (hpa_u64map_get(&m->construct_index, codeptr, &i))
        return i;
    size_t cap = m->construct_cap;
    hpa_omp_construct *c = grow(m->constructs, &cap, m->nconstructs + 1, sizeof(*c));
    if (!c)
        return UINT32_MAX;
    m->constructs = c;
    m->construct_cap = (uint32_t)cap;
    i = m->nconstructs;
    c[i] = (hpa_omp_construct){.codeptr = codeptr};
    if (hpa_u64map_put(&m->construct_index, codeptr, i))
        return UINT32_MAX;
    m->nconstructs++;
    return i;
}

static int add_region(hpa_omp_proc *m, uint32_t seq, const hpc_rec_omp_parallel_begin *b)
{
    if (b->region == 0 || b->region == HPA_U64MAP_EMPTY)
        return 0;
    uint32_t i;
    if (hpa_u64map_get(&m->region_index, b->region, &i))
        return 0; /* repeated id: keep the first */
    hpa_omp_region *r = grow(m->regions, &m->region_cap, m->nregions + 1, sizeof(*r));
    if (!r)
        return HPC_E_NOMEM;
    m->regions = r;
    uint32_t con = construct_of(m, b->codeptr);
    if (con == UINT32_MAX)
        return HPC_E_NOMEM;
    if (m->constructs[con].executions == 0 && m->constructs[con].rep_node == 0 &&
        b->node < UINT32_MAX) {
        m->constructs[con].rep_seq = seq;
        m->constructs[con].rep_node = (uint32_t)b->node;
        m->constructs[con].rep_parent = b->parent_region;
    }
    r[m->nregions] = (hpa_omp_region){
        .id = b->region,
        .parent = b->parent_region,
        .t_begin = b->time,
        .codeptr = b->codeptr,
        .enc_seq = seq,
        .node = b->node < UINT32_MAX ? (uint32_t)b->node : 0,
        .team_size = b->team_size < UINT32_MAX ? (uint32_t)b->team_size : 0,
        .ctx = UINT32_MAX, /* assigned after loading */
        .construct = con,
    };
    if (hpa_u64map_put(&m->region_index, b->region, (uint32_t)m->nregions))
        return HPC_E_NOMEM;
    m->nregions++;
    return 0;
}

static hpa_omp_region *region_by_id(hpa_omp_proc *m, uint64_t id)
{
    uint32_t i;
    if (id == 0 || id == HPA_U64MAP_EMPTY || !hpa_u64map_get(&m->region_index, id, &i))
        return NULL;
    return &m->regions[i];
}

/* Open implicit tasks of a thread, innermost last (nesting is shallow). */
typedef struct open_tasks {
    unsigned n;
    struct {
        uint64_t region, t;
        uint32_t team;
    } v[64];
} open_tasks;

typedef struct open_exec {
    unsigned n;
    struct {
        uint64_t task, t;
    } v[64];
} open_exec;

static void note_time(hpa_omp_thread *th, uint64_t t)
{
    if (t == 0)
        return;
    if (th->t_first == 0 || t < th->t_first)
        th->t_first = t;
    if (t > th->t_last)
        th->t_last = t;
}

static int read_thread(hpa_profile *p, hpa_omp_proc *m, const hpc_proc *proc,
                       const hpc_thread_file *tf, hpa_omp_thread *th, thread_ivls *iv)
{
    hpc_reader *r;
    th->seq = tf->seq;
    if (hpc_reader_open(&r, tf->path, proc->schema, p->diag) < 0)
        return 0; /* reported */
    size_t cct_cap = 0;
    bool encounters = false;
    open_tasks ot = {0};
    open_exec ox = {0};
    hpc_record rec;
    int rc = 0;
    while (rc == 0 && hpc_reader_next(r, &rec) == 1) {
        switch (rec.kind) {
        case HPC_K_cct_node:
            rc = cct_add(&th->cct, &cct_cap, &rec.u.cct_node);
            break;
        case HPC_K_thread_begin:
            note_time(th, rec.u.thread_begin.time);
            break;
        case HPC_K_thread_end:
            note_time(th, rec.u.thread_end.time);
            break;
        case HPC_K_sample_clock:
            note_time(th, rec.u.sample_clock.time);
            break;
        case HPC_K_omp_thread:
            th->type = (uint32_t)rec.u.omp_thread.type;
            note_time(th, rec.u.omp_thread.time);
            break;
        case HPC_K_omp_parallel_begin:
            encounters = true;
            note_time(th, rec.u.omp_parallel_begin.time);
            rc = add_region(m, tf->seq, &rec.u.omp_parallel_begin);
            break;
        case HPC_K_omp_parallel_end: {
            hpa_omp_region *reg = region_by_id(m, rec.u.omp_parallel_end.region);
            note_time(th, rec.u.omp_parallel_end.time);
            if (reg && reg->enc_seq == tf->seq && reg->t_end == 0)
                reg->t_end = rec.u.omp_parallel_end.time;
            break;
        }
        case HPC_K_omp_implicit_task: {
            const hpc_rec_omp_implicit_task *it = &rec.u.omp_implicit_task;
            note_time(th, it->time);
            if (it->endpoint == 1) {
                if (ot.n < 64) {
                    ot.v[ot.n].region = it->region, ot.v[ot.n].t = it->time;
                    ot.v[ot.n].team = it->team_size < UINT32_MAX ? (uint32_t)it->team_size : 0;
                }
                ot.n++;
            } else if (ot.n > 0) {
                ot.n--;
                if (ot.n < 64)
                    rc = ivls_push(&iv->implicit, (ivl){.b = ot.v[ot.n].t,
                                                        .e = it->time,
                                                        .region = ot.v[ot.n].region,
                                                        .kind = -1,
                                                        .team = ot.v[ot.n].team});
            }
            break;
        }
        case HPC_K_omp_sync: {
            const hpc_rec_omp_sync *s = &rec.u.omp_sync;
            note_time(th, s->time_end);
            rc = ivls_push(&iv->waits, (ivl){.b = s->time_begin,
                                             .e = s->time_end,
                                             .region = s->region,
                                             .kind = hpa_omp_sync_wait(s->kind)});
            break;
        }
        case HPC_K_omp_mutex: {
            const hpc_rec_omp_mutex *x = &rec.u.omp_mutex;
            note_time(th, x->time_released);
            if (x->time_request != 0 && x->time_acquired >= x->time_request)
                rc = ivls_push(&iv->waits, (ivl){.b = x->time_request,
                                                 .e = x->time_acquired,
                                                 .region = x->region,
                                                 .kind = hpa_omp_mutex_wait(x->kind)});
            break;
        }
        case HPC_K_omp_task: {
            const hpc_rec_omp_task *t = &rec.u.omp_task;
            note_time(th, t->time);
            if (t->event == HPC_OMP_TASK_BEGIN) {
                if (ox.n < 64)
                    ox.v[ox.n].task = t->task, ox.v[ox.n].t = t->time;
                ox.n++;
            } else if (t->event == HPC_OMP_TASK_END && ox.n > 0) {
                ox.n--;
                if (ox.n < 64)
                    rc = ivls_push(&iv->tasks, (ivl){.b = ox.v[ox.n].t, .e = t->time, .kind = -1});
            }
            break;
        }
        default:
            break;
        }
    }
    hpc_reader_close(r);
    if (!encounters) { /* only encountering threads' call paths are needed */
        free(th->cct.parent), free(th->cct.pc);
        th->cct = (hpa_omp_cct){0};
    }
    return rc;
}

/* ---------------------------------------------------------------- contexts */

static uint32_t new_ctx(hpa_omp_proc *m, uint32_t seq, uint32_t node, uint32_t parent,
                        uint32_t construct)
{
    size_t cap = m->ctx_cap;
    bool first = m->nctx == 0;
    if (first)
        m->nctx = 1; /* context 0 = none */
    hpa_omp_ctx *c = grow(m->ctxs, &cap, (size_t)m->nctx + 1, sizeof(*c));
    if (!c)
        return UINT32_MAX;
    if (first)
        c[0] = (hpa_omp_ctx){0};
    m->ctxs = c;
    m->ctx_cap = (uint32_t)cap;
    c[m->nctx] =
        (hpa_omp_ctx){.enc_seq = seq, .node = node, .parent_ctx = parent, .construct = construct};
    return m->nctx++;
}

/* The context of region i: (encountering thread, node, parent context), shared by every
 * region with the same ones. */
static uint32_t ctx_of(hpa_omp_proc *m, size_t i, unsigned depth)
{
    hpa_omp_region *r = &m->regions[i];
    if (r->ctx != UINT32_MAX)
        return r->ctx;
    uint32_t parent = 0, pi;
    if (depth < 64 && r->parent && hpa_u64map_get(&m->region_index, r->parent, &pi))
        parent = ctx_of(m, pi, depth + 1);
    if (parent == UINT32_MAX)
        return UINT32_MAX;
    /* Exact key when the parts fit; otherwise every region gets its own context. */
    bool fits = r->enc_seq < (1u << 15) && parent < (1u << 20) && r->node < (1u << 28) &&
                r->construct < (1u << 28);
    uint64_t key =
        r->node ? (uint64_t)r->enc_seq << 48 | (uint64_t)parent << 28 | r->node
                : 1ull << 63 | (uint64_t)r->enc_seq << 48 | (uint64_t)parent << 28 | r->construct;
    uint32_t c;
    if (fits && hpa_u64map_get(&m->ctx_index, key, &c) && m->ctxs[c].construct == r->construct) {
        r->ctx = c;
        return c;
    }
    c = new_ctx(m, r->enc_seq, r->node, parent, r->construct);
    if (c == UINT32_MAX || (fits && hpa_u64map_put(&m->ctx_index, key, c)))
        return UINT32_MAX;
    r->ctx = c;
    return c;
}

/* Depth of node in thread seq's CCT (0 if unknown). */
static unsigned node_depth(const hpa_omp_proc *m, uint32_t seq, uint32_t node)
{
    for (uint32_t i = 0; i < m->nthreads; i++) {
        const hpa_omp_cct *c = &m->threads[i].cct;
        if (m->threads[i].seq != seq)
            continue;
        unsigned d = 0;
        for (uint32_t n = node; n && n < c->n && d < 4096; n = c->parent[n])
            d++;
        return d;
    }
    return 0;
}

/* Upper bound of the frames a context adds: its path and its parents', plus one frame
 * per level for the construct's function. Contexts are numbered after their parents. */
static unsigned context_room(const hpa_omp_proc *m)
{
    unsigned *room = calloc(m->nctx ? m->nctx : 1, sizeof(*room)), most = 0;
    if (!room)
        return 4096;
    for (uint32_t c = 1; c < m->nctx; c++) {
        const hpa_omp_ctx *x = &m->ctxs[c];
        unsigned parent = x->parent_ctx < c ? room[x->parent_ctx] : 0;
        room[c] = node_depth(m, x->enc_seq, x->node) + 2 + parent;
        if (room[c] > most)
            most = room[c];
    }
    free(room);
    return most;
}

unsigned hpa_omp_context_room(const hpa_profile *p)
{
    unsigned most = 0;
    for (size_t i = 0; i < p->nprocs; i++)
        if (p->procs[i].omp && p->procs[i].omp->room > most)
            most = p->procs[i].omp->room;
    return most;
}

/* ---------------------------------------------------------------- traced sums */

static int cmp_ivl(const void *a, const void *b)
{
    const ivl *x = a, *y = b;
    return x->b < y->b ? -1 : x->b > y->b;
}

/* Merge overlapping intervals in place (sorted by begin); returns the new count. */
static size_t merge_ivls(ivl *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof(*v), cmp_ivl);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].b <= v[k].e) {
            if (v[i].e > v[k].e)
                v[k].e = v[i].e;
        } else {
            v[++k] = v[i];
        }
    }
    return k + 1;
}

/* Time of the merged intervals v[0..n) inside [b, e). */
static uint64_t overlap(const ivl *v, size_t n, uint64_t b, uint64_t e)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* first interval ending after b */
        size_t mid = (lo + hi) / 2;
        if (v[mid].e <= b)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t sum = 0;
    for (size_t i = lo; i < n && v[i].b < e; i++) {
        uint64_t x = v[i].b > b ? v[i].b : b, y = v[i].e < e ? v[i].e : e;
        if (y > x)
            sum += y - x;
    }
    return sum;
}

/* What the rules (omp_model.h) need of region r. */
static hpa_omp_exec exec_of(const hpa_omp_region *r)
{
    return (hpa_omp_exec){.t_end = r->t_end, .enc_seq = r->enc_seq};
}

/* End of an interval of thread seq in region r (NULL: unknown), clipped by rule 1. */
static uint64_t clip_end(const hpa_omp_region *r, uint32_t seq, uint64_t e)
{
    hpa_omp_exec x = r ? exec_of(r) : (hpa_omp_exec){0};
    return hpa_omp_region_time_end(r ? &x : NULL, seq, e);
}

bool hpa_omp_exec_of(hpa_omp_proc *m, uint64_t region, hpa_omp_exec *x)
{
    const hpa_omp_region *r = m ? region_by_id(m, region) : NULL;
    if (r)
        *x = exec_of(r);
    return r != NULL;
}

static int trace_thread(hpa_omp_proc *m, hpa_omp_thread *th, thread_ivls *iv)
{
    uint32_t outside = m->nconstructs;
    th->traced = calloc((size_t)m->nconstructs + 1, sizeof(*th->traced));
    if (!th->traced)
        return HPC_E_NOMEM;
    size_t ntasks = merge_ivls(iv->tasks.v, iv->tasks.n);
    for (size_t i = 0; i < iv->implicit.n; i++) {
        const ivl *x = &iv->implicit.v[i];
        const hpa_omp_region *r = region_by_id(m, x->region);
        uint64_t e = clip_end(r, th->seq, x->e);
        if (e > x->b)
            th->traced[r ? r->construct : outside].in_region_ns += e - x->b;
        if (r && x->team > m->constructs[r->construct].actual_team)
            m->constructs[r->construct].actual_team = x->team;
    }
    for (size_t i = 0; i < iv->waits.n; i++) {
        const ivl *x = &iv->waits.v[i];
        const hpa_omp_region *r = region_by_id(m, x->region);
        uint64_t e = x->kind == HPA_OMP_W_IMPLICIT_BARRIER ? clip_end(r, th->seq, x->e) : x->e;
        if (e <= x->b)
            continue;
        uint64_t d = e - x->b, busy = overlap(iv->tasks.v, ntasks, x->b, e);
        th->traced[r ? r->construct : outside].wait_ns[x->kind] += d > busy ? d - busy : 0;
    }
    return 0;
}

/* ---------------------------------------------------------------- runtime */

static bool name_starts(const char *path, const char *prefix)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, prefix, strlen(prefix)) == 0;
}

static void note_runtime(hpa_omp_proc *m, const hpc_proc *proc)
{
    size_t it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(proc, HPC_K_omp_runtime, &it));) {
        const hpc_rec_omp_runtime *o = &r->u.omp_runtime;
        char name[96], ver[128];
        hpc_str_copy(name, sizeof(name), o->name);
        hpc_str_copy(ver, sizeof(ver), o->version);
        snprintf(m->runtime, sizeof(m->runtime), "%s%s%s%s", name, *ver ? " (" : "", ver,
                 *ver ? ")" : "");
        hpc_str_copy(m->runtime_path, sizeof(m->runtime_path), o->path);
        m->runtime_seen = true;
        if (o->ompt)
            m->ompt = true;
    }
    if (m->runtime_seen)
        return;
    it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(proc, HPC_K_module_load, &it));) {
        char path[512];
        hpc_str_copy(path, sizeof(path), r->u.module_load.path);
        bool gomp = name_starts(path, "libgomp.so");
        if (gomp || name_starts(path, "libomp.so") || name_starts(path, "libiomp5.so")) {
            m->runtime_seen = true;
            snprintf(m->runtime, sizeof(m->runtime), "%s",
                     gomp ? "GNU libgomp" : "an OpenMP runtime without an OMPT tool");
            snprintf(m->runtime_path, sizeof(m->runtime_path), "%s", path);
            if (gomp)
                return;
        }
    }
}

bool hpa_omp_runtime_text(const hpc_proc *p, char *buf, size_t cap)
{
    hpa_omp_proc m = {0};
    note_runtime(&m, p);
    if (!m.runtime_seen)
        return false;
    char asked[32];
    hpc_str_copy(asked, sizeof(asked), p->settings.omp_runtime);
    snprintf(buf, cap, "%s: %s%s%s%s", m.runtime,
             m.ompt ? "OpenMP states recorded" : "no OMPT, OpenMP states unavailable",
             *asked ? " (--omp-runtime " : "", asked, *asked ? ")" : "");
    return true;
}

int hpa_omp_load(hpa_profile *p, hpa_process *pr)
{
    hpa_omp_proc *m = calloc(1, sizeof(*m));
    if (!m)
        return HPC_E_NOMEM;
    pr->omp = m;
    const hpc_proc *proc = pr->proc;
    note_runtime(m, proc);
    if (!m->ompt)
        return 0;
    m->nthreads = (uint32_t)proc->nthreads;
    m->threads = calloc(proc->nthreads ? proc->nthreads : 1, sizeof(*m->threads));
    thread_ivls *iv = calloc(proc->nthreads ? proc->nthreads : 1, sizeof(*iv));
    int rc = m->threads && iv ? 0 : HPC_E_NOMEM;
    for (size_t i = 0; rc == 0 && i < proc->nthreads; i++)
        rc = read_thread(p, m, proc, &proc->threads[i], &m->threads[i], &iv[i]);
    for (size_t i = 0; rc == 0 && i < m->nregions; i++) {
        hpa_omp_region *r = &m->regions[i];
        if (ctx_of(m, i, 0) == UINT32_MAX)
            rc = HPC_E_NOMEM;
        hpa_omp_construct *c = &m->constructs[r->construct];
        c->executions++;
        if (r->team_size > c->max_team)
            c->max_team = r->team_size;
        if (r->t_end > r->t_begin)
            c->wall_ns += r->t_end - r->t_begin;
    }
    for (size_t i = 0; rc == 0 && i < proc->nthreads; i++)
        rc = trace_thread(m, &m->threads[i], &iv[i]);
    if (rc == 0)
        m->room = context_room(m);
    for (size_t i = 0; iv && i < proc->nthreads; i++)
        free(iv[i].implicit.v), free(iv[i].waits.v), free(iv[i].tasks.v);
    free(iv);
    m->last_region = HPA_U64MAP_EMPTY;
    m->last_seq = UINT32_MAX;
    return rc;
}

void hpa_omp_free(hpa_omp_proc *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nthreads; i++) {
        free(m->threads[i].cct.parent);
        free(m->threads[i].cct.pc);
        free(m->threads[i].traced);
    }
    free(m->threads);
    for (uint32_t i = 0; i < m->nctx; i++)
        free(m->ctxs[i].frames[0]), free(m->ctxs[i].frames[1]);
    free(m->ctxs);
    free(m->regions);
    free(m->constructs);
    hpa_u64map_free(&m->region_index);
    hpa_u64map_free(&m->construct_index);
    hpa_u64map_free(&m->ctx_index);
    free(m);
}

/* ---------------------------------------------------------------- samples */

/* Type of thread seq from its omp_thread record (1 initial, 2 worker), 0 if none. */
static uint32_t thread_type(hpa_omp_proc *m, uint32_t seq)
{
    if (seq == m->last_seq)
        return m->last_type;
    size_t lo = 0, hi = m->nthreads;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->threads[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    m->last_seq = seq;
    m->last_type = lo < m->nthreads && m->threads[lo].seq == seq ? m->threads[lo].type : 0;
    return m->last_type;
}

uint32_t hpa_omp_classify(hpa_omp_proc *m, uint32_t seq, uint64_t time, uint64_t region,
                          uint32_t *state)
{
    if (!m || !m->ompt)
        return 0;
    const hpa_omp_region *r = NULL;
    if (region != 0) {
        uint32_t i;
        if (region == m->last_region) {
            i = m->last_index;
        } else {
            if (region == HPA_U64MAP_EMPTY || !hpa_u64map_get(&m->region_index, region, &i))
                return 0; /* the region's records were lost */
            m->last_region = region;
            m->last_index = i;
        }
        r = &m->regions[i];
    }
    hpa_omp_exec x = r ? exec_of(r) : (hpa_omp_exec){0};
    unsigned s = HPC_STATE_OMP(*state);
    unsigned to = hpa_omp_sample_state(s, region, r ? &x : NULL, seq, time, thread_type(m, seq));
    if (to != s)
        *state = HPC_STATE_WITH_OMP(*state, to);
    if (!r || to == HPC_OMP_STATE_IDLE) /* serial code, or idle after the region */
        return 0;
    return r->ctx == UINT32_MAX ? 0 : r->ctx;
}

/* ---------------------------------------------------------------- metrics and notes */

static uint32_t state_set(enum hpa_omp_cat cat)
{
    uint32_t set = 0;
    for (unsigned s = 1; s < 16; s++)
        if (hpa_omp_state_cat(s) == cat)
            set |= 1u << s;
    return set;
}

int hpa_omp_add_metrics(hpa_profile *p)
{
    bool any = false;
    for (size_t i = 0; i < p->nprocs; i++)
        any |= p->procs[i].omp && p->procs[i].omp->ompt;
    if (!any)
        return 0;
    hpa_metric work = {.key = "omp_work",
                       .title = "OpenMP Work",
                       .unit = "sec.",
                       .source = HPA_SRC_CLOCK_TIME,
                       .omp_states = state_set(HPA_OMP_CAT_WORK),
                       .scale = 1e-9,
                       .time = true,
                       .visible = true};
    hpa_metric wait = work;
    wait.key = "omp_wait";
    wait.title = "OpenMP Wait";
    wait.omp_states = state_set(HPA_OMP_CAT_WAIT);
    if (hpa_metrics_add(&p->metrics, &work) < 0 || hpa_metrics_add(&p->metrics, &wait) < 0)
        return HPC_E_NOMEM;
    return 0;
}

bool hpa_omp_note_native(const hpa_profile *p)
{
    static bool said;
    bool native = false;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_omp_proc *m = p->procs[i].omp;
        if (!m || m->ompt || !m->runtime_seen)
            continue;
        native = true;
        if (!said)
            fprintf(stderr,
                    "hpanalyze: note: process %s ran on %s, which has no OMPT: OpenMP states "
                    "are unavailable; reports show the machine view\n",
                    p->procs[i].proc->name, m->runtime);
        said = true;
    }
    return native;
}
