/*
 * context.c - lazy loading for commands: samples are read and the call graph built only
 * when the first command that needs them runs, and only once for several commands.
 * The call graph holds every metric, so `metrics` and `sort` between commands only change
 * what is printed.
 */
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "jobs.h"
#include "view.h"

/* --samples LABEL that names no sample point keeps nothing: say so. */
static void check_labels(const hpa_ctx *ctx)
{
    const hpa_filter *f = &ctx->opts.filter;
    for (unsigned l = 0; l < f->nlabels; l++) {
        bool seen = false;
        for (size_t i = 0; i < ctx->prof->nprocs && !seen; i++) {
            size_t it = 0;
            for (const hpc_record *r; !seen && (r = hpc_proc_next_of(ctx->prof->procs[i].proc,
                                                                     HPC_K_sample_point, &it));)
                seen = hpc_str_eq(r->u.sample_point.label, f->labels[l]);
        }
        if (!seen)
            fprintf(stderr,
                    "hpanalyze: --samples: no sample point is labelled '%s' (see "
                    "`overview`)\n",
                    f->labels[l]);
    }
}

void hpa_ctx_plan(hpa_ctx *ctx, const hpa_jobs *jobs, bool interactive)
{
    unsigned fold = 0;
    for (size_t i = 0; i < jobs->n; i++) {
        if (!jobs->v[i].cmd->folds)
            return;
        fold |= jobs->v[i].cmd->folds;
    }
    if (!interactive && !ctx->opts.compare)
        ctx->fold = fold;
}

/* A folded load's step: the process just read, summed into the call graph and tree. */
static int fold_process(void *arg, hpa_profile *p, hpa_process *pr)
{
    hpa_ctx *ctx = arg;
    (void)pr; /* the only process whose paths p holds now */
    int rc = 0;
    if ((ctx->fold & HPA_FOLDS_CALLGRAPH) && !ctx->cg_built) {
        rc = hpa_callgraph_begin(&ctx->cg, p);
        ctx->cg_built = rc == 0;
    }
    if (rc == 0 && (ctx->fold & HPA_FOLDS_CALLTREE) && !ctx->ct_built) {
        rc = hpa_calltree_begin(&ctx->ct, p);
        ctx->ct_built = rc == 0;
    }
    if (rc == 0 && ctx->cg_built && (rc = hpa_callgraph_add(&ctx->cg, p, -1, ctx->opts.view)))
        ctx->cg_built = false;
    if (rc == 0 && ctx->ct_built && (rc = hpa_calltree_add(&ctx->ct, p, ctx->opts.view)))
        ctx->ct_built = false;
    return rc;
}

static int profile_load(hpa_ctx *ctx)
{
    const hpa_load_hooks *hooks = hpa_view_load_hooks();
    if (!ctx->fold)
        return hpa_profile_load(ctx->prof, &ctx->opts.filter, hooks);
    int rc = hpa_profile_load_folded(ctx->prof, &ctx->opts.filter, hooks, fold_process, ctx);
    if (rc == 0 && (ctx->fold & HPA_FOLDS_CALLGRAPH) && !ctx->cg_built) /* no process kept */
        ctx->cg_built = (rc = hpa_callgraph_begin(&ctx->cg, ctx->prof)) == 0;
    if (rc == 0 && (ctx->fold & HPA_FOLDS_CALLTREE) && !ctx->ct_built)
        ctx->ct_built = (rc = hpa_calltree_begin(&ctx->ct, ctx->prof)) == 0;
    return rc;
}

hpa_profile *hpa_ctx_profile(hpa_ctx *ctx)
{
    if (!ctx->loaded) {
        int rc = profile_load(ctx);
        if (rc < 0) {
            fprintf(stderr, "hpanalyze: reading samples: %s\n", hpc_strerror(rc));
            return NULL;
        }
        ctx->loaded = true;
        check_labels(ctx);
    }
    return ctx->prof;
}

int hpa_ctx_check_metrics(hpa_ctx *ctx)
{
    if (!ctx->opts.metrics)
        return 0;
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    char err[400];
    if (hpa_metrics_select(&p->metrics, ctx->opts.metrics, err, sizeof(err)))
        return hpa_usage_error(NULL, "--metrics: %s", err);
    return 0;
}

hpa_profile *hpa_ctx_processes(hpa_ctx *ctx)
{
    int rc = hpa_profile_prepare(ctx->prof, &ctx->opts.filter);
    if (rc < 0) {
        fprintf(stderr, "hpanalyze: reading processes: %s\n", hpc_strerror(rc));
        return NULL;
    }
    return ctx->prof;
}

const hpa_callgraph *hpa_ctx_callgraph(hpa_ctx *ctx)
{
    if (!ctx->cg_built) {
        hpa_profile *p = hpa_ctx_profile(ctx);
        if (!p)
            return NULL;
        if (ctx->cg_built) /* folded while loading */
            return &ctx->cg;
        int rc = hpa_callgraph_build(&ctx->cg, p, ctx->opts.view);
        if (rc < 0) {
            fprintf(stderr, "hpanalyze: building the call graph: %s\n", hpc_strerror(rc));
            return NULL;
        }
        ctx->cg_built = true;
    }
    return &ctx->cg;
}

const hpa_calltree *hpa_ctx_calltree(hpa_ctx *ctx)
{
    if (!ctx->ct_built) {
        hpa_profile *p = hpa_ctx_profile(ctx);
        if (!p)
            return NULL;
        if (!ctx->ct_built) {
            if (hpa_calltree_build(&ctx->ct, p, ctx->opts.view) < 0) {
                fprintf(stderr, "hpanalyze: calltree: out of memory\n");
                return NULL;
            }
            ctx->ct_built = true;
        }
    }
    return &ctx->ct;
}

const hpa_callgraph *hpa_ctx_compare_graphs(hpa_ctx *ctx)
{
    if (ctx->cmp_cg)
        return ctx->cmp_cg;
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return NULL;
    ctx->cmp_cg = calloc(p->nexps, sizeof(*ctx->cmp_cg));
    if (!ctx->cmp_cg) {
        fprintf(stderr, "hpanalyze: compare: out of memory\n");
        return NULL;
    }
    for (unsigned e = 0; e < p->nexps; e++) {
        int rc = hpa_callgraph_build_of(&ctx->cmp_cg[e], p, (int)e, ctx->opts.view);
        if (rc < 0) {
            fprintf(stderr, "hpanalyze: building the call graph: %s\n", hpc_strerror(rc));
            hpa_ctx_free(ctx);
            return NULL;
        }
        ctx->ncmp = e + 1;
    }
    return ctx->cmp_cg;
}

void hpa_ctx_free(hpa_ctx *ctx)
{
    if (ctx->cg_built)
        hpa_callgraph_free(&ctx->cg);
    ctx->cg_built = false;
    if (ctx->ct_built)
        hpa_calltree_free(&ctx->ct);
    ctx->ct_built = false;
    for (unsigned e = 0; e < ctx->ncmp; e++)
        hpa_callgraph_free(&ctx->cmp_cg[e]);
    free(ctx->cmp_cg);
    ctx->cmp_cg = NULL;
    ctx->ncmp = 0;
}
