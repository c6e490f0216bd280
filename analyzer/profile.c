/*
 * profile.c - loading experiments into the aggregated model (profile.h).
 *
 * Per thread: one sequential pass over t<seq>.hpe. Samples are aggregated into buckets
 * keyed by (CCT node, state) through an integer hash map with a one-entry cache for the
 * common run of samples with the same stack; nothing is allocated per sample. After the
 * pass, the nodes on sampled paths are symbolized through the process's PC cache.
 */
#include "profile.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "mpi_stats.h"
#include "periods.h"
#include "u64map.h"
#include "view.h"

/* ---------------------------------------------------------------- opening */

int hpa_profile_open(hpa_profile **out, char **paths, unsigned npaths, hpc_diag *diag)
{
    hpa_profile *p = calloc(1, sizeof(*p));
    if (!p)
        return HPC_E_NOMEM;
    p->diag = diag;
    hpa_metrics_init(&p->metrics);
    p->exps = calloc(npaths ? npaths : 1, sizeof(*p->exps));
    if (!p->exps) {
        free(p);
        return HPC_E_NOMEM;
    }
    for (unsigned i = 0; i < npaths; i++) {
        int rc = hpc_exp_open_slim(&p->exps[i], paths[i], diag);
        if (rc < 0) {
            hpa_profile_close(p);
            return rc;
        }
        p->nexps++;
        p->nprocs += p->exps[i]->nprocs;
    }
    p->procs = calloc(p->nprocs ? p->nprocs : 1, sizeof(*p->procs));
    if (!p->procs) {
        hpa_profile_close(p);
        return HPC_E_NOMEM;
    }
    size_t k = 0;
    for (unsigned i = 0; i < p->nexps; i++)
        for (size_t j = 0; j < p->exps[i]->nprocs; j++) {
            hpa_process *pr = &p->procs[k++];
            pr->proc = &p->exps[i]->procs[j];
            pr->exp = i;
            pr->t0 = pr->proc->has_begin ? pr->proc->begin.time : 0;
        }
    *out = p;
    return 0;
}

static void thread_free(hpa_thread *t)
{
    free(t->parent);
    free(t->pc);
    free(t->loc);
    free(t->depth);
    free(t->buckets);
    free(t->vals);
}

void hpa_profile_close(hpa_profile *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->nprocs; i++) {
        hpa_process *pr = &p->procs[i];
        for (uint32_t t = 0; t < pr->nthreads; t++)
            thread_free(&pr->threads[t]);
        free(pr->threads);
        hpa_modmap_close(pr->map);
        hpm_heap_free(pr->heap);
        free(pr->heap);
        if (p->hooks && p->hooks->close_process)
            p->hooks->close_process(pr);
    }
    free(p->procs);
    for (unsigned i = 0; i < p->nexps; i++)
        hpc_exp_close(p->exps[i]);
    free(p->exps);
    hpa_symtab_close(p->syms);
    for (unsigned i = 0; i < p->nowned; i++)
        free(p->owned[i]);
    free(p->owned);
    free(p);
}

/* ---------------------------------------------------------------- reading threads */

typedef struct loader {
    hpa_profile *p;
    hpa_process *pr;
    hpa_thread *t;
    const hpa_filter *f;
    hpa_u64map map; /* (node | (state | ctx << 8) << 32) -> bucket */
    uint64_t last_key;
    uint32_t last_bucket;
    uint32_t node_cap, bucket_cap;
    hpa_mpi_call call; /* the MPI call being read (its details follow it) */
    uint64_t call_node;
    hpa_periods periods;  /* the process's sample periods, for the --samples filter */
    unsigned said_bad_id; /* out-of-range node ids of this thread (named once) */
    size_t heap_next;     /* the thread's next heap_alloc: its block in pr->heap */
    size_t heap_end;
} loader;

static int grow_nodes(loader *L, uint32_t need)
{
    hpa_thread *t = L->t;
    if (need <= L->node_cap)
        return 0;
    uint32_t cap = L->node_cap ? L->node_cap : 1024;
    while (cap < need)
        cap *= 2;
    uint32_t *parent = realloc(t->parent, sizeof(*parent) * cap);
    if (!parent)
        return HPC_E_NOMEM;
    t->parent = parent;
    uint64_t *pc = realloc(t->pc, sizeof(*pc) * cap);
    if (!pc)
        return HPC_E_NOMEM;
    t->pc = pc;
    L->node_cap = cap;
    return 0;
}

/* A node whose id the file cannot hold (more than its records: damage, or a hostile
 * file) would size the arrays by it; it is named once per thread and counted. */
static int add_node(loader *L, hpc_reader *r, const hpc_record *rec)
{
    hpa_thread *t = L->t;
    const hpc_rec_cct_node *n = &rec->u.cct_node;
    uint64_t max = hpc_reader_max_records(r);
    if (n->id == 0 || n->id > max || n->id > UINT32_MAX / 2) {
        if (n->id && !L->said_bad_id++)
            hpc_diag_report(L->p->diag, HPC_WARNING, hpc_reader_path(r), rec->offset, __FILE__,
                            __LINE__,
                            "call-tree node id %llu out of range (the file holds at most %llu "
                            "records); ignored",
                            (unsigned long long)n->id, (unsigned long long)max);
        t->bad_nodes++;
        return 0;
    }
    uint32_t id = (uint32_t)n->id;
    if (grow_nodes(L, id + 1))
        return HPC_E_NOMEM;
    /* Ids come in creation order; a gap (lost records) leaves orphans at the root. */
    for (uint32_t i = t->nnodes; i < id; i++) {
        t->parent[i] = 0;
        t->pc[i] = 0;
    }
    if (id < t->nnodes && t->nnodes > 0) {
        t->bad_nodes++; /* a repeated id keeps its first definition */
        return 0;
    }
    uint32_t parent = n->parent < id ? (uint32_t)n->parent : 0;
    if (n->parent >= id)
        t->bad_nodes++;
    t->parent[id] = parent;
    t->pc[id] = n->pc;
    t->nnodes = id + 1;
    return 0;
}

/* Bucket index for (node, state, the hooks' context), creating it. Returns UINT32_MAX when
 * out of memory. State bits use 5 bits, so the context shares the key's upper half. */
static uint32_t bucket_of(loader *L, uint32_t node, uint32_t state, uint32_t ctx)
{
    uint64_t key = node | (uint64_t)((state & 0xff) | ctx << 8) << 32;
    if (key == L->last_key)
        return L->last_bucket;
    uint64_t b;
    if (!hpa_u64map_get(&L->map, key, &b)) {
        hpa_thread *t = L->t;
        unsigned nm = L->p->metrics.n;
        if (t->nbuckets == L->bucket_cap) {
            uint32_t cap = L->bucket_cap ? L->bucket_cap * 2 : 256;
            hpa_bucket *bk = realloc(t->buckets, sizeof(*bk) * cap);
            if (!bk)
                return UINT32_MAX;
            t->buckets = bk;
            uint64_t *v = realloc(t->vals, sizeof(*v) * cap * nm);
            if (!v)
                return UINT32_MAX;
            t->vals = v;
            L->bucket_cap = cap;
        }
        b = t->nbuckets;
        t->buckets[b] = (hpa_bucket){.node = node, .state = state, .omp_ctx = ctx};
        memset(t->vals + (size_t)b * nm, 0, sizeof(uint64_t) * nm);
        if (hpa_u64map_put(&L->map, key, b))
            return UINT32_MAX;
        t->nbuckets++;
    }
    L->last_key = key;
    L->last_bucket = b;
    return b;
}

static bool keep_sample(const loader *L, uint64_t time, uint64_t cpu, uint64_t state)
{
    if (!L->f || !L->f->active)
        return true;
    hpa_sample_ctx s = {.rel_time_ns = time >= L->pr->t0 ? time - L->pr->t0 : 0,
                        .cpu = (uint32_t)cpu,
                        .state = (uint32_t)state};
    if (L->f->has_samples && !hpa_periods_keep(&L->periods, time))
        return false;
    return hpa_filter_sample(L->f, &s);
}

/* The load hooks' context of a sample (0 without hooks); may rewrite *state. */
static uint32_t classify(const loader *L, uint64_t time, uint64_t region, uint32_t *state)
{
    const hpa_load_hooks *h = L->p->hooks;
    return h && h->classify ? h->classify(L->pr, L->t->seq, time, region, state) : 0;
}

/* A sample's node: unknown ids count as damage and go to "no stack". */
static uint32_t checked_node(loader *L, uint64_t node)
{
    if (node < L->t->nnodes)
        return (uint32_t)node;
    L->t->bad_nodes++;
    return 0;
}

static int add_clock_sample(loader *L, const hpc_rec_sample_clock *s)
{
    hpa_thread *t = L->t;
    uint64_t sys = s->sys_ns < s->cpu_ns ? s->sys_ns : s->cpu_ns;
    t->samples_read++;
    t->cpu_ns_read += s->cpu_ns;
    t->state_ns_read[HPC_MSTATE_USER] += s->cpu_ns - sys;
    t->state_ns_read[HPC_MSTATE_SYSTEM] += sys;
    if (!keep_sample(L, s->time, s->cpu, s->state))
        return 0;
    uint32_t state = (uint32_t)s->state;
    uint32_t ctx = classify(L, s->time, s->region, &state);
    if (L->p->hooks && L->p->hooks->sampled)
        L->p->hooks->sampled(L->pr, t->seq, s->time, s->region, state, s->cpu_ns);
    uint32_t b = bucket_of(L, checked_node(L, s->node), state, ctx);
    if (b == UINT32_MAX)
        return HPC_E_NOMEM;
    const hpa_metrics *ms = &L->p->metrics;
    uint64_t *v = t->vals + (size_t)b * ms->n;
    uint64_t ns[HPA_NMSTATES] = {[HPC_MSTATE_USER] = s->cpu_ns - sys, [HPC_MSTATE_SYSTEM] = sys};
    for (unsigned k = 0; k < ms->n; k++) {
        const hpa_metric *m = &ms->m[k];
        if (m->source == HPA_SRC_THREAD)
            v[k] += hpa_metric_thread_ns(m, state, t->seq == 0, ns);
        else if (!hpa_metric_counts(m, state))
            continue;
        else if (m->source == HPA_SRC_CLOCK_TIME)
            v[k] += s->cpu_ns;
        else if (m->source == HPA_SRC_CLOCK_COUNT)
            v[k]++;
    }
    return 0;
}

/* Off-CPU time charged to a stack (thread states). It has no CPU: a --cpus filter leaves
 * it out, as it does traced events. */
static bool keep_event(const loader *L, uint64_t time, uint32_t state);

static int add_state_sample(loader *L, const hpc_rec_sample_state *s)
{
    hpa_thread *t = L->t;
    if (s->mstate >= HPC_NMSTATES || s->mstate <= HPC_MSTATE_SYSTEM)
        return 0; /* CPU time comes with clock samples; an unknown state is skipped */
    t->state_ns_read[s->mstate] += s->ns;
    t->state_how_read[s->how < 4 ? s->how : 3] += s->ns;
    if (!keep_event(L, s->time, (uint32_t)s->state))
        return 0;
    uint32_t state = (uint32_t)s->state;
    uint32_t ctx = classify(L, s->time, s->region, &state);
    uint32_t b = bucket_of(L, checked_node(L, s->node), state, ctx);
    if (b == UINT32_MAX)
        return HPC_E_NOMEM;
    const hpa_metrics *ms = &L->p->metrics;
    uint64_t *v = t->vals + (size_t)b * ms->n;
    uint64_t ns[HPA_NMSTATES] = {0};
    ns[s->mstate] = s->ns;
    for (unsigned k = 0; k < ms->n; k++)
        if (ms->m[k].source == HPA_SRC_THREAD)
            v[k] += hpa_metric_thread_ns(&ms->m[k], state, t->seq == 0, ns);
    return 0;
}

static int add_counter_sample(loader *L, const hpc_rec_sample_counter *s)
{
    hpa_thread *t = L->t;
    t->counter_samples_read++;
    unsigned m = s->counter < 64 ? L->pr->counter_metric[s->counter] : UINT_MAX;
    if (m == UINT_MAX || !keep_sample(L, s->time, s->cpu, s->state))
        return 0;
    hpa_metric *def = &L->p->metrics.m[m];
    uint32_t state = (uint32_t)s->state;
    uint32_t ctx = classify(L, s->time, s->region, &state);
    if (!hpa_metric_counts(def, state))
        return 0;
    uint32_t b = bucket_of(L, checked_node(L, s->node), state, ctx);
    if (b == UINT32_MAX)
        return HPC_E_NOMEM;
    uint64_t *v = t->vals + (size_t)b * L->p->metrics.n;
    v[m] += s->value;
    def->enabled_ns += s->enabled_ns; /* how much was multiplexed (metrics.h) */
    def->running_ns += s->running_ns;
    unsigned tm = L->pr->counter_time_metric[s->counter]; /* cycles as time */
    if (tm != UINT_MAX)
        v[tm] += (uint64_t)((double)s->value * 1e9 / (double)L->pr->counter_hz[s->counter]);
    return 0;
}

/* Keep a traced event (an MPI call) at time t? As a sample would be, but it has no CPU:
 * a --cpus filter leaves it out. */
static bool keep_event(const loader *L, uint64_t time, uint32_t state)
{
    if (!L->f || !L->f->active)
        return true;
    if (L->f->cpus.n)
        return false;
    return keep_sample(L, time, 0, state);
}

/* Add a traced event's numbers (val[what], what = the metric's mpi, io or sync selector)
 * to the metrics of source src in the event's calling context. */
static int add_traced(loader *L, uint64_t node, uint32_t state, enum hpa_metric_source src,
                      const uint64_t *val, unsigned nval)
{
    const hpa_metrics *ms = &L->p->metrics;
    uint32_t b = UINT32_MAX;
    for (unsigned k = 0; k < ms->n; k++) {
        const hpa_metric *m = &ms->m[k];
        unsigned what = src == HPA_SRC_MPI ? m->mpi : src == HPA_SRC_IO ? m->io : m->sync;
        if (m->source != src || what >= nval)
            continue;
        if (b == UINT32_MAX && (b = bucket_of(L, checked_node(L, node), state, 0)) == UINT32_MAX)
            return HPC_E_NOMEM;
        L->t->vals[(size_t)b * ms->n + k] += val[what];
    }
    return 0;
}

/* A traced I/O call: its time, bytes and count in its class (read, write, other), or in
 * I/O Error when it failed, in its calling context. */
static int add_io_op(loader *L, const hpc_rec_io_op *op)
{
    if (!keep_event(L, op->time, 0))
        return 0;
    uint64_t val[HPA_IO_WHAT_COUNT_] = {0};
    if (op->error) {
        val[HPA_IO_ERROR_TIME] = op->duration;
        val[HPA_IO_ERROR_COUNT] = 1;
    } else if (hpc_io_fn_class((unsigned)op->fn) == HPC_IO_CLASS_READ) {
        val[HPA_IO_READ_TIME] = op->duration;
        val[HPA_IO_READ_BYTES] = op->done;
        val[HPA_IO_READ_COUNT] = 1;
    } else if (hpc_io_fn_class((unsigned)op->fn) == HPC_IO_CLASS_WRITE) {
        val[HPA_IO_WRITE_TIME] = op->duration;
        val[HPA_IO_WRITE_BYTES] = op->done;
        val[HPA_IO_WRITE_COUNT] = 1;
    } else {
        val[HPA_IO_OTHER_TIME] = op->duration;
        val[HPA_IO_OTHER_COUNT] = 1;
    }
    return add_traced(L, op->node, 0, HPA_SRC_IO, val, HPA_IO_WHAT_COUNT_);
}

/* The MPI call just read is complete: add it to the MPI metrics of its calling context. */
static int finish_mpi_call(loader *L)
{
    hpa_mpi_call *c = &L->call;
    if (!c->open)
        return 0;
    c->open = false;
    uint32_t state = HPC_STATE_MPI;
    if (!keep_event(L, c->enter, state))
        return 0;
    uint64_t val[] = {
        [HPA_MPI_TIME] = c->flags & HPC_MPI_CALL_NESTED ? 0 : hpa_mpi_call_ns(c),
        [HPA_MPI_SENDS] = c->d.sends,
        [HPA_MPI_BYTES_SENT] = c->d.bytes_sent,
        [HPA_MPI_RECEIVES] = c->d.recvs,
        [HPA_MPI_BYTES_RECEIVED] = c->d.bytes_recv,
        [HPA_MPI_OTHER] = c->d.sends == 0 && c->d.recvs == 0,
    };
    return add_traced(L, L->call_node, state, HPA_SRC_MPI, val, sizeof val / sizeof val[0]);
}

/* A recorded synchronization wait (-s): its time and count on the waiting call's calling
 * context, kept as a traced event at its grant. */
static int add_sync_wait(loader *L, const hpc_rec_sync_wait *w)
{
    if (!keep_event(L, w->time_grant, 0))
        return 0;
    uint64_t val[] = {
        [HPA_SYNC_TIME] = w->time_grant > w->time_request ? w->time_grant - w->time_request : 0,
        [HPA_SYNC_COUNT] = 1,
    };
    return add_traced(L, w->node, 0, HPA_SRC_SYNC, val, sizeof val / sizeof val[0]);
}

/* A block the program got: the heap metrics of its calling context (its leak known from
 * the process's heap, model/heap.h). */
static int add_heap_alloc(loader *L, const hpc_rec_heap_alloc *a)
{
    const hpm_heap *h = L->pr->heap;
    if (!h || L->heap_next >= L->heap_end)
        return 0;
    const hpm_heap_block *blk = &h->blocks[L->heap_next++];
    if (!keep_event(L, blk->time, 0) || (blk->flags & HPM_HEAP_UNTRACED))
        return 0;
    bool leak = !(blk->flags & HPM_HEAP_FREED), peak = blk->flags & HPM_HEAP_AT_PEAK;
    uint64_t val[] = {
        [HPA_HEAP_ALLOCS] = 1,
        [HPA_HEAP_BYTES] = blk->size,
        [HPA_HEAP_LEAKS] = leak,
        [HPA_HEAP_LEAKED_BYTES] = hpm_heap_block_end_bytes(h, blk),
        [HPA_HEAP_PEAK_BLOCKS] = peak,
        [HPA_HEAP_PEAK_BYTES] = hpm_heap_block_peak_bytes(h, blk),
        [HPA_HEAP_TEMPORARY] = (blk->flags & HPM_HEAP_TEMPORARY) != 0,
    };
    const hpa_metrics *ms = &L->p->metrics;
    uint32_t b = UINT32_MAX;
    for (unsigned k = 0; k < ms->n; k++) {
        const hpa_metric *m = &ms->m[k];
        if (m->source != HPA_SRC_HEAP || m->heap >= sizeof val / sizeof val[0])
            continue;
        if (b == UINT32_MAX && (b = bucket_of(L, checked_node(L, a->node), 0, 0)) == UINT32_MAX)
            return HPC_E_NOMEM;
        L->t->vals[(size_t)b * ms->n + k] += val[m->heap];
    }
    return 0;
}

static int read_records(loader *L, hpc_reader *r)
{
    hpa_thread *t = L->t;
    hpc_record rec;
    int rc = 0;
    while (rc == 0 && hpc_reader_next(r, &rec) == 1) {
        switch (rec.kind) {
        case HPC_K_cct_node:
            rc = add_node(L, r, &rec);
            break;
        case HPC_K_sample_clock:
            rc = add_clock_sample(L, &rec.u.sample_clock);
            break;
        case HPC_K_sample_counter:
            rc = add_counter_sample(L, &rec.u.sample_counter);
            break;
        case HPC_K_sample_state:
            rc = add_state_sample(L, &rec.u.sample_state);
            break;
        case HPC_K_thread_account:
            t->account[t->naccount ? 1 : 0] = rec.u.thread_account;
            t->naccount += t->naccount < 2;
            break;
        case HPC_K_mpi_call:
            rc = finish_mpi_call(L);
            hpa_mpi_call_open(&L->call, 0, &rec.u.mpi_call);
            L->call_node = rec.u.mpi_call.node;
            break;
        case HPC_K_sync_wait:
            rc = add_sync_wait(L, &rec.u.sync_wait);
            break;
        case HPC_K_mpi_p2p:
            hpa_mpi_call_p2p(&L->call, &rec.u.mpi_p2p);
            break;
        case HPC_K_heap_alloc:
            rc = add_heap_alloc(L, &rec.u.heap_alloc);
            break;
        case HPC_K_io_op:
            rc = add_io_op(L, &rec.u.io_op);
            break;
        case HPC_K_mpi_coll:
            hpa_mpi_call_coll(&L->call, &rec.u.mpi_coll);
            break;
        case HPC_K_thread_begin:
            t->has_begin = true;
            t->begin = rec.u.thread_begin;
            t->begin.name = (hpc_str){0};
            t->tid = rec.u.thread_begin.tid;
            break;
        case HPC_K_thread_end:
            t->has_end = true;
            t->end = rec.u.thread_end;
            break;
        default:
            break;
        }
    }
    return rc ? rc : finish_mpi_call(L);
}

/* Symbolize the nodes on sampled paths and compute their depths. */
static int symbolize_thread(hpa_profile *p, hpa_process *pr, hpa_thread *t)
{
    uint32_t n = t->nnodes ? t->nnodes : 1;
    t->loc = calloc(n, sizeof(*t->loc));
    t->depth = calloc(n, sizeof(*t->depth));
    uint8_t *need = calloc(n, 1);
    if (!t->loc || !t->depth || !need) {
        free(need);
        return HPC_E_NOMEM;
    }
    for (uint32_t b = 0; b < t->nbuckets; b++)
        for (uint32_t i = t->buckets[b].node; i && !need[i]; i = t->parent[i])
            need[i] = 1;
    for (uint32_t i = 1; i < t->nnodes; i++) {
        t->depth[i] = t->depth[t->parent[i]] + 1;
        if (need[i])
            t->loc[i] = hpa_modmap_resolve(pr->map, t->pc[i]);
    }
    (void)p;
    free(need);
    return 0;
}

/* Shrink a loaded thread's node and bucket arrays to what they hold (they grow by
 * doubling from 1024 nodes and 256 buckets: most threads use a few percent of that). */
static void thread_trim(hpa_thread *t, unsigned nm)
{
    uint32_t nn = t->nnodes ? t->nnodes : 1, nb = t->nbuckets ? t->nbuckets : 1;
    uint32_t *parent = realloc(t->parent, sizeof(*parent) * nn);
    uint64_t *pc = realloc(t->pc, sizeof(*pc) * nn);
    hpa_bucket *bk = realloc(t->buckets, sizeof(*bk) * nb);
    uint64_t *v = realloc(t->vals, sizeof(*v) * nb * (nm ? nm : 1));
    t->parent = parent ? parent : t->parent; /* a failed shrink keeps the larger array */
    t->pc = pc ? pc : t->pc;
    t->buckets = bk ? bk : t->buckets;
    t->vals = v ? v : t->vals;
    for (uint32_t b = 0; b < t->nbuckets; b++)
        t->buckets[b].vals = t->vals + (size_t)b * nm;
}

static int load_thread(loader *L, const hpc_thread_file *tf)
{
    hpa_thread *t = L->t;
    t->seq = tf->seq;
    hpc_reader *r;
    if (hpc_thread_open(&r, L->pr->proc, tf, L->p->diag) < 0)
        return 0; /* reported; the thread stays empty */
    t->readable = true;
    memcpy(t->stats, hpc_reader_stats(r), sizeof(t->stats));
    L->last_key = UINT64_MAX;
    L->node_cap = 0;
    L->bucket_cap = 0;
    L->said_bad_id = 0;
    t->nnodes = 1; /* the root */
    int rc = grow_nodes(L, 1);
    if (rc == 0) {
        t->parent[0] = 0;
        t->pc[0] = 0;
        rc = read_records(L, r);
    }
    t->damaged = hpc_reader_damaged(r);
    t->unknown = hpc_reader_unknown(r);
    hpc_reader_close(r);
    hpa_u64map_free(&L->map);
    if (t->bad_nodes)
        hpc_diag_report(L->p->diag, HPC_WARNING, tf->path, HPC_NO_OFFSET, __FILE__, __LINE__,
                        "%llu samples or call-tree nodes refer to missing nodes; "
                        "their samples are shown as <no stack>",
                        (unsigned long long)t->bad_nodes);
    if (rc == 0)
        thread_trim(t, L->p->metrics.n);
    return rc ? rc : symbolize_thread(L->p, L->pr, t);
}

static int load_process(hpa_profile *p, hpa_process *pr, const hpa_filter *f)
{
    const hpc_proc *proc = pr->proc;
    if (!pr->map) /* left out by a filter (hpa_profile_prepare) */
        return 0;
    pr->threads = calloc(proc->nthreads ? proc->nthreads : 1, sizeof(*pr->threads));
    if (!pr->threads)
        return HPC_E_NOMEM;
    loader L = {.p = p, .pr = pr, .f = f};
    int rc = hpa_periods_open(&L.periods, proc, f);
    if (rc == 0 && proc->settings.heap_trace) { /* frees may come from any thread: first */
        pr->heap = malloc(sizeof *pr->heap);
        rc = pr->heap ? hpm_heap_read(pr->heap, proc) : HPC_E_NOMEM;
    }
    hpc_proc_schema_open((hpc_proc *)proc); /* read once for its threads */
    for (size_t i = 0; rc == 0 && i < proc->nthreads; i++) {
        if (f && !hpa_filter_thread(f, proc->threads[i].seq))
            continue;
        L.heap_next = pr->heap ? pr->heap->first[i] : 0;
        L.heap_end = pr->heap ? pr->heap->first[i + 1] : 0;
        L.t = &pr->threads[pr->nthreads++];
        rc = load_thread(&L, &proc->threads[i]);
    }
    hpc_proc_schema_close((hpc_proc *)proc);
    hpa_periods_free(&L.periods);
    return rc;
}

int hpa_profile_prepare(hpa_profile *p, const hpa_filter *f)
{
    if (p->syms)
        return 0;
    p->syms = hpa_symtab_open(p->diag);
    if (!p->syms)
        return HPC_E_NOMEM;
    if (f)
        p->filter = *f;
    for (size_t i = 0; i < p->nprocs; i++) {
        hpa_process *pr = &p->procs[i];
        if (f && !hpa_filter_process(f, pr->proc->rank))
            continue;
        if (!(pr->map = hpa_modmap_open(p->syms, pr->proc)))
            return HPC_E_NOMEM;
    }
    return 0;
}

/* A folded process: its buckets' sums go to the profile's total, then its threads' call
 * trees and buckets are freed (their counts and statistics stay). */
static void process_drop(hpa_profile *p, hpa_process *pr)
{
    for (uint32_t t = 0; t < pr->nthreads; t++) {
        hpa_thread *th = &pr->threads[t];
        for (uint32_t b = 0; b < th->nbuckets; b++)
            for (unsigned k = 0; k < p->metrics.n; k++)
                p->total[k] += th->buckets[b].vals[k];
        thread_free(th);
        th->parent = th->depth = NULL;
        th->pc = th->vals = NULL;
        th->loc = NULL;
        th->buckets = NULL;
        th->nnodes = th->nbuckets = 0;
    }
}

int hpa_profile_load(hpa_profile *p, const hpa_filter *f, const hpa_load_hooks *hooks)
{
    return hpa_profile_load_folded(p, f, hooks, NULL, NULL);
}

int hpa_profile_load_folded(hpa_profile *p, const hpa_filter *f, const hpa_load_hooks *hooks,
                            hpa_fold_fn fold, void *arg)
{
    if (p->loaded)
        return 0;
    int rc = hpa_profile_prepare(p, f);
    if (rc < 0)
        return rc;
    p->loaded = true;
    hpa_load_hooks none = {0};
    p->hooks = hooks;
    if (!hooks)
        hooks = &none;
    rc = hpa_metrics_from_records(p); /* counters, cycles as time, MPI CPU */
    /* What the views read first (OpenMP regions): their metrics join the set, and samples
     * are classified as they are read. */
    for (size_t i = 0; rc == 0 && hooks->load_process && i < p->nprocs; i++)
        if (!f || hpa_filter_process(f, p->procs[i].proc->rank))
            rc = hooks->load_process(p, &p->procs[i]);
    if (rc == 0 && hooks->add_metrics)
        rc = hooks->add_metrics(p);
    p->folded = fold != NULL;
    for (size_t i = 0; rc == 0 && i < p->nprocs; i++) {
        rc = load_process(p, &p->procs[i], f);
        if (rc < 0 || !fold)
            continue;
        if (hooks->loaded) /* over this process's paths: the others hold none */
            rc = hooks->loaded(p);
        if (rc == 0)
            rc = fold(arg, p, &p->procs[i]);
        process_drop(p, &p->procs[i]);
    }
    if (rc == 0 && hooks->loaded && !fold)
        rc = hooks->loaded(p); /* the views' pseudo functions exist from now on */
    if (rc == 0)
        hpa_states_loaded(p); /* empty state metrics hidden by default */
    return rc;
}

/* ---------------------------------------------------------------- paths */

static bool nonzero(const uint64_t *v, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (v[i])
            return true;
    return false;
}

static uint32_t max_depth(const hpa_profile *p)
{
    uint32_t d = 1;
    for (size_t i = 0; i < p->nprocs; i++)
        for (uint32_t t = 0; t < p->procs[i].nthreads; t++) {
            const hpa_thread *th = &p->procs[i].threads[t];
            for (uint32_t b = 0; b < th->nbuckets; b++)
                if (th->depth[th->buckets[b].node] > d)
                    d = th->depth[th->buckets[b].node];
        }
    return d;
}

/* Frames of node, root first, into f (depth[node] entries, at least 1). */
static unsigned node_frames(const hpa_thread *t, uint32_t node, hpa_frame *f)
{
    if (node == 0) {
        f[0] = (hpa_frame){.func = HPA_FUNC_NOSTACK, .line = HPA_FUNC_NOSTACK};
        return 1;
    }
    unsigned n = t->depth[node];
    for (unsigned i = n; node; node = t->parent[node])
        f[--i] =
            (hpa_frame){.func = t->loc[node].func, .line = t->loc[node].line, .pc = t->pc[node]};
    return n;
}

unsigned hpa_profile_stack(const hpa_profile *p, size_t proc, uint32_t seq, uint64_t node,
                           hpa_frame *f, unsigned cap)
{
    const hpa_process *pr = proc < p->nprocs ? &p->procs[proc] : NULL;
    for (uint32_t i = 0; pr && i < pr->nthreads; i++) {
        const hpa_thread *t = &pr->threads[i];
        if (t->seq != seq)
            continue;
        if (!t->loc || node == 0 || node >= t->nnodes)
            return 0;
        unsigned n = 0;
        for (uint64_t k = node; k && n < cap && n <= t->nnodes; k = t->parent[k])
            f[n++] = (hpa_frame){.func = t->loc[k].func, .line = t->loc[k].line, .pc = t->pc[k]};
        return n;
    }
    return 0;
}

int hpa_profile_paths(const hpa_profile *p, const hpa_view *view, hpa_path_fn fn, void *arg)
{
    return hpa_profile_paths_of(p, -1, view, fn, arg);
}

int hpa_profile_paths_of(const hpa_profile *p, int exp, const hpa_view *view, hpa_path_fn fn,
                         void *arg)
{
    unsigned cap = max_depth(p) + 1;
    unsigned vcap = 2 * cap + 8; /* view.h: a view's room, and what the hooks say */
    if (p->hooks && p->hooks->path_room)
        vcap += p->hooks->path_room(p);
    hpa_frame *frames = malloc(sizeof(*frames) * (cap + vcap));
    if (!frames)
        return HPC_E_NOMEM;
    hpa_frame *vframes = frames + cap;
    hpa_path_ctx ctx = {.prof = p};
    for (size_t i = 0; i < p->nprocs; i++) {
        ctx.proc = &p->procs[i];
        if (exp >= 0 && ctx.proc->exp != (unsigned)exp)
            continue;
        for (uint32_t t = 0; t < ctx.proc->nthreads; t++) {
            ctx.thread = &ctx.proc->threads[t];
            for (uint32_t b = 0; b < ctx.thread->nbuckets; b++) {
                ctx.bucket = &ctx.thread->buckets[b];
                if (!nonzero(ctx.bucket->vals, p->metrics.n))
                    continue;
                unsigned n = node_frames(ctx.thread, ctx.bucket->node, frames);
                unsigned vn = view && view->transform
                                  ? view->transform(view, &ctx, frames, n, vframes, vcap)
                                  : 0;
                /* a view that leaves nothing (a stack of only the collector's internal
                 * frames) must not lose the sample: it keeps the frames as recorded */
                if (vn > 0)
                    fn(arg, &ctx, vframes, vn, ctx.bucket->vals);
                else
                    fn(arg, &ctx, frames, n, ctx.bucket->vals);
            }
        }
    }
    free(frames);
    return 0;
}

void hpa_profile_total(const hpa_profile *p, uint64_t *total)
{
    memset(total, 0, sizeof(*total) * p->metrics.n);
    if (p->folded) {
        memcpy(total, p->total, sizeof(*total) * p->metrics.n);
        return;
    }
    for (size_t i = 0; i < p->nprocs; i++)
        for (uint32_t t = 0; t < p->procs[i].nthreads; t++) {
            const hpa_thread *th = &p->procs[i].threads[t];
            for (uint32_t b = 0; b < th->nbuckets; b++)
                for (unsigned k = 0; k < p->metrics.n; k++)
                    total[k] += th->buckets[b].vals[k];
        }
}

/* ---------------------------------------------------------------- replay */

static const hpc_thread_file *thread_file(const hpc_proc *proc, uint32_t seq)
{
    for (size_t i = 0; i < proc->nthreads; i++)
        if (proc->threads[i].seq == seq)
            return &proc->threads[i];
    return NULL;
}

static uint64_t bucket_key(uint32_t node, uint32_t state, uint32_t ctx)
{
    return node | (uint64_t)((state & 0xff) | ctx << 8) << 32; /* as bucket_of keys them */
}

static int replay_thread(loader *L, const hpc_thread_file *tf, hpa_sample_fn sfn, hpa_record_fn rfn,
                         void *arg)
{
    hpa_thread *t = L->t;
    hpa_u64map map = {0};
    for (uint32_t b = 0; b < t->nbuckets; b++) {
        const hpa_bucket *bk = &t->buckets[b];
        if (hpa_u64map_put(&map, bucket_key(bk->node, bk->state, bk->omp_ctx), b)) {
            hpa_u64map_free(&map);
            return HPC_E_NOMEM;
        }
    }
    hpc_reader *r;
    hpc_diag quiet = {.quiet = 1}; /* damage was reported when the profile was loaded */
    if (hpc_thread_open(&r, L->pr->proc, tf, &quiet) < 0) {
        hpa_u64map_free(&map);
        return 0;
    }
    hpa_path_ctx ctx = {.prof = L->p, .proc = L->pr, .thread = t};
    hpc_record rec;
    while (hpc_reader_next(r, &rec) == 1) {
        if (rec.kind == HPC_K_sample_clock) {
            const hpc_rec_sample_clock *s = &rec.u.sample_clock;
            if (!sfn || !keep_sample(L, s->time, s->cpu, s->state))
                continue;
            uint32_t state = (uint32_t)s->state;
            uint32_t octx = classify(L, s->time, s->region, &state);
            uint32_t node = s->node < t->nnodes ? (uint32_t)s->node : 0;
            uint64_t b;
            if (!hpa_u64map_get(&map, bucket_key(node, state, octx), &b))
                continue;
            ctx.bucket = &t->buckets[b];
            sfn(arg, &ctx, s->time, s->cpu_ns, (uint32_t)s->cpu);
        } else if (rec.kind != HPC_K_cct_node && rec.kind != HPC_K_sample_counter && rfn) {
            rfn(arg, L->pr, t, &rec);
        }
    }
    hpc_reader_close(r);
    hpa_u64map_free(&map);
    if (rfn)
        rfn(arg, L->pr, t, NULL);
    return 0;
}

int hpa_profile_replay(hpa_profile *p, hpa_sample_fn sample_fn, hpa_record_fn record_fn, void *arg)
{
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->nprocs; i++) {
        hpa_process *pr = &p->procs[i];
        if (!pr->map) /* left out by a filter */
            continue;
        loader L = {.p = p, .pr = pr, .f = p->filter.active ? &p->filter : NULL};
        rc = hpa_periods_open(&L.periods, pr->proc, L.f);
        pr->periods = L.f && L.f->has_samples ? &L.periods : NULL;
        hpc_proc_schema_open((hpc_proc *)pr->proc); /* read once for its threads */
        for (uint32_t t = 0; rc == 0 && t < pr->nthreads; t++) {
            L.t = &pr->threads[t];
            const hpc_thread_file *tf = thread_file(pr->proc, L.t->seq);
            if (tf && L.t->readable)
                rc = replay_thread(&L, tf, sample_fn, record_fn, arg);
        }
        hpc_proc_schema_close((hpc_proc *)pr->proc);
        pr->periods = NULL;
        hpa_periods_free(&L.periods);
    }
    return rc;
}
