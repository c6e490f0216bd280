/*
 * cctx.h - one location's calling-context tree as its OTF2 events use it: the sampled
 * frames (the collector's CCT) and the instrumented regions (MPI calls, OpenMP
 * constructs, traced regions) in one tree.
 *
 * OTF2 allows CallingContextSample only together with CallingContextEnter/Leave, never
 * with plain Enter/Leave, and requires every sample taken while an instrumented region
 * is open to lie below that region's calling context (the region is an upper bound of
 * the unwind distance). So an instrumented region gets a node of its own, and samples
 * inside it are grafted below that node:
 *
 *   - A region entered with a caller context H (a sampled node: the path at which the
 *     MPI call or the construct was met) gets the node child(P, region), where P is H
 *     grafted below the enclosing open region (or H itself when none is open). Without
 *     H, P is the enclosing region's node (or the root).
 *   - The region's base is H, or without H the enclosing region's base (none at the
 *     root). A sample inside the region takes the frames of its path below the base and
 *     hangs them below the region's node; a path that does not pass through the base
 *     (a truncated stack) hangs below it whole. The first of those frames is dropped when
 *     it is the region itself (the MPI interposer MPI_Send under the MPI_Send region).
 *
 *         sampled path  _start/main/MPI_Allreduce/PMPI_Allreduce/ompi_coll_...
 *         region        MPI_Allreduce, entered with H = _start/main
 *         grafted       _start/main/[MPI_Allreduce]/PMPI_Allreduce/ompi_coll_...
 *
 * New nodes are appended to the location's list (loc->cc), after the sampled ones, so
 * the mapping tables and definitions (defs.c) take them like any other. Grafts are
 * memoized: a sample costs one hash lookup once its (node, region) pair was seen.
 *
 * Sampled nodes are per code address: main calling f and main calling g are two nodes
 * "main" below the same parent. The definitions (defs.c) make them one calling context
 * (same parent, same region), and so does this tree: each sampled node has a canonical
 * node, the first with its (canonical parent, region); samples, hints and bases are
 * compared and written as canonical nodes, so unwind distances hold for the definitions.
 *
 * Node ids: MG_CC_ROOT stands for "no node" (the root, OTF2_UNDEFINED_CALLING_CONTEXT);
 * node 0 is the sampled "<no stack>" context.
 */
#ifndef MG_CCTX_H
#define MG_CCTX_H

#include "job.h"

#define MG_CC_ROOT UINT32_MAX

typedef struct mg_cctx {
    mg_loc *loc;
    size_t nsampled;    /* nodes below this id are the collector's */
    hpa_u64map child;   /* (parent + 1) << 32 | region -> node */
    hpa_u64map graft;   /* sample node << 32 | region node -> base << 32 | grafted node */
    uint32_t *canon;    /* sampled node -> its canonical node */
    hpa_u64map by_func; /* function -> its one canonical node, MG_CCTX_MANY if several */
    uint32_t *path;
    size_t cappath;
} mg_cctx;

/* Start with loc's sampled nodes (all of them defined: after pass 1). */
void mg_cctx_init(mg_cctx *c, mg_loc *loc);
void mg_cctx_free(mg_cctx *c);

/* The canonical node of sampled node s (other nodes are their own). */
static inline uint32_t mg_cctx_canon(const mg_cctx *c, uint32_t s)
{
    return s < c->nsampled ? c->canon[s] : s;
}

/* The node of region below parent (MG_CC_ROOT: a root), made if new. */
uint32_t mg_cctx_child(mg_cctx *c, uint32_t parent, uint32_t region);

/* Sampled node s grafted below region node n whose base is `base` (MG_CC_ROOT: none),
 * as described above. */
uint32_t mg_cctx_graft(mg_cctx *c, uint32_t s, uint32_t n, uint32_t base);

/* The deepest node of function func (symbolizer id) on the path of node n, or
 * MG_CC_ROOT; func's only node in the whole tree when it has only one, or MG_CC_ROOT. */
uint32_t mg_cctx_frame_of(const mg_cctx *c, uint32_t n, uint32_t func);
uint32_t mg_cctx_only_frame(const mg_cctx *c, uint32_t func);

/* The parent of node n (MG_CC_ROOT for a root). */
static inline uint32_t mg_cctx_parent(const mg_cctx *c, uint32_t n)
{
    const mg_ccnode *x = &c->loc->cc[n];
    return x->depth <= 1 ? MG_CC_ROOT : x->parent;
}

/* Depth of n (roots: 1; MG_CC_ROOT: 0). */
static inline uint32_t mg_cctx_depth(const mg_cctx *c, uint32_t n)
{
    return n == MG_CC_ROOT ? 0 : c->loc->cc[n].depth;
}

/* The deepest node on both paths (MG_CC_ROOT if they share none). */
uint32_t mg_cctx_common(const mg_cctx *c, uint32_t a, uint32_t b);

#endif
