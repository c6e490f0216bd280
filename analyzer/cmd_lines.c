/*
 * cmd_lines.c - `lines`: source lines with exclusive and inclusive metrics, er_print
 * style names:
 *
 *     Lines sorted by metric: Exclusive Total CPU Time
 *     ...
 *     1.003  49.85  1.003  49.85   leaf_a, line 23 in "lines.c"
 *     0.     0.     2.012 100.00   <Function: _start, instructions without line numbers>
 *
 * A caller frame's line is the line of the call (the CCT keeps return address - 1), so
 * inclusive values on call lines show where the time of callees came from.
 * CSV/JSON: name, function, module, file, line, excl_*, incl_*, samples.
 */
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "report_util.h"

static const char *line_sort_name(const void *st, uint32_t id)
{
    /* ties sort by function name; the line number decides within it (stable ids) */
    return hpa_symtab_func(st, hpa_symtab_line(st, id)->func)->name;
}

int cmd_lines(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    hpa_sortkey k;
    if (hpa_ctx_sortkey(ctx, "lines", &k))
        return HPA_EXIT_USAGE;
    if (ctx->opts.compare)
        return hpa_compare_report(ctx, HPA_CMP_LINES, &k);
    const hpa_callgraph *g = hpa_ctx_callgraph(ctx);
    if (!g)
        return HPA_EXIT_DATA;
    const hpa_profile *p = ctx->prof;
    uint32_t *ids = malloc(sizeof(*ids) * (g->nlines + 1));
    if (!ids)
        return HPA_EXIT_DATA;
    size_t n = 0;
    for (uint32_t l = 1; l < g->nlines; l++)
        if (hpa_any(g->line_incl + (size_t)l * g->nm, g->nm))
            ids[n++] = l;
    hpa_sort_ids(ids, n, &k, g->line_excl, g->line_incl, g->nm, line_sort_name, p->syms);
    if (ctx->opts.limit && n > ctx->opts.limit)
        n = ctx->opts.limit;
    const uint64_t *tot_e = hpa_cg_excl(g, 0), *tot_i = hpa_cg_incl(g, 0);
    FILE *f = ctx->out;
    char name[1200];
    hpa_cols c;
    if (ctx->opts.format == HPA_TEXT) {
        hpa_cols_init(&c, &p->metrics, "ei", true, tot_i);
        hpa_cols_fit(&c, tot_e, tot_i, NULL);
        for (size_t i = 0; i < n; i++)
            hpa_cols_fit(&c, g->line_excl + (size_t)ids[i] * g->nm,
                         g->line_incl + (size_t)ids[i] * g->nm, NULL);
        char title[128];
        hpa_sortkey_title(&p->metrics, &k, title, sizeof(title));
        fprintf(f, "Lines sorted by metric: %s\n\n", title);
        hpa_cols_text_header(&c, f);
        hpa_cols_text_row(&c, f, tot_e, tot_i, NULL);
        fputs(" <Total>\n", f);
        for (size_t i = 0; i < n; i++) {
            hpa_cols_text_row(&c, f, g->line_excl + (size_t)ids[i] * g->nm,
                              g->line_incl + (size_t)ids[i] * g->nm, NULL);
            hpa_line_name(p->syms, ids[i], name, sizeof(name));
            fprintf(f, " %s\n", name);
        }
        free(ids);
        return HPA_EXIT_OK;
    }
    hpa_cols_init(&c, &p->metrics, "ei", false, tot_i);
    hpa_json j;
    if (ctx->opts.format == HPA_CSV) {
        fputs("name,function,module,file,line", f);
        hpa_cols_csv_header(&c, f);
        fputs(",samples\n", f);
    } else {
        hpa_json_begin_report_list(&j, f, "lines", "lines");
    }
    for (size_t i = 0; i <= n; i++) {
        uint32_t id = i ? ids[i - 1] : 0;
        const hpa_line *l = hpa_symtab_line(p->syms, id);
        const hpa_func *fn = hpa_symtab_func(p->syms, l->func);
        const uint64_t *e = id ? g->line_excl + (size_t)id * g->nm : tot_e;
        const uint64_t *in = id ? g->line_incl + (size_t)id * g->nm : tot_i;
        hpa_line_name(p->syms, id, name, sizeof(name));
        if (ctx->opts.format == HPA_CSV) {
            hpa_csv_field(f, name, ',');
            hpa_csv_field(f, fn->name, ',');
            hpa_csv_field(f, fn->module, ',');
            hpa_csv_field(f, l->file, ',');
            fprintf(f, "%u", l->lineno);
            hpa_cols_csv_row(&c, f, e, in, NULL);
            fprintf(f, ",%llu\n", (unsigned long long)e[p->metrics.samples]);
        } else {
            hpa_json_begin_obj(&j);
            hpa_json_kstr(&j, "name", name);
            hpa_json_kstr(&j, "function", fn->name);
            hpa_json_kstr(&j, "module", fn->module);
            hpa_json_kstr(&j, "file", l->file);
            hpa_json_ku64(&j, "line", l->lineno);
            hpa_cols_json(&c, &j, e, in, NULL);
            hpa_json_ku64(&j, "samples", e[p->metrics.samples]);
            hpa_json_end_obj(&j);
        }
    }
    if (ctx->opts.format == HPA_JSON)
        hpa_json_end_report_list(&j);
    free(ids);
    return HPA_EXIT_OK;
}
