/*
 * cmd_fsummary.c - `fsummary`: one block per function in the order of `functions`, as
 * er_print prints it:
 *
 *     leaf1
 *             Exclusive Total CPU Time: 0.501 ( 50.0%)
 *             Inclusive Total CPU Time: 0.501 ( 50.0%)
 *                                 Size:     74
 *                           PC Address: split:0x00001149
 *                          Source File: /src/split.c
 *                          Object File: /build/split
 *                          Load Object: /build/split
 *
 * Source File is the file holding most of the function's sampled lines ("(unknown)"
 * without line numbers). CSV and JSON: the `functions` columns plus size, address,
 * source_file, object_file, load_object.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report_util.h"

static void text_block(hpa_ctx *ctx, const hpa_callgraph *g, uint32_t id, unsigned sort_metric)
{
    const hpa_profile *p = ctx->prof;
    const hpa_metrics *ms = &p->metrics;
    const hpa_func *fn = hpa_symtab_func(p->syms, id);
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, ms, "ei", true, hpa_cg_incl(g, HPA_FUNC_TOTAL));
    fprintf(f, "%s\n", fn->name);
    for (unsigned k = 0; k < c.n; k++) {
        unsigned m = c.c[k].metric;
        const uint64_t *v = c.c[k].kind == 'e' ? hpa_cg_excl(g, id) : hpa_cg_incl(g, id);
        char label[200], val[64];
        snprintf(label, sizeof(label), "%s %s%s", c.c[k].kind == 'e' ? "Exclusive" : "Inclusive",
                 ms->m[m].title, ms->m[m].time ? " Time" : "");
        if (ms->m[m].time)
            snprintf(val, sizeof(val), "%.3f", hpa_metric_value(ms, m, v[m]));
        else
            snprintf(val, sizeof(val), "%.0f", hpa_metric_value(ms, m, v[m]));
        uint64_t ref = hpa_cg_incl(g, HPA_FUNC_TOTAL)[m];
        fprintf(f, "\t%24s: %s (%5.1f%%)\n", label, val,
                ref ? 100.0 * (double)v[m] / (double)ref : 0);
    }
    fprintf(f, "\t%24s: %6" PRIu64 "\n", "Size", fn->size);
    fprintf(f, "\t%24s: %s:0x%08" PRIx64 "\n", "PC Address", fn->module[0] ? fn->module : "<none>",
            fn->start);
    fprintf(f, "\t%24s: %s\n", "Source File", hpa_func_source_file(p, g, id, sort_metric));
    fprintf(f, "\t%24s: %s\n", "Object File", fn->file[0] ? fn->file : "(unknown)");
    fprintf(f, "\t%24s: %s\n\n", "Load Object", fn->module_path[0] ? fn->module_path : fn->name);
}

int cmd_fsummary(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    hpa_sortkey k;
    if (hpa_ctx_sortkey(ctx, "fsummary", &k))
        return HPA_EXIT_USAGE;
    const hpa_callgraph *g = hpa_ctx_callgraph(ctx);
    if (!g)
        return HPA_EXIT_DATA;
    const hpa_profile *p = ctx->prof;
    size_t n;
    uint32_t *ids = hpa_sorted_funcs(ctx, g, &k, &n);
    if (!ids)
        return HPA_EXIT_DATA;
    unsigned sm = k.by_name ? p->metrics.cpu : k.metric;
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "ei", false, hpa_cg_incl(g, HPA_FUNC_TOTAL));
    hpa_json j;
    if (ctx->opts.format == HPA_TEXT) {
        char title[128];
        hpa_sortkey_title(&p->metrics, &k, title, sizeof(title));
        fprintf(f, "Functions sorted by metric: %s\n\n", title);
    } else if (ctx->opts.format == HPA_CSV) {
        fputs("name,module", f);
        hpa_cols_csv_header(&c, f);
        fputs(",size,address,source_file,object_file,load_object\n", f);
    } else {
        hpa_json_begin_report_list(&j, f, "fsummary", "functions");
    }
    for (size_t i = 0; i <= n; i++) {
        uint32_t id = i ? ids[i - 1] : HPA_FUNC_TOTAL;
        const hpa_func *fn = hpa_symtab_func(p->syms, id);
        const char *src = hpa_func_source_file(p, g, id, sm);
        if (ctx->opts.format == HPA_TEXT) {
            text_block(ctx, g, id, sm);
        } else if (ctx->opts.format == HPA_CSV) {
            hpa_csv_field(f, fn->name, ',');
            hpa_csv_field(f, fn->module, 0);
            hpa_cols_csv_row(&c, f, hpa_cg_excl(g, id), hpa_cg_incl(g, id), NULL);
            fprintf(f, ",%" PRIu64 ",0x%" PRIx64 ",", fn->size, fn->start);
            hpa_csv_field(f, src, ',');
            hpa_csv_field(f, fn->file, ',');
            hpa_csv_field(f, fn->module_path, '\n');
        } else {
            char addr[32];
            snprintf(addr, sizeof(addr), "0x%" PRIx64, fn->start);
            hpa_json_begin_obj(&j);
            hpa_json_kstr(&j, "name", fn->name);
            hpa_json_kstr(&j, "module", fn->module);
            hpa_cols_json(&c, &j, hpa_cg_excl(g, id), hpa_cg_incl(g, id), NULL);
            hpa_json_ku64(&j, "size", fn->size);
            hpa_json_kstr(&j, "address", addr);
            hpa_json_kstr(&j, "source_file", src);
            hpa_json_kstr(&j, "object_file", fn->file);
            hpa_json_kstr(&j, "load_object", fn->module_path);
            hpa_json_end_obj(&j);
        }
    }
    if (ctx->opts.format == HPA_JSON)
        hpa_json_end_report_list(&j);
    free(ids);
    return HPA_EXIT_OK;
}
