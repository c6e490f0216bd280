/*
 * callgraph.h - sums over call paths that reports print: per function, per caller->callee
 * edge, per source line, and the function-level call tree.
 *
 * Each is built in one pass of hpa_profile_paths(). Inclusive sums count a function, an
 * edge or a line once per path even when recursion repeats it (a stamp per id), so a
 * recursive function's inclusive time never exceeds the total.
 *
 * Values are raw metric sums (metrics.n per row); hpa_metric_value() converts them.
 */
#ifndef HPA_CALLGRAPH_H
#define HPA_CALLGRAPH_H

#include <stdint.h>

#include "profile.h"
#include "u64map.h"

struct hpa_view;

typedef struct hpa_edge {
    uint32_t caller, callee; /* function ids; caller HPA_FUNC_TOTAL for outermost frames */
} hpa_edge;

typedef struct hpa_callgraph {
    unsigned nm;     /* metrics per row */
    uint32_t nfuncs; /* ids 0..nfuncs-1 as in the symbol table */
    uint64_t *excl;  /* nfuncs * nm; <Total> holds the total in both */
    uint64_t *incl;
    uint32_t nedges;
    hpa_edge *edges;
    uint64_t *attr; /* nedges * nm: callee's inclusive sums along this edge */
    /* lines: ids as in the symbol table */
    uint32_t nlines;
    uint64_t *line_excl, *line_incl;
    /* private */
    hpa_u64map edge_map;
    uint32_t edge_cap;
    uint32_t *fstamp, *estamp, *lstamp, stamp;
} hpa_callgraph;

/* Build from a loaded profile through view (NULL = machine). Returns 0 or HPC_E_NOMEM;
 * on failure g is freed. */
int hpa_callgraph_build(hpa_callgraph *g, const hpa_profile *p, const struct hpa_view *view);
/* The same over the processes of experiment exp only (-1 = all). */
int hpa_callgraph_build_of(hpa_callgraph *g, const hpa_profile *p, int exp,
                           const struct hpa_view *view);
/* In steps (a folded load, profile.h): begin empty, then add the paths the profile holds
 * now (of experiment exp, -1 = all), as often as needed; rows grow with the symbol table.
 * Both return 0 or HPC_E_NOMEM; on failure g is freed. */
int hpa_callgraph_begin(hpa_callgraph *g, const hpa_profile *p);
int hpa_callgraph_add(hpa_callgraph *g, const hpa_profile *p, int exp, const struct hpa_view *view);
void hpa_callgraph_free(hpa_callgraph *g);

static inline const uint64_t *hpa_cg_excl(const hpa_callgraph *g, uint32_t f)
{
    return g->excl + (size_t)f * g->nm;
}
static inline const uint64_t *hpa_cg_incl(const hpa_callgraph *g, uint32_t f)
{
    return g->incl + (size_t)f * g->nm;
}
static inline const uint64_t *hpa_cg_attr(const hpa_callgraph *g, uint32_t e)
{
    return g->attr + (size_t)e * g->nm;
}

/* Function-level call tree: node 0 is <Total>; children are linked in creation order. */
typedef struct hpa_tnode {
    uint32_t func;
    uint32_t parent;
    uint32_t first_child, next_sibling; /* 0 = none */
} hpa_tnode;

typedef struct hpa_calltree {
    unsigned nm;
    uint32_t n;
    hpa_tnode *nodes;
    uint64_t *incl; /* n * nm */
    uint64_t *excl;
    /* private */
    uint32_t cap;
    uint32_t *last_child;
    hpa_u64map map;
} hpa_calltree;

int hpa_calltree_build(hpa_calltree *t, const hpa_profile *p, const struct hpa_view *view);
/* In steps, as the call graph's. */
int hpa_calltree_begin(hpa_calltree *t, const hpa_profile *p);
int hpa_calltree_add(hpa_calltree *t, const hpa_profile *p, const struct hpa_view *view);
void hpa_calltree_free(hpa_calltree *t);

#endif
