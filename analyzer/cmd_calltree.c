/*
 * cmd_calltree.c - `calltree`: the function-level call tree, children by decreasing
 * attributed value, as er_print draws it:
 *
 *     Attr. Total    Name
 *     CPU
 *      sec.      %
 *     2.000 100.00   +-<Total>
 *     2.000 100.00     +-main
 *     1.400  70.00       +-caller_a
 *     0.700  35.00       |  +-leaf_a
 *
 * CSV and JSON are flat (any depth parses): id, parent, depth, name, module, attr_* and
 * excl_* per node, in depth-first order; the root is node 0, <Total>.
 */
#include <stdlib.h>
#include <string.h>

#include "report_util.h"

#define MAX_TEXT_DEPTH 400  /* deeper branches are cut with a note */
#define MAX_FLAT_DEPTH 4096 /* bounds the recursion on damaged data (collector: 512) */

typedef struct tree_out {
    hpa_ctx *ctx;
    const hpa_calltree *t;
    hpa_cols cols;
    unsigned metric; /* children order */
    hpa_json j;
    char prefix[3 * MAX_TEXT_DEPTH + 8];
} tree_out;

static const uint64_t *incl(const hpa_calltree *t, uint32_t n)
{
    return t->incl + (size_t)n * t->nm;
}

static const uint64_t *excl(const hpa_calltree *t, uint32_t n)
{
    return t->excl + (size_t)n * t->nm;
}

/* Children by their inclusive value of the report's metric, descending, then by node. */
static int cmp_children(const void *a, const void *b, void *arg)
{
    const tree_out *o = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint64_t vx = incl(o->t, x)[o->metric], vy = incl(o->t, y)[o->metric];
    if (vx != vy)
        return vx > vy ? -1 : 1;
    return (x > y) - (x < y);
}

/* Children of n, sorted; malloc'd (NULL and *cnt 0 when none or out of memory). */
static uint32_t *children(const tree_out *o, uint32_t n, size_t *cnt)
{
    *cnt = 0;
    for (uint32_t c = o->t->nodes[n].first_child; c; c = o->t->nodes[c].next_sibling)
        (*cnt)++;
    if (*cnt == 0)
        return NULL;
    uint32_t *v = malloc(sizeof(*v) * *cnt);
    if (!v) {
        *cnt = 0;
        return NULL;
    }
    size_t i = 0;
    for (uint32_t c = o->t->nodes[n].first_child; c; c = o->t->nodes[c].next_sibling)
        v[i++] = c;
    qsort_r(v, *cnt, sizeof(*v), cmp_children, (void *)o);
    return v;
}

static const char *name_of(const tree_out *o, uint32_t n)
{
    return hpa_symtab_func(o->ctx->prof->syms, o->t->nodes[n].func)->name;
}

static void text_node(tree_out *o, uint32_t n, unsigned depth, bool last)
{
    FILE *f = o->ctx->out;
    size_t plen = strlen(o->prefix);
    hpa_cols_text_row(&o->cols, f, NULL, NULL, incl(o->t, n));
    fprintf(f, " %s+-%s\n", o->prefix, name_of(o, n));
    size_t cnt;
    uint32_t *kids = children(o, n, &cnt);
    if (cnt && depth >= MAX_TEXT_DEPTH) {
        fprintf(f, " %s   ... (deeper levels not shown)\n", o->prefix);
        cnt = 0;
    }
    strcat(o->prefix, last ? "  " : "|  "); /* er_print's widths */
    for (size_t i = 0; i < cnt; i++)
        text_node(o, kids[i], depth + 1, i + 1 == cnt);
    o->prefix[plen] = 0;
    free(kids);
}

static void flat_node(tree_out *o, uint32_t n, unsigned depth)
{
    const hpa_func *fn = hpa_symtab_func(o->ctx->prof->syms, o->t->nodes[n].func);
    if (o->ctx->opts.format == HPA_CSV) {
        FILE *f = o->ctx->out;
        fprintf(f, "%u,%d,%u,", n, n ? (int)o->t->nodes[n].parent : -1, depth);
        hpa_csv_field(f, fn->name, ',');
        hpa_csv_field(f, fn->module, 0);
        hpa_cols_csv_row(&o->cols, f, excl(o->t, n), NULL, incl(o->t, n));
        fputc('\n', f);
    } else {
        hpa_json_begin_obj(&o->j);
        hpa_json_ku64(&o->j, "id", n);
        hpa_json_ki64(&o->j, "parent", n ? (int64_t)o->t->nodes[n].parent : -1);
        hpa_json_ku64(&o->j, "depth", depth);
        hpa_json_kstr(&o->j, "name", fn->name);
        hpa_json_kstr(&o->j, "module", fn->module);
        hpa_cols_json(&o->cols, &o->j, excl(o->t, n), NULL, incl(o->t, n));
        hpa_json_end_obj(&o->j);
    }
    size_t cnt;
    uint32_t *kids = children(o, n, &cnt);
    if (cnt && depth >= MAX_FLAT_DEPTH) {
        fprintf(stderr, "hpanalyze: calltree: branches deeper than %d levels not shown\n",
                MAX_FLAT_DEPTH);
        cnt = 0;
    }
    for (size_t i = 0; i < cnt; i++)
        flat_node(o, kids[i], depth + 1);
    free(kids);
}

int cmd_calltree(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    hpa_sortkey k;
    if (hpa_ctx_sortkey(ctx, "calltree", &k))
        return HPA_EXIT_USAGE;
    const hpa_calltree *t = hpa_ctx_calltree(ctx);
    if (!t)
        return HPA_EXIT_DATA;
    const hpa_profile *p = ctx->prof;
    tree_out *o = calloc(1, sizeof(*o));
    if (!o)
        return HPA_EXIT_DATA;
    o->ctx = ctx;
    o->t = t;
    o->metric = k.by_name ? p->metrics.cpu : k.metric;
    FILE *f = ctx->out;
    if (ctx->opts.format == HPA_TEXT) {
        hpa_cols_init(&o->cols, &p->metrics, "a", true, incl(t, 0));
        for (uint32_t n = 0; n < t->n; n++)
            hpa_cols_fit(&o->cols, NULL, NULL, incl(t, n));
        hpa_sortkey title_key = {.kind = 'a', .metric = o->metric};
        char title[128];
        hpa_sortkey_title(&p->metrics, &title_key, title, sizeof(title));
        fprintf(f, "Functions Call Tree. Metric: Attributed%s\n\n", strchr(title, ' '));
        hpa_cols_text_header(&o->cols, f);
        text_node(o, 0, 0, true);
    } else {
        /* excl_ and attr_ (the node's inclusive value along this path) per metric */
        hpa_cols_init(&o->cols, &p->metrics, "ea", false, incl(t, 0));
        if (ctx->opts.format == HPA_CSV) {
            fputs("id,parent,depth,name,module", f);
            hpa_cols_csv_header(&o->cols, f);
            fputc('\n', f);
        } else {
            hpa_json_init(&o->j, f);
            hpa_json_begin_obj(&o->j);
            hpa_json_kstr(&o->j, "report", "calltree");
            hpa_json_key(&o->j, "nodes");
            hpa_json_begin_arr(&o->j);
        }
        flat_node(o, 0, 0);
        if (ctx->opts.format == HPA_JSON) {
            hpa_json_end_arr(&o->j);
            hpa_json_end_obj(&o->j);
        }
    }
    free(o);
    return HPA_EXIT_OK;
}
