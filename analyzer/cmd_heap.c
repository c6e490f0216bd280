/*
 * cmd_heap.c - `heap`: heap tracing's (-H) view of each process's memory in use:
 *
 *     Heap of process main (pid 4242): ended normally
 *       Peak in use:            1074972 bytes in 14 blocks, at 0.004 s
 *       In use at the end:        75772 bytes (the leaks)
 *       Allocations:                105 (1097779 bytes); frees 90
 *       Temporary allocations:       50 (47.6%, 3200 bytes): freed with no other
 *                                         allocation of their thread in between
 *       Frees of blocks not traced:   0
 *
 *       In use over time (most bytes within each interval):
 *          0.000 -   0.001 s     1074972  ########################################
 *
 *     Held at the peak (every process at its own peak), by call stack:
 *     Stack #1, Instances = 10, Bytes at Peak = 1000000
 *       peak_p + 0x00000028  (heap_known.c:120)
 *       ...
 *
 *     Temporary allocations by call stack: (the same layout)
 *
 * The numbers come from model/heap.h (blocks matched with their frees across threads in
 * time order); the stacks from the metrics heap_peak_blocks/heap_peak_bytes and
 * heap_temporary. CSV: one row per process (process, rank, pid, ended, peak_bytes,
 * peak_blocks, peak_time_s, end_bytes, allocs, bytes, frees, leaks, leaked_bytes,
 * temporary, temporary_bytes, unmatched_frees, unseen_frees). JSON: processes (those keys
 * and timeline: [start_s, end_s, max_bytes, max_at_s: when the most was first reached])
 * and peak_stacks (as `leaks`' stacks).
 */
#include <inttypes.h>
#include <string.h>

#include "heap.h"
#include "heap_sites.h"

static double rel_s(const hpm_heap *h, uint64_t t)
{
    return t > h->t0 ? (double)(t - h->t0) * 1e-9 : 0;
}

static void text_process(FILE *f, const hpa_process *pr)
{
    const hpm_heap *h = pr->heap;
    fprintf(f, "Heap of process %s (pid %" PRIu64 "): %s\n", pr->proc->name,
            pr->proc->has_begin ? pr->proc->begin.pid : 0,
            h->ended ? "ended normally" : "did not end normally (as of its last record)");
    fprintf(f, "  %-28s %12" PRIu64 " bytes in %" PRIu64 " blocks, at %.6f s\n",
            "Peak in use:", h->peak_bytes, h->peak_blocks, rel_s(h, h->peak_time));
    fprintf(f, "  %-28s %12" PRIu64 " bytes in %" PRIu64 " blocks (%s)\n",
            h->ended ? "In use at the end:" : "In use at the last record:", h->end_bytes, h->leaks,
            h->ended ? "the leaks" : "leaks so far");
    fprintf(f, "  %-28s %12" PRIu64 " (%" PRIu64 " bytes); frees %" PRIu64 "\n",
            "Allocations:", h->allocs, h->bytes, h->frees);
    fprintf(f,
            "  %-28s %12" PRIu64 " (%.1f%%, %" PRIu64
            " bytes): freed with no other allocation of their thread in between\n",
            "Temporary allocations:", h->temporary,
            h->allocs ? 100.0 * (double)h->temporary / (double)h->allocs : 0.0, h->temporary_bytes);
    fprintf(f, "  %-28s %12" PRIu64 "\n", "Frees of blocks not traced:", h->unmatched_frees);
    if (h->unseen_frees)
        fprintf(f, "  %-28s %12" PRIu64 "\n", "Blocks freed unseen:", h->unseen_frees);
    fprintf(f, "\n  In use over time (most bytes within each interval):\n");
    double span = (double)(h->t1 - h->t0) * 1e-9, step = span / HPM_HEAP_POINTS;
    for (unsigned i = 0; i < HPM_HEAP_POINTS && h->peak_bytes; i++) {
        int bar = (int)(40 * h->point_max[i] / h->peak_bytes);
        fprintf(f, "    %9.3f - %9.3f s %12" PRIu64 "  %.*s\n", step * i, step * (i + 1),
                h->point_max[i], bar, "########################################");
    }
    fputc('\n', f);
}

static void csv_process(FILE *f, const hpa_process *pr)
{
    const hpm_heap *h = pr->heap;
    hpa_csv_field(f, pr->proc->name, ',');
    fprintf(f,
            "%d,%" PRIu64 ",%d,%" PRIu64 ",%" PRIu64 ",%.9f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
            ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
            "\n",
            pr->proc->rank, pr->proc->has_begin ? pr->proc->begin.pid : 0, h->ended, h->peak_bytes,
            h->peak_blocks, rel_s(h, h->peak_time), h->end_bytes, h->allocs, h->bytes, h->frees,
            h->leaks, h->leaked_bytes, h->temporary, h->temporary_bytes, h->unmatched_frees,
            h->unseen_frees);
}

static void json_process(hpa_json *j, const hpa_process *pr)
{
    const hpm_heap *h = pr->heap;
    hpa_json_begin_obj(j);
    hpa_json_kstr(j, "process", pr->proc->name);
    hpa_json_ki64(j, "rank", pr->proc->rank);
    hpa_json_ku64(j, "pid", pr->proc->has_begin ? pr->proc->begin.pid : 0);
    hpa_json_key(j, "ended");
    hpa_json_bool(j, h->ended);
    static const char *const keys[] = {"peak_bytes",      "peak_blocks",     "end_bytes",
                                       "allocs",          "bytes",           "frees",
                                       "leaks",           "leaked_bytes",    "temporary",
                                       "temporary_bytes", "unmatched_frees", "unseen_frees"};
    const uint64_t vals[] = {h->peak_bytes,      h->peak_blocks,     h->end_bytes,
                             h->allocs,          h->bytes,           h->frees,
                             h->leaks,           h->leaked_bytes,    h->temporary,
                             h->temporary_bytes, h->unmatched_frees, h->unseen_frees};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        hpa_json_ku64(j, keys[i], vals[i]);
    hpa_json_kdouble(j, "peak_time_s", rel_s(h, h->peak_time));
    hpa_json_key(j, "timeline");
    hpa_json_begin_arr(j);
    double step = (double)(h->t1 - h->t0) * 1e-9 / HPM_HEAP_POINTS;
    for (unsigned i = 0; i < HPM_HEAP_POINTS; i++) {
        hpa_json_begin_obj(j);
        hpa_json_kdouble(j, "start_s", step * i);
        hpa_json_kdouble(j, "end_s", step * (i + 1));
        hpa_json_ku64(j, "max_bytes", h->point_max[i]);
        hpa_json_kdouble(j, "max_at_s", rel_s(h, h->point_time[i]));
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
    hpa_json_end_obj(j);
}

/* The stacks of metrics count_key/bytes_key, er_print's layout under a title (text). */
static int stacks(hpa_ctx *ctx, const char *title, const char *count_key, const char *bytes_key,
                  const hpa_heap_words *w)
{
    int cm = hpa_metrics_find(&ctx->prof->metrics, count_key);
    int bm = hpa_metrics_find(&ctx->prof->metrics, bytes_key);
    hpa_heap_sites s;
    if (cm < 0 || bm < 0 || hpa_heap_sites_build(ctx, (unsigned)cm, (unsigned)bm, &s))
        return -1;
    fprintf(ctx->out, "%s\n", title);
    hpa_heap_sites_print(ctx, &s, w);
    hpa_heap_sites_free(&s);
    return 0;
}

int cmd_heap(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc, (void)argv;
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    if (hpa_heap_metric(ctx, "heap", "heap_allocs") < 0)
        return HPA_EXIT_DATA;
    FILE *f = ctx->out;
    hpa_json j;
    if (ctx->opts.format == HPA_CSV)
        fputs("process,rank,pid,ended,peak_bytes,peak_blocks,peak_time_s,end_bytes,allocs,"
              "bytes,frees,leaks,leaked_bytes,temporary,temporary_bytes,unmatched_frees,"
              "unseen_frees\n",
              f);
    if (ctx->opts.format == HPA_JSON)
        hpa_json_begin_report_list(&j, f, "heap", "processes");
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        if (!pr->heap || !pr->heap->traced)
            continue;
        if (ctx->opts.format == HPA_TEXT)
            text_process(f, pr);
        else if (ctx->opts.format == HPA_CSV)
            csv_process(f, pr);
        else
            json_process(&j, pr);
    }
    if (ctx->opts.format == HPA_JSON) {
        hpa_json_end_report_list(&j);
        fputc('\n', f);
        return HPA_EXIT_OK;
    }
    if (ctx->opts.format == HPA_CSV)
        return HPA_EXIT_OK;
    static const hpa_heap_words peak = {"heap", "Stacks", "Stack", "Bytes at Peak", "stacks"};
    static const hpa_heap_words temp = {"heap", "Stacks", "Stack", "Temporary Allocations",
                                        "stacks"};
    if (stacks(ctx, "Held at the peak (each process at its own peak), by call stack:",
               "heap_peak_blocks", "heap_peak_bytes", &peak) ||
        stacks(ctx, "Temporary allocations by call stack:", "heap_temporary", "heap_temporary",
               &temp))
        return HPA_EXIT_DATA;
    hpa_heap_notes(ctx);
    return HPA_EXIT_OK;
}
