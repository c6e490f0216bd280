/*
 * summary.c - the summary's accumulators and their serialization (see summary.h).
 */
#include "summary.h"

#include <stdlib.h>
#include <string.h>

mg_callstat *mg_psum_call(mg_psum *s, uint64_t key, const char *call)
{
    uint64_t *slot = mg_xslot(&s->call_by_key, key, UINT64_MAX);
    if (*slot == UINT64_MAX) {
        *slot = s->ncalls;
        mg_callstat *c = MG_PUSH(s->calls, s->ncalls, s->capcalls);
        *c = (mg_callstat){.call = mg_xstrdup(call), .site = mg_xstrdup("")};
        hpa_mpi_sum_init(&c->s);
    }
    return &s->calls[*slot];
}

mg_callstat *mg_psum_site(mg_psum *s, uint64_t key, const char *call, const char *site)
{
    uint64_t *slot = mg_xslot(&s->site_by_key, key, UINT64_MAX);
    if (*slot == UINT64_MAX) {
        *slot = s->nsites;
        mg_callstat *c = MG_PUSH(s->sites, s->nsites, s->capsites);
        *c = (mg_callstat){.call = mg_xstrdup(call), .site = mg_xstrdup(site)};
        hpa_mpi_sum_init(&c->s);
    }
    return &s->sites[*slot];
}

mg_funcstat *mg_psum_func(mg_psum *s, uint64_t key, const char *name, const char *module)
{
    uint64_t *slot = mg_xslot(&s->func_by_key, key, UINT64_MAX);
    if (*slot == UINT64_MAX) {
        *slot = s->nfuncs;
        *MG_PUSH(s->funcs, s->nfuncs, s->capfuncs) =
            (mg_funcstat){.name = mg_xstrdup(name), .module = mg_xstrdup(module)};
    }
    return &s->funcs[*slot];
}

mg_ompstat *mg_psum_omp(mg_psum *s, uint64_t key, const char *name)
{
    uint64_t *slot = mg_xslot(&s->omp_by_key, key, UINT64_MAX);
    if (*slot == UINT64_MAX) {
        *slot = s->nomps;
        *MG_PUSH(s->omps, s->nomps, s->capomps) = (mg_ompstat){.name = mg_xstrdup(name)};
    }
    return &s->omps[*slot];
}

mg_ompthr *mg_psum_ompthr(mg_psum *s, uint32_t region, uint32_t seq)
{
    uint64_t *slot = mg_xslot(&s->ompthr_by_key, ((uint64_t)region << 32) | seq, UINT64_MAX);
    if (*slot == UINT64_MAX) {
        *slot = s->nompthr;
        *MG_PUSH(s->ompthr, s->nompthr, s->capompthr) = (mg_ompthr){.region = region, .seq = seq};
    }
    return &s->ompthr[*slot];
}

static void free_calls(mg_callstat *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].call);
        free(c[i].site);
    }
    free(c);
}

void mg_psum_done(mg_psum *s)
{
    hpa_u64map_free(&s->call_by_key);
    hpa_u64map_free(&s->site_by_key);
    hpa_u64map_free(&s->func_by_key);
    hpa_u64map_free(&s->omp_by_key);
    hpa_u64map_free(&s->ompthr_by_key);
}

void mg_psum_free(mg_psum *s)
{
    free(s->exe);
    free(s->argv);
    free(s->end_note);
    free(s->omp_runtime);
    free_calls(s->calls, s->ncalls);
    free_calls(s->sites, s->nsites);
    for (size_t i = 0; i < s->nfuncs; i++) {
        free(s->funcs[i].name);
        free(s->funcs[i].module);
    }
    free(s->funcs);
    for (size_t i = 0; i < s->nomps; i++)
        free(s->omps[i].name);
    free(s->omps);
    free(s->ompthr);
    for (size_t i = 0; i < s->nctrs; i++) {
        free(s->ctrs[i].name);
        free(s->ctrs[i].unit);
    }
    free(s->ctrs);
    hpa_u64map_free(&s->call_by_key);
    hpa_u64map_free(&s->site_by_key);
    hpa_u64map_free(&s->func_by_key);
    hpa_u64map_free(&s->omp_by_key);
    hpa_u64map_free(&s->ompthr_by_key);
    memset(s, 0, sizeof(*s));
}

void mg_tsum_free(mg_tsum *t)
{
    free(t->name);
    t->name = NULL;
}

/* ------------------------------------------------------------ serialization */

static void put_mpi_sum(hpa_buf *b, const hpa_mpi_sum *m)
{
    const uint64_t v[] = {m->calls,      m->time_ns,   m->min_ns,     m->max_ns, m->sends,
                          m->bytes_sent, m->recvs,     m->bytes_recv, m->other,  m->coll_calls,
                          m->coll_sent,  m->coll_recv, m->msg_min,    m->msg_max};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        hpa_buf_u64(b, v[i]);
}

static void get_mpi_sum(hpa_buf *b, hpa_mpi_sum *m)
{
    uint64_t *v[] = {&m->calls,      &m->time_ns,   &m->min_ns,     &m->max_ns, &m->sends,
                     &m->bytes_sent, &m->recvs,     &m->bytes_recv, &m->other,  &m->coll_calls,
                     &m->coll_sent,  &m->coll_recv, &m->msg_min,    &m->msg_max};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        *v[i] = hpa_buf_get_u64(b);
}

static void put_calls(hpa_buf *b, const mg_callstat *c, size_t n)
{
    hpa_buf_u64(b, n);
    for (size_t i = 0; i < n; i++) {
        hpa_buf_str(b, c[i].call);
        hpa_buf_str(b, c[i].site);
        put_mpi_sum(b, &c[i].s);
    }
}

static mg_callstat *get_calls(hpa_buf *b, size_t *n, size_t *cap)
{
    *n = hpa_buf_get_count(b);
    mg_callstat *c = mg_xcalloc(*n ? *n : 1, sizeof(*c));
    *cap = *n ? *n : 1;
    for (size_t i = 0; i < *n; i++) {
        c[i].call = mg_xbuf_str(b);
        c[i].site = mg_xbuf_str(b);
        get_mpi_sum(b, &c[i].s);
    }
    return c;
}

void mg_psum_write(hpa_buf *b, const mg_psum *s)
{
    hpa_buf_u64(b, s->pid);
    hpa_buf_str(b, s->exe);
    hpa_buf_str(b, s->argv);
    hpa_buf_u64(b, (uint64_t)s->has_begin | (uint64_t)s->has_end << 1 |
                       (uint64_t)s->ended_early << 2 | (uint64_t)s->placeholder << 3);
    hpa_buf_str(b, s->end_note);
    hpa_buf_u64(b, s->t_begin);
    hpa_buf_u64(b, s->t_end);
    hpa_buf_u64(b, s->os_cpu_ns);
    hpa_buf_u64(b, s->maxrss_kb);
    for (int i = 0; i < HPC_NSTATS; i++)
        hpa_buf_u64(b, s->stats[i]);
    hpa_buf_u64(b, s->clock_interval_ns);
    hpa_buf_u64(b, s->is_mpi);
    put_mpi_sum(b, &s->mpi);
    hpa_buf_u64(b, (uint64_t)s->win.has_init | (uint64_t)s->win.has_fin << 1 |
                       (uint64_t)s->win.aborted << 2);
    hpa_buf_u64(b, s->win.init_leave);
    hpa_buf_u64(b, s->win.fin_enter);
    hpa_buf_u64(b, s->win.last);
    hpa_buf_s64(b, s->win.abort_code);
    hpa_buf_s64(b, s->clock_offset_ns);
    put_calls(b, s->calls, s->ncalls);
    put_calls(b, s->sites, s->nsites);
    hpa_buf_u64(b, s->nfuncs);
    for (size_t i = 0; i < s->nfuncs; i++) {
        hpa_buf_str(b, s->funcs[i].name);
        hpa_buf_str(b, s->funcs[i].module);
        hpa_buf_u64(b, s->funcs[i].samples);
        hpa_buf_u64(b, s->funcs[i].excl_ns);
        hpa_buf_u64(b, s->funcs[i].incl_ns);
    }
    hpa_buf_u64(b, s->nomps);
    for (size_t i = 0; i < s->nomps; i++) {
        hpa_buf_str(b, s->omps[i].name);
        hpa_buf_u64(b, s->omps[i].instances);
        hpa_buf_u64(b, s->omps[i].wall_ns);
        hpa_buf_u64(b, s->omps[i].work_ns);
        hpa_buf_u64(b, s->omps[i].wait_ns);
    }
    hpa_buf_u64(b, s->nompthr);
    for (size_t i = 0; i < s->nompthr; i++) {
        hpa_buf_u64(b, s->ompthr[i].region);
        hpa_buf_u64(b, s->ompthr[i].seq);
        hpa_buf_u64(b, s->ompthr[i].work_ns);
        hpa_buf_u64(b, s->ompthr[i].wait_ns);
    }
    hpa_buf_u64(b, s->nctrs);
    for (size_t i = 0; i < s->nctrs; i++) {
        hpa_buf_str(b, s->ctrs[i].name);
        hpa_buf_str(b, s->ctrs[i].unit);
        hpa_buf_u64(b, s->ctrs[i].samples);
        hpa_buf_u64(b, s->ctrs[i].value);
    }
    hpa_buf_str(b, s->omp_runtime);
    hpa_buf_u64(b, s->heap_traced);
    for (int i = 0; i < MG_HEAP_NVALS; i++)
        hpa_buf_u64(b, s->heap[i]);
}

void mg_psum_read(hpa_buf *b, mg_psum *s)
{
    mg_psum_free(s);
    s->pid = hpa_buf_get_u64(b);
    s->exe = mg_xbuf_str(b);
    s->argv = mg_xbuf_str(b);
    uint64_t flags = hpa_buf_get_u64(b);
    s->has_begin = flags & 1;
    s->has_end = flags & 2;
    s->ended_early = flags & 4;
    s->placeholder = flags & 8;
    s->end_note = mg_xbuf_str(b);
    s->t_begin = hpa_buf_get_u64(b);
    s->t_end = hpa_buf_get_u64(b);
    s->os_cpu_ns = hpa_buf_get_u64(b);
    s->maxrss_kb = hpa_buf_get_u64(b);
    for (int i = 0; i < HPC_NSTATS; i++)
        s->stats[i] = hpa_buf_get_u64(b);
    s->clock_interval_ns = hpa_buf_get_u64(b);
    s->is_mpi = hpa_buf_get_u64(b) != 0;
    get_mpi_sum(b, &s->mpi);
    uint64_t wf = hpa_buf_get_u64(b);
    s->win.has_init = wf & 1;
    s->win.has_fin = wf & 2;
    s->win.aborted = wf & 4;
    s->win.init_leave = hpa_buf_get_u64(b);
    s->win.fin_enter = hpa_buf_get_u64(b);
    s->win.last = hpa_buf_get_u64(b);
    s->win.abort_code = hpa_buf_get_s64(b);
    s->clock_offset_ns = hpa_buf_get_s64(b);
    s->calls = get_calls(b, &s->ncalls, &s->capcalls);
    s->sites = get_calls(b, &s->nsites, &s->capsites);
    size_t n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_funcstat *f = MG_PUSH(s->funcs, s->nfuncs, s->capfuncs);
        f->name = mg_xbuf_str(b);
        f->module = mg_xbuf_str(b);
        f->samples = hpa_buf_get_u64(b);
        f->excl_ns = hpa_buf_get_u64(b);
        f->incl_ns = hpa_buf_get_u64(b);
    }
    n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_ompstat *o = MG_PUSH(s->omps, s->nomps, s->capomps);
        o->name = mg_xbuf_str(b);
        o->instances = hpa_buf_get_u64(b);
        o->wall_ns = hpa_buf_get_u64(b);
        o->work_ns = hpa_buf_get_u64(b);
        o->wait_ns = hpa_buf_get_u64(b);
    }
    n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_ompthr *o = MG_PUSH(s->ompthr, s->nompthr, s->capompthr);
        o->region = (uint32_t)hpa_buf_get_u64(b);
        o->seq = (uint32_t)hpa_buf_get_u64(b);
        o->work_ns = hpa_buf_get_u64(b);
        o->wait_ns = hpa_buf_get_u64(b);
    }
    n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_ctrstat *c = MG_PUSH(s->ctrs, s->nctrs, s->capctrs);
        c->name = mg_xbuf_str(b);
        c->unit = mg_xbuf_str(b);
        c->samples = hpa_buf_get_u64(b);
        c->value = hpa_buf_get_u64(b);
    }
    s->omp_runtime = mg_xbuf_str(b);
    s->heap_traced = hpa_buf_get_u64(b) != 0;
    for (int i = 0; i < MG_HEAP_NVALS; i++)
        s->heap[i] = hpa_buf_get_u64(b);
}

void mg_tsum_write(hpa_buf *b, const mg_tsum *t)
{
    hpa_buf_u64(b, t->seq);
    hpa_buf_u64(b, t->tid);
    hpa_buf_str(b, t->name);
    hpa_buf_u64(b, t->ended);
    const uint64_t v[] = {t->records,     t->damaged,         t->unknown,       t->events,
                          t->early,       t->repaired,        t->t_first,       t->t_last,
                          t->samples,     t->counter_samples, t->sample_cpu_ns, t->cpu_ns,
                          t->omp_work_ns, t->omp_wait_ns,     t->mpi_ns,        t->mpi_calls,
                          t->life_ns,     t->t_begin,         t->sync_ns,       t->sync_waits};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        hpa_buf_u64(b, v[i]);
    for (size_t i = 0; i < HPC_NMSTATES; i++)
        hpa_buf_u64(b, t->state_ns[i]);
}

void mg_tsum_read(hpa_buf *b, mg_tsum *t)
{
    mg_tsum_free(t);
    t->seq = (uint32_t)hpa_buf_get_u64(b);
    t->tid = hpa_buf_get_u64(b);
    t->name = mg_xbuf_str(b);
    t->ended = hpa_buf_get_u64(b) != 0;
    uint64_t *v[] = {&t->records,     &t->damaged,         &t->unknown,       &t->events,
                     &t->early,       &t->repaired,        &t->t_first,       &t->t_last,
                     &t->samples,     &t->counter_samples, &t->sample_cpu_ns, &t->cpu_ns,
                     &t->omp_work_ns, &t->omp_wait_ns,     &t->mpi_ns,        &t->mpi_calls,
                     &t->life_ns,     &t->t_begin,         &t->sync_ns,       &t->sync_waits};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        *v[i] = hpa_buf_get_u64(b);
    for (size_t i = 0; i < HPC_NMSTATES; i++)
        t->state_ns[i] = hpa_buf_get_u64(b);
}
