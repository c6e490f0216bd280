/*
 * timeline.c - the walk behind the timeline exports (timeline.h): clock corrections, the
 * origin and window, each thread's slices collected from the layers and handed to the
 * sink when the thread's stream ends, nesting.
 *
 * Sizes: the slices of one thread at a time (a few hundred thousand for a long MPI
 * rank), plus what the layers keep for the whole walk (the MPI layer's messages).
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "omp_proc.h"

const hpa_tl_layer *const hpa_tl_layers[] = {&hpa_tl_layer_mpi,    &hpa_tl_layer_omp,
                                             &hpa_tl_layer_states, &hpa_tl_layer_sync,
                                             &hpa_tl_layer_heap,   &hpa_tl_layer_io};
const unsigned hpa_tl_nlayers = sizeof hpa_tl_layers / sizeof hpa_tl_layers[0];

/* A process's clock correction: offsets measured at MPI_Init and MPI_Finalize. */
typedef struct clock_fix {
    bool has0, has1;
    uint64_t l0, l1; /* local times of the two measurements */
    int64_t o0, o1;  /* offsets there */
} clock_fix;

struct hpa_timeline {
    hpa_profile *p;
    clock_fix *fix; /* [process] */
    uint64_t origin;
    int64_t tmin, tmax; /* --time window in ns from the origin, or -1 */
    const hpa_tl_sink *sink;
    void *state[8];   /* each layer's */
    hpa_tl_slice *xs; /* the slices of the thread being read */
    size_t nxs, capxs;
    hpa_tl_stats stats;
    int err;
};

/* ------------------------------------------------------------------ clocks */

/* True if the kept processes ran on more than one host. */
static bool several_hosts(const hpa_profile *p)
{
    const hpc_proc *first = NULL;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpc_proc *q = p->procs[i].proc;
        if (!p->procs[i].map || !q->has_begin)
            continue;
        if (!first)
            first = q;
        else if (first->begin.host.n != q->begin.host.n ||
                 memcmp(first->begin.host.p, q->begin.host.p, q->begin.host.n) != 0)
            return true;
    }
    return false;
}

static void read_offsets(clock_fix *c, const hpc_proc *p)
{
    size_t it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_clock_offset, &it));) {
        const hpc_rec_clock_offset *o = &r->u.clock_offset;
        if (o->phase == 0) {
            c->has0 = true, c->l0 = o->local_ns, c->o0 = o->offset_ns;
        } else if (o->phase == 1) {
            c->has1 = true, c->l1 = o->local_ns, c->o1 = o->offset_ns;
        }
    }
}

/* Local t of process i on rank 0's clock. */
static int64_t global_of(const hpa_timeline *tl, size_t i, uint64_t t)
{
    const clock_fix *c = &tl->fix[i];
    int64_t off = 0;
    if (c->has0 && c->has1 && c->l1 > c->l0) {
        double f = ((double)t - (double)c->l0) / (double)(c->l1 - c->l0);
        off = c->o0 + (int64_t)(f * (double)(c->o1 - c->o0));
    } else if (c->has0) {
        off = c->o0;
    }
    return (int64_t)t + off;
}

uint64_t hpa_timeline_time(const hpa_timeline *tl, const hpa_process *pr, uint64_t t)
{
    int64_t g = global_of(tl, (size_t)(pr - tl->p->procs), t) - (int64_t)tl->origin;
    return g > 0 ? (uint64_t)g : 0;
}

bool hpa_timeline_in_window(const hpa_timeline *tl, uint64_t b, uint64_t e)
{
    return (tl->tmin < 0 || (int64_t)e >= tl->tmin) && (tl->tmax < 0 || (int64_t)b <= tl->tmax);
}

static void origin_and_window(hpa_timeline *tl)
{
    const hpa_profile *p = tl->p;
    int64_t origin = INT64_MAX;
    for (size_t i = 0; i < p->nprocs; i++) {
        if (!p->procs[i].map)
            continue;
        int64_t g = global_of(tl, i, p->procs[i].t0);
        if (g < origin)
            origin = g;
    }
    tl->origin = origin == INT64_MAX || origin < 0 ? 0 : (uint64_t)origin;
    const hpa_filter *f = &p->filter;
    tl->tmin = tl->tmax = -1;
    if (f->has_time) {
        tl->tmin = (int64_t)f->t_lo_ns;
        tl->tmax = f->t_hi_ns == UINT64_MAX ? -1 : (int64_t)f->t_hi_ns;
    }
}

/* ------------------------------------------------------------------ open, close */

int hpa_timeline_open(hpa_timeline **out, hpa_profile *p)
{
    hpa_timeline *tl = calloc(1, sizeof *tl);
    *out = tl;
    if (!tl)
        return HPC_E_NOMEM;
    tl->p = p;
    tl->fix = calloc(p->nprocs + 1, sizeof *tl->fix);
    if (!tl->fix)
        return HPC_E_NOMEM;
    if (several_hosts(p))
        for (size_t i = 0; i < p->nprocs; i++)
            read_offsets(&tl->fix[i], p->procs[i].proc);
    origin_and_window(tl);
    return 0;
}

void hpa_timeline_close(hpa_timeline *tl)
{
    if (!tl)
        return;
    for (unsigned l = 0; l < hpa_tl_nlayers; l++)
        if (tl->state[l] && hpa_tl_layers[l]->close)
            hpa_tl_layers[l]->close(tl->state[l]);
    free(tl->fix);
    free(tl->xs);
    free(tl);
}

hpa_profile *hpa_timeline_profile(const hpa_timeline *tl)
{
    return tl->p;
}

const hpa_tl_stats *hpa_timeline_stats(const hpa_timeline *tl)
{
    return &tl->stats;
}

hpa_tl_stats *hpa_timeline_counters(hpa_timeline *tl)
{
    return &tl->stats;
}

void hpa_timeline_fail(hpa_timeline *tl, int rc)
{
    if (!tl->err)
        tl->err = rc;
}

unsigned hpa_timeline_layer_index(const hpa_tl_layer *l)
{
    for (unsigned i = 0; i < hpa_tl_nlayers; i++)
        if (hpa_tl_layers[i] == l)
            return i;
    return 0;
}

const char *hpa_timeline_thread_role(const hpa_process *pr, const hpa_thread *t)
{
    for (uint32_t k = 0; pr->omp && k < pr->omp->nthreads; k++)
        if (pr->omp->threads[k].seq == t->seq && pr->omp->threads[k].type == HPA_OMP_THREAD_WORKER)
            return "OpenMP worker";
    return t->seq == 0 ? "main" : "";
}

/* ------------------------------------------------------------------ slices */

void hpa_timeline_slice(hpa_timeline *tl, const hpa_process *pr, unsigned layer, uint64_t b,
                        uint64_t e, const hpa_tl_slice *s)
{
    uint64_t cb = hpa_timeline_time(tl, pr, b), ce = hpa_timeline_time(tl, pr, e > b ? e : b);
    if (!hpa_timeline_in_window(tl, cb, ce))
        return;
    if (tl->nxs == tl->capxs) {
        size_t cap = tl->capxs ? 2 * tl->capxs : 256;
        hpa_tl_slice *v = realloc(tl->xs, sizeof(*v) * cap);
        if (!v) {
            hpa_timeline_fail(tl, HPC_E_NOMEM);
            return;
        }
        tl->xs = v;
        tl->capxs = cap;
    }
    hpa_tl_slice *x = &tl->xs[tl->nxs];
    *x = *s;
    x->b = cb;
    x->e = ce;
    x->layer = layer;
    x->order = tl->nxs++;
    x->clipped = 0;
    x->depth = 0;
}

void hpa_timeline_message(hpa_timeline *tl, const hpa_tl_msg *m)
{
    tl->stats.messages++;
    if (tl->sink->message)
        tl->sink->message(tl->sink->arg, m);
}

/* Outer slices first: by begin, the longer first, then as made. */
static int slice_cmp(const void *pa, const void *pb)
{
    const hpa_tl_slice *a = pa, *b = pb;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    if (a->e != b->e)
        return a->e > b->e ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

int hpa_tl_nest(hpa_tl_slice *s, size_t n)
{
    if (n == 0)
        return 0;
    qsort(s, n, sizeof(*s), slice_cmp);
    uint64_t *open = malloc(sizeof(uint64_t) * n); /* ends of the open slices */
    if (!open)
        return HPC_E_NOMEM;
    size_t depth = 0;
    for (size_t k = 0; k < n; k++) {
        hpa_tl_slice *x = &s[k];
        while (depth && open[depth - 1] <= x->b && !(open[depth - 1] == x->b && x->e == x->b))
            depth--;
        x->clipped = 0;
        if (depth && x->e > open[depth - 1]) {
            x->clipped = x->e - open[depth - 1];
            x->e = open[depth - 1];
        }
        x->depth = (unsigned)depth;
        open[depth++] = x->e;
    }
    free(open);
    return 0;
}

/* ------------------------------------------------------------------ walk */

static void record(void *arg, const hpa_process *pr, const hpa_thread *t, const hpc_record *rec)
{
    hpa_timeline *tl = arg;
    if (tl->err)
        return;
    if (rec) {
        for (unsigned l = 0; l < hpa_tl_nlayers; l++)
            if (hpa_tl_layers[l]->record)
                hpa_tl_layers[l]->record(tl, tl->state[l], pr, t, rec);
        return;
    }
    for (unsigned l = 0; l < hpa_tl_nlayers; l++) /* the thread's stream ended */
        if (hpa_tl_layers[l]->thread_end)
            hpa_tl_layers[l]->thread_end(tl, tl->state[l], pr, t);
    tl->stats.slices += tl->nxs;
    if (!tl->err && tl->sink->thread)
        tl->sink->thread(tl->sink->arg, pr, t, tl->xs, tl->nxs);
    tl->nxs = 0;
}

static void sample(void *arg, const hpa_path_ctx *ctx, uint64_t time, uint64_t cpu_ns, uint32_t cpu)
{
    hpa_timeline *tl = arg;
    tl->sink->sample(tl->sink->arg, ctx, time, cpu_ns, cpu);
}

int hpa_timeline_walk(hpa_timeline *tl, const hpa_tl_sink *sink)
{
    tl->sink = sink;
    for (unsigned l = 0; l < hpa_tl_nlayers && !tl->err; l++)
        if (hpa_tl_layers[l]->open)
            hpa_timeline_fail(tl, hpa_tl_layers[l]->open(tl, &tl->state[l]));
    if (tl->err)
        return tl->err;
    int rc = hpa_profile_replay(tl->p, sink->sample ? sample : NULL, record, tl);
    for (unsigned l = 0; l < hpa_tl_nlayers && !rc && !tl->err; l++)
        if (hpa_tl_layers[l]->finish)
            hpa_tl_layers[l]->finish(tl, tl->state[l]);
    return rc ? rc : tl->err;
}
