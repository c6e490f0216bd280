/*
 * cmd_callers_callees.c - `callers-callees [FUNC]`: for each selected function, its
 * callers above it, the function itself marked with '*', its callees below, with
 * attributed metrics as er_print shows them:
 *
 *     Attr. Total    Name
 *     CPU
 *      sec.      %
 *     0.700  70.00   caller_a          <- time of leaf spent when called from caller_a
 *     0.300  30.00   caller_b
 *     1.000 100.00  *leaf              <- time in leaf itself (exclusive)
 *
 * Percentages are of the selected function's inclusive value. A caller attributes the
 * selected function's inclusive value along that edge; a callee its own inclusive value
 * when called from the selected function. "<Total>" is the caller of outermost frames.
 * FUNC matches a function's full name, or its name without a parameter list. Without
 * FUNC every function is shown in the order of `functions`.
 *
 * `csingle FUNC` shows one function in er_print's sections instead:
 *
 *     ============== Callers
 *     0.700  70.00   caller_a
 *
 *     ============== Stack Fragment
 *     1.000 100.00   leaf
 *
 *     ============== No Callees
 *
 * CSV: function,role,name,module,attr_... (role caller|self|callee).
 * JSON: {"report":"callers-callees","functions":[{name, module, excl_*, incl_*,
 *        "callers":[{name, module, attr_*}], "callees":[...]}]}
 */
#include <stdlib.h>
#include <string.h>

#include "report_util.h"

typedef struct cc_row {
    uint32_t func;
    const uint64_t *attr;
} cc_row;

typedef struct cc_block {
    uint32_t func;
    size_t ncallers, ncallees;
    cc_row *callers, *callees;      /* sorted by the sort metric, descending */
    uint64_t self[HPA_MAX_METRICS]; /* the function's own (exclusive) part */
} cc_block;

/* How rows are ordered: by the attributed value of metric, descending, then by name. */
typedef struct row_order {
    unsigned metric;
    const hpa_symtab *syms;
} row_order;

static int cmp_rows(const void *a, const void *b, void *arg)
{
    const cc_row *x = a, *y = b;
    const row_order *o = arg;
    if (x->attr[o->metric] != y->attr[o->metric])
        return x->attr[o->metric] > y->attr[o->metric] ? -1 : 1;
    return strcmp(hpa_symtab_func(o->syms, x->func)->name, hpa_symtab_func(o->syms, y->func)->name);
}

static int make_block(const hpa_callgraph *g, uint32_t f, const row_order *order, cc_block *b)
{
    memset(b, 0, sizeof(*b));
    b->func = f;
    b->callers = malloc(sizeof(cc_row) * (g->nedges + 1));
    b->callees = malloc(sizeof(cc_row) * (g->nedges + 1));
    if (!b->callers || !b->callees)
        return -1;
    for (uint32_t e = 0; e < g->nedges; e++) {
        const hpa_edge *ed = &g->edges[e];
        if (ed->callee == f && f != HPA_FUNC_TOTAL)
            b->callers[b->ncallers++] = (cc_row){ed->caller, hpa_cg_attr(g, e)};
        if (ed->caller == f)
            b->callees[b->ncallees++] = (cc_row){ed->callee, hpa_cg_attr(g, e)};
    }
    if (f != HPA_FUNC_TOTAL)
        memcpy(b->self, hpa_cg_excl(g, f), sizeof(uint64_t) * g->nm);
    qsort_r(b->callers, b->ncallers, sizeof(cc_row), cmp_rows, (void *)order);
    qsort_r(b->callees, b->ncallees, sizeof(cc_row), cmp_rows, (void *)order);
    return 0;
}

static void free_block(cc_block *b)
{
    free(b->callers);
    free(b->callees);
}

/* Attributed-metric columns wide enough for every row of block b; prints their header. */
static void block_cols(hpa_cols *c, const hpa_profile *p, const hpa_callgraph *g, const cc_block *b,
                       FILE *f)
{
    hpa_cols_init(c, &p->metrics, "a", true, hpa_cg_incl(g, b->func));
    for (size_t i = 0; i < b->ncallers; i++)
        hpa_cols_fit(c, NULL, NULL, b->callers[i].attr);
    for (size_t i = 0; i < b->ncallees; i++)
        hpa_cols_fit(c, NULL, NULL, b->callees[i].attr);
    hpa_cols_fit(c, NULL, NULL, b->self);
    hpa_cols_text_header(c, f);
}

static void text_block(hpa_ctx *ctx, const hpa_callgraph *g, const cc_block *b)
{
    const hpa_profile *p = ctx->prof;
    FILE *f = ctx->out;
    hpa_cols c;
    block_cols(&c, p, g, b, f);
    for (size_t i = 0; i < b->ncallers; i++) {
        hpa_cols_text_row(&c, f, NULL, NULL, b->callers[i].attr);
        fprintf(f, " %s\n", hpa_symtab_func(p->syms, b->callers[i].func)->name);
    }
    hpa_cols_text_row(&c, f, NULL, NULL, b->self);
    fprintf(f, "*%s\n", hpa_symtab_func(p->syms, b->func)->name);
    for (size_t i = 0; i < b->ncallees; i++) {
        hpa_cols_text_row(&c, f, NULL, NULL, b->callees[i].attr);
        fprintf(f, " %s\n", hpa_symtab_func(p->syms, b->callees[i].func)->name);
    }
}

static void section(FILE *f, const hpa_cols *c, const char *title, bool blank)
{
    unsigned w = 0;
    for (unsigned k = 0; k < c->n; k++)
        w += hpa_cols_cell_width(c, k) + 2;
    fprintf(f, "%s%.*s %s\n", blank ? "\n" : "", (int)(w > 1 ? w - 1 : 1),
            "========================================================================"
            "========================================================================",
            title);
}

static void text_rows_plain(hpa_ctx *ctx, const hpa_cols *c, const cc_row *r, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        hpa_cols_text_row(c, ctx->out, NULL, NULL, r[i].attr);
        fprintf(ctx->out, " %s\n", hpa_symtab_func(ctx->prof->syms, r[i].func)->name);
    }
}

/* csingle's layout: callers, the function, callees in titled sections. */
static void text_single(hpa_ctx *ctx, const hpa_callgraph *g, const cc_block *b)
{
    const hpa_profile *p = ctx->prof;
    FILE *f = ctx->out;
    hpa_cols c;
    block_cols(&c, p, g, b, f);
    section(f, &c, b->ncallers ? "Callers" : "No Callers", false);
    text_rows_plain(ctx, &c, b->callers, b->ncallers);
    section(f, &c, "Stack Fragment", true);
    cc_row self = {b->func, b->self};
    text_rows_plain(ctx, &c, &self, 1);
    section(f, &c, b->ncallees ? "Callees" : "No Callees", true);
    text_rows_plain(ctx, &c, b->callees, b->ncallees);
}

static void csv_rows(hpa_ctx *ctx, const hpa_callgraph *g, const cc_block *b)
{
    const hpa_profile *p = ctx->prof;
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "a", false, hpa_cg_incl(g, b->func));
    const char *fname = hpa_symtab_func(p->syms, b->func)->name;
    for (int role = 0; role < 3; role++) {
        size_t n = role == 0 ? b->ncallers : role == 1 ? 1 : b->ncallees;
        for (size_t i = 0; i < n; i++) {
            const cc_row r = role == 0   ? b->callers[i]
                             : role == 1 ? (cc_row){b->func, b->self}
                                         : b->callees[i];
            const hpa_func *fn = hpa_symtab_func(p->syms, r.func);
            hpa_csv_field(f, fname, ',');
            hpa_csv_field(f, role == 0 ? "caller" : role == 1 ? "self" : "callee", ',');
            hpa_csv_field(f, fn->name, ',');
            hpa_csv_field(f, fn->module, 0);
            hpa_cols_csv_row(&c, f, NULL, NULL, r.attr);
            fputc('\n', f);
        }
    }
}

static void json_rows(hpa_json *j, const hpa_cols *c, const hpa_symtab *st, const cc_row *r,
                      size_t n)
{
    hpa_json_begin_arr(j);
    for (size_t i = 0; i < n; i++) {
        const hpa_func *fn = hpa_symtab_func(st, r[i].func);
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "name", fn->name);
        hpa_json_kstr(j, "module", fn->module);
        hpa_cols_json(c, j, NULL, NULL, r[i].attr);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
}

static void json_block(hpa_json *j, hpa_ctx *ctx, const hpa_callgraph *g, const cc_block *b)
{
    const hpa_profile *p = ctx->prof;
    const hpa_func *fn = hpa_symtab_func(p->syms, b->func);
    hpa_cols ei, a;
    hpa_cols_init(&ei, &p->metrics, "ei", false, hpa_cg_incl(g, HPA_FUNC_TOTAL));
    hpa_cols_init(&a, &p->metrics, "a", false, hpa_cg_incl(g, b->func));
    hpa_json_begin_obj(j);
    hpa_json_kstr(j, "name", fn->name);
    hpa_json_kstr(j, "module", fn->module);
    hpa_cols_json(&ei, j, hpa_cg_excl(g, b->func), hpa_cg_incl(g, b->func), NULL);
    hpa_json_key(j, "self");
    hpa_json_begin_obj(j);
    hpa_cols_json(&a, j, NULL, NULL, b->self);
    hpa_json_end_obj(j);
    hpa_json_key(j, "callers");
    json_rows(j, &a, p->syms, b->callers, b->ncallers);
    hpa_json_key(j, "callees");
    json_rows(j, &a, p->syms, b->callees, b->ncallees);
    hpa_json_end_obj(j);
}

static int report(hpa_ctx *ctx, int argc, char **argv, const char *cmd)
{
    bool single = strcmp(cmd, "csingle") == 0;
    hpa_sortkey k;
    if (hpa_ctx_sortkey(ctx, cmd, &k))
        return HPA_EXIT_USAGE;
    const hpa_callgraph *g = hpa_ctx_callgraph(ctx);
    if (!g)
        return HPA_EXIT_DATA;
    const hpa_profile *p = ctx->prof;
    size_t n = 0;
    uint32_t *ids;
    if (argc > 0) {
        ids = malloc(sizeof(*ids) * (g->nfuncs + 1));
        if (!ids)
            return HPA_EXIT_DATA;
        n = hpa_match_funcs(g, p->syms, argv[0], ids);
        if (n == 0) {
            free(ids);
            return hpa_usage_error(cmd,
                                   "no function '%s' with samples in the profile (see "
                                   "`functions`)",
                                   argv[0]);
        }
    } else {
        size_t m;
        uint32_t *sorted = hpa_sorted_funcs(ctx, g, &k, &m);
        ids = malloc(sizeof(*ids) * (m + 1));
        if (!sorted || !ids) {
            free(sorted);
            free(ids);
            return HPA_EXIT_DATA;
        }
        ids[n++] = HPA_FUNC_TOTAL;
        for (size_t i = 0; i < m; i++)
            ids[n++] = sorted[i];
        free(sorted);
    }
    row_order order = {.metric = k.by_name ? p->metrics.cpu : k.metric, .syms = p->syms};
    hpa_json j;
    hpa_json_init(&j, ctx->out);
    if (ctx->opts.format == HPA_TEXT) {
        char title[128];
        hpa_sortkey title_key = {.kind = 'a', .metric = order.metric};
        hpa_sortkey_title(&p->metrics, &title_key, title, sizeof(title));
        fprintf(ctx->out, "Callers and callees sorted by metric: Attributed%s\n",
                strchr(title, ' '));
    } else if (ctx->opts.format == HPA_CSV) {
        hpa_cols c;
        hpa_cols_init(&c, &p->metrics, "a", false, NULL);
        fputs("function,role,name,module", ctx->out);
        hpa_cols_csv_header(&c, ctx->out);
        fputc('\n', ctx->out);
    } else {
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", cmd);
        hpa_json_key(&j, "functions");
        hpa_json_begin_arr(&j);
    }
    int rc = HPA_EXIT_OK;
    for (size_t i = 0; i < n; i++) {
        cc_block b;
        if (make_block(g, ids[i], &order, &b)) {
            free_block(&b);
            rc = HPA_EXIT_DATA;
            break;
        }
        if (ctx->opts.format == HPA_TEXT) {
            fputc('\n', ctx->out);
            if (single)
                text_single(ctx, g, &b);
            else
                text_block(ctx, g, &b);
        } else if (ctx->opts.format == HPA_CSV) {
            csv_rows(ctx, g, &b);
        } else {
            json_block(&j, ctx, g, &b);
        }
        free_block(&b);
    }
    if (ctx->opts.format == HPA_JSON) {
        hpa_json_end_arr(&j);
        hpa_json_end_obj(&j);
    }
    free(ids);
    return rc;
}

int cmd_callers_callees(hpa_ctx *ctx, int argc, char **argv)
{
    return report(ctx, argc, argv, "callers-callees");
}

int cmd_csingle(hpa_ctx *ctx, int argc, char **argv)
{
    return report(ctx, argc, argv, "csingle");
}
