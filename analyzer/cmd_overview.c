/*
 * cmd_overview.c - `overview`: the experiments, the metrics with their totals, and each
 * process's sample periods with the rusage figures of the sample points that bound them,
 * as er_print's overview (and its sample list) show them:
 *
 *     Experiment      : prog.1.hpc
 *       Target        : './prog 3'
 *       Host          : vm (Linux 6.1 x86_64)
 *       Start Time    : Sun Nov 22 01:09:11 2026
 *       Duration      : 1.149 Seconds
 *       Processes     : 1 (threads: 2)
 *
 *     Metrics:
 *       [X] Total CPU (cpu), sec.: [1.160]
 *       [ ] Samples (samples): [1160]
 *       [X] page-faults (page-faults), events: [20000] (counted all the time)
 *
 *     Sample periods of process main:
 *      Sample Label      Start     End Duration   User  System MinFlt MajFlt InBlk OutBlk  VCSw
 * IVCSw 1 A done     0.000   0.301    0.301  0.300   0.001     12      0     0      0     1     3
 *
 * Period k runs from sample point k-1 to sample point k and carries the label of the point
 * that ends it (filter.h); its figures are the differences of the two points' cumulative
 * rusage. `--samples K` or `--samples LABEL` keeps those periods in every report.
 *
 * A process recorded with heap tracing (-H) has one more column, Heap: the bytes in use
 * at the point that ends the period (model/heap.h; CSV and JSON heap_in_use).
 *
 * CSV: the periods: process,rank,sample,label,reason,start_s,end_s,duration_s,user_s,
 * system_s,minflt,majflt,inblock,oublock,nvcsw,nivcsw[,heap_in_use]. JSON: {"report":"overview",
 * "experiments":[...], "metrics":[...], "processes":[{"name","rank","periods":[...]}]}.
 */
#include <inttypes.h>
#include <string.h>

#include "heap.h"
#include "procinfo.h"
#include "report_util.h"

/* One period: between two sample points. */
typedef struct period {
    unsigned index;
    const hpc_rec_sample_point *from, *to;
} period;

static void delta_fields(const period *d, uint64_t *v)
{
    const hpc_rec_sample_point *a = d->from, *b = d->to;
    const uint64_t fa[] = {a->minflt, a->majflt, a->inblock, a->oublock, a->nvcsw, a->nivcsw};
    const uint64_t fb[] = {b->minflt, b->majflt, b->inblock, b->oublock, b->nvcsw, b->nivcsw};
    for (int i = 0; i < 6; i++)
        v[i] = fb[i] >= fa[i] ? fb[i] - fa[i] : 0;
}

static double secs(uint64_t a, uint64_t b)
{
    return b > a ? (double)(b - a) * 1e-9 : 0;
}

static const char *const count_keys[] = {"minflt",  "majflt", "inblock",
                                         "oublock", "nvcsw",  "nivcsw"};

static void period_row(hpa_ctx *ctx, hpa_json *j, const hpa_process *pr, const period *d)
{
    FILE *f = ctx->out;
    char label[128];
    hpc_str_copy(label, sizeof(label), d->to->label);
    uint64_t t0 = pr->t0, v[6];
    delta_fields(d, v);
    double start = secs(t0, d->from->time), end = secs(t0, d->to->time);
    double user = secs(d->from->utime_ns, d->to->utime_ns);
    double sys = secs(d->from->stime_ns, d->to->stime_ns);
    const char *reason = hpa_sample_reason_name(d->to->reason);
    const hpm_heap *heap = pr->heap && pr->heap->traced ? pr->heap : NULL;
    if (ctx->opts.format == HPA_TEXT) {
        fprintf(f, " %6u %-10s %7.3f %7.3f %8.3f %6.3f %7.3f", d->index, label, start, end,
                end - start, user, sys);
        for (int i = 0; i < 6; i++)
            fprintf(f, " %6" PRIu64, v[i]);
        if (heap)
            fprintf(f, " %12" PRIu64, hpm_heap_in_use_at(heap, d->to->time));
        fputc('\n', f);
    } else if (ctx->opts.format == HPA_CSV) {
        hpa_csv_field(f, pr->proc->name, ',');
        fprintf(f, "%d,%u,", pr->proc->rank, d->index);
        hpa_csv_field(f, label, ',');
        hpa_csv_field(f, reason, ',');
        fprintf(f, "%.9g,%.9g,%.9g,%.9g,%.9g", start, end, end - start, user, sys);
        for (int i = 0; i < 6; i++)
            fprintf(f, ",%" PRIu64, v[i]);
        if (heap)
            fprintf(f, ",%" PRIu64, hpm_heap_in_use_at(heap, d->to->time));
        fputc('\n', f);
    } else {
        hpa_json_begin_obj(j);
        hpa_json_ku64(j, "sample", d->index);
        hpa_json_kstr(j, "label", label);
        hpa_json_kstr(j, "reason", reason);
        hpa_json_kdouble(j, "start_s", start);
        hpa_json_kdouble(j, "end_s", end);
        hpa_json_kdouble(j, "duration_s", end - start);
        hpa_json_kdouble(j, "user_s", user);
        hpa_json_kdouble(j, "system_s", sys);
        for (int i = 0; i < 6; i++)
            hpa_json_ku64(j, count_keys[i], v[i]);
        if (heap)
            hpa_json_ku64(j, "heap_in_use", hpm_heap_in_use_at(heap, d->to->time));
        hpa_json_end_obj(j);
    }
}

static void periods(hpa_ctx *ctx, hpa_json *j, const hpa_process *pr)
{
    const hpc_rec_sample_point *prev = NULL;
    size_t it = 0;
    unsigned index = 0;
    if (ctx->opts.format == HPA_TEXT) {
        fprintf(ctx->out, "\nSample periods of process %s", pr->proc->name);
        if (pr->proc->rank >= 0)
            fprintf(ctx->out, " (rank %d)", pr->proc->rank);
        fprintf(ctx->out,
                ":\n Sample Label        Start     End Duration   User  System "
                "MinFlt MajFlt  InBlk OutBlk   VCSw  IVCSw%s\n",
                pr->heap && pr->heap->traced ? "   Heap bytes" : "");
    }
    for (const hpc_record *r; (r = hpc_proc_next_of(pr->proc, HPC_K_sample_point, &it));) {
        const hpc_rec_sample_point *sp = &r->u.sample_point;
        if (prev) {
            period d = {.index = index, .from = prev, .to = sp};
            period_row(ctx, j, pr, &d);
        }
        prev = sp;
        index++;
    }
    if (ctx->opts.format == HPA_TEXT && index < 2)
        fprintf(ctx->out, "  (fewer than two sample points: no periods)\n");
}

static void experiments(hpa_ctx *ctx, hpa_json *j)
{
    const hpa_profile *p = ctx->prof;
    FILE *f = ctx->out;
    char target[4096], start[64], host[256], os[256];
    if (ctx->opts.format == HPA_TEXT)
        fprintf(f, "Experiment(s):\n");
    for (unsigned e = 0; e < p->nexps; e++) {
        const hpc_exp *x = p->exps[e];
        const hpc_proc *first = x->nprocs ? &x->procs[0] : NULL;
        size_t threads = 0;
        double duration = 0;
        for (size_t i = 0; i < x->nprocs; i++) {
            threads += x->procs[i].nthreads;
            if (hpa_proc_duration(&x->procs[i]) > duration)
                duration = hpa_proc_duration(&x->procs[i]);
        }
        target[0] = host[0] = os[0] = 0;
        snprintf(start, sizeof(start), "(unknown)");
        if (first && first->has_begin) {
            hpa_argv_line(first->begin.argv, target, sizeof(target));
            hpc_str_copy(host, sizeof(host), first->begin.host);
            hpc_str_copy(os, sizeof(os), first->begin.os);
            hpa_start_text(first, start, sizeof(start));
        }
        if (ctx->opts.format == HPA_TEXT) {
            fprintf(f, "\nExperiment      : %s\n", x->path);
            fprintf(f, "  Target        : '%s'\n", target);
            fprintf(f, "  Host          : %s (%s)\n", host, os);
            fprintf(f, "  Start Time    : %s\n", start);
            fprintf(f, "  Duration      : %.3f Seconds\n", duration);
            fprintf(f, "  Processes     : %zu (threads: %zu)\n", x->nprocs, threads);
        } else if (ctx->opts.format == HPA_JSON) {
            hpa_json_begin_obj(j);
            hpa_json_kstr(j, "path", x->path);
            hpa_json_kstr(j, "target", target);
            hpa_json_kstr(j, "host", host);
            hpa_json_kstr(j, "os", os);
            hpa_json_kstr(j, "start", start);
            hpa_json_kdouble(j, "duration_s", duration);
            hpa_json_ku64(j, "processes", x->nprocs);
            hpa_json_ku64(j, "threads", threads);
            hpa_json_end_obj(j);
        }
    }
}

/* For a counter: whether its group was multiplexed, so its values are scaled estimates
 * (value * enabled / running per sample, as perf stat scales). */
static void counter_scaling(FILE *f, const hpa_metric *m)
{
    if (!m->enabled_ns)
        return;
    if (m->running_ns >= m->enabled_ns)
        fprintf(f, " (counted all the time)");
    else
        fprintf(f, " (multiplexed: counted %.1f%% of the time; values scaled by enabled/running)",
                100.0 * (double)m->running_ns / (double)m->enabled_ns);
}

static void metrics(hpa_ctx *ctx, hpa_json *j, const hpa_profile *p)
{
    const hpa_metrics *ms = &p->metrics;
    uint64_t total[HPA_MAX_METRICS];
    hpa_profile_total(p, total);
    if (ctx->opts.format == HPA_TEXT)
        fprintf(ctx->out, "\nMetrics:\n");
    for (unsigned m = 0; m < ms->n; m++) {
        double v = hpa_metric_value(ms, m, total[m]);
        if (ctx->opts.format == HPA_TEXT) {
            fprintf(ctx->out, "  [%c] %s (%s)%s%s: [", hpa_metrics_selected(ms, m) ? 'X' : ' ',
                    ms->m[m].title, ms->m[m].key, ms->m[m].unit[0] ? ", " : "", ms->m[m].unit);
            fprintf(ctx->out, ms->m[m].time ? "%.3f]" : "%.0f]", v);
            counter_scaling(ctx->out, &ms->m[m]);
            fputc('\n', ctx->out);
        } else if (ctx->opts.format == HPA_JSON) {
            hpa_json_begin_obj(j);
            hpa_json_kstr(j, "key", ms->m[m].key);
            hpa_json_kstr(j, "title", ms->m[m].title);
            hpa_json_key(j, "selected");
            hpa_json_bool(j, hpa_metrics_selected(ms, m));
            hpa_json_kdouble(j, "total", v);
            if (ms->m[m].enabled_ns) /* a counter: the fraction of time it counted */
                hpa_json_kdouble(j, "counted_fraction",
                                 (double)ms->m[m].running_ns / (double)ms->m[m].enabled_ns);
            hpa_json_end_obj(j);
        }
    }
}

int cmd_overview(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    hpa_json j;
    hpa_json_init(&j, ctx->out);
    if (ctx->opts.format == HPA_CSV) {
        bool heap = false; /* -H is the same for every process of a run */
        for (size_t i = 0; i < p->nprocs; i++)
            heap |= p->procs[i].heap && p->procs[i].heap->traced;
        fputs("process,rank,sample,label,reason,start_s,end_s,duration_s,user_s,system_s,minflt,"
              "majflt,inblock,oublock,nvcsw,nivcsw",
              ctx->out);
        fputs(heap ? ",heap_in_use\n" : "\n", ctx->out);
    } else if (ctx->opts.format == HPA_JSON) {
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", "overview");
        hpa_json_key(&j, "experiments");
        hpa_json_begin_arr(&j);
    }
    experiments(ctx, &j);
    if (ctx->opts.format == HPA_JSON) {
        hpa_json_end_arr(&j);
        hpa_json_key(&j, "metrics");
        hpa_json_begin_arr(&j);
    }
    metrics(ctx, &j, p);
    if (ctx->opts.format == HPA_JSON) {
        hpa_json_end_arr(&j);
        hpa_json_key(&j, "processes");
        hpa_json_begin_arr(&j);
    }
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        if (ctx->opts.format == HPA_JSON) {
            hpa_json_begin_obj(&j);
            hpa_json_kstr(&j, "name", pr->proc->name);
            hpa_json_ki64(&j, "rank", pr->proc->rank);
            hpa_json_key(&j, "periods");
            hpa_json_begin_arr(&j);
        }
        periods(ctx, &j, pr);
        if (ctx->opts.format == HPA_JSON) {
            hpa_json_end_arr(&j);
            hpa_json_end_obj(&j);
        }
    }
    if (ctx->opts.format == HPA_JSON) {
        hpa_json_end_arr(&j);
        hpa_json_end_obj(&j);
    }
    return HPA_EXIT_OK;
}
