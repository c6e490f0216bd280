/*
 * summary_agg.c - combine per-process summaries into the job-wide view (see
 * summary_agg.h). Sorting uses names as tie-breakers, so the result does not depend on
 * the order processes were merged in.
 */
#include "summary_agg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool mg_proc_is_rank(const mg_proc *p)
{
    return !p->placeholder && p->rank >= 0 && (uint64_t)p->rank == p->group;
}

bool mg_proc_is_mpi(const mg_proc *p)
{
    return !p->placeholder && p->sum.is_mpi;
}

bool mg_proc_has_states(const mg_proc *p)
{
    for (size_t k = 0; k < p->nlocs; k++)
        for (unsigned m = 0; m < HPC_NMSTATES; m++)
            if (p->locs[k].sum.state_ns[m])
                return true;
    return false;
}

uint64_t mg_proc_app_ns(const mg_proc *p)
{
    if (mg_proc_is_mpi(p))
        return hpa_mpi_app_ns(&p->sum.win);
    const mg_psum *s = &p->sum;
    uint64_t begin = s->has_begin ? s->t_begin : UINT64_MAX, end = s->t_end;
    for (size_t k = 0; k < p->nlocs; k++) {
        const mg_tsum *t = &p->locs[k].sum;
        if (!t->events)
            continue;
        if (t->t_first < begin)
            begin = t->t_first;
        if (t->t_last > end)
            end = t->t_last;
    }
    return begin != UINT64_MAX && end > begin ? end - begin : 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The agg's copy of s (stable: each string of a strtab is an allocation of its own). */
static const char *keep(mg_agg *a, const char *s)
{
    return hpa_strtab_get(&a->names, mg_xcstr(&a->names, s));
}

/* ------------------------------------------------------------ MPI calls and sites */

/* One MPI rank's calls and time in a call or at a site, in a.ranks (in job order). */
typedef struct rank_value {
    uint32_t sites; /* 0: calls, 1: sites */
    uint32_t id;    /* in a->calls or a->sites */
    uint64_t calls, time_ns;
} rank_value;

/* Add an MPI process's calls (or sites) by (call, site); its own sums per row (a site's
 * text may name two of its call sites) go to a->ranks. */
static void add_calls(mg_agg *a, const mg_proc *p, bool sites)
{
    hpa_strtab *keys = sites ? &a->site_keys : &a->call_keys;
    mg_aggcall **out = sites ? &a->sites : &a->calls;
    size_t *n = sites ? &a->nsites : &a->ncalls, *cap = sites ? &a->capsites : &a->capcalls;
    const mg_callstat *cs = sites ? p->sum.sites : p->sum.calls;
    size_t nc = sites ? p->sum.nsites : p->sum.ncalls, nv = 0;
    rank_value *v = mg_xcalloc(nc + 1, sizeof(rank_value));
    for (size_t k = 0; k < nc; k++) {
        char *key = mg_xasprintf("%s%c%s", cs[k].call, 0, cs[k].site);
        size_t klen = strlen(cs[k].call) + 1 + strlen(cs[k].site);
        uint32_t id = mg_xintern(keys, key, klen);
        free(key);
        if (id == *n) {
            mg_aggcall *c = MG_PUSH(*out, *n, *cap);
            *c = (mg_aggcall){.call = keep(a, cs[k].call), .site = keep(a, cs[k].site)};
            hpa_mpi_sum_init(&c->s);
        }
        hpa_mpi_sum_merge(&(*out)[id].s, &cs[k].s);
        size_t j = 0;
        while (j < nv && v[j].id != id)
            j++;
        if (j == nv)
            v[nv++] = (rank_value){sites, id, 0, 0};
        v[j].calls += cs[k].s.calls;
        v[j].time_ns += cs[k].s.time_ns;
    }
    if (nv && fwrite(v, sizeof(rank_value), nv, a->ranks) != nv)
        a->ranks_bad = true;
    free(v);
}

/* Sums over the ranks that made a call, in job order: pass 1 the sums, extremes and
 * counts, pass 2 the squared deviations (the spread of n values: min, mean, max, population
 * standard deviation / mean). */
typedef struct spread_acc {
    double sum, min, max, var;
    size_t n;
} spread_acc;

static void acc_value(spread_acc *s, double v, int pass)
{
    if (pass == 1) {
        if (s->n == 0 || v < s->min)
            s->min = v;
        if (s->n == 0 || v > s->max)
            s->max = v;
        s->sum += v;
        s->n++;
    } else {
        double mean = s->sum / (double)s->n;
        s->var += (v - mean) * (v - mean);
    }
}

static mg_spread acc_spread(const spread_acc *s)
{
    mg_spread r = {0, 0, 0, 0};
    if (s->n == 0)
        return r;
    r.min = s->min;
    r.max = s->max;
    r.mean = s->sum / (double)s->n;
    double var = s->var / (double)s->n;
    r.cov = r.mean > 0 ? sqrt(var) / r.mean : 0;
    return r;
}

/* The spreads over the ranks that made each call (those with calls), from a->ranks. */
static int finish_calls(mg_agg *a)
{
    size_t n = a->ncalls + a->nsites;
    spread_acc *t = mg_xcalloc(n + 1, sizeof(spread_acc)),
               *c = mg_xcalloc(n + 1, sizeof(spread_acc));
    hpa_mpi_cov_acc *cov = mg_xcalloc(n + 1, sizeof(hpa_mpi_cov_acc));
    bool bad = a->ranks_bad || fflush(a->ranks) != 0;
    for (int pass = 1; pass <= 2 && !bad; pass++) {
        rewind(a->ranks);
        rank_value v;
        while (fread(&v, sizeof v, 1, a->ranks) == 1) {
            size_t i = v.sites ? a->ncalls + v.id : v.id;
            if (!v.calls || i >= n)
                continue;
            acc_value(&t[i], v.time_ns / 1e9, pass);
            acc_value(&c[i], (double)v.calls, pass);
            if (pass == 1)
                hpa_mpi_cov_add(&cov[i], &(hpa_mpi_sum){.calls = v.calls, .time_ns = v.time_ns});
        }
        bad = ferror(a->ranks) != 0;
    }
    for (size_t i = 0; i < n; i++) {
        mg_aggcall *r = i < a->ncalls ? &a->calls[i] : &a->sites[i - a->ncalls];
        r->ranks = t[i].n;
        r->time = acc_spread(&t[i]);
        r->count = acc_spread(&c[i]);
        r->cov = hpa_mpi_cov_of(&cov[i]);
        if (!r->s.calls)
            r->s.min_ns = 0;
    }
    free(t);
    free(c);
    free(cov);
    return bad ? -1 : 0;
}

static int cmp_call(const void *pa, const void *pb)
{
    const mg_aggcall *a = pa, *b = pb;
    if (a->s.time_ns != b->s.time_ns)
        return a->s.time_ns > b->s.time_ns ? -1 : 1;
    int c = strcmp(a->call, b->call);
    return c ? c : strcmp(a->site, b->site);
}

/* ------------------------------------------------------------ functions */

static void add_funcs(mg_agg *a, const mg_psum *s)
{
    for (size_t k = 0; k < s->nfuncs; k++) {
        const mg_funcstat *f = &s->funcs[k];
        char *key = mg_xasprintf("%s%c%s", f->name, 0, f->module);
        uint32_t id = mg_xintern(&a->func_keys, key, strlen(f->name) + 1 + strlen(f->module));
        free(key);
        if (id == a->nfuncs)
            *MG_PUSH(a->funcs, a->nfuncs, a->capfuncs) =
                (mg_aggfunc){keep(a, f->name), keep(a, f->module), 0, 0, 0};
        a->funcs[id].samples += f->samples;
        a->funcs[id].excl_ns += f->excl_ns;
        a->funcs[id].incl_ns += f->incl_ns;
    }
}

static int cmp_func(const void *pa, const void *pb)
{
    const mg_aggfunc *a = pa, *b = pb;
    if (a->excl_ns != b->excl_ns)
        return a->excl_ns > b->excl_ns ? -1 : 1;
    if (a->incl_ns != b->incl_ns)
        return a->incl_ns > b->incl_ns ? -1 : 1;
    int c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->module, b->module);
}

/* ------------------------------------------------------------ OpenMP */

static void add_omps(mg_agg *a, const mg_proc *p)
{
    const mg_psum *s = &p->sum;
    uint32_t *ids = mg_xcalloc(s->nomps + 1, sizeof(uint32_t));
    for (size_t k = 0; k < s->nomps; k++) {
        const mg_ompstat *o = &s->omps[k];
        uint32_t id = ids[k] = mg_xcstr(&a->omp_keys, o->name);
        if (id == a->nomps)
            *MG_PUSH(a->omps, a->nomps, a->capomps) = (mg_aggomp){.name = keep(a, o->name)};
        mg_aggomp *g = &a->omps[id];
        g->instances += o->instances;
        g->wall_ns += o->wall_ns;
        g->work_ns += o->work_ns;
        g->wait_ns += o->wait_ns;
    }
    const char *proc = s->nompthr ? keep(a, p->name) : NULL;
    for (size_t k = 0; k < s->nompthr; k++) {
        const mg_ompthr *t = &s->ompthr[k];
        if (t->region >= s->nomps)
            continue;
        mg_aggomp *g = &a->omps[ids[t->region]];
        *MG_PUSH(g->threads, g->nthreads, g->capthreads) =
            (mg_aggompthr){mg_proc_is_rank(p) ? p->rank : -1, proc, t->seq, t->work_ns, t->wait_ns};
    }
    free(ids);
    const char *rt = s->omp_runtime;
    bool seen = !rt || !*rt; /* each runtime once */
    for (size_t k = 0; k < a->nruntimes && !seen; k++)
        seen = strcmp(a->runtimes[k], rt) == 0;
    if (!seen)
        *MG_PUSH(a->runtimes, a->nruntimes, a->capruntimes) = keep(a, rt);
}

static int cmp_omp(const void *pa, const void *pb)
{
    const mg_aggomp *a = pa, *b = pb;
    uint64_t x = a->work_ns + a->wait_ns, y = b->work_ns + b->wait_ns;
    if (x != y)
        return x > y ? -1 : 1;
    if (a->wall_ns != b->wall_ns)
        return a->wall_ns > b->wall_ns ? -1 : 1;
    return strcmp(a->name, b->name);
}

static int cmp_ompthr(const void *pa, const void *pb)
{
    const mg_aggompthr *a = pa, *b = pb;
    int c = strcmp(a->proc, b->proc);
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    if (c)
        return c;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* ------------------------------------------------------------ the whole */

void mg_agg_init(mg_agg *a, const mg_job *job, FILE *ranks)
{
    memset(a, 0, sizeof(*a));
    a->job = job;
    a->ranks = ranks;
    a->t0 = UINT64_MAX;
}

/* The process's threads: their sums, the events' time range, what sections they need. */
static void add_threads(mg_agg *a, const mg_proc *p)
{
    for (size_t k = 0; k < p->nlocs; k++) {
        const mg_tsum *t = &p->locs[k].sum;
        a->any_sync |= t->sync_waits != 0;
        if (t->events) {
            if (t->t_first < a->t0)
                a->t0 = t->t_first;
            if (t->t_last > a->t1)
                a->t1 = t->t_last;
        }
        if (p->placeholder)
            continue;
        a->nthreads++;
        a->samples += t->samples;
        a->counter_samples += t->counter_samples;
        a->sampled_cpu_ns += t->sample_cpu_ns;
        a->events += t->events;
        a->records += t->records;
        a->damaged += t->damaged;
    }
    a->any_states |= mg_proc_has_states(p);
    a->any_heap |= p->sum.heap_traced;
}

void mg_agg_add(mg_agg *a, const mg_proc *p)
{
    add_threads(a, p);
    add_funcs(a, &p->sum);
    add_omps(a, p);
    if (p->placeholder)
        return;
    a->nprocs_data++;
    if (mg_proc_is_mpi(p)) {
        add_calls(a, p, false);
        add_calls(a, p, true);
        a->nranks++;
    }
    mg_xcstr(&a->host_keys, p->host);
    const mg_psum *s = &p->sum;
    for (int k = 0; k < HPC_NSTATS; k++)
        a->stats[k] += s->stats[k];
    a->os_cpu_ns += s->os_cpu_ns;
    a->mpi_ns += s->mpi.time_ns;
    a->app_ns += mg_proc_app_ns(p);
    for (size_t k = 0; k < s->nctrs; k++) {
        uint32_t id = mg_xcstr(&a->ctr_keys, s->ctrs[k].name);
        if (id == a->nctrs)
            *MG_PUSH(a->ctrs, a->nctrs, a->capctrs) =
                (mg_aggctr){keep(a, s->ctrs[k].name), keep(a, s->ctrs[k].unit), 0, 0};
        a->ctrs[id].samples += s->ctrs[k].samples;
        a->ctrs[id].value += s->ctrs[k].value;
    }
}

int mg_agg_finish(mg_agg *a)
{
    const mg_job *job = a->job;
    a->have_events = a->t0 != UINT64_MAX;
    if (!a->have_events)
        a->t0 = a->t1 = 0;
    a->nhosts = a->host_keys.n;
    a->hosts = mg_xcalloc(a->nhosts + 1, sizeof(char *));
    for (size_t h = 0; h < a->nhosts; h++)
        a->hosts[h] = hpa_strtab_get(&a->host_keys, (uint32_t)h);
    int rc = finish_calls(a);
    mg_sort(a->calls, a->ncalls, sizeof(mg_aggcall), cmp_call);
    mg_sort(a->sites, a->nsites, sizeof(mg_aggcall), cmp_call);
    mg_sort(a->funcs, a->nfuncs, sizeof(mg_aggfunc), cmp_func);
    mg_sort(a->omps, a->nomps, sizeof(mg_aggomp), cmp_omp);
    for (size_t i = 0; i < a->nomps; i++)
        mg_sort(a->omps[i].threads, a->omps[i].nthreads, sizeof(mg_aggompthr), cmp_ompthr);
    a->nproblems = job->nproblems;
    a->problems = mg_xcalloc(job->nproblems + 1, sizeof(char *));
    if (job->nproblems)
        memcpy(a->problems, job->problems, job->nproblems * sizeof(char *));
    mg_sort(a->problems, a->nproblems, sizeof(char *), cmp_str);
    return rc;
}

void mg_agg_free(mg_agg *a)
{
    free(a->hosts);
    free(a->calls);
    free(a->sites);
    free(a->funcs);
    for (size_t i = 0; i < a->nomps; i++)
        free(a->omps[i].threads);
    free(a->omps);
    free(a->ctrs);
    free(a->runtimes);
    free(a->problems);
    hpa_strtab *tabs[] = {&a->names,     &a->host_keys, &a->call_keys, &a->site_keys,
                          &a->func_keys, &a->omp_keys,  &a->ctr_keys};
    for (size_t i = 0; i < sizeof(tabs) / sizeof(tabs[0]); i++)
        hpa_strtab_free(tabs[i]);
    memset(a, 0, sizeof(*a));
}
