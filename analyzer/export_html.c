/*
 * export_html.c - `export html`: the report a user opens first, one self-contained page
 * (no network, nothing beside it: it opens from disk in any current browser). Its script
 * (analyzer/report/report.js, built in) draws it from one JSON object the page carries:
 *
 *   summary     the run's facts; where each rank's time goes (its threads' lives split
 *               into the parts below); every metric's total per rank and thread
 *   timeline    a zoomable canvas, a row per rank and thread, a lane per layer (MPI calls,
 *               OpenMP regions, constructs and waits, and what tracers add: timeline.h),
 *               messages as lines on demand, tooltips with the call, bytes, peer and call
 *               site; large traces binned (export_html_timeline.c says the bound)
 *   MPI         the `mpi` report's numbers (mpi_model.c: the same document
 *               `hpanalyze --format json mpi` prints): time per rank, tables by call and
 *               call site with min, mean, max and COV across ranks, the communication
 *               matrix (messages and bytes), message sizes, collectives
 *   OpenMP      the `omp` report's threads: work, wait, idle, overhead and MPI per thread
 *   flame graph per rank, thread and metric, every metric the experiment has
 *   functions   the `functions` report (columns: the `metrics` selection), sortable and
 *               searchable, with each function's hottest source line; MPI call sites too
 *   tracers     a section per tracer (thread states, sync waits, heap, I/O) from one
 *               table (tracers[]): its metrics, its report, its timeline layer, or how
 *               to record it
 *
 * The reports are embedded as `--format json` prints them (one computation each), so the
 * filters, view, metrics, sort and limit apply to the page as to the text reports.
 *
 * Where the time goes (a row's "parts", in thread seconds; the rest is its life minus the
 * others, never below 0): MPI is the traced time in MPI calls (mpi_time; the CPU sampled
 * in MPI calls when MPI was not traced), then the sampled CPU time outside MPI calls by
 * the sample's OpenMP category (model/omp_model.h): computing (no OpenMP state, or
 * OpenMP work), OpenMP wait, OpenMP idle and overhead, then the off-CPU time the tracers
 * measure outside MPI calls (a row of parts[] each: its metrics).
 *
 * The data object: version, generator, title, view, filters, metrics_selected, facts
 * [[key, value]], metrics [{key, title, unit, time, visible, selected, total}], sort_metric,
 * procs [{index, rank, name, rows: [first, count]}], rows [{proc, rank, seq, tid, role,
 * label, life_s, totals: [shown value per metric], parts: [seconds per part]}], parts
 * [{key, label, color}], columns [{key, title, metric, kind}], reports {mpi, omp,
 * functions, tracer_<key>_<command>}, tracers [{key, title, record, layer, metrics:
 * [metric index], reports: [keys in reports]}], flame (export_html_flame.c), timeline
 * (export_html_timeline.c).
 * Tests and the page read these names.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_html.h"
#include "omp_proc.h"
#include "procinfo.h"
#include "report_util.h"
#include "timeline.h"
#include "view.h"

#define PAGE_MAX_FUNCTIONS 2000 /* functions listed when --limit does not say */

/* ------------------------------------------------------------------ the data stream */

/* The data goes into a <script> element: no '<' may appear in it (JSON allows \u003c in
 * strings, and '<' appears nowhere else). */
static ssize_t no_lt_write(void *cookie, const char *buf, size_t n)
{
    FILE *out = cookie;
    size_t from = 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == '<') {
            fwrite(buf + from, 1, i - from, out);
            fputs("\\u003c", out);
            from = i + 1;
        }
    fwrite(buf + from, 1, n - from, out);
    return ferror(out) ? -1 : (ssize_t)n;
}

static FILE *no_lt_stream(FILE *out)
{
    cookie_io_functions_t io = {.write = no_lt_write};
    return fopencookie(out, "w", io);
}

/* ------------------------------------------------------------------ facts */

static void ranges_text(const char *what, const hpa_ranges *r, char *buf, size_t cap, size_t *n)
{
    if (!r->n || *n >= cap)
        return;
    *n += (size_t)snprintf(buf + *n, cap - *n, "%s%s ", *n ? "; " : "", what);
    for (unsigned i = 0; i < r->n && *n < cap; i++)
        *n += r->r[i].lo == r->r[i].hi
                  ? (size_t)snprintf(buf + *n, cap - *n, "%s%" PRId64, i ? "," : "", r->r[i].lo)
                  : (size_t)snprintf(buf + *n, cap - *n, "%s%" PRId64 "-%" PRId64, i ? "," : "",
                                     r->r[i].lo, r->r[i].hi);
}

/* The filters as the options say them: "ranks 0,2; time 1.000-2.000 s", or "none". */
static void filters_text(const hpa_filter *f, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    ranges_text("ranks", &f->ranks, buf, cap, &n);
    ranges_text("threads", &f->threads, buf, cap, &n);
    ranges_text("cpus", &f->cpus, buf, cap, &n);
    if (f->has_time && n < cap) {
        n += (size_t)snprintf(buf + n, cap - n, "%stime %.3f-", n ? "; " : "",
                              (double)f->t_lo_ns * 1e-9);
        if (n < cap && f->t_hi_ns != UINT64_MAX)
            n += (size_t)snprintf(buf + n, cap - n, "%.3f", (double)f->t_hi_ns * 1e-9);
        if (n < cap)
            n += (size_t)snprintf(buf + n, cap - n, " s");
    }
    if (f->has_samples && n < cap)
        snprintf(buf + n, cap - n, "%ssample periods selected", n ? "; " : "");
    if (!buf[0])
        snprintf(buf, cap, "none");
}

static void fact(hpa_json *j, const char *k, const char *v)
{
    hpa_json_begin_arr(j);
    hpa_json_str(j, k);
    hpa_json_str(j, v);
    hpa_json_end_arr(j);
}

/* The first process the filters keep, or NULL. */
static const hpa_process *first_kept(const hpa_profile *p)
{
    for (size_t i = 0; i < p->nprocs; i++)
        if (p->procs[i].map)
            return &p->procs[i];
    return NULL;
}

static void facts_run(hpa_json *j, const hpa_profile *p, const hpa_process *first, char *v,
                      size_t cap)
{
    const hpc_proc *q = first->proc;
    if (q->has_begin) {
        hpa_argv_line(q->begin.argv, v, cap);
        fact(j, "Command", v);
        char host[256], os[256];
        hpc_str_copy(host, sizeof(host), q->begin.host);
        hpc_str_copy(os, sizeof(os), q->begin.os);
        snprintf(v, cap, "%s (%s)", host, os);
        fact(j, "Host", v);
        hpa_start_text(q, v, cap);
        fact(j, "Started", v);
    }
    double duration = 0;
    size_t procs = 0, threads = 0, ranks = 0;
    for (size_t i = 0; i < p->nprocs; i++) {
        if (!p->procs[i].map)
            continue;
        procs++;
        ranks += p->procs[i].proc->rank >= 0;
        threads += p->procs[i].nthreads;
        if (hpa_proc_duration(p->procs[i].proc) > duration)
            duration = hpa_proc_duration(p->procs[i].proc);
    }
    snprintf(v, cap, "%.3f s", duration);
    fact(j, "Duration", v);
    snprintf(v, cap, "%zu process%s (%zu MPI rank%s), %zu thread%s", procs, procs == 1 ? "" : "es",
             ranks, ranks == 1 ? "" : "s", threads, threads == 1 ? "" : "s");
    fact(j, "Processes", v);
    const hpc_record *r = hpc_proc_next_of(q, HPC_K_mpi_init, &(size_t){0});
    if (r) {
        hpc_str_copy(v, cap, r->u.mpi_init.library);
        fact(j, "MPI", v);
    }
    if (first->omp && hpa_omp_runtime_text(&first->omp->rt, v, cap))
        fact(j, "OpenMP", v);
    snprintf(v, cap, "%s, every %.3f ms", hpa_clock_source_name(q->settings.clock_source),
             (double)q->settings.clock_interval_ns * 1e-6);
    fact(j, "Clock profiling", q->settings.clock_interval_ns ? v : "off");
    hpa_end_text(q, v, cap);
    fact(j, "End", v);
}

static void facts(hpa_page *pg, const uint64_t *total)
{
    hpa_json *j = pg->j;
    const hpa_profile *p = pg->p;
    char v[4096];
    hpa_json_key(j, "facts");
    hpa_json_begin_arr(j);
    for (unsigned e = 0; e < p->nexps; e++)
        fact(j, "Experiment", p->exps[e]->path);
    const hpa_process *first = first_kept(p);
    if (first)
        facts_run(j, p, first, v, sizeof(v));
    snprintf(v, sizeof(v), "%.3f s in %" PRIu64 " samples",
             hpa_metric_value(&p->metrics, p->metrics.cpu, total[p->metrics.cpu]),
             total[p->metrics.samples]);
    fact(j, "Sampled CPU time", v);
    fact(j, "View", pg->ctx->opts.view ? pg->ctx->opts.view->name : "machine");
    filters_text(&p->filter, v, sizeof(v));
    fact(j, "Filters", v);
    hpa_metrics_sel_text(&p->metrics, v, sizeof(v));
    fact(j, "Metrics", v);
    hpa_json_end_arr(j);
}

/* ------------------------------------------------------------------ metrics, rows */

static void metrics(hpa_page *pg, const uint64_t *total)
{
    hpa_json *j = pg->j;
    const hpa_metrics *ms = &pg->p->metrics;
    hpa_json_key(j, "metrics");
    hpa_json_begin_arr(j);
    for (unsigned m = 0; m < ms->n; m++) {
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "key", ms->m[m].key);
        hpa_json_kstr(j, "title", ms->m[m].title);
        hpa_json_kstr(j, "unit", ms->m[m].unit);
        hpa_json_key(j, "time");
        hpa_json_bool(j, ms->m[m].time);
        hpa_json_key(j, "visible");
        hpa_json_bool(j, ms->m[m].visible);
        hpa_json_key(j, "selected");
        hpa_json_bool(j, hpa_metrics_selected(ms, m));
        hpa_json_kdouble(j, "scale", ms->m[m].scale);
        hpa_json_kdouble(j, "total", hpa_metric_value(ms, m, total[m]));
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
    hpa_json_ku64(j, "sort_metric", hpa_export_metric(pg->ctx));
}

/* The parts of a thread's life the summary shows, in order; the last is the rest. The
 * first four come from the samples (and MPI's traced time); each further part is the sum
 * of its metrics (`metrics`, ':'-separated keys) outside MPI calls, taken from what the
 * others leave of the thread's life, when the experiment has them: a tracer's off-CPU
 * time (thread states, sync waits, I/O) adds a row. Sync waits and I/O lie within the
 * thread states' User Lock and Other Wait, so they count only without thread states. */
enum { PART_COMPUTE, PART_MPI, PART_OMP_WAIT, PART_OMP_OTHER };
static const struct part {
    const char *key, *label, *color, *metrics;
    bool in_states; /* counted by the thread states when they were recorded */
} parts[] = {
    [PART_COMPUTE] = {"compute", "Computing (CPU)", "#4caf50", NULL, false},
    [PART_MPI] = {"mpi", "MPI", "#4a78c2", NULL, false},
    [PART_OMP_WAIT] = {"omp_wait", "OpenMP wait (CPU)", "#e53935", NULL, false},
    [PART_OMP_OTHER] = {"omp_other", "OpenMP idle and overhead (CPU)", "#ffb300", NULL, false},
    {"wait_cpu", "Waiting for a CPU", "#8e24aa", "wait_cpu", false},
    {"user_lock", "User lock", "#6d4c41", "user_lock", false},
    {"page_faults", "Page faults", "#00897b", "text_pf:data_pf", false},
    {"sync", "Sync waits", "#795548", "sync_wait", true},
    {"io", "I/O", "#26a69a", "ioreadtime:iowritetime:ioothertime:ioerrortime", true},
    {"other_wait", "Other wait (asleep)", "#9e9e9e", "other_wait", false},
    {"rest", "Off CPU or not sampled", "#d6d6d6", NULL, false},
};
#define NPARTS     (sizeof(parts) / sizeof(parts[0]))
#define PART_REST  (NPARTS - 1)
#define PART_FIRST (PART_OMP_OTHER + 1) /* the first part made of metrics */

/* The next name of a ':'-separated list *k into buf (cut to cap), *k moved past it; false
 * at the list's end (or for a NULL list). */
static bool list_next(const char **k, char *buf, size_t cap)
{
    if (!*k || !**k)
        return false;
    size_t len = strcspn(*k, ":");
    snprintf(buf, cap, "%.*s", (int)len, *k);
    *k += len + ((*k)[len] == ':');
    return true;
}

/* Up to 4 metric indexes of a ':'-separated key list (-1 where absent); returns how many. */
static unsigned metric_list(const hpa_metrics *ms, const char *keys, int *m)
{
    unsigned n = 0;
    char key[64];
    for (const char *k = keys; n < 4 && list_next(&k, key, sizeof key);)
        m[n++] = hpa_metrics_find(ms, key);
    return n;
}

/* A thread's life in ns: begin to end (the process's end without one), within --time. */
static uint64_t thread_life(const hpa_profile *p, const hpa_process *pr, const hpa_thread *t)
{
    uint64_t b = t->has_begin ? t->begin.time : pr->t0;
    uint64_t e = t->has_end ? t->end.time : pr->t0 + (uint64_t)(hpa_proc_duration(pr->proc) * 1e9);
    if (p->filter.has_time) {
        uint64_t lo = pr->t0 + p->filter.t_lo_ns;
        uint64_t hi = p->filter.t_hi_ns == UINT64_MAX ? e : pr->t0 + p->filter.t_hi_ns;
        b = b > lo ? b : lo;
        e = e < hi ? e : hi;
    }
    return e > b ? e - b : 0;
}

/* The metric parts (PART_FIRST on) of thread t: each its metrics' sum outside MPI calls. */
static void metric_parts(const hpa_profile *p, const hpa_thread *t, uint64_t *part)
{
    bool states = hpa_metrics_find(&p->metrics, "total_thread") >= 0;
    for (size_t k = PART_FIRST; k < PART_REST; k++) {
        int m[4];
        unsigned n = metric_list(&p->metrics, parts[k].metrics, m);
        if (parts[k].in_states && states)
            continue;
        for (uint32_t b = 0; b < t->nbuckets; b++)
            for (unsigned i = 0; i < n; i++)
                if (m[i] >= 0 && hpa_omp_sample_cat(t->buckets[b].state) != HPA_OMP_CAT_MPI)
                    part[k] += t->buckets[b].vals[m[i]];
    }
}

/* The parts of thread t (ns), from its buckets (see the top of the file). */
static void thread_parts(const hpa_profile *p, const hpa_process *pr, const hpa_thread *t,
                         uint64_t *part)
{
    uint64_t cat[HPA_OMP_CAT_COUNT] = {0}, mpi_time = 0;
    int mt = hpa_metrics_find(&p->metrics, "mpi_time");
    for (uint32_t b = 0; b < t->nbuckets; b++) {
        cat[hpa_omp_sample_cat(t->buckets[b].state)] += t->buckets[b].vals[p->metrics.cpu];
        if (mt >= 0)
            mpi_time += t->buckets[b].vals[mt];
    }
    memset(part, 0, sizeof(uint64_t) * NPARTS);
    part[PART_COMPUTE] = cat[HPA_OMP_CAT_NONE] + cat[HPA_OMP_CAT_WORK];
    part[PART_MPI] = mpi_time ? mpi_time : cat[HPA_OMP_CAT_MPI];
    part[PART_OMP_WAIT] = cat[HPA_OMP_CAT_WAIT];
    part[PART_OMP_OTHER] = cat[HPA_OMP_CAT_IDLE] + cat[HPA_OMP_CAT_OVERHEAD];
    metric_parts(p, t, part);
    uint64_t life = thread_life(p, pr, t), used = 0;
    for (size_t k = 0; k < PART_REST; k++) {
        if (k >= PART_FIRST && used + part[k] > life) /* what the others leave, no more */
            part[k] = life > used ? life - used : 0;
        used += part[k];
    }
    part[PART_REST] = life > used ? life - used : 0;
}

static void row(hpa_page *pg, size_t i, const hpa_process *pr, const hpa_thread *t)
{
    hpa_json *j = pg->j;
    const hpa_profile *p = pg->p;
    char label[256];
    const char *role = hpa_timeline_thread_role(pr, t);
    if (pr->proc->rank >= 0)
        snprintf(label, sizeof label, "rank %d thread %u", pr->proc->rank, t->seq);
    else
        snprintf(label, sizeof label, "%s thread %u", pr->proc->name, t->seq);
    hpa_json_begin_obj(j);
    hpa_json_ku64(j, "proc", i);
    hpa_json_ki64(j, "rank", pr->proc->rank);
    hpa_json_ku64(j, "seq", t->seq);
    hpa_json_ku64(j, "tid", t->tid);
    hpa_json_kstr(j, "role", role);
    hpa_json_kstr(j, "label", label);
    hpa_json_kdouble(j, "life_s", (double)thread_life(p, pr, t) * 1e-9);
    hpa_json_key(j, "totals");
    hpa_json_begin_arr(j);
    for (unsigned m = 0; m < p->metrics.n; m++) {
        uint64_t sum = 0;
        for (uint32_t b = 0; b < t->nbuckets; b++)
            sum += t->buckets[b].vals[m];
        hpa_json_double(j, hpa_metric_value(&p->metrics, m, sum));
    }
    hpa_json_end_arr(j);
    uint64_t part[NPARTS];
    thread_parts(p, pr, t, part);
    hpa_json_key(j, "parts");
    hpa_json_begin_arr(j);
    for (size_t k = 0; k < NPARTS; k++)
        hpa_json_double(j, (double)part[k] * 1e-9);
    hpa_json_end_arr(j);
    hpa_json_end_obj(j);
}

static void procs_and_rows(hpa_page *pg)
{
    hpa_json *j = pg->j;
    const hpa_profile *p = pg->p;
    hpa_json_key(j, "procs");
    hpa_json_begin_arr(j);
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        if (!pr->map)
            continue;
        hpa_json_begin_obj(j);
        hpa_json_ku64(j, "index", i);
        hpa_json_ki64(j, "rank", pr->proc->rank);
        hpa_json_kstr(j, "name", pr->proc->name);
        hpa_json_kstr(j, "experiment", p->exps[pr->exp]->path);
        hpa_json_key(j, "rows");
        fprintf(hpa_json_raw(j), "[%zu,%u]", pg->row0[i], pr->nthreads);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
    hpa_json_key(j, "rows");
    hpa_json_begin_arr(j);
    for (size_t i = 0; i < p->nprocs; i++)
        for (uint32_t t = 0; p->procs[i].map && t < p->procs[i].nthreads; t++)
            row(pg, i, &p->procs[i], &p->procs[i].threads[t]);
    hpa_json_end_arr(j);
    hpa_json_key(j, "parts");
    hpa_json_begin_arr(j);
    for (size_t k = 0; k < NPARTS; k++) {
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "key", parts[k].key);
        hpa_json_kstr(j, "label", parts[k].label);
        hpa_json_kstr(j, "color", parts[k].color);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
}

/* The functions table's columns: the text report's (hpa_cols: the `metrics` selection). */
static void columns(hpa_page *pg, const uint64_t *total)
{
    hpa_json *j = pg->j;
    hpa_cols c;
    hpa_cols_init(&c, &pg->p->metrics, "ei", true, total);
    hpa_json_key(j, "columns");
    hpa_json_begin_arr(j);
    for (unsigned k = 0; k < c.n; k++) {
        char key[256];
        hpa_col_key(&c, k, key, sizeof key);
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "key", key);
        hpa_json_ku64(j, "metric", c.c[k].metric);
        hpa_json_key(j, "kind");
        hpa_json_strn(j, &c.c[k].kind, 1);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
}

/* ------------------------------------------------------------------ reports */

/* The JSON document of report fn as `hpanalyze --format json` prints it. */
static int embed_report(hpa_page *pg, const char *key, hpa_cmd_fn fn)
{
    hpa_ctx *ctx = pg->ctx;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        return HPA_EXIT_DATA;
    FILE *out = ctx->out;
    enum hpa_format format = ctx->opts.format;
    ctx->out = mem;
    ctx->opts.format = HPA_JSON;
    int rc = fn(ctx, 0, NULL);
    ctx->out = out;
    ctx->opts.format = format;
    if (fclose(mem) != 0)
        rc = rc ? rc : HPA_EXIT_DATA;
    if (rc == 0 && len) {
        hpa_json_key(pg->j, key);
        fwrite(buf, 1, len, hpa_json_raw(pg->j));
    }
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------ tracers */

/*
 * The tracers' sections (thread states, sync waits, heap, I/O: issues 13-16), one row
 * each: the metrics that are its own (keys, and every key starting with prefix), the
 * hpanalyze commands whose JSON reports the section shows (those hpanalyze has), the
 * timeline layer its records draw, and how to record it, which the section says when the
 * experiment has none of its metrics. The page draws each section the same way (its
 * metrics per rank and thread, the functions holding most of its first metric, its
 * reports' tables), so a tracer needs only its row here. Lists are ':'-separated.
 */
static const struct tracer {
    const char *key, *title, *metrics, *prefix, *reports, *layer, *record;
} tracers[] = {
    {"states", "Thread states",
     "total_thread:user:system:wait_cpu:user_lock:text_pf:data_pf:other_wait:mpi_work:mpi_wait",
     NULL, NULL, "states",
     "hpcollect records them where the kernel allows (hpcollect -n says whether)"},
    {"sync", "Synchronization waits", "sync_wait:sync_count", "sync_", "syncs", "sync",
     "hpcollect -s on"},
    {"heap", "Heap", NULL, "heap_", "heap:leaks", "heap", "hpcollect -H on"},
    {"io", "I/O",
     "ioreadtime:iowritetime:ioothertime:ioerrortime:ioreadbytes:iowritebytes:ioreadcnt:"
     "iowritecnt:ioothercnt:ioerrorcnt",
     NULL, "ioactivity", "io", "hpcollect -i on"},
};

/* Whether metric m is tracer tr's. */
static bool tracer_metric(const struct tracer *tr, const hpa_metric *m)
{
    if (tr->prefix && strncmp(m->key, tr->prefix, strlen(tr->prefix)) == 0)
        return true;
    char key[64];
    for (const char *k = tr->metrics; list_next(&k, key, sizeof key);)
        if (strcmp(key, m->key) == 0)
            return true;
    return false;
}

/* Whether the experiment has something of tracer tr (a metric of it with a total). */
static bool tracer_recorded(const struct tracer *tr, const hpa_metrics *ms, const uint64_t *total)
{
    for (unsigned m = 0; m < ms->n; m++)
        if (tracer_metric(tr, &ms->m[m]) && total[m])
            return true;
    return false;
}

/* Member "tracers": [{key, title, record, layer, metrics: [index...], reports: [their
 * keys in member reports]}]: a recorded tracer's report CMD is reports.tracer_<key>_<CMD>
 * (when hpanalyze has that command). */
static void tracer_sections(hpa_page *pg, const uint64_t *total)
{
    hpa_json *j = pg->j;
    const hpa_metrics *ms = &pg->p->metrics;
    hpa_json_key(j, "tracers");
    hpa_json_begin_arr(j);
    for (size_t i = 0; i < sizeof(tracers) / sizeof(tracers[0]); i++) {
        const struct tracer *tr = &tracers[i];
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "key", tr->key);
        hpa_json_kstr(j, "title", tr->title);
        hpa_json_kstr(j, "record", tr->record);
        hpa_json_kstr(j, "layer", tr->layer);
        hpa_json_key(j, "metrics");
        hpa_json_begin_arr(j);
        for (unsigned m = 0; m < ms->n; m++)
            if (tracer_metric(tr, &ms->m[m]))
                hpa_json_u64(j, m);
        hpa_json_end_arr(j);
        hpa_json_key(j, "reports");
        hpa_json_begin_arr(j);
        char name[64], key[160];
        for (const char *k = tr->reports;
             tracer_recorded(tr, ms, total) && list_next(&k, name, sizeof name);)
            if (hpa_command_find(name)) {
                snprintf(key, sizeof key, "tracer_%s_%s", tr->key, name);
                hpa_json_str(j, key);
            }
        hpa_json_end_arr(j);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
}

/* The reports of the recorded tracers, in member "reports" (see above). A report that
 * fails (it says why on stderr) leaves its section without its tables. */
static void tracer_reports(hpa_page *pg, const uint64_t *total)
{
    const hpa_metrics *ms = &pg->p->metrics;
    for (size_t i = 0; i < sizeof(tracers) / sizeof(tracers[0]); i++) {
        const struct tracer *tr = &tracers[i];
        char name[64], key[160];
        for (const char *k = tr->reports;
             tracer_recorded(tr, ms, total) && list_next(&k, name, sizeof name);) {
            const hpa_command *cmd = hpa_command_find(name);
            snprintf(key, sizeof key, "tracer_%s_%s", tr->key, name);
            if (cmd && embed_report(pg, key, cmd->fn) != 0)
                fprintf(stderr, "hpanalyze: export html: the %s section goes without `%s`\n",
                        tr->title, name);
        }
    }
}

static int reports(hpa_page *pg, const uint64_t *total)
{
    hpa_json *j = pg->j;
    hpa_json_key(j, "reports");
    hpa_json_begin_obj(j);
    int rc = embed_report(pg, "mpi", cmd_mpi);
    if (rc == 0)
        rc = embed_report(pg, "omp", cmd_omp);
    unsigned long limit = pg->ctx->opts.limit;
    if (!limit) /* the page lists the top functions: a bound on its size */
        pg->ctx->opts.limit = PAGE_MAX_FUNCTIONS;
    if (rc == 0)
        rc = embed_report(pg, "functions", cmd_functions);
    pg->ctx->opts.limit = limit;
    if (rc == 0)
        tracer_reports(pg, total);
    hpa_json_end_obj(j);
    hpa_json_ku64(j, "functions_limit", limit ? limit : PAGE_MAX_FUNCTIONS);
    return rc;
}

/* ------------------------------------------------------------------ the page */

static void head(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width\">\n<title>",
          f);
    hpa_xml_text(f, title);
    fputs("</title>\n<style>\n", f);
    fputs(hpa_report_css, f);
    fputs("</style>\n</head>\n<body>\n<header><h1>", f);
    hpa_xml_text(f, title);
    fputs("</h1></header>\n<main id=\"report\"><noscript>This report draws itself with "
          "JavaScript; the data is in the element hpa-data.</noscript></main>\n",
          f);
}

static int data(hpa_page *pg, const char *title)
{
    hpa_json *j = pg->j;
    const hpa_profile *p = pg->p;
    uint64_t total[HPA_MAX_METRICS];
    hpa_profile_total(p, total);
    char v[1024];
    hpa_json_begin_obj(j);
    hpa_json_ku64(j, "version", 1);
    hpa_json_kstr(j, "generator", "hpanalyze " HPC_VERSION);
    hpa_json_kstr(j, "title", title);
    hpa_json_kstr(j, "view", pg->ctx->opts.view ? pg->ctx->opts.view->name : "machine");
    filters_text(&p->filter, v, sizeof v);
    hpa_json_kstr(j, "filters", v);
    facts(pg, total);
    metrics(pg, total);
    procs_and_rows(pg);
    columns(pg, total);
    int rc = reports(pg, total);
    tracer_sections(pg, total);
    if (rc == 0 && (rc = hpa_page_flame(pg)) != 0)
        fprintf(stderr, "hpanalyze: export html: %s\n", hpc_strerror(rc));
    if (rc == 0 && (rc = hpa_page_timeline(pg)) != 0)
        fprintf(stderr, "hpanalyze: export html: %s\n", hpc_strerror(rc));
    hpa_json_end_obj(j);
    return rc ? HPA_EXIT_DATA : HPA_EXIT_OK;
}

int hpa_export_html(hpa_ctx *ctx, FILE *out)
{
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p || !hpa_ctx_callgraph(ctx))
        return HPA_EXIT_DATA;
    hpa_page pg = {.ctx = ctx, .p = p};
    pg.row0 = calloc(p->nprocs + 1, sizeof(*pg.row0));
    if (!pg.row0) {
        fprintf(stderr, "hpanalyze: export html: out of memory\n");
        return HPA_EXIT_DATA;
    }
    for (size_t i = 0; i < p->nprocs; i++) {
        pg.row0[i] = pg.nrows;
        pg.nrows += p->procs[i].map ? p->procs[i].nthreads : 0;
    }
    char title[1200];
    snprintf(title, sizeof(title), "hpcollect report: %s%s", p->nexps ? p->exps[0]->path : "",
             p->nexps > 1 ? " and more" : "");
    head(out, title);
    fputs("<script type=\"application/json\" id=\"hpa-data\">\n", out);
    FILE *d = no_lt_stream(out);
    int rc = HPA_EXIT_DATA;
    if (d) {
        hpa_json j;
        hpa_json_init(&j, d);
        pg.j = &j;
        rc = data(&pg, title);
        if (fclose(d) != 0)
            rc = HPA_EXIT_DATA;
    }
    fputs("</script>\n<script>\n", out);
    fputs(hpa_report_js, out);
    fputs("</script>\n</body>\n</html>\n", out);
    free(pg.row0);
    return rc;
}
