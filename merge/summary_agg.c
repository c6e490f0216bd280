/*
 * summary_agg.c - combine per-process summaries into the job-wide view (see
 * summary_agg.h). Sorting uses names as tie-breakers, so the result does not depend on
 * the order processes were merged in.
 */
#include "summary_agg.h"

#include "defs.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

mg_spread mg_spread_of(const double *v, size_t n)
{
    mg_spread s = {0, 0, 0, 0};
    if (n == 0)
        return s;
    s.min = s.max = v[0];
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] < s.min)
            s.min = v[i];
        if (v[i] > s.max)
            s.max = v[i];
    }
    s.mean = sum / (double)n;
    double var = 0;
    for (size_t i = 0; i < n; i++)
        var += (v[i] - s.mean) * (v[i] - s.mean);
    var /= (double)n;
    s.cov = s.mean > 0 ? sqrt(var) / s.mean : 0;
    return s;
}

bool mg_proc_is_rank(const mg_proc *p)
{
    return !p->placeholder && p->rank >= 0 && (uint64_t)p->rank == p->group;
}

bool mg_proc_is_mpi(const mg_proc *p)
{
    return !p->placeholder && p->sum.is_mpi;
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

/* ------------------------------------------------------------ MPI calls and sites */

/* Combine calls (or sites) of all MPI processes by (call, site). */
static mg_aggcall *agg_calls(const mg_job *job, bool sites, size_t nranks, size_t *out_n)
{
    hpa_strtab keys = {0};
    mg_aggcall *out = NULL;
    size_t n = 0, cap = 0;
    hpa_mpi_sum *per_rank = NULL; /* [row][rank] */
    size_t rank_i = 0;
    for (size_t i = 0; i < job->nprocs; i++) {
        const mg_proc *p = &job->procs[i];
        if (!mg_proc_is_mpi(p))
            continue;
        const mg_callstat *cs = sites ? p->sum.sites : p->sum.calls;
        size_t nc = sites ? p->sum.nsites : p->sum.ncalls;
        for (size_t k = 0; k < nc; k++) {
            char *key = mg_xasprintf("%s%c%s", cs[k].call, 0, cs[k].site);
            size_t klen = strlen(cs[k].call) + 1 + strlen(cs[k].site);
            uint32_t id = mg_xintern(&keys, key, klen);
            free(key);
            if (id == n) {
                mg_aggcall *a = MG_PUSH(out, n, cap);
                *a = (mg_aggcall){.call = cs[k].call, .site = cs[k].site};
                hpa_mpi_sum_init(&a->s);
                per_rank = mg_xrealloc(per_rank, cap * nranks * sizeof(hpa_mpi_sum));
                for (size_t r = 0; r < nranks; r++)
                    hpa_mpi_sum_init(&per_rank[id * nranks + r]);
            }
            hpa_mpi_sum_merge(&out[id].s, &cs[k].s);
            hpa_mpi_sum_merge(&per_rank[id * nranks + rank_i], &cs[k].s);
        }
        rank_i++;
    }
    double *t = mg_xcalloc(nranks + 1, sizeof(double)), *c = mg_xcalloc(nranks + 1, sizeof(double));
    for (size_t k = 0; k < n; k++) {
        const hpa_mpi_sum *pr = per_rank + k * nranks;
        size_t m = 0;
        for (size_t r = 0; r < nranks; r++)
            if (pr[r].calls) {
                t[m] = pr[r].time_ns / 1e9;
                c[m++] = (double)pr[r].calls;
            }
        out[k].ranks = m;
        out[k].time = mg_spread_of(t, m);
        out[k].count = mg_spread_of(c, m);
        out[k].cov = hpa_mpi_cov(pr, nranks);
        if (!out[k].s.calls)
            out[k].s.min_ns = 0;
    }
    free(t);
    free(c);
    free(per_rank);
    hpa_strtab_free(&keys);
    *out_n = n;
    return out;
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

static void agg_funcs(mg_agg *a)
{
    const mg_job *job = a->job;
    hpa_strtab keys = {0};
    size_t cap = 0;
    for (size_t i = 0; i < job->nprocs; i++) {
        const mg_psum *s = &job->procs[i].sum;
        for (size_t k = 0; k < s->nfuncs; k++) {
            const mg_funcstat *f = &s->funcs[k];
            char *key = mg_xasprintf("%s%c%s", f->name, 0, f->module);
            uint32_t id = mg_xintern(&keys, key, strlen(f->name) + 1 + strlen(f->module));
            free(key);
            if (id == a->nfuncs)
                *MG_PUSH(a->funcs, a->nfuncs, cap) = (mg_aggfunc){f->name, f->module, 0, 0, 0};
            a->funcs[id].samples += f->samples;
            a->funcs[id].excl_ns += f->excl_ns;
            a->funcs[id].incl_ns += f->incl_ns;
        }
    }
    hpa_strtab_free(&keys);
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

static void agg_omps(mg_agg *a)
{
    const mg_job *job = a->job;
    hpa_strtab keys = {0};
    size_t cap = 0;
    for (size_t i = 0; i < job->nprocs; i++) {
        const mg_proc *p = &job->procs[i];
        const mg_psum *s = &p->sum;
        uint32_t *ids = mg_xcalloc(s->nomps + 1, sizeof(uint32_t));
        for (size_t k = 0; k < s->nomps; k++) {
            const mg_ompstat *o = &s->omps[k];
            uint32_t id = ids[k] = mg_xcstr(&keys, o->name);
            if (id == a->nomps)
                *MG_PUSH(a->omps, a->nomps, cap) = (mg_aggomp){.name = o->name};
            mg_aggomp *g = &a->omps[id];
            g->instances += o->instances;
            g->wall_ns += o->wall_ns;
            g->work_ns += o->work_ns;
            g->wait_ns += o->wait_ns;
        }
        for (size_t k = 0; k < s->nompthr; k++) {
            const mg_ompthr *t = &s->ompthr[k];
            if (t->region >= s->nomps)
                continue;
            mg_aggomp *g = &a->omps[ids[t->region]];
            *MG_PUSH(g->threads, g->nthreads, g->capthreads) = (mg_aggompthr){
                mg_proc_is_rank(p) ? p->rank : -1, p->name, t->seq, t->work_ns, t->wait_ns};
        }
        free(ids);
    }
    hpa_strtab_free(&keys);
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

void mg_agg_build(mg_agg *a, const mg_job *job)
{
    memset(a, 0, sizeof(*a));
    a->job = job;
    hpa_strtab hosts = {0};
    hpa_strtab ctr_keys = {0};
    size_t capctrs = 0;
    a->have_events = mg_defs_time_range(job, &a->t0, &a->t1);
    for (size_t i = 0; i < job->nprocs; i++) {
        const mg_proc *p = &job->procs[i];
        if (p->placeholder)
            continue;
        a->nprocs_data++;
        a->nranks += mg_proc_is_mpi(p);
        mg_xcstr(&hosts, p->host);
        const mg_psum *s = &p->sum;
        for (int k = 0; k < HPC_NSTATS; k++)
            a->stats[k] += s->stats[k];
        a->os_cpu_ns += s->os_cpu_ns;
        a->mpi_ns += s->mpi.time_ns;
        a->app_ns += mg_proc_app_ns(p);
        for (size_t k = 0; k < p->nlocs; k++) {
            const mg_tsum *t = &p->locs[k].sum;
            a->nthreads++;
            a->samples += t->samples;
            a->counter_samples += t->counter_samples;
            a->sampled_cpu_ns += t->sample_cpu_ns;
            a->events += t->events;
            a->records += t->records;
            a->damaged += t->damaged;
        }
        for (size_t k = 0; k < s->nctrs; k++) {
            uint32_t id = mg_xcstr(&ctr_keys, s->ctrs[k].name);
            if (id == a->nctrs)
                *MG_PUSH(a->ctrs, a->nctrs, capctrs) =
                    (mg_aggctr){s->ctrs[k].name, s->ctrs[k].unit, 0, 0};
            a->ctrs[id].samples += s->ctrs[k].samples;
            a->ctrs[id].value += s->ctrs[k].value;
        }
    }
    a->nhosts = hosts.n;
    a->hosts = mg_xcalloc(hosts.n + 1, sizeof(char *));
    for (size_t h = 0; h < hosts.n; h++)
        for (size_t i = 0; i < job->nprocs; i++)
            if (strcmp(job->procs[i].host, hpa_strtab_get(&hosts, h)) == 0) {
                a->hosts[h] = job->procs[i].host; /* stable storage */
                break;
            }
    hpa_strtab_free(&hosts);
    hpa_strtab_free(&ctr_keys);
    a->calls = agg_calls(job, false, a->nranks, &a->ncalls);
    mg_sort(a->calls, a->ncalls, sizeof(mg_aggcall), cmp_call);
    a->sites = agg_calls(job, true, a->nranks, &a->nsites);
    mg_sort(a->sites, a->nsites, sizeof(mg_aggcall), cmp_call);
    agg_funcs(a);
    mg_sort(a->funcs, a->nfuncs, sizeof(mg_aggfunc), cmp_func);
    agg_omps(a);
    mg_sort(a->omps, a->nomps, sizeof(mg_aggomp), cmp_omp);
    for (size_t i = 0; i < a->nomps; i++)
        mg_sort(a->omps[i].threads, a->omps[i].nthreads, sizeof(mg_aggompthr), cmp_ompthr);
    a->nproblems = job->nproblems;
    a->problems = mg_xcalloc(job->nproblems + 1, sizeof(char *));
    if (job->nproblems)
        memcpy(a->problems, job->problems, job->nproblems * sizeof(char *));
    mg_sort(a->problems, a->nproblems, sizeof(char *), cmp_str);
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
    free(a->problems);
    memset(a, 0, sizeof(*a));
}
