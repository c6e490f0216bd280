/*
 * export_html_flame.c - the page's flame graph data (export_html.h): the call tree of the
 * selected view (the paths every report sums, hpa_profile_paths) with, at each path's
 * leaf, each row's values of every metric, so the page draws the flame graph of any rank,
 * thread or metric (inclusive values are sums over subtrees, made by the page).
 *
 * Layout ("flame" member): names [[function, module]], node 0 is <Total>, node i > 0 has
 * parent[i] < i and fn[i] (index into names); cells (node, row) with values: node[],
 * row[]; vals [{m: metric index, cell: [], v: []}] with the raw non-zero sums of metric
 * m at those cells (the page scales them by the metric's scale).
 *
 * Sizes: a node per distinct path of functions, a cell per (node, row) with samples:
 * about the profile's bucket count.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_html.h"
#include "u64map.h"
#include "view.h"

typedef struct flame {
    hpa_page *pg;
    unsigned nm;
    hpa_u64map node_ids; /* parent << 32 | func -> node */
    uint32_t *parent, *func;
    uint32_t nnodes, nodes_cap;
    hpa_u64map cell_ids; /* node * nrows + row -> cell */
    uint32_t *cell_node, *cell_row;
    uint64_t *vals; /* ncells * nm */
    size_t ncells, cells_cap;
    hpa_u64map fn_ids; /* symbol table function -> index into fns */
    uint32_t *fns;
    uint32_t nfns;
    int err;
} flame;

static uint32_t fn_index(flame *F, uint32_t func)
{
    uint64_t id;
    if (hpa_u64map_get(&F->fn_ids, func, &id))
        return (uint32_t)id;
    uint32_t *v = realloc(F->fns, sizeof(*v) * (F->nfns + 1));
    if (!v || hpa_u64map_put(&F->fn_ids, func, F->nfns)) {
        F->err = HPC_E_NOMEM;
        return 0;
    }
    F->fns = v;
    F->fns[F->nfns] = func;
    return F->nfns++;
}

static uint32_t child(flame *F, uint32_t parent, uint32_t func)
{
    uint64_t key = (uint64_t)parent << 32 | func, id;
    if (hpa_u64map_get(&F->node_ids, key, &id))
        return (uint32_t)id;
    if (F->nnodes == F->nodes_cap) {
        uint32_t cap = F->nodes_cap ? 2 * F->nodes_cap : 1024;
        uint32_t *a = realloc(F->parent, sizeof(*a) * cap);
        if (a)
            F->parent = a;
        uint32_t *b = realloc(F->func, sizeof(*b) * cap);
        if (b)
            F->func = b;
        if (!a || !b) {
            F->err = HPC_E_NOMEM;
            return 0;
        }
        F->nodes_cap = cap;
    }
    F->parent[F->nnodes] = parent;
    F->func[F->nnodes] = fn_index(F, func);
    if (hpa_u64map_put(&F->node_ids, key, F->nnodes)) {
        F->err = HPC_E_NOMEM;
        return 0;
    }
    return F->nnodes++;
}

static uint64_t *cell(flame *F, uint32_t node, size_t row)
{
    uint64_t key = (uint64_t)node * F->pg->nrows + row, id;
    if (hpa_u64map_get(&F->cell_ids, key, &id))
        return F->vals + id * F->nm;
    if (F->ncells == F->cells_cap) {
        size_t cap = F->cells_cap ? 2 * F->cells_cap : 1024;
        uint32_t *a = realloc(F->cell_node, sizeof(*a) * cap);
        if (a)
            F->cell_node = a;
        uint32_t *b = realloc(F->cell_row, sizeof(*b) * cap);
        if (b)
            F->cell_row = b;
        uint64_t *c = realloc(F->vals, sizeof(*c) * cap * F->nm);
        if (c)
            F->vals = c;
        if (!a || !b || !c)
            return NULL;
        F->cells_cap = cap;
    }
    if (hpa_u64map_put(&F->cell_ids, key, F->ncells))
        return NULL;
    F->cell_node[F->ncells] = node;
    F->cell_row[F->ncells] = (uint32_t)row;
    uint64_t *v = F->vals + F->ncells++ * F->nm;
    memset(v, 0, sizeof(*v) * F->nm);
    return v;
}

static void path(void *arg, const hpa_path_ctx *ctx, const hpa_frame *frames, unsigned n,
                 const uint64_t *vals)
{
    flame *F = arg;
    uint32_t node = 0;
    for (unsigned i = 0; i < n && !F->err; i++)
        node = child(F, node, frames[i].func);
    uint64_t *v = F->err ? NULL : cell(F, node, hpa_page_row(F->pg, ctx->proc, ctx->thread));
    if (!v) {
        F->err = HPC_E_NOMEM;
        return;
    }
    for (unsigned m = 0; m < F->nm; m++)
        v[m] += vals[m];
}

static void u32_array(hpa_json *j, const char *key, const uint32_t *v, size_t n)
{
    hpa_json_key(j, key);
    FILE *f = hpa_json_raw(j);
    fputc('[', f);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%u", i ? "," : "", v[i]);
    fputc(']', f);
}

static void write_flame(flame *F)
{
    hpa_json *j = F->pg->j;
    const hpa_symtab *st = F->pg->p->syms;
    hpa_json_key(j, "flame");
    hpa_json_begin_obj(j);
    hpa_json_key(j, "names");
    hpa_json_begin_arr(j);
    for (uint32_t i = 0; i < F->nfns; i++) {
        const hpa_func *fn = hpa_symtab_func(st, F->fns[i]);
        hpa_json_begin_arr(j);
        hpa_json_str(j, F->fns[i] == HPA_FUNC_TOTAL ? "<Total>" : fn->name);
        hpa_json_str(j, fn->module);
        hpa_json_end_arr(j);
    }
    hpa_json_end_arr(j);
    u32_array(j, "parent", F->parent, F->nnodes);
    u32_array(j, "fn", F->func, F->nnodes);
    u32_array(j, "node", F->cell_node, F->ncells);
    u32_array(j, "row", F->cell_row, F->ncells);
    hpa_json_key(j, "vals");
    hpa_json_begin_arr(j);
    for (unsigned m = 0; m < F->nm; m++) {
        size_t nz = 0;
        for (size_t c = 0; c < F->ncells; c++)
            nz += F->vals[c * F->nm + m] != 0;
        if (!nz)
            continue;
        hpa_json_begin_obj(j);
        hpa_json_ku64(j, "m", m);
        for (int pass = 0; pass < 2; pass++) { /* the cells, then their values */
            hpa_json_key(j, pass ? "v" : "cell");
            FILE *f = hpa_json_raw(j);
            fputc('[', f);
            bool first = true;
            for (size_t c = 0; c < F->ncells; c++) {
                uint64_t v = F->vals[c * F->nm + m];
                if (!v)
                    continue;
                fprintf(f, "%s%" PRIu64, first ? "" : ",", pass ? v : (uint64_t)c);
                first = false;
            }
            fputc(']', f);
        }
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
    hpa_json_end_obj(j);
}

int hpa_page_flame(hpa_page *pg)
{
    flame F = {.pg = pg, .nm = pg->p->metrics.n};
    child(&F, 0, HPA_FUNC_TOTAL); /* node 0, the root: its own parent */
    int rc = F.err ? F.err : hpa_profile_paths(pg->p, pg->ctx->opts.view, path, &F);
    rc = rc ? rc : F.err;
    if (rc == 0)
        write_flame(&F);
    hpa_u64map_free(&F.node_ids);
    hpa_u64map_free(&F.cell_ids);
    hpa_u64map_free(&F.fn_ids);
    free(F.parent);
    free(F.func);
    free(F.cell_node);
    free(F.cell_row);
    free(F.vals);
    free(F.fns);
    return rc;
}
