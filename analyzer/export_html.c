/*
 * export_html.c - `export html`: one self-contained page (no network, no files beside it)
 * with what a first look at a run needs:
 *
 *   summary     experiments, command, host, start, duration, processes and threads,
 *               sampled CPU, samples, view and filters
 *   MPI         time per rank: AppTime split into MPI time and the rest, as the mpi
 *               report computes them (mpi_stats.h), as a bar chart
 *   OpenMP      CPU time per thread in OpenMP work, wait, idle and overhead (the omp
 *               report's sampled figures), as stacked bars
 *   functions   the top functions by the export metric, exclusive and inclusive
 *   flame graph the interactive flame graph of export flamegraph
 *
 * Charts are inline SVG drawn here, so they need no script; the flame graph brings its own.
 * Elements carry their numbers for scripts and tests: MPI bars data-rank, data-app-s,
 * data-mpi-s; OpenMP bars data-rank, data-thread, data-work-s, data-wait-s; function rows
 * data-name, data-excl, data-incl (export metric, shown units). Section ids: summary, mpi,
 * omp, functions, flamegraph.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "mpi_stats.h"
#include "omp_proc.h"
#include "procinfo.h"
#include "report_util.h"
#include "view.h"

#define TOP_FUNCTIONS 25
#define CHART_W       900.0
#define BAR_H         22.0
#define LABEL_W       150.0

/* ------------------------------------------------------------------ MPI per rank */

typedef struct rank_mpi {
    bool mpi;
    hpa_mpi_sum sum;
    hpa_mpi_window w;
    char **names; /* mpi_fn id -> name */
    size_t nnames;
} rank_mpi;

typedef struct mpi_pass {
    rank_mpi *r;
    const hpa_profile *p;
    hpa_mpi_call call;
    size_t call_proc;
} mpi_pass;

static void mpi_flush(mpi_pass *M)
{
    if (!M->call.open)
        return;
    M->call.open = false;
    rank_mpi *r = &M->r[M->call_proc];
    const char *name = M->call.fn < r->nnames && r->names[M->call.fn] ? r->names[M->call.fn] : "";
    hpa_mpi_rank_add(&r->sum, &r->w, &M->call, hpa_mpi_is_lifecycle(name));
}

static void mpi_record(void *arg, const hpa_process *pr, const hpa_thread *t, const hpc_record *rec)
{
    mpi_pass *M = arg;
    (void)t;
    size_t i = (size_t)(pr - M->p->procs);
    if (!M->r[i].mpi)
        return;
    if (!rec) {
        mpi_flush(M);
        return;
    }
    switch (rec->kind) {
    case HPC_K_mpi_call:
        mpi_flush(M);
        hpa_mpi_call_open(&M->call, (uint32_t)rec->u.mpi_call.fn, &rec->u.mpi_call);
        M->call_proc = i;
        break;
    case HPC_K_mpi_p2p:
        if (M->call.open)
            hpa_mpi_call_p2p(&M->call, &rec->u.mpi_p2p);
        break;
    case HPC_K_mpi_coll:
        if (M->call.open)
            hpa_mpi_call_coll(&M->call, &rec->u.mpi_coll);
        break;
    case HPC_K_thread_end:
        hpa_mpi_window_seen(&M->r[i].w, rec->u.thread_end.time);
        break;
    default:
        break;
    }
}

static void rank_mpi_free(rank_mpi *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++) {
        for (size_t k = 0; k < r[i].nnames; k++)
            free(r[i].names[k]);
        free(r[i].names);
    }
    free(r);
}

/* MPI sums per process (NULL when out of memory); *any says whether there is MPI at all. */
static rank_mpi *mpi_per_rank(hpa_profile *p, bool *any)
{
    rank_mpi *r = calloc(p->nprocs + 1, sizeof(*r));
    *any = false;
    if (!r)
        return NULL;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpc_proc *proc = p->procs[i].proc;
        size_t it = 0;
        r[i].mpi = p->procs[i].map && (hpc_proc_next_of(proc, HPC_K_mpi_fn, &it) ||
                                       hpc_proc_next_of(proc, HPC_K_mpi_init, &(size_t){0}));
        if (!r[i].mpi)
            continue;
        *any = true;
        hpa_mpi_sum_init(&r[i].sum);
        hpa_mpi_window_init(&r[i].w, proc);
        it = 0;
        for (const hpc_record *rec; (rec = hpc_proc_next_of(proc, HPC_K_mpi_fn, &it));) {
            size_t id = rec->u.mpi_fn.id;
            if (id >= 100000)
                continue;
            if (id >= r[i].nnames) {
                char **v = realloc(r[i].names, sizeof(*v) * (id + 1));
                if (!v)
                    goto fail;
                memset(v + r[i].nnames, 0, sizeof(*v) * (id + 1 - r[i].nnames));
                r[i].names = v;
                r[i].nnames = id + 1;
            }
            char name[128];
            free(r[i].names[id]);
            r[i].names[id] = strdup(hpc_str_copy(name, sizeof(name), rec->u.mpi_fn.name));
        }
    }
    if (*any) {
        mpi_pass M = {.r = r, .p = p};
        if (hpa_profile_replay(p, NULL, mpi_record, &M))
            goto fail;
    }
    return r;
fail:
    rank_mpi_free(r, p->nprocs);
    return NULL;
}

/* ------------------------------------------------------------------ page parts */

static void head(FILE *f, const char *title)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", f);
    hpa_xml_text(f, title);
    fputs("</title>\n<style>\n"
          "body { font: 14px/1.4 -apple-system, 'Segoe UI', Verdana, sans-serif; margin: 24px;"
          " color: #222; background: #fff; max-width: 1240px }\n"
          "h1 { font-size: 22px } h2 { font-size: 17px; margin-top: 32px;"
          " border-bottom: 1px solid #ddd }\n"
          "table { border-collapse: collapse } td, th { padding: 3px 10px; text-align: left }\n"
          "table.kv th { color: #555; font-weight: normal }\n"
          "table.fn td.num, table.fn th.num { text-align: right; font-variant-numeric: "
          "tabular-nums }\n"
          "table.fn tr:nth-child(even) { background: #f6f6f6 }\n"
          ".bar { display: inline-block; height: 10px; background: #e8743b; vertical-align: middle "
          "}\n"
          ".note { color: #666 } svg text { font: 12px Verdana, sans-serif }\n"
          ".legend span { display: inline-block; width: 12px; height: 12px; margin: 0 4px 0 14px;"
          " vertical-align: middle }\n"
          "</style>\n</head>\n<body>\n",
          f);
}

static void kv(FILE *f, const char *k, const char *v)
{
    fputs("<tr><th>", f);
    hpa_xml_text(f, k);
    fputs("</th><td>", f);
    hpa_xml_text(f, v);
    fputs("</td></tr>\n", f);
}

static void filters_text(const hpa_ctx *ctx, char *buf, size_t cap)
{
    const hpa_filter *fl = &ctx->opts.filter;
    size_t n = 0;
    buf[0] = 0;
    if (fl->ranks.n)
        n += (size_t)snprintf(buf + n, cap - n, "ranks filtered; ");
    if (n < cap && fl->threads.n)
        n += (size_t)snprintf(buf + n, cap - n, "threads filtered; ");
    if (n < cap && fl->cpus.n)
        n += (size_t)snprintf(buf + n, cap - n, "cpus filtered; ");
    if (n < cap && fl->has_time)
        n += (size_t)snprintf(buf + n, cap - n, "time %.3f-%.3f s; ", (double)fl->t_lo_ns * 1e-9,
                              fl->t_hi_ns == UINT64_MAX ? 0.0 : (double)fl->t_hi_ns * 1e-9);
    if (n < cap && fl->has_samples)
        snprintf(buf + n, cap - n, "sample periods selected; ");
    if (!buf[0])
        snprintf(buf, cap, "none");
}

static void summary(hpa_ctx *ctx, FILE *f, const uint64_t *total)
{
    const hpa_profile *p = ctx->prof;
    char v[4096];
    size_t procs = 0, threads = 0;
    double duration = 0;
    for (size_t i = 0; i < p->nprocs; i++) {
        if (!p->procs[i].map)
            continue;
        procs++;
        threads += p->procs[i].nthreads;
        if (hpa_proc_duration(p->procs[i].proc) > duration)
            duration = hpa_proc_duration(p->procs[i].proc);
    }
    fputs("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"kv\">\n", f);
    for (unsigned e = 0; e < p->nexps; e++)
        kv(f, "Experiment", p->exps[e]->path);
    const hpc_proc *first = p->nprocs ? p->procs[0].proc : NULL;
    if (first && first->has_begin) {
        hpa_argv_line(first->begin.argv, v, sizeof(v));
        kv(f, "Command", v);
        char host[256], os[256];
        hpc_str_copy(host, sizeof(host), first->begin.host);
        hpc_str_copy(os, sizeof(os), first->begin.os);
        snprintf(v, sizeof(v), "%s (%s)", host, os);
        kv(f, "Host", v);
        hpa_start_text(first, v, sizeof(v));
        kv(f, "Started", v);
    }
    snprintf(v, sizeof(v), "%.3f s", duration);
    kv(f, "Duration", v);
    snprintf(v, sizeof(v), "%zu processes, %zu threads", procs, threads);
    kv(f, "Processes", v);
    snprintf(v, sizeof(v), "%.3f s in %" PRIu64 " samples",
             hpa_metric_value(&p->metrics, p->metrics.cpu, total[p->metrics.cpu]),
             total[p->metrics.samples]);
    kv(f, "Sampled CPU time", v);
    kv(f, "View", ctx->opts.view ? ctx->opts.view->name : "machine");
    filters_text(ctx, v, sizeof(v));
    kv(f, "Filters", v);
    fputs("</table></section>\n", f);
}

static int rank_of(const hpa_profile *p, size_t i)
{
    return p->procs[i].proc->rank >= 0 ? p->procs[i].proc->rank : (int)i;
}

static void mpi_chart(FILE *f, const hpa_profile *p, const rank_mpi *r)
{
    size_t n = 0;
    double max = 0;
    for (size_t i = 0; i < p->nprocs; i++)
        if (r[i].mpi) {
            n++;
            double app = (double)hpa_mpi_app_ns(&r[i].w) * 1e-9;
            if (app > max)
                max = app;
        }
    double h = 30 + n * (BAR_H + 6);
    fprintf(f, "<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
            CHART_W, h, CHART_W, h);
    double y = 8, scale = max > 0 ? (CHART_W - LABEL_W - 260) / max : 0;
    for (size_t i = 0; i < p->nprocs; i++) {
        if (!r[i].mpi)
            continue;
        double app = (double)hpa_mpi_app_ns(&r[i].w) * 1e-9;
        double mpi = (double)r[i].sum.time_ns * 1e-9;
        if (mpi > app)
            mpi = app;
        fprintf(f,
                "<g class=\"mpi-rank\" data-rank=\"%d\" data-app-s=\"%.9g\" data-mpi-s=\"%.9g\">"
                "<title>rank %d: AppTime %.3f s, MPI %.3f s (%.1f%%)</title>"
                "<text x=\"0\" y=\"%.1f\">rank %d</text>"
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"#4a78c2\"/>"
                "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"#c9c9c9\"/>"
                "<text x=\"%.1f\" y=\"%.1f\">%.3f s MPI of %.3f s (%.1f%%)</text></g>\n",
                rank_of(p, i), app, mpi, rank_of(p, i), app, mpi, app > 0 ? 100 * mpi / app : 0,
                y + 15, rank_of(p, i), LABEL_W, y, mpi * scale, BAR_H, LABEL_W + mpi * scale, y,
                (app - mpi) * scale, BAR_H, LABEL_W + app * scale + 8, y + 15, mpi, app,
                app > 0 ? 100 * mpi / app : 0);
        y += BAR_H + 6;
    }
    fputs("</svg>\n<div class=\"legend\"><span style=\"background:#4a78c2\"></span>MPI time"
          "<span style=\"background:#c9c9c9\"></span>rest of AppTime (MPI_Init to "
          "MPI_Finalize)</div>\n",
          f);
}

/* Sampled CPU per OpenMP category of one thread (enum hpa_omp_cat; MPI time is MPI's). */
static void omp_sums(const hpa_profile *p, const hpa_thread *t, uint64_t *cat)
{
    memset(cat, 0, sizeof(uint64_t) * HPA_OMP_CAT_COUNT);
    for (uint32_t b = 0; b < t->nbuckets; b++) {
        enum hpa_omp_cat c = hpa_omp_sample_cat(t->buckets[b].state);
        cat[c] += t->buckets[b].vals[p->metrics.cpu];
    }
}

static void omp_chart(FILE *f, const hpa_profile *p)
{
    static const char *const colors[HPA_OMP_CAT_COUNT] = {"#dddddd", "#4caf50", "#e53935",
                                                          "#b0bec5", "#ffb300"};
    size_t n = 0;
    double max = 0;
    uint64_t cat[HPA_OMP_CAT_COUNT];
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        for (uint32_t t = 0; pr->omp && pr->omp->ompt && t < pr->nthreads; t++) {
            omp_sums(p, &pr->threads[t], cat);
            double sum = (double)(cat[1] + cat[2] + cat[3] + cat[4]) * 1e-9;
            if (sum <= 0)
                continue;
            n++;
            if (sum > max)
                max = sum;
        }
    }
    double h = 10 + n * (BAR_H + 6), y = 6, scale = max > 0 ? (CHART_W - LABEL_W - 230) / max : 0;
    fprintf(f, "<svg class=\"chart\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
            CHART_W, h, CHART_W, h);
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        for (uint32_t t = 0; pr->omp && pr->omp->ompt && t < pr->nthreads; t++) {
            const hpa_thread *th = &pr->threads[t];
            omp_sums(p, th, cat);
            if (cat[1] + cat[2] + cat[3] + cat[4] == 0)
                continue;
            fprintf(
                f,
                "<g class=\"omp-thread\" data-rank=\"%d\" data-thread=\"%u\" data-work-s=\"%.9g\" "
                "data-wait-s=\"%.9g\" data-idle-s=\"%.9g\" data-overhead-s=\"%.9g\">"
                "<title>rank %d thread %u: work %.3f s, wait %.3f s, idle %.3f s, overhead "
                "%.3f s (CPU)</title><text x=\"0\" y=\"%.1f\">rank %d thread %u</text>",
                rank_of(p, i), th->seq, (double)cat[1] * 1e-9, (double)cat[2] * 1e-9,
                (double)cat[3] * 1e-9, (double)cat[4] * 1e-9, rank_of(p, i), th->seq,
                (double)cat[1] * 1e-9, (double)cat[2] * 1e-9, (double)cat[3] * 1e-9,
                (double)cat[4] * 1e-9, y + 15, rank_of(p, i), th->seq);
            double x = LABEL_W;
            for (int c = 1; c < 5; c++) {
                double w = (double)cat[c] * 1e-9 * scale;
                fprintf(f,
                        "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\"/>",
                        x, y, w, BAR_H, colors[c]);
                x += w;
            }
            fprintf(f, "<text x=\"%.1f\" y=\"%.1f\">work %.3f s, wait %.3f s</text></g>\n", x + 8,
                    y + 15, (double)cat[1] * 1e-9, (double)cat[2] * 1e-9);
            y += BAR_H + 6;
        }
    }
    fputs("</svg>\n<div class=\"legend\">", f);
    static const char *const names[HPA_OMP_CAT_COUNT] = {"", "work", "wait", "idle", "overhead"};
    for (int c = 1; c < 5; c++)
        fprintf(f, "<span style=\"background:%s\"></span>%s", colors[c], names[c]);
    fputs(" (sampled CPU time)</div>\n", f);
}

static void functions(hpa_ctx *ctx, FILE *f)
{
    const hpa_callgraph *g = hpa_ctx_callgraph(ctx);
    if (!g)
        return;
    const hpa_profile *p = ctx->prof;
    unsigned m = hpa_export_metric(ctx);
    const hpa_metric *me = &p->metrics.m[m];
    hpa_sortkey k = {.kind = 'e', .metric = m};
    uint32_t *ids = malloc(sizeof(*ids) * (g->nfuncs + 1));
    if (!ids)
        return;
    size_t n = 0;
    for (uint32_t id = 1; id < g->nfuncs; id++)
        if (hpa_any(hpa_cg_incl(g, id), g->nm))
            ids[n++] = id;
    hpa_sort_ids(ids, n, &k, g->excl, g->incl, g->nm, hpa_func_name_cb, p->syms);
    if (n > TOP_FUNCTIONS)
        n = TOP_FUNCTIONS;
    uint64_t tot = hpa_cg_incl(g, HPA_FUNC_TOTAL)[m];
    fprintf(f, "<table class=\"fn\"><tr><th class=\"num\">Exclusive</th><th class=\"num\">%%</th>"
               "<th></th><th class=\"num\">Inclusive</th><th class=\"num\">%%</th><th>Function</th>"
               "<th>Module</th></tr>\n");
    for (size_t i = 0; i < n; i++) {
        const hpa_func *fn = hpa_symtab_func(p->syms, ids[i]);
        uint64_t e = hpa_cg_excl(g, ids[i])[m], in = hpa_cg_incl(g, ids[i])[m];
        double ep = tot ? 100.0 * (double)e / (double)tot : 0,
               ip = tot ? 100.0 * (double)in / (double)tot : 0;
        fputs("<tr data-name=\"", f);
        hpa_xml_text(f, fn->name);
        fprintf(f,
                "\" data-excl=\"%.9g\" data-incl=\"%.9g\"><td class=\"num\">%.3f</td><td "
                "class=\"num\">%.2f</td><td><span class=\"bar\" style=\"width:%.0fpx\"></span></td>"
                "<td class=\"num\">%.3f</td><td class=\"num\">%.2f</td><td>",
                hpa_metric_value(&p->metrics, m, e), hpa_metric_value(&p->metrics, m, in),
                hpa_metric_value(&p->metrics, m, e), ep, ep * 2,
                hpa_metric_value(&p->metrics, m, in), ip);
        hpa_xml_text(f, fn->name);
        fputs("</td><td>", f);
        hpa_xml_text(f, fn->module);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    fprintf(f, "<p class=\"note\">%s%s%s; percentages of the total.</p>\n", me->title,
            me->unit[0] ? " in " : "", me->unit);
    free(ids);
}

int hpa_export_html(hpa_ctx *ctx, FILE *out)
{
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    bool any_mpi = false, any_omp = false;
    rank_mpi *r = mpi_per_rank(p, &any_mpi);
    if (!r) {
        fprintf(stderr, "hpanalyze: export html: out of memory\n");
        return HPA_EXIT_DATA;
    }
    for (size_t i = 0; i < p->nprocs; i++)
        any_omp |= p->procs[i].map && p->procs[i].omp && p->procs[i].omp->ompt;
    uint64_t total[HPA_MAX_METRICS];
    hpa_profile_total(p, total);
    char title[1200];
    snprintf(title, sizeof(title), "hpcollect report: %s%s", p->nexps ? p->exps[0]->path : "",
             p->nexps > 1 ? " and more" : "");
    head(out, title);
    fputs("<h1>", out);
    hpa_xml_text(out, title);
    fputs("</h1>\n", out);
    summary(ctx, out, total);
    fputs("<section id=\"mpi\"><h2>MPI time per rank</h2>\n", out);
    if (any_mpi)
        mpi_chart(out, p, r);
    else
        fputs("<p class=\"note\">No MPI in this experiment.</p>\n", out);
    fputs("</section>\n<section id=\"omp\"><h2>OpenMP work and wait per thread</h2>\n", out);
    if (any_omp)
        omp_chart(out, p);
    else
        fputs("<p class=\"note\">No OpenMP states were recorded (no OpenMP, or a runtime "
              "without OMPT).</p>\n",
              out);
    fputs("</section>\n<section id=\"functions\"><h2>Top functions</h2>\n", out);
    functions(ctx, out);
    fputs("</section>\n<section id=\"flamegraph\"><h2>Flame graph</h2>\n", out);
    fputs("<p class=\"note\">Hover for details, click to zoom, Escape or Reset Zoom to "
          "return.</p>\n",
          out);
    int rc = hpa_flamegraph_write(ctx, out, true, "fg-main");
    fprintf(out, "</section>\n<p class=\"note\">Made by hpanalyze %s.</p>\n</body>\n</html>\n",
            HPC_VERSION);
    rank_mpi_free(r, p->nprocs);
    return rc;
}
