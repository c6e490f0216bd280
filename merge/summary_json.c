/*
 * summary_json.c - summary.json, for scripts: a stable interface.
 *
 *   {
 *     "experiment": "/path/solver.1.hpc",
 *     "command": "./solver 200",
 *     "run": { "world_size", "ranks", "processes", "threads", "hosts": [...],
 *              "duration_s", "samples", "counter_samples", "sampled_cpu_s", "os_cpu_s",
 *              "events", "records", "damaged_records", "collector": {stat: n, ...},
 * },
 *     "processes": [ { "rank" (null if not an MPI rank), "name", "host", "pid", "end",
 *                      "missing", "ended_early", "app_time_s", "mpi_time_s", "mpi_calls",
 *                      "mpi_sends", "mpi_bytes_sent", "mpi_receives",
 *                      "mpi_bytes_received", "mpi_other_calls", "coll_calls", "coll_bytes_sent",
 *                      "coll_bytes_received", "clock_offset_ns", "os_cpu_s",
 *                      "sampled_cpu_s", "samples", "omp_work_s", "omp_wait_s",
 *                      "sync_wait_s", "sync_waits" (-s: recorded waits),
 *                      "counters": {name: total},
 *                      "threads": [ { "thread", "tid", "name", "samples",
 *                                     "sampled_cpu_s", "cpu_s", "omp_work_s",
 *                                     "omp_wait_s", "mpi_time_s", "mpi_calls",
 *                                     "sync_wait_s", "sync_waits", "events",
 *                                     "records", "damaged_records", "early_events",
 *                                     "repaired" } ] } ],
 *     "mpi_calls":     [ { "call", "calls", "time_s", "mean_call_s", "min_call_s",
 *                          "max_call_s", "sends", "bytes_sent", "receives",
 *                          "bytes_received", "coll_bytes_sent", "coll_bytes_received",
 *                          "ranks" (that made the call), "rank_time_s": {min, mean, max,
 *                          cov} over those ranks, "cov" (as hpanalyze mpi),
 *                          "rank_calls": {min, mean, max, cov} } ],
 *     "mpi_callsites": [ the same with "site" ],
 *     "omp_regions":   [ { "region", "instances", "wall_s", "omp_work_s", "omp_wait_s",
 *                          "threads": [ { "rank", "process", "thread", "omp_work_s",
 *                                         "omp_wait_s" } ] } ],
 *     "functions":     [ { "function", "module", "samples", "exclusive_s",
 *                          "inclusive_s" } ]   (the top --top, by exclusive time)
 *     "counters":      [ { "counter", "unit", "samples", "total" } ],
 *     "problems":      [ "text", ... ]
 *   }
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "summary.h"
#include "summary_agg.h"

/* Characters JSON escapes as a backslash and a letter, and those escapes; the other
 * control characters become \u00XX. */
static const char short_escaped[] = "\"\\\n\t\r";
static const char *const short_escapes[] = {"\\\"", "\\\\", "\\n", "\\t", "\\r"};

static void jchar(FILE *f, unsigned char c)
{
    const char *e = c ? strchr(short_escaped, c) : NULL;
    if (e)
        fputs(short_escapes[e - short_escaped], f);
    else if (c < 0x20)
        fprintf(f, "\\u%04x", c);
    else
        fputc(c, f);
}

static void jstr(FILE *f, const char *raw)
{
    char *s = mg_utf8_clean(raw ? raw : ""); /* JSON is UTF-8 */
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        jchar(f, *p);
    fputc('"', f);
    free(s);
}

static void key(FILE *f, bool *first, const char *k)
{
    fputs(*first ? "" : ", ", f);
    *first = false;
    jstr(f, k);
    fputs(": ", f);
}

static void ku(FILE *f, bool *first, const char *k, uint64_t v)
{
    key(f, first, k);
    fprintf(f, "%" PRIu64, v);
}

/* A number as hpanalyze's JSON writes it (analyzer/output.c): 12 digits, ns exact up to
 * 1000 s (9 digits rounded times over 1 s to 10 ns: a summary time then differed from
 * hpanalyze's), null when not finite. */
static void num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.12g", v);
    else
        fputs("null", f);
}

static void kd(FILE *f, bool *first, const char *k, double v)
{
    key(f, first, k);
    num(f, v);
}

static void ks(FILE *f, bool *first, const char *k, const char *v)
{
    key(f, first, k);
    jstr(f, v);
}

static void kb(FILE *f, bool *first, const char *k, bool v)
{
    key(f, first, k);
    fputs(v ? "true" : "false", f);
}

static double s_of(uint64_t ns)
{
    return ns / 1e9;
}

static void spread(FILE *f, bool *first, const char *k, mg_spread s)
{
    key(f, first, k);
    fputs("{\"min\": ", f);
    num(f, s.min);
    fputs(", \"mean\": ", f);
    num(f, s.mean);
    fputs(", \"max\": ", f);
    num(f, s.max);
    fputs(", \"cov\": ", f);
    num(f, s.cov);
    fputc('}', f);
}

static void run_obj(FILE *f, const mg_agg *a)
{
    const mg_job *job = a->job;
    bool first = true;
    fputs("  \"run\": {", f);
    key(f, &first, "world_size");
    fprintf(f, "%lld", (long long)job->world_size);
    ku(f, &first, "ranks", a->nranks);
    ku(f, &first, "processes", a->nprocs_data);
    ku(f, &first, "threads", a->nthreads);
    key(f, &first, "hosts");
    fputc('[', f);
    for (size_t h = 0; h < a->nhosts; h++) {
        fputs(h ? ", " : "", f);
        jstr(f, a->hosts[h]);
    }
    fputc(']', f);
    ks(f, &first, "collect_command", job->collect_command);
    ks(f, &first, "hpcollect_version", job->version);
    kd(f, &first, "duration_s", a->have_events ? s_of(a->t1 - a->t0) : 0.0);
    ku(f, &first, "samples", a->samples);
    ku(f, &first, "counter_samples", a->counter_samples);
    kd(f, &first, "sampled_cpu_s", s_of(a->sampled_cpu_ns));
    kd(f, &first, "os_cpu_s", s_of(a->os_cpu_ns));
    ku(f, &first, "events", a->events);
    ku(f, &first, "records", a->records);
    ku(f, &first, "damaged_records", a->damaged);
    key(f, &first, "collector");
    fputc('{', f);
    bool f2 = true;
    for (unsigned i = 0; i < HPC_NSTATS; i++) {
        const char *name = hpc_stat_name(i);
        if (name)
            ku(f, &f2, name, a->stats[i]);
    }
    fputc('}', f);
    fputs("},\n", f);
}

/* Thread states: user_s ... other_wait_s, total_thread_s and life_s (the thread's or the
 * process's threads' recorded lives). */
static void states_keys(FILE *f, bool *first, const uint64_t *ns, uint64_t life_ns)
{
    static const char *const keys[HPC_NMSTATES] = {"user_s",      "system_s",  "wait_cpu_s",
                                                   "user_lock_s", "text_pf_s", "data_pf_s",
                                                   "other_wait_s"};
    uint64_t total = 0;
    for (unsigned m = 0; m < HPC_NMSTATES; m++) {
        kd(f, first, keys[m], s_of(ns[m]));
        total += ns[m];
    }
    kd(f, first, "total_thread_s", s_of(total));
    kd(f, first, "life_s", s_of(life_ns));
}

static void thread_obj(FILE *f, const mg_tsum *t)
{
    bool first = true;
    fputc('{', f);
    ku(f, &first, "thread", t->seq);
    ku(f, &first, "tid", t->tid);
    ks(f, &first, "name", t->name);
    ku(f, &first, "samples", t->samples);
    kd(f, &first, "sampled_cpu_s", s_of(t->sample_cpu_ns));
    kd(f, &first, "cpu_s", s_of(t->cpu_ns));
    kd(f, &first, "omp_work_s", s_of(t->omp_work_ns));
    kd(f, &first, "omp_wait_s", s_of(t->omp_wait_ns));
    kd(f, &first, "mpi_time_s", s_of(t->mpi_ns));
    ku(f, &first, "mpi_calls", t->mpi_calls);
    kd(f, &first, "sync_wait_s", s_of(t->sync_ns));
    ku(f, &first, "sync_waits", t->sync_waits);
    ku(f, &first, "events", t->events);
    ku(f, &first, "records", t->records);
    ku(f, &first, "damaged_records", t->damaged);
    ku(f, &first, "early_events", t->early);
    ku(f, &first, "repaired", t->repaired);
    states_keys(f, &first, t->state_ns, t->life_ns);
    fputc('}', f);
}

static void process_obj(FILE *f, const mg_proc *p)
{
    const mg_psum *s = &p->sum;
    bool first = true;
    uint64_t samples = 0, sampled = 0, work = 0, wait = 0, states[HPC_NMSTATES] = {0}, lives = 0;
    uint64_t sync_ns = 0, sync_waits = 0;
    for (size_t k = 0; k < p->nlocs; k++) {
        sync_ns += p->locs[k].sum.sync_ns;
        sync_waits += p->locs[k].sum.sync_waits;
        samples += p->locs[k].sum.samples;
        sampled += p->locs[k].sum.sample_cpu_ns;
        work += p->locs[k].sum.omp_work_ns;
        wait += p->locs[k].sum.omp_wait_ns;
        for (unsigned m = 0; m < HPC_NMSTATES; m++)
            states[m] += p->locs[k].sum.state_ns[m];
        lives += p->locs[k].sum.life_ns;
    }
    fputs("    {", f);
    key(f, &first, "rank");
    if (p->rank >= 0 && (uint64_t)p->rank == p->group)
        fprintf(f, "%lld", (long long)p->rank);
    else
        fputs("null", f);
    ks(f, &first, "name", p->name);
    ks(f, &first, "host", p->host);
    ku(f, &first, "pid", s->pid);
    ks(f, &first, "end", s->end_note);
    ks(f, &first, "omp_runtime", s->omp_runtime ? s->omp_runtime : "");
    kb(f, &first, "missing", p->placeholder);
    kb(f, &first, "ended_early", s->ended_early);
    kd(f, &first, "app_time_s", s_of(mg_proc_app_ns(p)));
    kd(f, &first, "mpi_time_s", s_of(s->mpi.time_ns));
    ku(f, &first, "mpi_calls", s->mpi.calls);
    ku(f, &first, "mpi_sends", s->mpi.sends);
    ku(f, &first, "mpi_bytes_sent", s->mpi.bytes_sent);
    ku(f, &first, "mpi_receives", s->mpi.recvs);
    ku(f, &first, "mpi_bytes_received", s->mpi.bytes_recv);
    ku(f, &first, "mpi_other_calls", s->mpi.other);
    ku(f, &first, "coll_calls", s->mpi.coll_calls);
    ku(f, &first, "coll_bytes_sent", s->mpi.coll_sent);
    ku(f, &first, "coll_bytes_received", s->mpi.coll_recv);
    key(f, &first, "clock_offset_ns");
    fprintf(f, "%lld", (long long)s->clock_offset_ns);
    kd(f, &first, "os_cpu_s", s_of(s->os_cpu_ns));
    kd(f, &first, "sampled_cpu_s", s_of(sampled));
    ku(f, &first, "samples", samples);
    kd(f, &first, "omp_work_s", s_of(work));
    kd(f, &first, "omp_wait_s", s_of(wait));
    key(f, &first, "thread_states");
    if (!mg_proc_has_states(p)) {
        fputs("null", f);
    } else {
        fputc('{', f);
        bool f3 = true;
        states_keys(f, &f3, states, lives);
        fputc('}', f);
    }
    kd(f, &first, "sync_wait_s", s_of(sync_ns));
    ku(f, &first, "sync_waits", sync_waits);
    for (int k = 0; s->heap_traced && k < MG_HEAP_NVALS; k++) {
        char name[64];
        snprintf(name, sizeof name, "heap_%s", mg_heap_keys[k]);
        ku(f, &first, name, s->heap[k]);
    }
    key(f, &first, "counters");
    fputc('{', f);
    bool f2 = true;
    for (size_t k = 0; k < s->nctrs; k++)
        ku(f, &f2, s->ctrs[k].name, s->ctrs[k].value);
    fputc('}', f);
    key(f, &first, "threads");
    fputs("[\n", f);
    for (size_t k = 0; k < p->nlocs; k++) {
        fputs("      ", f);
        thread_obj(f, &p->locs[k].sum);
        fputs(k + 1 < p->nlocs ? ",\n" : "\n", f);
    }
    fputs("    ]}", f);
}

static void calls_arr(FILE *f, const char *name, const mg_aggcall *c, size_t n, bool sites)
{
    fprintf(f, "  \"%s\": [", name);
    for (size_t i = 0; i < n; i++) {
        bool first = true;
        fputs(i ? ",\n    {" : "\n    {", f);
        ks(f, &first, "call", c[i].call);
        if (sites)
            ks(f, &first, "site", c[i].site);
        const hpa_mpi_sum *m = &c[i].s;
        ku(f, &first, "calls", m->calls);
        kd(f, &first, "time_s", s_of(m->time_ns));
        kd(f, &first, "mean_call_s", m->calls ? s_of(m->time_ns) / (double)m->calls : 0.0);
        kd(f, &first, "min_call_s", m->calls ? s_of(m->min_ns) : 0.0);
        kd(f, &first, "max_call_s", s_of(m->max_ns));
        ku(f, &first, "sends", m->sends);
        ku(f, &first, "bytes_sent", m->bytes_sent);
        ku(f, &first, "receives", m->recvs);
        ku(f, &first, "bytes_received", m->bytes_recv);
        ku(f, &first, "coll_bytes_sent", m->coll_sent);
        ku(f, &first, "coll_bytes_received", m->coll_recv);
        ku(f, &first, "ranks", c[i].ranks);
        spread(f, &first, "rank_time_s", c[i].time);
        kd(f, &first, "cov", c[i].cov);
        spread(f, &first, "rank_calls", c[i].count);
        fputc('}', f);
    }
    fputs(n ? "\n  ],\n" : "],\n", f);
}

static void omp_arr(FILE *f, const mg_agg *a)
{
    fputs("  \"omp_regions\": [", f);
    for (size_t i = 0; i < a->nomps; i++) {
        const mg_aggomp *o = &a->omps[i];
        bool first = true;
        fputs(i ? ",\n    {" : "\n    {", f);
        ks(f, &first, "region", o->name);
        ku(f, &first, "instances", o->instances);
        kd(f, &first, "wall_s", s_of(o->wall_ns));
        kd(f, &first, "omp_work_s", s_of(o->work_ns));
        kd(f, &first, "omp_wait_s", s_of(o->wait_ns));
        key(f, &first, "threads");
        fputc('[', f);
        for (size_t k = 0; k < o->nthreads; k++) {
            const mg_aggompthr *t = &o->threads[k];
            bool f2 = true;
            fputs(k ? ", {" : "{", f);
            key(f, &f2, "rank");
            if (t->rank >= 0)
                fprintf(f, "%lld", (long long)t->rank);
            else
                fputs("null", f);
            ks(f, &f2, "process", t->proc);
            ku(f, &f2, "thread", t->seq);
            kd(f, &f2, "omp_work_s", s_of(t->work_ns));
            kd(f, &f2, "omp_wait_s", s_of(t->wait_ns));
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs(a->nomps ? "\n  ],\n" : "],\n", f);
}

static void funcs_arr(FILE *f, const mg_agg *a)
{
    fputs("  \"functions\": [", f);
    size_t n = a->nfuncs < a->job->top ? a->nfuncs : a->job->top;
    for (size_t i = 0; i < n; i++) {
        const mg_aggfunc *fn = &a->funcs[i];
        bool first = true;
        fputs(i ? ",\n    {" : "\n    {", f);
        ks(f, &first, "function", fn->name);
        ks(f, &first, "module", fn->module);
        ku(f, &first, "samples", fn->samples);
        kd(f, &first, "exclusive_s", s_of(fn->excl_ns));
        kd(f, &first, "inclusive_s", s_of(fn->incl_ns));
        fputc('}', f);
    }
    fputs(n ? "\n  ],\n" : "],\n", f);
}

static void io_sum(FILE *f, bool *first, const hpa_io_sum *s)
{
    static const char *const cls[HPA_IO_NCLASS] = {"read", "write", "other", "error"};
    char k[64];
    for (unsigned c = 0; c < HPA_IO_NCLASS; c++) {
        snprintf(k, sizeof k, "%s_time_s", cls[c]);
        kd(f, first, k, s_of(s->ns[c]));
        if (c == HPA_IO_READ || c == HPA_IO_WRITE) {
            snprintf(k, sizeof k, "%s_bytes", cls[c]);
            ku(f, first, k, s->bytes[c]);
        }
        snprintf(k, sizeof k, "%s_count", cls[c]);
        ku(f, first, k, s->count[c]);
    }
}

static void io_proc(FILE *f, bool *first, const mg_job *job, uint32_t proc)
{
    const hpc_proc *p = &job->exp->procs[proc];
    ks(f, first, "process", p->name);
    key(f, first, "rank");
    if (p->rank >= 0)
        fprintf(f, "%d", p->rank);
    else
        fputs("null", f);
}

/* "io": {"processes": [per process totals], "files": [every file: totals, shared, its
 * processes' parts, the slowest], "shared_files", "single_process_files"}; absent without -i. */
static void io_obj(FILE *f, const mg_job *job)
{
    mg_io m;
    if (!mg_summary_io(job, &m))
        return;
    fputs("  \"io\": {\"processes\": [", f);
    for (size_t i = 0; i < m.nprocs; i++) {
        bool first = true;
        fputs(i ? ",\n    {" : "\n    {", f);
        io_proc(f, &first, job, (uint32_t)i);
        io_sum(f, &first, &m.procs[i]);
        fputc('}', f);
    }
    fprintf(f,
            "],\n    \"shared_files\": %" PRIu32 ", \"single_process_files\": %" PRIu32
            ",\n    \"files\": [",
            m.shared, m.single);
    for (uint32_t k = 0; k < m.nfiles; k++) {
        const hpa_io_file *fl = &m.io.files[m.order[k]];
        bool first = true;
        fputs(k ? ",\n    {" : "\n    {", f);
        ks(f, &first, "path", hpa_strtab_get(&m.io.paths, fl->path));
        io_sum(f, &first, &fl->s);
        kd(f, &first, "bandwidth_bytes_per_s", hpa_io_bandwidth(&fl->s));
        kb(f, &first, "shared", fl->nshares > 1);
        key(f, &first, "slowest");
        fputc('{', f);
        bool sf = true;
        io_proc(f, &sf, job, fl->shares[mg_summary_io_slowest(fl)].proc);
        fputc('}', f);
        key(f, &first, "processes");
        fputc('[', f);
        for (uint32_t i = 0; i < fl->nshares; i++) {
            bool pf = true;
            fputs(i ? ", {" : "{", f);
            io_proc(f, &pf, job, fl->shares[i].proc);
            io_sum(f, &pf, &fl->shares[i].s);
            fputc('}', f);
        }
        fputs("]}", f);
    }
    fputs(m.nfiles ? "\n  ]},\n" : "]},\n", f);
    mg_summary_io_free(&m);
}

void mg_summary_rows_json(FILE *f, const mg_proc *p, bool first)
{
    if (!first)
        fputs(",\n", f);
    process_obj(f, p);
}

int mg_summary_write_json(const mg_summary *s, FILE *f)
{
    const mg_job *job = s->job;
    const mg_agg *a = &s->agg;
    fputs("{\n  \"experiment\": ", f);
    jstr(f, job->path);
    fputs(",\n  \"command\": ", f);
    jstr(f, job->command);
    fputs(",\n", f);
    run_obj(f, a);
    fputs("  \"processes\": [\n", f);
    int bad = mg_summary_copy(s, MG_ROWS_JSON, f);
    fputs(s->nadded ? "\n  ],\n" : "  ],\n", f);
    calls_arr(f, "mpi_calls", a->calls, a->ncalls, false);
    calls_arr(f, "mpi_callsites", a->sites, a->nsites, true);
    omp_arr(f, a);
    funcs_arr(f, a);
    io_obj(f, job);
    fputs("  \"counters\": [", f);
    for (size_t i = 0; i < a->nctrs; i++) {
        bool first = true;
        fputs(i ? ", {" : "{", f);
        ks(f, &first, "counter", a->ctrs[i].name);
        ks(f, &first, "unit", a->ctrs[i].unit);
        ku(f, &first, "samples", a->ctrs[i].samples);
        ku(f, &first, "total", a->ctrs[i].value);
        fputc('}', f);
    }
    fputs("],\n  \"problems\": [", f);
    for (size_t i = 0; i < a->nproblems; i++) {
        fputs(i ? ",\n    " : "\n    ", f);
        jstr(f, a->problems[i]);
    }
    fputs(a->nproblems ? "\n  ]\n}\n" : "]\n}\n", f);
    return ferror(f) || bad ? -1 : 0;
}
