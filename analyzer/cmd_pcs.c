/*
 * cmd_pcs.c - `pcs`: program counters with exclusive and inclusive metrics, named as
 * er_print names them (function + offset; caller frames by their return address):
 *
 *     PCs sorted by metric: Exclusive Total CPU Time
 *
 *     Excl. Total   Incl. Total    Name
 *     CPU           CPU
 *      sec.      %   sec.      %
 *     0.861 100.00  0.861 100.00   <Total>
 *     0.212  24.62  0.212  24.62   kernel_x + 0x00000022
 *
 * CSV/JSON: name, function, module, address (file address, hex), offset, caller (a return
 * address row), excl_*, incl_*, samples.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "pcsums.h"
#include "report_util.h"

static const char *row_sort_name(const void *arg, uint32_t id)
{
    const hpa_pcsums *s = ((const void *const *)arg)[0];
    const hpa_symtab *st = ((const void *const *)arg)[1];
    return hpa_symtab_func(st, s->rows[id].func)->name;
}

static void row_out(hpa_ctx *ctx, hpa_json *j, const hpa_cols *c, const hpa_pcsums *s, uint32_t r,
                    const uint64_t *e, const uint64_t *in)
{
    const hpa_profile *p = ctx->prof;
    FILE *f = ctx->out;
    char name[1200], addr[32] = "";
    const hpa_func *fn =
        hpa_symtab_func(p->syms, r == UINT32_MAX ? HPA_FUNC_TOTAL : s->rows[r].func);
    uint64_t off = 0;
    bool caller = false;
    if (r == UINT32_MAX) {
        snprintf(name, sizeof(name), "<Total>");
    } else {
        hpa_pcrow_name(s, p->syms, r, name, sizeof(name));
        snprintf(addr, sizeof(addr), "0x%" PRIx64, s->rows[r].addr);
        off = s->rows[r].addr >= fn->start ? s->rows[r].addr - fn->start : 0;
        caller = s->rows[r].caller;
    }
    if (ctx->opts.format == HPA_TEXT) {
        hpa_cols_text_row(c, f, e, in, NULL);
        fprintf(f, " %s\n", name);
    } else if (ctx->opts.format == HPA_CSV) {
        hpa_csv_field(f, name, ',');
        hpa_csv_field(f, fn->name, ',');
        hpa_csv_field(f, fn->module, ',');
        fprintf(f, "%s,%" PRIu64 ",%d", addr, off, caller);
        hpa_cols_csv_row(c, f, e, in, NULL);
        fprintf(f, ",%" PRIu64 "\n", e[p->metrics.samples]);
    } else {
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "name", name);
        hpa_json_kstr(j, "function", fn->name);
        hpa_json_kstr(j, "module", fn->module);
        hpa_json_kstr(j, "address", addr);
        hpa_json_ku64(j, "offset", off);
        hpa_json_key(j, "caller");
        hpa_json_bool(j, caller);
        hpa_cols_json(c, j, e, in, NULL);
        hpa_json_ku64(j, "samples", e[p->metrics.samples]);
        hpa_json_end_obj(j);
    }
}

int cmd_pcs(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    hpa_sortkey k;
    if (hpa_ctx_sortkey(ctx, "pcs", &k))
        return HPA_EXIT_USAGE;
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    hpa_pcsums s;
    if (hpa_pcsums_build(&s, p, ctx->opts.view, UINT32_MAX)) {
        fprintf(stderr, "hpanalyze: pcs: out of memory\n");
        return HPA_EXIT_DATA;
    }
    uint32_t *ids = malloc(sizeof(*ids) * (s.n + 1));
    if (!ids) {
        hpa_pcsums_free(&s);
        return HPA_EXIT_DATA;
    }
    size_t n = 0;
    for (uint32_t r = 0; r < s.n; r++)
        if (hpa_any(s.incl + (size_t)r * s.nm, s.nm))
            ids[n++] = r;
    const void *names[2] = {&s, p->syms};
    hpa_sort_ids(ids, n, &k, s.excl, s.incl, s.nm, row_sort_name, names);
    if (ctx->opts.limit && n > ctx->opts.limit)
        n = ctx->opts.limit;
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "ei", ctx->opts.format == HPA_TEXT, s.total);
    hpa_json j;
    if (ctx->opts.format == HPA_TEXT) {
        hpa_cols_fit(&c, s.total, s.total, NULL);
        for (size_t i = 0; i < n; i++)
            hpa_cols_fit(&c, s.excl + (size_t)ids[i] * s.nm, s.incl + (size_t)ids[i] * s.nm, NULL);
        char title[128];
        hpa_sortkey_title(&p->metrics, &k, title, sizeof(title));
        fprintf(f, "PCs sorted by metric: %s\n\n", title);
        hpa_cols_text_header(&c, f);
    } else if (ctx->opts.format == HPA_CSV) {
        fputs("name,function,module,address,offset,caller", f);
        hpa_cols_csv_header(&c, f);
        fputs(",samples\n", f);
    } else {
        hpa_json_begin_report_list(&j, f, "pcs", "pcs");
    }
    row_out(ctx, &j, &c, &s, UINT32_MAX, s.total, s.total);
    for (size_t i = 0; i < n; i++)
        row_out(ctx, &j, &c, &s, ids[i], s.excl + (size_t)ids[i] * s.nm,
                s.incl + (size_t)ids[i] * s.nm);
    if (ctx->opts.format == HPA_JSON)
        hpa_json_end_report_list(&j);
    free(ids);
    hpa_pcsums_free(&s);
    return HPA_EXIT_OK;
}
