/*
 * cmd_experiment_list.c - `experiment_list`: the experiments and their processes (each
 * process is a sub-experiment), with whether the filters keep them, as er_print lists
 * experiments:
 *
 *     ID Sel   PID Rank Threads Experiment
 *     == === ===== ==== ======= ==========
 *      1 yes  4731    -       2 prog.1.hpc/main
 *
 * CSV: id,experiment,exp_index,process,pid,rank,threads,selected.
 * JSON: {"report":"experiment_list","experiments":[{"index","path","processes":[{id,
 * name, pid, rank, threads, selected}]}]}.
 */
#include <inttypes.h>

#include "commands.h"

static bool process_selected(const hpa_ctx *ctx, const hpc_proc *p)
{
    if (!hpa_filter_process(&ctx->opts.filter, p->rank))
        return false;
    for (size_t t = 0; t < p->nthreads; t++)
        if (hpa_filter_thread(&ctx->opts.filter, p->threads[t].seq))
            return true;
    return false;
}

int cmd_experiment_list(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const hpa_profile *p = ctx->prof;
    FILE *f = ctx->out;
    hpa_json j;
    if (ctx->opts.format == HPA_TEXT) {
        fprintf(f, "ID Sel   PID Rank Threads Experiment\n== === ===== ==== ======= ==========\n");
    } else if (ctx->opts.format == HPA_CSV) {
        fputs("id,experiment,exp_index,process,pid,rank,threads,selected\n", f);
    } else {
        hpa_json_begin_report_list(&j, f, "experiment_list", "experiments");
    }
    unsigned id = 0;
    for (unsigned e = 0; e < p->nexps; e++) {
        const hpc_exp *x = p->exps[e];
        if (ctx->opts.format == HPA_JSON) {
            hpa_json_begin_obj(&j);
            hpa_json_ku64(&j, "index", e + 1);
            hpa_json_kstr(&j, "path", x->path);
            hpa_json_key(&j, "processes");
            hpa_json_begin_arr(&j);
        }
        for (size_t i = 0; i < x->nprocs; i++) {
            const hpc_proc *pr = &x->procs[i];
            bool sel = process_selected(ctx, pr);
            uint64_t pid = pr->has_begin ? pr->begin.pid : 0;
            id++;
            if (ctx->opts.format == HPA_TEXT) {
                char rank[16] = "-";
                if (pr->rank >= 0)
                    snprintf(rank, sizeof(rank), "%d", pr->rank);
                fprintf(f, "%2u %-3s %5" PRIu64 " %4s %7zu %s/%s\n", id, sel ? "yes" : "no", pid,
                        rank, pr->nthreads, x->path, pr->name);
            } else if (ctx->opts.format == HPA_CSV) {
                fprintf(f, "%u,", id);
                hpa_csv_field(f, x->path, ',');
                fprintf(f, "%u,", e + 1);
                hpa_csv_field(f, pr->name, ',');
                fprintf(f, "%" PRIu64 ",%d,%zu,%d\n", pid, pr->rank, pr->nthreads, sel);
            } else {
                hpa_json_begin_obj(&j);
                hpa_json_ku64(&j, "id", id);
                hpa_json_kstr(&j, "name", pr->name);
                hpa_json_ku64(&j, "pid", pid);
                hpa_json_ki64(&j, "rank", pr->rank);
                hpa_json_ku64(&j, "threads", pr->nthreads);
                hpa_json_key(&j, "selected");
                hpa_json_bool(&j, sel);
                hpa_json_end_obj(&j);
            }
        }
        if (ctx->opts.format == HPA_JSON) {
            hpa_json_end_arr(&j);
            hpa_json_end_obj(&j);
        }
    }
    if (ctx->opts.format == HPA_JSON)
        hpa_json_end_report_list(&j);
    return HPA_EXIT_OK;
}
