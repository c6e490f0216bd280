/*
 * cmd_functions.c - `functions`: every function with its exclusive and inclusive
 * metrics, <Total> first, sorted by --sort (default exclusive CPU), cut to --limit.
 *
 *     Functions sorted by metric: Exclusive Total CPU Time
 *
 *     Excl. Total   Incl. Total    Name
 *     CPU           CPU
 *      sec.      %   sec.      %
 *     2.012 100.00  2.012 100.00   <Total>
 *     1.003  49.85  1.003  49.85   leaf_a
 *
 * CSV columns and JSON keys (stable): name, module, excl_cpu_s, excl_cpu_pct, incl_cpu_s,
 * incl_cpu_pct, excl_samples, excl_samples_pct, incl_samples, incl_samples_pct, samples
 * (= excl_samples), then one excl_/incl_ pair per further metric. JSON also has file and
 * line: the function's source line holding the most of the sort metric ("", 0 without
 * line numbers).
 */
#include <stdlib.h>

#include "compare.h"
#include "report_util.h"
#include "view.h"

static void text(hpa_ctx *ctx, const hpa_callgraph *g, const hpa_sortkey *k, const uint32_t *ids,
                 size_t n)
{
    const hpa_profile *p = ctx->prof;
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "ei", true, hpa_cg_incl(g, HPA_FUNC_TOTAL));
    hpa_cols_fit(&c, hpa_cg_excl(g, 0), hpa_cg_incl(g, 0), NULL);
    for (size_t i = 0; i < n; i++)
        hpa_cols_fit(&c, hpa_cg_excl(g, ids[i]), hpa_cg_incl(g, ids[i]), NULL);
    char title[128];
    hpa_sortkey_title(&p->metrics, k, title, sizeof(title));
    fprintf(f, "Functions sorted by metric: %s\n", title);
    hpa_losses_text(f, p);
    fputc('\n', f);
    hpa_cols_text_header(&c, f);
    hpa_cols_text_row(&c, f, hpa_cg_excl(g, 0), hpa_cg_incl(g, 0), NULL);
    fprintf(f, " <Total>\n");
    for (size_t i = 0; i < n; i++) {
        hpa_cols_text_row(&c, f, hpa_cg_excl(g, ids[i]), hpa_cg_incl(g, ids[i]), NULL);
        fprintf(f, " %s\n", hpa_symtab_func(p->syms, ids[i])->name);
    }
}

static void csv(hpa_ctx *ctx, const hpa_callgraph *g, const uint32_t *ids, size_t n)
{
    const hpa_profile *p = ctx->prof;
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "ei", false, hpa_cg_incl(g, HPA_FUNC_TOTAL));
    fputs("name,module", f);
    hpa_cols_csv_header(&c, f);
    fputs(",samples\n", f);
    for (size_t i = 0; i <= n; i++) {
        uint32_t id = i ? ids[i - 1] : HPA_FUNC_TOTAL;
        const hpa_func *fn = hpa_symtab_func(p->syms, id);
        hpa_csv_field(f, fn->name, ',');
        hpa_csv_field(f, fn->module, 0);
        hpa_cols_csv_row(&c, f, hpa_cg_excl(g, id), hpa_cg_incl(g, id), NULL);
        fprintf(f, ",%llu\n", (unsigned long long)hpa_cg_excl(g, id)[p->metrics.samples]);
    }
}

static void json(hpa_ctx *ctx, const hpa_callgraph *g, const hpa_sortkey *k, const uint32_t *ids,
                 size_t n)
{
    const hpa_profile *p = ctx->prof;
    hpa_json j;
    hpa_json_init(&j, ctx->out);
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "ei", false, hpa_cg_incl(g, HPA_FUNC_TOTAL));
    char title[128];
    hpa_sortkey_title(&p->metrics, k, title, sizeof(title));
    hpa_json_begin_obj(&j);
    hpa_json_kstr(&j, "report", "functions");
    hpa_json_kstr(&j, "sorted_by", title);
    hpa_json_kstr(&j, "view", ctx->opts.view ? ctx->opts.view->name : "machine");
    hpa_losses_json(&j, p);
    uint32_t *hot = malloc(sizeof(*hot) * (g->nfuncs + 1));
    if (hot)
        hpa_func_hot_lines(p, g, k->by_name ? p->metrics.cpu : k->metric, hot);
    hpa_json_key(&j, "functions");
    hpa_json_begin_arr(&j);
    for (size_t i = 0; i <= n; i++) {
        uint32_t id = i ? ids[i - 1] : HPA_FUNC_TOTAL;
        const hpa_func *fn = hpa_symtab_func(p->syms, id);
        const hpa_line *hl = hot && hot[id] ? hpa_symtab_line(p->syms, hot[id]) : NULL;
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "name", fn->name);
        hpa_json_kstr(&j, "module", fn->module);
        hpa_json_kstr(&j, "file", hl ? hl->file : "");
        hpa_json_ku64(&j, "line", hl ? hl->lineno : 0);
        hpa_cols_json(&c, &j, hpa_cg_excl(g, id), hpa_cg_incl(g, id), NULL);
        hpa_json_ku64(&j, "samples", hpa_cg_excl(g, id)[p->metrics.samples]);
        hpa_json_end_obj(&j);
    }
    hpa_json_end_arr(&j);
    hpa_json_end_obj(&j);
    free(hot);
}

int cmd_functions(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    hpa_sortkey k;
    if (hpa_ctx_sortkey(ctx, "functions", &k))
        return HPA_EXIT_USAGE;
    if (ctx->opts.compare)
        return hpa_compare_report(ctx, HPA_CMP_FUNCTIONS, &k);
    const hpa_callgraph *g = hpa_ctx_callgraph(ctx);
    if (!g)
        return HPA_EXIT_DATA;
    size_t n;
    uint32_t *ids = hpa_sorted_funcs(ctx, g, &k, &n);
    if (!ids)
        return HPA_EXIT_DATA;
    if (ctx->opts.format == HPA_TEXT)
        text(ctx, g, &k, ids, n);
    else if (ctx->opts.format == HPA_CSV)
        csv(ctx, g, ids, n);
    else
        json(ctx, g, &k, ids, n);
    free(ids);
    return HPA_EXIT_OK;
}
