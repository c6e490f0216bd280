/*
 * mpi_model.c - the MPI numbers of a loaded profile (mpi_model.h): one pass over the MPI
 * records of the kept threads, the sums of model/mpi_stats.c per rank, function, call
 * site and communicating pair.
 */
#include "mpi_model.h"

#include "report_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const coll_names[] = {
    [HPC_COLL_BARRIER] = "Barrier",
    [HPC_COLL_BCAST] = "Bcast",
    [HPC_COLL_GATHER] = "Gather",
    [HPC_COLL_GATHERV] = "Gatherv",
    [HPC_COLL_SCATTER] = "Scatter",
    [HPC_COLL_SCATTERV] = "Scatterv",
    [HPC_COLL_ALLGATHER] = "Allgather",
    [HPC_COLL_ALLGATHERV] = "Allgatherv",
    [HPC_COLL_ALLTOALL] = "Alltoall",
    [HPC_COLL_ALLTOALLV] = "Alltoallv",
    [HPC_COLL_ALLTOALLW] = "Alltoallw",
    [HPC_COLL_ALLREDUCE] = "Allreduce",
    [HPC_COLL_REDUCE] = "Reduce",
    [HPC_COLL_REDUCE_SCATTER] = "Reduce_scatter",
    [HPC_COLL_SCAN] = "Scan",
    [HPC_COLL_EXSCAN] = "Exscan",
    [HPC_COLL_REDUCE_SCATTER_BLOCK] = "Reduce_scatter_block",
};

const char *hpa_mpi_coll_name(unsigned op)
{
    return op < sizeof coll_names / sizeof coll_names[0] ? coll_names[op] : NULL;
}

void hpa_mpi_size_bucket(unsigned b, uint64_t *lo, uint64_t *hi)
{
    *lo = b ? (uint64_t)1 << (b - 1) : 0;
    *hi = b ? ((uint64_t)1 << b) - 1 : 0;
}

/* "all ranks", or "ranks 0,2-3" under --ranks: what every table title says it covers. */
static void scope_text(const hpa_filter *flt, char *buf, size_t cap)
{
    const hpa_ranges *r = &flt->ranks;
    if (!r->n) {
        snprintf(buf, cap, "all ranks");
        return;
    }
    size_t n =
        (size_t)snprintf(buf, cap, "rank%s ", r->n == 1 && r->r[0].lo == r->r[0].hi ? "" : "s");
    for (unsigned i = 0; i < r->n && n < cap; i++) {
        if (r->r[i].lo == r->r[i].hi)
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? "," : "", (long long)r->r[i].lo);
        else
            n += (size_t)snprintf(buf + n, cap - n, "%s%lld-%lld", i ? "," : "",
                                  (long long)r->r[i].lo, (long long)r->r[i].hi);
    }
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint32_t name_index(hpa_mpi_model *m, hpc_str name)
{
    for (size_t i = 0; i < m->nnames; i++)
        if (hpc_str_eq(name, m->names[i]))
            return (uint32_t)i;
    char **v = realloc(m->names, (m->nnames + 1) * sizeof *v);
    if (v)
        m->names = v;
    bool *l = v ? realloc(m->lifecycle, (m->nnames + 1) * sizeof *l) : NULL;
    if (!l)
        return UINT32_MAX;
    m->lifecycle = l;
    m->names[m->nnames] = strndup(name.p, name.n);
    if (!m->names[m->nnames])
        return UINT32_MAX;
    m->lifecycle[m->nnames] = hpa_mpi_is_lifecycle(m->names[m->nnames]);
    return (uint32_t)m->nnames++;
}

/* The row for key in rs, created empty when new; NULL when out of memory. */
static hpa_mpi_row *row_get(hpa_mpi_model *m, hpa_mpi_rows *rs, uint32_t fn, uint32_t line)
{
    uint64_t key = (uint64_t)fn << 32 | line, at;
    if (hpa_u64map_get(&rs->index, key, &at))
        return &rs->v[at];
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 64;
        hpa_mpi_row *v = realloc(rs->v, cap * sizeof *v);
        if (!v)
            return NULL;
        rs->v = v;
        rs->cap = cap;
    }
    hpa_mpi_row *r = &rs->v[rs->n];
    memset(r, 0, sizeof *r);
    r->fn = fn;
    r->line = line;
    hpa_mpi_sum_init(&r->s);
    r->rank_at = SIZE_MAX;
    if (m->per_rank && !(r->per_rank = malloc(m->nranks * sizeof *r->per_rank)))
        return NULL;
    if (hpa_u64map_put(&rs->index, key, (uint32_t)rs->n) < 0) {
        free(r->per_rank);
        return NULL;
    }
    for (size_t k = 0; m->per_rank && k < m->nranks; k++)
        hpa_mpi_sum_init(&r->per_rank[k]);
    return &rs->v[rs->n++];
}

/* The rank_sum of the rank read before goes into the row's sums and COV. */
static void row_rank_done(hpa_mpi_row *r)
{
    if (r->rank_at != SIZE_MAX) {
        hpa_mpi_sum_merge(&r->s, &r->rank_sum); /* as adding its calls one by one */
        hpa_mpi_cov_add(&r->cov_acc, &r->rank_sum);
    }
    r->rank_at = SIZE_MAX;
}

/* A call of rank ri lasting dur with details d, in row r (its sums when the rank is done). */
static void row_add(hpa_mpi_row *r, size_t ri, uint64_t dur, const hpa_mpi_sum *d)
{
    if (r->rank_at != ri) {
        row_rank_done(r);
        r->rank_at = ri;
        hpa_mpi_sum_init(&r->rank_sum);
    }
    hpa_mpi_sum_add(&r->rank_sum, dur, d);
    if (r->per_rank)
        hpa_mpi_sum_add(&r->per_rank[ri], dur, d);
}

static unsigned size_bucket(uint64_t bytes)
{
    unsigned b = 0;
    while (bytes && b < HPA_MPI_NSIZES - 1) {
        bytes >>= 1;
        b++;
    }
    return b;
}

/* The call in acc is complete: add it to its rank, function and call site. */
static int flush_call(hpa_mpi_model *m, size_t ri, hpa_mpi_call *acc)
{
    hpa_mpi_rank *rr = &m->ranks[ri];
    if (!acc->open)
        return 0;
    acc->open = false;
    uint64_t dur = hpa_mpi_call_ns(acc);
    rr->nested += (acc->flags & HPC_MPI_CALL_NESTED) != 0;
    if (acc->flags & HPC_MPI_CALL_INTERRUPTED)
        rr->died_in = acc->fn;
    bool lifecycle = m->lifecycle[acc->fn]; /* once per name, not per call */
    hpa_mpi_sum d = acc->d;
    hpa_mpi_rank_add(&rr->s, &rr->w, acc, lifecycle);
    if (lifecycle)
        return 0;
    hpa_mpi_site *c = &m->site_cache[(acc->site_pc ^ acc->fn * 0x9e3779b1u) % HPA_MPI_SITE_CACHE];
    if (!c->valid || c->pc != acc->site_pc || c->fn != acc->fn) {
        hpa_loc loc = acc->site_pc ? hpa_modmap_resolve(rr->pr->map, acc->site_pc - 1)
                                   : (hpa_loc){HPA_FUNC_UNKNOWN, 0};
        if (!loc.line)
            loc.line = hpa_symtab_func_line(m->prof->syms, loc.func);
        hpa_mpi_row *f = row_get(m, &m->fns, acc->fn, 0),
                    *s = row_get(m, &m->sites, acc->fn, loc.line);
        if (!f || !s)
            return HPC_E_NOMEM;
        *c = (hpa_mpi_site){true, acc->fn, acc->site_pc, (size_t)(f - m->fns.v),
                            (size_t)(s - m->sites.v)};
    }
    row_add(&m->fns.v[c->fn_row], ri, dur, &d);
    row_add(&m->sites.v[c->site_row], ri, dur, &d);
    return 0;
}

/* The matrix cell of messages from world rank src to dst, made when new; NULL when out of
 * memory. */
static hpa_mpi_cell *cell_get(hpa_mpi_model *m, int64_t src, int64_t dst)
{
    uint64_t key = (uint64_t)src << 32 | (uint32_t)dst, at;
    if (hpa_u64map_get(&m->cell_index, key, &at))
        return &m->cells[at];
    if (m->ncells == m->cells_cap) {
        size_t cap = m->cells_cap ? 2 * m->cells_cap : 64;
        hpa_mpi_cell *v = realloc(m->cells, cap * sizeof *v);
        if (!v)
            return NULL;
        m->cells = v;
        m->cells_cap = cap;
    }
    if (hpa_u64map_put(&m->cell_index, key, m->ncells) < 0)
        return NULL;
    m->cells[m->ncells] = (hpa_mpi_cell){.src = src, .dst = dst};
    return &m->cells[m->ncells++];
}

/* A point-to-point detail of the open call of rank ri: its message counts (histogram,
 * matrix) when it is a send. */
static int add_p2p(hpa_mpi_model *m, size_t ri, hpa_mpi_call *acc, const hpc_rec_mpi_p2p *p)
{
    if (!hpa_mpi_call_p2p(acc, p))
        return 0;
    m->hist[size_bucket(p->bytes)]++;
    int64_t src = m->ranks[ri].pr->proc->rank;
    if (src < 0 || p->peer_world < 0 || src > INT32_MAX || p->peer_world > INT32_MAX) {
        m->matrix_unknown++;
        return 0;
    }
    hpa_mpi_cell *c = cell_get(m, src, p->peer_world);
    if (!c)
        return HPC_E_NOMEM;
    c->messages++;
    c->bytes += p->bytes;
    return 0;
}

static void add_coll(hpa_mpi_model *m, hpa_mpi_call *acc, const hpc_rec_mpi_coll *c)
{
    if (!hpa_mpi_call_coll(acc, c))
        return;
    unsigned op = c->op < 32 ? (unsigned)c->op : 0;
    m->coll_calls[op]++;
    m->coll_sent[op] += c->bytes_sent;
    m->coll_recv[op] += c->bytes_recv;
}

/* Read one thread stream of rank ri; fnmap maps the process's mpi_fn ids to names. */
static int read_thread(hpa_mpi_model *m, size_t ri, const hpc_thread_file *tf,
                       const uint32_t *fnmap, size_t nfn)
{
    hpa_mpi_rank *rr = &m->ranks[ri];
    hpc_reader *r;
    hpc_record rec;
    hpa_mpi_call acc = {0};
    static const unsigned kinds[] = {HPC_K_mpi_call, HPC_K_mpi_p2p, HPC_K_mpi_coll,
                                     HPC_K_thread_end};
    int rc = hpc_thread_open(&r, rr->pr->proc, tf, m->prof->diag);
    if (rc < 0)
        return 0; /* reported; the other streams still count */
    hpc_reader_only(r, kinds, sizeof kinds / sizeof kinds[0]);
    while (rc == 0 && hpc_reader_next(r, &rec) == 1) {
        switch (rec.kind) {
        case HPC_K_mpi_call: {
            const hpc_rec_mpi_call *c = &rec.u.mpi_call;
            rc = flush_call(m, ri, &acc);
            if (c->fn >= nfn || fnmap[c->fn] == UINT32_MAX)
                break; /* no mpi_fn record names it: not counted */
            hpa_mpi_call_open(&acc, fnmap[c->fn], c);
            break;
        }
        case HPC_K_mpi_p2p:
            rc = add_p2p(m, ri, &acc, &rec.u.mpi_p2p);
            break;
        case HPC_K_mpi_coll:
            add_coll(m, &acc, &rec.u.mpi_coll);
            break;
        case HPC_K_thread_end:
            hpa_mpi_window_seen(&rr->w, rec.u.thread_end.time);
            break;
        }
    }
    if (rc == 0)
        rc = flush_call(m, ri, &acc);
    rr->damaged += hpc_reader_damaged(r);
    hpc_reader_close(r);
    return rc;
}

/* Process records: the window, how it ended, and its function ids. */
static int read_process(hpa_mpi_model *m, size_t ri)
{
    hpa_mpi_rank *rr = &m->ranks[ri];
    const hpc_proc *p = rr->pr->proc;
    size_t it = 0, nfn = 0;
    const hpc_record *r;
    while ((r = hpc_proc_next_of(p, HPC_K_mpi_fn, &it)))
        nfn = max_u64(nfn, r->u.mpi_fn.id + 1);
    uint32_t *fnmap = malloc((nfn ? nfn : 1) * sizeof *fnmap);
    if (!fnmap)
        return HPC_E_NOMEM;
    for (size_t i = 0; i < nfn; i++)
        fnmap[i] = UINT32_MAX;
    for (it = 0; (r = hpc_proc_next_of(p, HPC_K_mpi_fn, &it));)
        fnmap[r->u.mpi_fn.id] = name_index(m, r->u.mpi_fn.name);
    memset(m->site_cache, 0, sizeof m->site_cache); /* call sites are this process's */
    hpa_mpi_window_init(&rr->w, p);
    rr->dropped = p->stats[HPC_STAT_EVENTS_DROPPED];
    int rc = 0;
    hpc_proc *proc = (hpc_proc *)p; /* its schema, read once for its threads */
    hpc_proc_schema_open(proc);
    for (size_t t = 0; rc == 0 && t < p->nthreads; t++)
        if (hpa_filter_thread(&m->prof->filter, p->threads[t].seq))
            rc = read_thread(m, ri, &p->threads[t], fnmap, nfn);
    hpc_proc_schema_close(proc);
    free(fnmap);
    return rc;
}

static int by_time(const void *a, const void *b)
{
    const hpa_mpi_row *x = a, *y = b;
    if (x->s.time_ns != y->s.time_ns)
        return x->s.time_ns < y->s.time_ns ? 1 : -1;
    return x->s.calls < y->s.calls ? 1 : x->s.calls > y->s.calls ? -1 : 0;
}

static void finish_rows(hpa_mpi_rows *rs, bool number)
{
    for (size_t i = 0; i < rs->n; i++)
        row_rank_done(&rs->v[i]); /* the last rank's calls: the sums are whole from here */
    if (rs->n)
        qsort(rs->v, rs->n, sizeof *rs->v, by_time);
    for (size_t i = 0; i < rs->n; i++) {
        rs->v[i].cov = hpa_mpi_cov_of(&rs->v[i].cov_acc);
        if (number)
            rs->v[i].site = (uint32_t)i + 1;
    }
}

static int by_pair(const void *a, const void *b)
{
    const hpa_mpi_cell *x = a, *y = b;
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
    return (x->dst > y->dst) - (x->dst < y->dst);
}

void hpa_mpi_model_free(hpa_mpi_model *m)
{
    hpa_mpi_rows *sets[] = {&m->fns, &m->sites};
    for (int s = 0; s < 2; s++) {
        for (size_t i = 0; i < sets[s]->n; i++)
            free(sets[s]->v[i].per_rank);
        free(sets[s]->v);
        hpa_u64map_free(&sets[s]->index);
    }
    for (size_t i = 0; i < m->nnames; i++)
        free(m->names[i]);
    free(m->names);
    free(m->lifecycle);
    free(m->ranks);
    free(m->cells);
    hpa_u64map_free(&m->cell_index);
    memset(m, 0, sizeof *m);
}

int hpa_mpi_model_build(hpa_mpi_model *m, hpa_profile *prof, bool per_rank)
{
    memset(m, 0, sizeof *m);
    m->prof = prof;
    m->per_rank = per_rank;
    scope_text(&prof->filter, m->scope, sizeof m->scope);
    hpa_mpi_sum_init(&m->total);
    m->ranks = calloc(prof->nprocs ? prof->nprocs : 1, sizeof *m->ranks);
    if (!m->ranks)
        return HPC_E_NOMEM;
    for (size_t i = 0; i < prof->nprocs; i++) {
        const hpa_process *pr = &prof->procs[i];
        if (!pr->map) /* left out by a filter */
            continue;
        if (!hpc_proc_next_of(pr->proc, HPC_K_mpi_fn, &(size_t){0}) &&
            !hpc_proc_next_of(pr->proc, HPC_K_mpi_init, &(size_t){0}))
            continue; /* not an MPI process */
        hpa_mpi_rank *rr = &m->ranks[m->nranks++];
        rr->pr = pr;
        rr->died_in = -1;
        hpa_mpi_sum_init(&rr->s);
    }
    for (size_t i = 0; i < m->nranks; i++) {
        int rc = read_process(m, i);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < m->nranks; i++) {
        hpa_mpi_rank *rr = &m->ranks[i];
        hpa_mpi_sum *s = &rr->s, *t = &m->total;
        t->calls += s->calls;
        t->time_ns += s->time_ns;
        t->sends += s->sends;
        t->bytes_sent += s->bytes_sent;
        t->recvs += s->recvs;
        t->bytes_recv += s->bytes_recv;
        t->other += s->other;
        t->coll_calls += s->coll_calls;
        t->coll_sent += s->coll_sent;
        t->coll_recv += s->coll_recv;
    }
    finish_rows(&m->fns, false);
    finish_rows(&m->sites, true);
    if (m->ncells)
        qsort(m->cells, m->ncells, sizeof *m->cells, by_pair);
    return 0;
}

uint64_t hpa_mpi_model_app_ns(const hpa_mpi_rank *r)
{
    return hpa_mpi_app_ns(&r->w);
}

uint64_t hpa_mpi_model_total_app_ns(const hpa_mpi_model *m)
{
    uint64_t t = 0;
    for (size_t i = 0; i < m->nranks; i++)
        t += hpa_mpi_model_app_ns(&m->ranks[i]);
    return t;
}

void hpa_mpi_site_location(const hpa_mpi_model *m, const hpa_mpi_row *r, char *buf, size_t cap)
{
    const hpa_line *l = hpa_symtab_line(m->prof->syms, r->line);
    hpa_loc_text(m->prof->syms, (hpa_loc){l ? l->func : 0, r->line}, buf, cap);
}
