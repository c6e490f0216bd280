/*
 * cctx.c - the hybrid calling-context tree of one location (see cctx.h).
 */
#include "cctx.h"

#include <stdlib.h>
#include <string.h>

#define MAX_PATH     65536 /* deeper paths are cut at the root end */
#define MG_CCTX_MANY (UINT64_MAX - 1)

static inline uint64_t child_key(uint32_t parent, uint32_t region)
{
    return ((uint64_t)(parent == MG_CC_ROOT ? 0 : parent + 1) << 32) | region;
}

void mg_cctx_init(mg_cctx *c, mg_loc *loc)
{
    memset(c, 0, sizeof(*c));
    c->loc = loc;
    c->nsampled = loc->ncc;
    c->canon = mg_xcalloc(loc->ncc + 1, sizeof(uint32_t));
    for (size_t k = 0; k < loc->ncc; k++) {
        mg_ccnode *n = &loc->cc[k];
        c->canon[k] = (uint32_t)k;
        if (!n->depth)
            continue;
        uint32_t parent = n->depth <= 1 ? MG_CC_ROOT : c->canon[n->parent];
        uint64_t *slot = mg_xslot(&c->child, child_key(parent, n->region), k);
        c->canon[k] = (uint32_t)*slot;
        if (*slot != k)
            continue;
        if (parent != MG_CC_ROOT)
            n->parent = parent; /* the same context globally (defs.c): walk canonical */
        if (n->func) {
            uint64_t *f = mg_xslot(&c->by_func, n->func, k);
            if (*f != k)
                *f = MG_CCTX_MANY;
        }
    }
}

uint32_t mg_cctx_frame_of(const mg_cctx *c, uint32_t n, uint32_t func)
{
    for (size_t steps = 0; func && n != MG_CC_ROOT && steps < MAX_PATH; steps++) {
        if (c->loc->cc[n].func == func)
            return n;
        n = mg_cctx_parent(c, n);
    }
    return MG_CC_ROOT;
}

uint32_t mg_cctx_only_frame(const mg_cctx *c, uint32_t func)
{
    uint64_t v;
    if (!func || !hpa_u64map_get(&c->by_func, func, &v) || v == MG_CCTX_MANY)
        return MG_CC_ROOT;
    return (uint32_t)v;
}

void mg_cctx_free(mg_cctx *c)
{
    hpa_u64map_free(&c->child);
    hpa_u64map_free(&c->graft);
    free(c->path);
    free(c->canon);
    hpa_u64map_free(&c->by_func);
}

uint32_t mg_cctx_child(mg_cctx *c, uint32_t parent, uint32_t region)
{
    mg_loc *l = c->loc;
    if (parent != MG_CC_ROOT && l->cc[parent].depth == 0)
        parent = MG_CC_ROOT; /* not defined: cannot be a parent */
    uint64_t *slot = mg_xslot(&c->child, child_key(parent, region), UINT64_MAX);
    if (*slot != UINT64_MAX)
        return (uint32_t)*slot;
    uint32_t id = (uint32_t)l->ncc;
    *slot = id;
    mg_ccnode *n = MG_PUSH(l->cc, l->ncc, l->capcc);
    n->region = region;
    n->func = 0;
    /* node 0 ("<no stack>") is a root whose id cannot name a parent in the mapping
     * tables (parent 0 = none): nothing is ever placed below it */
    if (parent == MG_CC_ROOT || parent == 0) {
        n->parent = 0;
        n->depth = 1;
    } else {
        n->parent = parent;
        n->depth = l->cc[parent].depth + 1;
    }
    return id;
}

uint32_t mg_cctx_common(const mg_cctx *c, uint32_t a, uint32_t b)
{
    uint32_t da = mg_cctx_depth(c, a), db = mg_cctx_depth(c, b);
    while (da > db) {
        a = mg_cctx_parent(c, a);
        da--;
    }
    while (db > da) {
        b = mg_cctx_parent(c, b);
        db--;
    }
    while (a != b && da > 0) {
        a = mg_cctx_parent(c, a);
        b = mg_cctx_parent(c, b);
        da--;
    }
    return a == b ? a : MG_CC_ROOT;
}

static const char *region_name(const mg_cctx *c, uint32_t node)
{
    const mg_proc *p = c->loc->proc;
    uint32_t r = c->loc->cc[node].region;
    return r < p->nregions ? p->regions[r].name : "";
}

static uint32_t graft_uncached(mg_cctx *c, uint32_t s, uint32_t n, uint32_t base)
{
    /* the frames of s from the leaf up to (not including) base, or to the root */
    size_t k = 0;
    bool found = base == MG_CC_ROOT;
    for (uint32_t x = s; x != MG_CC_ROOT; x = mg_cctx_parent(c, x)) {
        if (x == base) {
            found = true;
            break;
        }
        if (k == MAX_PATH)
            break;
        *MG_PUSH(c->path, k, c->cappath) = x;
    }
    if (!found) {
        /* the path does not pass through the base: all of it, root first */
        k = 0;
        for (uint32_t x = s; x != MG_CC_ROOT && k < MAX_PATH; x = mg_cctx_parent(c, x))
            *MG_PUSH(c->path, k, c->cappath) = x;
    }
    /* the region's own frame (an interposer named like it) is the region */
    if (k && strcmp(region_name(c, c->path[k - 1]), region_name(c, n)) == 0)
        k--;
    uint32_t at = n;
    while (k)
        at = mg_cctx_child(c, at, c->loc->cc[c->path[--k]].region);
    return at;
}

uint32_t mg_cctx_graft(mg_cctx *c, uint32_t s, uint32_t n, uint32_t base)
{
    if (s >= c->nsampled)
        return s; /* already one of ours */
    s = c->canon[s];
    uint64_t key = ((uint64_t)s << 32) | n, v;
    if (hpa_u64map_get(&c->graft, key, &v) && (uint32_t)(v >> 32) == base)
        return (uint32_t)v;
    uint32_t g = graft_uncached(c, s, n, base);
    mg_xput(&c->graft, key, ((uint64_t)base << 32) | g);
    return g;
}
