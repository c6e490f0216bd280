/*
 * report_util.c - shared row selection for the function reports.
 */
#include "report_util.h"

#include <stdlib.h>

const char *hpa_func_name_cb(const void *symtab, uint32_t id)
{
    return hpa_symtab_func(symtab, id)->name;
}

int hpa_ctx_sortkey(hpa_ctx *ctx, const char *cmd, hpa_sortkey *k)
{
    if (hpa_sortkey_parse(&ctx->prof->metrics, ctx->opts.sort, k) == 0)
        return 0;
    return hpa_usage_error(cmd,
                           "bad value '%s' for --sort (expected name, a metric such as "
                           "cpu or samples, or excl_/incl_ before one)",
                           ctx->opts.sort);
}

uint32_t *hpa_sorted_funcs(hpa_ctx *ctx, const hpa_callgraph *g, const hpa_sortkey *k, size_t *n)
{
    uint32_t *ids = malloc(sizeof(*ids) * (g->nfuncs + 1));
    if (!ids)
        return NULL;
    *n = 0;
    for (uint32_t f = 1; f < g->nfuncs; f++)
        if (hpa_any(hpa_cg_incl(g, f), g->nm))
            ids[(*n)++] = f;
    hpa_sort_ids(ids, *n, k, g->excl, g->incl, g->nm, hpa_func_name_cb, ctx->prof->syms);
    if (ctx->opts.limit && *n > ctx->opts.limit)
        *n = ctx->opts.limit;
    return ids;
}
