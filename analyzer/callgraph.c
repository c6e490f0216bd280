/*
 * callgraph.c - function, edge, line and call-tree sums over the profile's paths.
 */
#include "callgraph.h"

#include <stdlib.h>
#include <string.h>

static void add(uint64_t *dst, const uint64_t *v, unsigned nm)
{
    for (unsigned k = 0; k < nm; k++)
        dst[k] += v[k];
}

/* Edge index of caller->callee, creating it; UINT32_MAX when out of memory. */
static uint32_t edge_of(hpa_callgraph *g, uint32_t caller, uint32_t callee)
{
    uint64_t key = (uint64_t)caller << 32 | callee, e;
    if (hpa_u64map_get(&g->edge_map, key, &e))
        return e;
    if (g->nedges == g->edge_cap) {
        uint32_t cap = g->edge_cap ? g->edge_cap * 2 : 256;
        hpa_edge *ed = realloc(g->edges, sizeof(*ed) * cap);
        if (!ed)
            return UINT32_MAX;
        g->edges = ed;
        uint64_t *a = realloc(g->attr, sizeof(*a) * cap * g->nm);
        if (!a)
            return UINT32_MAX;
        g->attr = a;
        uint32_t *s = realloc(g->estamp, sizeof(*s) * cap);
        if (!s)
            return UINT32_MAX;
        g->estamp = s;
        g->edge_cap = cap;
    }
    e = g->nedges;
    g->edges[e] = (hpa_edge){caller, callee};
    memset(g->attr + (size_t)e * g->nm, 0, sizeof(uint64_t) * g->nm);
    g->estamp[e] = 0;
    if (hpa_u64map_put(&g->edge_map, key, e))
        return UINT32_MAX;
    g->nedges++;
    return e;
}

/* Grow one kind of rows (functions or lines) from *n to want: their exclusive and
 * inclusive sums, nm metrics a row, and their stamps; the new rows zeroed. */
static int cg_grow_rows(uint64_t **excl, uint64_t **incl, uint32_t **stamp, uint32_t *n,
                        uint32_t want, unsigned nm)
{
    if (want <= *n)
        return 0;
    uint64_t *ex = realloc(*excl, sizeof(*ex) * want * nm);
    if (ex)
        *excl = ex;
    uint64_t *in = ex ? realloc(*incl, sizeof(*in) * want * nm) : NULL;
    if (in)
        *incl = in;
    uint32_t *st = in ? realloc(*stamp, sizeof(*st) * want) : NULL;
    if (!st)
        return HPC_E_NOMEM;
    *stamp = st;
    size_t old = (size_t)*n * nm, add = (size_t)(want - *n) * nm;
    memset(*excl + old, 0, sizeof(uint64_t) * add);
    memset(*incl + old, 0, sizeof(uint64_t) * add);
    memset(*stamp + *n, 0, sizeof(uint32_t) * (want - *n));
    *n = want;
    return 0;
}

/* Grow the function and line rows to the symbol table's (a folded load symbolizes
 * process after process; a view may make pseudo functions on its paths). */
static int cg_fit(hpa_callgraph *g, const hpa_symtab *st)
{
    int rc = cg_grow_rows(&g->excl, &g->incl, &g->fstamp, &g->nfuncs, hpa_symtab_nfuncs(st), g->nm);
    return rc ? rc
              : cg_grow_rows(&g->line_excl, &g->line_incl, &g->lstamp, &g->nlines,
                             hpa_symtab_nlines(st), g->nm);
}

typedef struct cg_pass {
    hpa_callgraph *g;
    const hpa_symtab *st;
    int err;
} cg_pass;

/* A path's functions and lines have rows (a view made one since the last fit?). */
static bool cg_fits(cg_pass *P, const hpa_frame *f, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        if (f[i].func >= P->g->nfuncs || f[i].line >= P->g->nlines)
            return (P->err = cg_fit(P->g, P->st)) == 0;
    return true;
}

static void cg_path(void *arg, const hpa_path_ctx *ctx, const hpa_frame *f, unsigned n,
                    const uint64_t *vals)
{
    cg_pass *P = arg;
    hpa_callgraph *g = P->g;
    unsigned nm = g->nm;
    (void)ctx;
    if (P->err || !cg_fits(P, f, n))
        return;
    uint32_t stamp = ++g->stamp;
    add(g->excl + (size_t)f[n - 1].func * nm, vals, nm);
    add(g->line_excl + (size_t)f[n - 1].line * nm, vals, nm);
    add(g->incl, vals, nm); /* <Total> */
    add(g->excl, vals, nm);
    for (unsigned i = 0; i < n; i++) {
        uint32_t fn = f[i].func, ln = f[i].line;
        if (g->fstamp[fn] != stamp) {
            g->fstamp[fn] = stamp;
            add(g->incl + (size_t)fn * nm, vals, nm);
        }
        if (g->lstamp[ln] != stamp) {
            g->lstamp[ln] = stamp;
            add(g->line_incl + (size_t)ln * nm, vals, nm);
        }
        uint32_t e = edge_of(g, i ? f[i - 1].func : HPA_FUNC_TOTAL, fn);
        if (e == UINT32_MAX) {
            P->err = HPC_E_NOMEM;
            return;
        }
        if (g->estamp[e] != stamp) {
            g->estamp[e] = stamp;
            add(g->attr + (size_t)e * nm, vals, nm);
        }
    }
}

int hpa_callgraph_build(hpa_callgraph *g, const hpa_profile *p, const struct hpa_view *view)
{
    return hpa_callgraph_build_of(g, p, -1, view);
}

int hpa_callgraph_begin(hpa_callgraph *g, const hpa_profile *p)
{
    memset(g, 0, sizeof(*g));
    g->nm = p->metrics.n;
    int rc = cg_fit(g, p->syms);
    if (rc)
        hpa_callgraph_free(g);
    return rc;
}

int hpa_callgraph_add(hpa_callgraph *g, const hpa_profile *p, int exp, const struct hpa_view *view)
{
    cg_pass P = {.g = g, .st = p->syms, .err = cg_fit(g, p->syms)};
    if (!P.err) {
        int rc = hpa_profile_paths_of(p, exp, view, cg_path, &P);
        P.err = P.err ? P.err : rc;
    }
    if (P.err)
        hpa_callgraph_free(g);
    return P.err;
}

int hpa_callgraph_build_of(hpa_callgraph *g, const hpa_profile *p, int exp,
                           const struct hpa_view *view)
{
    int rc = hpa_callgraph_begin(g, p);
    return rc ? rc : hpa_callgraph_add(g, p, exp, view);
}

void hpa_callgraph_free(hpa_callgraph *g)
{
    free(g->excl);
    free(g->incl);
    free(g->edges);
    free(g->attr);
    free(g->line_excl);
    free(g->line_incl);
    free(g->fstamp);
    free(g->estamp);
    free(g->lstamp);
    hpa_u64map_free(&g->edge_map);
    memset(g, 0, sizeof(*g));
}

/* ---------------------------------------------------------------- call tree */

static uint32_t tnode_of(hpa_calltree *t, uint32_t parent, uint32_t func)
{
    uint64_t key = (uint64_t)parent << 32 | func, id;
    if (hpa_u64map_get(&t->map, key, &id))
        return id;
    if (t->n == t->cap) {
        uint32_t cap = t->cap * 2;
        hpa_tnode *nd = realloc(t->nodes, sizeof(*nd) * cap);
        if (!nd)
            return UINT32_MAX;
        t->nodes = nd;
        uint32_t *lc = realloc(t->last_child, sizeof(*lc) * cap);
        if (!lc)
            return UINT32_MAX;
        t->last_child = lc;
        uint64_t *in = realloc(t->incl, sizeof(*in) * cap * t->nm);
        if (!in)
            return UINT32_MAX;
        t->incl = in;
        uint64_t *ex = realloc(t->excl, sizeof(*ex) * cap * t->nm);
        if (!ex)
            return UINT32_MAX;
        t->excl = ex;
        t->cap = cap;
    }
    id = t->n;
    t->nodes[id] = (hpa_tnode){.func = func, .parent = parent};
    t->last_child[id] = 0;
    memset(t->incl + (size_t)id * t->nm, 0, sizeof(uint64_t) * t->nm);
    memset(t->excl + (size_t)id * t->nm, 0, sizeof(uint64_t) * t->nm);
    if (hpa_u64map_put(&t->map, key, id))
        return UINT32_MAX;
    if (t->last_child[parent])
        t->nodes[t->last_child[parent]].next_sibling = id;
    else
        t->nodes[parent].first_child = id;
    t->last_child[parent] = id;
    t->n++;
    return id;
}

typedef struct ct_pass {
    hpa_calltree *t;
    int err;
} ct_pass;

static void ct_path(void *arg, const hpa_path_ctx *ctx, const hpa_frame *f, unsigned n,
                    const uint64_t *vals)
{
    ct_pass *P = arg;
    hpa_calltree *t = P->t;
    (void)ctx;
    uint32_t node = 0;
    add(t->incl, vals, t->nm);
    for (unsigned i = 0; i < n; i++) {
        node = tnode_of(t, node, f[i].func);
        if (node == UINT32_MAX) {
            P->err = HPC_E_NOMEM;
            return;
        }
        add(t->incl + (size_t)node * t->nm, vals, t->nm);
    }
    add(t->excl + (size_t)node * t->nm, vals, t->nm);
}

int hpa_calltree_begin(hpa_calltree *t, const hpa_profile *p)
{
    memset(t, 0, sizeof(*t));
    t->nm = p->metrics.n;
    t->cap = 1024;
    t->nodes = calloc(t->cap, sizeof(*t->nodes));
    t->last_child = calloc(t->cap, sizeof(*t->last_child));
    t->incl = calloc((size_t)t->cap * t->nm, sizeof(uint64_t));
    t->excl = calloc((size_t)t->cap * t->nm, sizeof(uint64_t));
    if (!t->nodes || !t->last_child || !t->incl || !t->excl) {
        hpa_calltree_free(t);
        return HPC_E_NOMEM;
    }
    t->n = 1; /* <Total> */
    return 0;
}

int hpa_calltree_add(hpa_calltree *t, const hpa_profile *p, const struct hpa_view *view)
{
    ct_pass P = {.t = t};
    int rc = hpa_profile_paths(p, view, ct_path, &P);
    P.err = P.err ? P.err : rc;
    if (P.err)
        hpa_calltree_free(t);
    return P.err;
}

int hpa_calltree_build(hpa_calltree *t, const hpa_profile *p, const struct hpa_view *view)
{
    int rc = hpa_calltree_begin(t, p);
    return rc ? rc : hpa_calltree_add(t, p, view);
}

void hpa_calltree_free(hpa_calltree *t)
{
    free(t->nodes);
    free(t->last_child);
    free(t->incl);
    free(t->excl);
    hpa_u64map_free(&t->map);
    memset(t, 0, sizeof(*t));
}
