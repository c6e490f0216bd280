/*
 * omp_proc.c - loading a process's OpenMP records into the model of omp_proc.h.
 *
 * One pass per thread stream: its OpenMP records go through the model's timeline
 * (model/omp_model.h), whose items give the regions (fork/join), the thread's implicit-task,
 * wait and task intervals, and the phases of its worksharing constructs and barriers;
 * cct_node records give the call paths of threads that encounter constructs. After all
 * threads (a region's fork may be in another thread's stream): regions get their
 * construct context, and intervals become traced sums per (thread, construct), clipped to
 * the region's end (rule 1), exclusive of inner regions, without the explicit tasks a
 * waiting thread ran meanwhile; phases become sums per (part, thread).
 */
#include "omp_proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"
#include "profile.h"

/* ---------------------------------------------------------------- small containers */

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

/* Append one element of size elem to the array *v (n used, cap allocated). */
static int push(void **v, size_t *n, size_t *cap, const void *x, size_t elem)
{
    void *q = grow(*v, cap, *n + 1, elem);
    if (!q)
        return HPC_E_NOMEM;
    *v = q;
    memcpy((char *)q + *n * elem, x, elem);
    (*n)++;
    return 0;
}
#define PUSH(list, x) push((void **)&(list).v, &(list).n, &(list).cap, &(x), sizeof(x))

/* ---------------------------------------------------------------- what a thread read */

/* An interval of one thread, kept until all streams are read. */
typedef struct ivl {
    uint64_t b, e, region;
    int kind;      /* wait kind, or -1 for implicit tasks / task execution */
    uint32_t team; /* implicit tasks: the team's actual size, 0 if not reported */
} ivl;

/* A phase of a part, before the part is known (its construct may be in another stream). */
typedef struct pspan {
    uint64_t b, e, sub; /* the interval, and wait time inside it that is not its work */
    uint64_t region, codeptr;
    uint8_t construct;
    bool wait;
} pspan;

typedef struct thread_read {
    struct {
        ivl *v;
        size_t n, cap;
    } implicit, waits, tasks, mpi;
    struct {
        pspan *v;
        size_t n, cap;
    } spans;
} thread_read;

/* One open implicit task of the thread being read: where its current phase began. */
typedef struct level {
    uint64_t region, phase_start, phase_wait;
    long last_ws; /* index in spans of a worksharing construct not yet ended by a barrier */
} level;

typedef struct reader {
    hpa_omp_proc *m;
    hpa_omp_thread *th;
    thread_read *tr;
    level lv[HPA_OMP_NEST];
    unsigned nlv;
    int rc;
} reader;

/* Ids beyond what the file can hold are ignored (profile.c names them). */
static int cct_add(hpa_omp_cct *c, size_t *cap, const hpc_rec_cct_node *n, uint64_t max_id)
{
    if (n->id == 0 || n->id > max_id || n->id > UINT32_MAX / 2)
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

/* ---------------------------------------------------------------- constructs, regions */

static uint32_t con_of(hpa_omp_proc *m, const hpc_rec_omp_parallel_begin *b)
{
    for (uint32_t i = m->ncons; i-- > 0;) /* few constructs; recent ones first */
        if (m->cons[i].codeptr == b->codeptr && m->cons[i].outlined == b->outlined)
            return i;
    size_t cap = m->con_cap;
    hpa_omp_con *c = grow(m->cons, &cap, (size_t)m->ncons + 1, sizeof(*c));
    if (!c)
        return UINT32_MAX;
    m->cons = c;
    m->con_cap = (uint32_t)cap;
    c[m->ncons] =
        (hpa_omp_con){.codeptr = b->codeptr, .outlined = b->outlined, .psource = b->psource};
    return m->ncons++;
}

static int add_region(hpa_omp_proc *m, uint32_t seq, const hpc_rec_omp_parallel_begin *b,
                      uint64_t t_begin)
{
    if (b->region == 0 || b->region == HPA_U64MAP_EMPTY)
        return 0;
    if (hpa_u64map_get(&m->region_index, b->region, NULL))
        return 0; /* repeated id: keep the first */
    hpa_omp_region *r = grow(m->regions, &m->region_cap, m->nregions + 1, sizeof(*r));
    if (!r)
        return HPC_E_NOMEM;
    m->regions = r;
    uint32_t con = con_of(m, b);
    if (con == UINT32_MAX)
        return HPC_E_NOMEM;
    hpa_omp_con *c = &m->cons[con];
    if (c->executions == 0 && c->rep_node == 0 && b->node < UINT32_MAX) {
        c->rep_seq = seq;
        c->rep_node = (uint32_t)b->node;
        c->rep_parent = b->parent_region;
    }
    r[m->nregions] = (hpa_omp_region){
        .id = b->region,
        .parent = b->parent_region,
        .t_begin = t_begin,
        .enc_seq = seq,
        .node = b->node < UINT32_MAX ? (uint32_t)b->node : 0,
        .team_size = b->team_size < UINT32_MAX ? (uint32_t)b->team_size : 0,
        .ctx = UINT32_MAX, /* assigned after loading */
        .con = con,
    };
    if (hpa_u64map_put(&m->region_index, b->region, (uint32_t)m->nregions))
        return HPC_E_NOMEM;
    m->nregions++;
    return 0;
}

static hpa_omp_region *region_by_id(hpa_omp_proc *m, uint64_t id)
{
    uint64_t i;
    if (id == 0 || id == HPA_U64MAP_EMPTY || !hpa_u64map_get(&m->region_index, id, &i))
        return NULL;
    return &m->regions[i];
}

/* ---------------------------------------------------------------- phases while reading */

static level *level_of(reader *rd, uint64_t region)
{
    unsigned n = rd->nlv < HPA_OMP_NEST ? rd->nlv : HPA_OMP_NEST;
    for (unsigned i = n; i-- > 0;)
        if (rd->lv[i].region == region)
            return &rd->lv[i];
    return n ? &rd->lv[n - 1] : NULL;
}

static bool is_worksharing(unsigned c)
{
    return hpa_omp_construct(c)->role == HPA_OMP_ROLE_LOOP || c == HPA_OC_SECTIONS ||
           c == HPA_OC_SINGLE || c == HPA_OC_WORKSHARE || c == HPA_OC_SCOPE;
}

static bool is_barrier(unsigned c)
{
    return c == HPA_OC_BARRIER || c == HPA_OC_BARRIER_OTHER || c == HPA_OC_WORKSHARE_BARRIER;
}

static void span_push(reader *rd, pspan s)
{
    if (rd->rc == 0)
        rd->rc = PUSH(rd->tr->spans, s);
}

/*
 * Phases: a worksharing construct is a phase of its own, and the barrier right after it
 * (the one ending it, implicit or not) its wait; a barrier after anything else ends the
 * phase since the thread's previous barrier (or its implicit task's begin), which is the
 * barrier's work: with gcc-built code on libomp a static loop leaves no record of its
 * own, only its barrier, and there the imbalance shows. The barrier ending the region is
 * one too (code address 0 for all threads: one row per region), where gcc's last loop,
 * whose own barrier it merges into the region's, shows.
 */
static void phase_item(reader *rd, const hpa_omp_item *it)
{
    level *l = level_of(rd, it->region);
    if (!l)
        return;
    unsigned c = it->construct;
    if (is_worksharing(c)) {
        span_push(rd, (pspan){it->begin, it->end, 0, it->region, it->codeptr, (uint8_t)c, false});
        l->last_ws = (long)rd->tr->spans.n - 1;
        l->phase_start = it->end, l->phase_wait = 0;
    } else if (is_barrier(c)) {
        if (l->last_ws >= 0) {
            const pspan *ws = &rd->tr->spans.v[l->last_ws];
            span_push(rd,
                      (pspan){it->begin, it->end, 0, it->region, ws->codeptr, ws->construct, true});
        } else {
            span_push(rd, (pspan){l->phase_start, it->begin, l->phase_wait, it->region, it->codeptr,
                                  (uint8_t)c, false});
            span_push(rd,
                      (pspan){it->begin, it->end, 0, it->region, it->codeptr, (uint8_t)c, true});
        }
        l->last_ws = -1;
        l->phase_start = it->end, l->phase_wait = 0;
    } else if (c == HPA_OC_IMPLICIT_BARRIER) { /* the region's end: its last phase */
        if (l->last_ws >= 0) {
            const pspan *ws = &rd->tr->spans.v[l->last_ws];
            span_push(rd,
                      (pspan){it->begin, it->end, 0, it->region, ws->codeptr, ws->construct, true});
        } else {
            span_push(rd, (pspan){l->phase_start, it->begin, l->phase_wait, it->region, 0,
                                  (uint8_t)c, false});
            span_push(rd, (pspan){it->begin, it->end, 0, it->region, 0, (uint8_t)c, true});
        }
        l->last_ws = -1;
        l->phase_start = it->end, l->phase_wait = 0;
    } else if (it->wait >= 0) {
        uint64_t end = it->construct == HPA_OC_CRITICAL || it->construct == HPA_OC_ORDERED ||
                               it->construct == HPA_OC_LOCK || it->construct == HPA_OC_NEST_LOCK ||
                               it->construct == HPA_OC_ATOMIC
                           ? it->acquired
                           : it->end;
        l->phase_wait += end - it->begin;
    }
}

/* ---------------------------------------------------------------- reading a thread */

static void note_time(hpa_omp_thread *th, uint64_t t)
{
    if (t == 0)
        return;
    if (th->t_first == 0 || t < th->t_first)
        th->t_first = t;
    if (t > th->t_last)
        th->t_last = t;
}

static void implicit_open(reader *rd, const hpa_omp_item *it)
{
    if (rd->nlv < HPA_OMP_NEST)
        rd->lv[rd->nlv] = (level){it->region, it->begin, 0, -1};
    rd->nlv++;
}

static void implicit_close(reader *rd, const hpa_omp_item *it)
{
    ivl x = {.b = it->begin, .e = it->end, .region = it->region, .kind = -1, .team = it->team};
    if (rd->rc == 0)
        rd->rc = PUSH(rd->tr->implicit, x);
    if (rd->nlv == 0)
        return;
    if (rd->nlv > HPA_OMP_NEST) {
        rd->nlv--;
        return;
    }
    level *l = level_of(rd, it->region);
    unsigned i = (unsigned)(l - rd->lv);
    memmove(&rd->lv[i], &rd->lv[i + 1], (rd->nlv - i - 1) * sizeof(rd->lv[0]));
    rd->nlv--;
}

/* The time a wait item waits: a mutex until acquired, the rest until its end. */
static uint64_t wait_end(const hpa_omp_item *it)
{
    unsigned c = it->construct;
    bool mutex = c == HPA_OC_LOCK || c == HPA_OC_NEST_LOCK || c == HPA_OC_ATOMIC ||
                 c == HPA_OC_CRITICAL || c == HPA_OC_ORDERED;
    return mutex ? it->acquired : it->end;
}

static void on_item(void *arg, const hpa_omp_item *it)
{
    reader *rd = arg;
    hpa_omp_thread *th = rd->th;
    note_time(th, it->end);
    switch (it->kind) {
    case HPA_OMP_IT_FORK:
    case HPA_OMP_IT_JOIN: /* the regions come from the records (read_thread) */
        return;
    case HPA_OMP_IT_OPEN:
        if (it->construct == HPA_OC_PARALLEL)
            implicit_open(rd, it);
        return;
    case HPA_OMP_IT_CLOSE:
        if (it->construct == HPA_OC_PARALLEL) {
            implicit_close(rd, it);
        } else if (rd->rc == 0) {
            ivl x = {.b = it->begin, .e = it->end, .kind = -1};
            rd->rc = PUSH(rd->tr->tasks, x);
        }
        return;
    default:
        break;
    }
    if (it->wait >= 0 && rd->rc == 0) {
        ivl x = {.b = it->begin, .e = wait_end(it), .region = it->region, .kind = it->wait};
        rd->rc = PUSH(rd->tr->waits, x);
    }
    phase_item(rd, it);
}

static int read_thread(hpa_profile *p, hpa_omp_proc *m, const hpc_proc *proc,
                       const hpc_thread_file *tf, hpa_omp_thread *th, thread_read *tr)
{
    hpc_reader *r;
    th->seq = tf->seq;
    if (hpc_thread_open(&r, proc, tf, p->diag) < 0)
        return 0; /* reported */
    size_t cct_cap = 0;
    bool encounters = false;
    reader rd = {.m = m, .th = th, .tr = tr};
    hpa_omp_timeline tl;
    hpa_omp_timeline_init(&tl, on_item, &rd);
    hpc_record rec;
    while (rd.rc == 0 && hpc_reader_next(r, &rec) == 1) {
        switch (rec.kind) {
        case HPC_K_cct_node:
            rd.rc = cct_add(&th->cct, &cct_cap, &rec.u.cct_node, hpc_reader_max_records(r));
            break;
        case HPC_K_thread_begin:
            note_time(th, rec.u.thread_begin.time);
            break;
        case HPC_K_omp_thread:
            th->type = (uint32_t)rec.u.omp_thread.type;
            note_time(th, rec.u.omp_thread.time);
            break;
        case HPC_K_sample_clock:
            note_time(th, rec.u.sample_clock.time);
            break;
        case HPC_K_thread_end:
            note_time(th, rec.u.thread_end.time);
            break;
        case HPC_K_omp_parallel_begin: /* regions at the recorded times, as hpmerge's */
            encounters = true;
            rd.rc =
                add_region(m, th->seq, &rec.u.omp_parallel_begin, rec.u.omp_parallel_begin.time);
            break;
        case HPC_K_omp_parallel_end: {
            hpa_omp_region *reg = region_by_id(m, rec.u.omp_parallel_end.region);
            if (reg && reg->enc_seq == th->seq && reg->t_end == 0)
                reg->t_end = rec.u.omp_parallel_end.time;
            break;
        }
        default:
            break;
        }
        hpa_omp_timeline_feed(&tl, &rec);
        if (rec.kind == HPC_K_mpi_call && rd.rc == 0) { /* after the items it released */
            const hpc_rec_mpi_call *c = &rec.u.mpi_call;
            ivl x = {.b = c->time_enter,
                     .e = c->time_leave > c->time_enter ? c->time_leave : c->time_enter,
                     .region = rd.nlv && rd.nlv <= HPA_OMP_NEST ? rd.lv[rd.nlv - 1].region : 0,
                     .kind = -1};
            rd.rc = PUSH(tr->mpi, x);
        }
    }
    hpa_omp_timeline_end(&tl);
    m->repaired += tl.repaired;
    m->closed_at_end += tl.closed_at_end;
    hpc_reader_close(r);
    if (!encounters) { /* only encountering threads' call paths are needed */
        free(th->cct.parent), free(th->cct.pc);
        th->cct = (hpa_omp_cct){0};
    }
    return rd.rc;
}

/* ---------------------------------------------------------------- contexts */

static uint32_t new_ctx(hpa_omp_proc *m, uint32_t seq, uint32_t node, uint32_t parent, uint32_t con)
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
    c[m->nctx] = (hpa_omp_ctx){.enc_seq = seq, .node = node, .parent_ctx = parent, .con = con};
    return m->nctx++;
}

/* The context of region i: (encountering thread, node, parent context), shared by every
 * region with the same ones. */
static uint32_t ctx_of(hpa_omp_proc *m, size_t i, unsigned depth)
{
    hpa_omp_region *r = &m->regions[i];
    if (r->ctx != UINT32_MAX)
        return r->ctx;
    uint32_t parent = 0;
    uint64_t pi;
    if (depth < 64 && r->parent && hpa_u64map_get(&m->region_index, r->parent, &pi))
        parent = ctx_of(m, pi, depth + 1);
    if (parent == UINT32_MAX)
        return UINT32_MAX;
    /* Exact key when the parts fit; otherwise every region gets its own context. */
    bool fits = r->enc_seq < (1u << 15) && parent < (1u << 20) && r->node < (1u << 28) &&
                r->con < (1u << 28);
    uint64_t key = r->node
                       ? (uint64_t)r->enc_seq << 48 | (uint64_t)parent << 28 | r->node
                       : 1ull << 63 | (uint64_t)r->enc_seq << 48 | (uint64_t)parent << 28 | r->con;
    uint64_t c;
    if (fits && hpa_u64map_get(&m->ctx_index, key, &c) && m->ctxs[c].con == r->con) {
        r->ctx = c;
        return c;
    }
    c = new_ctx(m, r->enc_seq, r->node, parent, r->con);
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

/* Upper bound of the frames a context adds: its path and its parents', plus two frames
 * per level for the construct's function and an expert-view body. Contexts are numbered
 * after their parents. */
static unsigned context_room(const hpa_omp_proc *m)
{
    unsigned *room = calloc(m->nctx ? m->nctx : 1, sizeof(*room)), most = 0;
    if (!room)
        return 4096;
    for (uint32_t c = 1; c < m->nctx; c++) {
        const hpa_omp_ctx *x = &m->ctxs[c];
        unsigned parent = x->parent_ctx < c ? room[x->parent_ctx] : 0;
        room[c] = node_depth(m, x->enc_seq, x->node) + 3 + parent;
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
    if (x->b != y->b)
        return x->b < y->b ? -1 : 1;
    return x->e > y->e ? -1 : x->e < y->e; /* outer first */
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
static uint64_t clip_end(const hpa_omp_region *r, uint32_t seq, uint64_t b, uint64_t e)
{
    hpa_omp_exec x = r ? exec_of(r) : (hpa_omp_exec){0};
    e = hpa_omp_region_time_end(r ? &x : NULL, seq, e);
    return e > b ? e : b;
}

bool hpa_omp_exec_of(hpa_omp_proc *m, uint64_t region, hpa_omp_exec *x)
{
    const hpa_omp_region *r = m ? region_by_id(m, region) : NULL;
    if (r)
        *x = exec_of(r);
    return r != NULL;
}

/* Implicit-task time per construct, exclusive: an inner region's time on this thread is
 * the inner construct's, not the outer's too (nested regions). */
static int implicit_sums(hpa_omp_proc *m, hpa_omp_thread *th, ivl *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const hpa_omp_region *r = region_by_id(m, v[i].region);
        v[i].e = clip_end(r, th->seq, v[i].b, v[i].e);
        if (r && v[i].team > m->cons[r->con].actual_team)
            m->cons[r->con].actual_team = v[i].team;
    }
    if (n)
        qsort(v, n, sizeof(*v), cmp_ivl);
    uint64_t *inner = calloc(n ? n : 1, sizeof(*inner));
    size_t *stack = calloc(n ? n : 1, sizeof(*stack)), sp = 0;
    if (!inner || !stack) {
        free(inner), free(stack);
        return HPC_E_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        while (sp && v[stack[sp - 1]].e <= v[i].b)
            sp--;
        if (sp) { /* v[i] lies in the open interval on top */
            const ivl *o = &v[stack[sp - 1]];
            uint64_t e = v[i].e < o->e ? v[i].e : o->e;
            inner[stack[sp - 1]] += e - v[i].b;
        }
        stack[sp++] = i;
    }
    for (size_t i = 0; i < n; i++) {
        const hpa_omp_region *r = region_by_id(m, v[i].region);
        uint64_t d = v[i].e - v[i].b;
        th->traced[r ? r->con : m->ncons].in_region_ns += d > inner[i] ? d - inner[i] : 0;
    }
    free(inner), free(stack);
    return 0;
}

/* ---------------------------------------------------------------- parts */

static uint32_t part_of(hpa_omp_proc *m, uint32_t con, unsigned construct, uint64_t codeptr)
{
    for (uint32_t i = 0; i < m->nparts; i++)
        if (m->parts[i].con == con && m->parts[i].construct == construct &&
            m->parts[i].codeptr == codeptr)
            return i;
    size_t cap = m->part_cap;
    hpa_omp_part *p = grow(m->parts, &cap, (size_t)m->nparts + 1, sizeof(*p));
    if (!p)
        return UINT32_MAX;
    m->parts = p;
    m->part_cap = (uint32_t)cap;
    p[m->nparts] = (hpa_omp_part){.con = con, .construct = (uint8_t)construct, .codeptr = codeptr};
    return m->nparts++;
}

/* The cell of (part, thread), searched from the thread's latest cells (few per thread). */
static uint32_t cell_of(hpa_omp_proc *m, uint32_t part, uint32_t thread, size_t first)
{
    for (size_t i = m->ncells; i-- > first;)
        if (m->cells[i].part == part && m->cells[i].thread == thread)
            return (uint32_t)i;
    hpa_omp_cell *c = grow(m->cells, &m->cell_cap, m->ncells + 1, sizeof(*c));
    if (!c)
        return UINT32_MAX;
    m->cells = c;
    c[m->ncells] = (hpa_omp_cell){.part = part, .thread = thread};
    return (uint32_t)m->ncells++;
}

static int cmp_phase(const void *a, const void *b)
{
    const hpa_omp_phase *x = a, *y = b;
    return x->b < y->b ? -1 : x->b > y->b;
}

static int part_sums(hpa_omp_proc *m, hpa_omp_thread *th, uint32_t ti, const thread_read *tr)
{
    size_t first = m->ncells; /* this thread's cells come after the others' */
    th->phases = calloc(tr->spans.n ? tr->spans.n : 1, sizeof(*th->phases));
    if (!th->phases)
        return HPC_E_NOMEM;
    for (size_t i = 0; i < tr->spans.n; i++) {
        const pspan *s = &tr->spans.v[i];
        const hpa_omp_region *r = region_by_id(m, s->region);
        if (!r)
            continue; /* its fork was lost */
        uint32_t part = part_of(m, r->con, s->construct, s->codeptr);
        uint32_t cell = part == UINT32_MAX ? UINT32_MAX : cell_of(m, part, ti, first);
        if (cell == UINT32_MAX)
            return HPC_E_NOMEM;
        uint64_t e = clip_end(r, th->seq, s->b, s->e), d = e - s->b;
        hpa_omp_cell *c = &m->cells[cell];
        if (s->wait) {
            c->wait_ns += d;
        } else {
            c->instances++;
            c->work_ns += d > s->sub ? d - s->sub : 0;
        }
        th->phases[th->nphases++] =
            (hpa_omp_phase){.b = s->b, .e = e, .region = s->region, .cell = cell, .wait = s->wait};
    }
    if (th->nphases)
        qsort(th->phases, th->nphases, sizeof(*th->phases), cmp_phase);
    return 0;
}

static int trace_thread(hpa_omp_proc *m, uint32_t ti, thread_read *tr)
{
    hpa_omp_thread *th = &m->threads[ti];
    uint32_t outside = m->ncons;
    th->traced = calloc((size_t)m->ncons + 1, sizeof(*th->traced));
    if (!th->traced)
        return HPC_E_NOMEM;
    int rc = implicit_sums(m, th, tr->implicit.v, tr->implicit.n);
    size_t ntasks = merge_ivls(tr->tasks.v, tr->tasks.n);
    for (size_t i = 0; rc == 0 && i < tr->waits.n; i++) {
        const ivl *x = &tr->waits.v[i];
        const hpa_omp_region *r = region_by_id(m, x->region);
        uint64_t e =
            x->kind == HPA_OMP_W_IMPLICIT_BARRIER ? clip_end(r, th->seq, x->b, x->e) : x->e;
        if (e <= x->b)
            continue;
        uint64_t d = e - x->b, busy = overlap(tr->tasks.v, ntasks, x->b, e);
        th->traced[r ? r->con : outside].wait_ns[x->kind] += d > busy ? d - busy : 0;
    }
    for (size_t i = 0; rc == 0 && i < tr->mpi.n; i++) {
        const hpa_omp_region *r = region_by_id(m, tr->mpi.v[i].region);
        th->traced[r ? r->con : outside].mpi_ns += tr->mpi.v[i].e - tr->mpi.v[i].b;
    }
    return rc ? rc : part_sums(m, th, ti, tr);
}

/* ---------------------------------------------------------------- loading */

bool hpa_omp_runtime_line(const hpc_proc *p, char *buf, size_t cap)
{
    hpa_omp_runtime rt;
    hpa_omp_runtime_of(p, &rt);
    return hpa_omp_runtime_text(&rt, buf, cap);
}

static void free_read(thread_read *tr, size_t n)
{
    for (size_t i = 0; tr && i < n; i++)
        free(tr[i].implicit.v), free(tr[i].waits.v), free(tr[i].tasks.v), free(tr[i].spans.v),
            free(tr[i].mpi.v);
    free(tr);
}

int hpa_omp_load(hpa_profile *p, hpa_process *pr)
{
    hpa_omp_proc *m = calloc(1, sizeof(*m));
    if (!m)
        return HPC_E_NOMEM;
    pr->omp = m;
    const hpc_proc *proc = pr->proc;
    hpa_omp_runtime_of(proc, &m->rt);
    m->ompt = m->rt.ompt;
    if (!m->ompt)
        return 0;
    m->nthreads = (uint32_t)proc->nthreads;
    m->threads = calloc(proc->nthreads ? proc->nthreads : 1, sizeof(*m->threads));
    thread_read *tr = calloc(proc->nthreads ? proc->nthreads : 1, sizeof(*tr));
    int rc = m->threads && tr ? 0 : HPC_E_NOMEM;
    for (size_t i = 0; rc == 0 && i < proc->nthreads; i++)
        rc = read_thread(p, m, proc, &proc->threads[i], &m->threads[i], &tr[i]);
    for (size_t i = 0; rc == 0 && i < m->nregions; i++) {
        hpa_omp_region *r = &m->regions[i];
        if (ctx_of(m, i, 0) == UINT32_MAX)
            rc = HPC_E_NOMEM;
        hpa_omp_con *c = &m->cons[r->con];
        c->executions++;
        if (r->team_size > c->max_team)
            c->max_team = r->team_size;
        if (r->t_end > r->t_begin)
            c->wall_ns += r->t_end - r->t_begin;
    }
    for (uint32_t i = 0; rc == 0 && i < m->nthreads; i++)
        rc = trace_thread(m, i, &tr[i]);
    if (rc == 0)
        m->room = context_room(m);
    free_read(tr, proc->nthreads);
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
        free(m->threads[i].phases);
    }
    free(m->threads);
    for (uint32_t i = 0; i < m->nctx; i++)
        free(m->ctxs[i].frames[0]), free(m->ctxs[i].frames[1]);
    free(m->ctxs);
    free(m->regions);
    free(m->cons);
    free(m->parts);
    free(m->cells);
    hpa_u64map_free(&m->region_index);
    hpa_u64map_free(&m->ctx_index);
    free(m);
}

/* ---------------------------------------------------------------- samples */

/* Index of thread seq in m->threads (by position: streams are sorted by seq), or -1. */
static int thread_index(hpa_omp_proc *m, uint32_t seq)
{
    if (seq == m->last_seq)
        return (int)m->last_thread;
    size_t lo = 0, hi = m->nthreads;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->threads[mid].seq < seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    bool found = lo < m->nthreads && m->threads[lo].seq == seq;
    m->last_seq = seq;
    m->last_thread = found ? (uint32_t)lo : UINT32_MAX;
    m->last_type = found ? m->threads[lo].type : 0;
    return found ? (int)lo : -1;
}

/* Type of thread seq from its omp_thread record (1 initial, 2 worker), 0 if none. */
static uint32_t thread_type(hpa_omp_proc *m, uint32_t seq)
{
    thread_index(m, seq);
    return m->last_type;
}

uint32_t hpa_omp_classify(hpa_omp_proc *m, uint32_t seq, uint64_t time, uint64_t region,
                          uint32_t *state)
{
    if (!m || !m->ompt)
        return 0;
    const hpa_omp_region *r = NULL;
    if (region != 0) {
        uint64_t i;
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

void hpa_omp_sample_part(hpa_omp_proc *m, uint32_t seq, uint64_t time, uint64_t region,
                         uint32_t state, uint64_t cpu_ns)
{
    enum hpa_omp_cat cat = hpa_omp_sample_cat(state);
    if (!m || !m->ompt || region == 0 || (cat != HPA_OMP_CAT_WORK && cat != HPA_OMP_CAT_WAIT))
        return;
    int ti = thread_index(m, seq);
    if (ti < 0)
        return;
    const hpa_omp_thread *th = &m->threads[ti];
    size_t lo = 0, hi = th->nphases;
    while (lo < hi) { /* the first phase beginning after time */
        size_t mid = (lo + hi) / 2;
        if (th->phases[mid].b <= time)
            lo = mid + 1;
        else
            hi = mid;
    }
    bool wait = cat == HPA_OMP_CAT_WAIT;
    for (size_t i = lo, n = 0; i-- > 0 && n < 16; n++) { /* phases of inner regions overlap */
        const hpa_omp_phase *ph = &th->phases[i];
        if (time <= ph->e && ph->region == region && ph->wait == wait) {
            hpa_omp_cell *c = &m->cells[ph->cell];
            if (wait)
                c->cpu_wait_ns += cpu_ns;
            else
                c->cpu_work_ns += cpu_ns;
            return;
        }
    }
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
    /* a sample inside an MPI call is MPI time (model/omp_model.h), neither of these */
    hpa_metric work = {.key = "omp_work",
                       .title = "OpenMP Work",
                       .unit = "sec.",
                       .source = HPA_SRC_CLOCK_TIME,
                       .state_mask = HPC_STATE_MPI,
                       .state_value = 0,
                       .omp_states = state_set(HPA_OMP_CAT_WORK),
                       .scale = 1e-9,
                       .time = true,
                       .visible = true};
    hpa_metric wait = work;
    wait.key = "omp_wait";
    wait.title = "OpenMP Wait";
    wait.omp_states = state_set(HPA_OMP_CAT_WAIT);
    if (hpa_states_recorded(p)) {
        /* the reference's rule with thread states (metrics_states.c): Work is CPU time
         * in work states; Wait is all time in wait states, asleep or not, and Wait CPU
         * in a parallel region's work */
        work.source = wait.source = HPA_SRC_THREAD;
        work.mstates = HPA_MS(HPC_MSTATE_USER) | HPA_MS(HPC_MSTATE_SYSTEM);
        wait.mstates = HPA_MS_ALL;
        wait.alt.state_mask = HPC_STATE_MPI;
        wait.alt.state_value = 0;
        wait.alt.omp_states = 1u << HPC_OMP_STATE_WORK;
        wait.alt.mstates = HPA_MS(HPC_MSTATE_WAIT_CPU);
    }
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
        if (!m || m->ompt || !m->rt.seen)
            continue;
        native = true;
        if (!said)
            fprintf(stderr,
                    "hpanalyze: note: process %s ran on %s, which has no OMPT: OpenMP states "
                    "are unavailable; reports show the machine view\n",
                    p->procs[i].proc->name, m->rt.name);
        said = true;
    }
    return native;
}
