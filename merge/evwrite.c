/*
 * evwrite.c - events into OTF2 with nesting, order and unwind distances kept right
 * (see evwrite.h).
 */
#include "evwrite.h"

#include <stdlib.h>
#include <string.h>

_Static_assert((int)MG_PAR_OPENMP == (int)OTF2_PARADIGM_OPENMP &&
                   (int)MG_PAR_MPI == (int)OTF2_PARADIGM_MPI &&
                   (int)MG_PAR_MEASUREMENT == (int)OTF2_PARADIGM_MEASUREMENT_SYSTEM &&
                   (int)MG_PAR_SAMPLING == (int)OTF2_PARADIGM_SAMPLING &&
                   (int)MG_PAR_NONE == (int)OTF2_PARADIGM_NONE,
               "mg_paradigm must equal OTF2_Paradigm");

#define MAX_DEPTH 4096 /* deeper Enters are dropped with their Leaves */

void mg_evw_init(mg_evw *x, OTF2_EvtWriter *w, mg_loc *loc, bool plain)
{
    memset(x, 0, sizeof(*x));
    x->w = w;
    x->loc = loc;
    x->plain = plain;
    x->prev_node = MG_CC_ROOT;
    x->last_sample = MG_CC_ROOT;
    mg_cctx_init(&x->cc, loc);
}

static void check(mg_evw *x, OTF2_ErrorCode rc)
{
    if (rc != OTF2_SUCCESS && x->err == OTF2_SUCCESS)
        x->err = rc;
    x->nevents++;
}

static void drop_later(mg_evw *x, uint32_t region)
{
    (*mg_xslot(&x->dropped, region, 0))++;
}

/* ------------------------------------------------------------ hybrid */

/* OTF2's unwind distance from the previous calling-context event's context to node:
 * the nodes entered since, plus the one that made progress (their common ancestor). */
static uint32_t unwind_distance(mg_evw *x, uint32_t node)
{
    uint32_t prev = x->prev_node;
    bool first = !x->have_prev;
    x->have_prev = true;
    x->prev_node = node;
    uint32_t dn = mg_cctx_depth(&x->cc, node);
    if (first || prev == MG_CC_ROOT)
        return dn + 1;
    if (prev == node)
        return 1;
    uint32_t common = mg_cctx_common(&x->cc, prev, node);
    if (common == MG_CC_ROOT)
        return dn + 1; /* no common frame: all entered, the root reached */
    return dn - mg_cctx_depth(&x->cc, common) + 1;
}

/* ------------------------------------------------------------ plain */

/* Move the location's entered nodes from x->prev_node to node: Leave what is not on
 * node's path (innermost first), Enter what is new (outermost first). */
static void move_to(mg_evw *x, uint64_t t, uint32_t node)
{
    uint32_t from = x->prev_node;
    if (from == node)
        return;
    uint32_t common =
        from == MG_CC_ROOT || node == MG_CC_ROOT ? MG_CC_ROOT : mg_cctx_common(&x->cc, from, node);
    for (uint32_t n = from; n != common; n = mg_cctx_parent(&x->cc, n))
        check(x, OTF2_EvtWriter_Leave(x->w, NULL, t, x->loc->cc[n].region));
    size_t k = 0;
    for (uint32_t n = node; n != common; n = mg_cctx_parent(&x->cc, n))
        *MG_PUSH(x->down, k, x->capdown) = n;
    while (k)
        check(x, OTF2_EvtWriter_Enter(x->w, NULL, t, x->loc->cc[x->down[--k]].region));
    x->prev_node = node;
}

/* ------------------------------------------------------------ both */

/* The calling context a sample at sampled node s has now. */
static uint32_t sample_context(mg_evw *x, uint32_t s)
{
    if (s >= x->cc.nsampled || !x->loc->cc[s].depth)
        s = 0;
    s = mg_cctx_canon(&x->cc, s);
    x->last_sample = s;
    if (!x->depth)
        return s;
    const mg_evw_open *o = &x->stack[x->depth - 1];
    return mg_cctx_graft(&x->cc, s, o->node, o->base);
}

/*
 * The caller context of a region met in function func without an exact node (evgen.c):
 * func's frame on the latest sample's path (it was on the stack then and still is), else
 * func's only node in the tree (main, called once), else the frame this lookup found last
 * time; MG_CC_ROOT when none.
 */
static uint32_t caller_frame(mg_evw *x, uint32_t func)
{
    if (!func)
        return MG_CC_ROOT;
    uint32_t n = mg_cctx_frame_of(&x->cc, x->last_sample, func);
    if (n == MG_CC_ROOT)
        n = mg_cctx_only_frame(&x->cc, func);
    uint64_t v;
    if (n != MG_CC_ROOT)
        mg_xput(&x->caller_frame, func, n);
    else if (hpa_u64map_get(&x->caller_frame, func, &v))
        n = (uint32_t)v;
    return n;
}

/* attrs: the Enter's attribute list, or NULL. */
static void enter(mg_evw *x, uint64_t t, uint32_t region, uint32_t hint, uint32_t func,
                  OTF2_AttributeList *attrs)
{
    if (x->depth == MAX_DEPTH) {
        drop_later(x, region);
        x->repaired++;
        return;
    }
    if (hint != MG_CC_ROOT && (hint >= x->cc.nsampled || !x->loc->cc[hint].depth))
        hint = MG_CC_ROOT;
    hint = hint != MG_CC_ROOT ? mg_cctx_canon(&x->cc, hint) : caller_frame(x, func);
    const mg_evw_open *e = x->depth ? &x->stack[x->depth - 1] : NULL;
    uint32_t parent, base;
    if (hint != MG_CC_ROOT) {
        parent = e ? mg_cctx_graft(&x->cc, hint, e->node, e->base) : hint;
        base = hint;
    } else {
        parent = e ? e->node : MG_CC_ROOT;
        base = e ? e->base : MG_CC_ROOT;
    }
    uint32_t node = mg_cctx_child(&x->cc, parent, region);
    *MG_PUSH(x->stack, x->depth, x->capstack) = (mg_evw_open){region, node, base, false};
    if (x->plain)
        move_to(x, t, node);
    else
        check(x,
              OTF2_EvtWriter_CallingContextEnter(x->w, attrs, t, node, unwind_distance(x, node)));
}

/* Close the innermost open region. */
static void close_top(mg_evw *x, uint64_t t)
{
    uint32_t node = x->stack[--x->depth].node;
    if (x->plain) {
        move_to(x, t, mg_cctx_parent(&x->cc, node));
        return;
    }
    check(x, OTF2_EvtWriter_CallingContextLeave(x->w, NULL, t, node));
    /* OTF2: the parent is the previous calling context of the next event */
    x->have_prev = true;
    x->prev_node = mg_cctx_parent(&x->cc, node);
}

/* Close the regions whose Leave came while an MPI call inside them was open. */
static void close_deferred(mg_evw *x, uint64_t t)
{
    while (x->depth && x->stack[x->depth - 1].deferred)
        close_top(x, t);
}

/* Whether a region above stack position k is an MPI call. */
static bool mpi_above(const mg_evw *x, size_t k)
{
    for (size_t i = k; i < x->depth; i++)
        if (x->loc->proc->regions[x->stack[i].region].paradigm == MG_PAR_MPI)
            return true;
    return false;
}

/*
 * A Leave that does not close the innermost open region (clocks that differ beyond what
 * evgen's clock rule moves, or damaged input). An MPI call's times are kept as measured:
 * a region that ends while a call inside it is open ends with that call (deferred);
 * otherwise the regions inside it are closed with it (clipped) and their own Leaves
 * dropped later.
 */
static void leave(mg_evw *x, uint64_t t, uint32_t region)
{
    if (x->depth && x->stack[x->depth - 1].region == region) {
        close_top(x, t);
        close_deferred(x, t);
        return;
    }
    uint64_t *pending = mg_xslot(&x->dropped, region, 0);
    if (*pending) {
        (*pending)--; /* closed earlier by a repair */
        return;
    }
    size_t k = x->depth;
    while (k > 0 && (x->stack[k - 1].region != region || x->stack[k - 1].deferred))
        k--;
    if (k == 0) {
        x->repaired++;
        return; /* never entered */
    }
    if (mpi_above(x, k)) {
        x->stack[k - 1].deferred = true;
        x->deferred++;
        return;
    }
    x->clipped++;
    while (x->depth > k) {
        drop_later(x, x->stack[x->depth - 1].region);
        close_top(x, t);
    }
    close_top(x, t);
    close_deferred(x, t);
}

static void sample(mg_evw *x, uint64_t t, uint32_t node, uint32_t igen)
{
    uint32_t cc = sample_context(x, node);
    if (x->plain) {
        move_to(x, t, cc);
        return;
    }
    uint32_t dist = unwind_distance(x, cc);
    check(x, OTF2_EvtWriter_CallingContextSample(x->w, NULL, t, cc, dist, igen));
}

static void metric(mg_evw *x, uint64_t t, uint32_t m, uint64_t delta)
{
    if (m >= x->nmacc) {
        size_t n = m + 1;
        x->macc = mg_xrealloc(x->macc, n * sizeof(uint64_t));
        memset(x->macc + x->nmacc, 0, (n - x->nmacc) * sizeof(uint64_t));
        x->nmacc = n;
    }
    x->macc[m] += delta;
    OTF2_Type type = OTF2_TYPE_UINT64;
    OTF2_MetricValue v = {.unsigned_int = x->macc[m]};
    check(x, OTF2_EvtWriter_Metric(x->w, NULL, t, m, 1, &type, &v));
}

#define MAX_OPEN_REQUESTS 65536 /* requests freed without completion must not pile up */

static void request_started(hpa_u64map *open, uint64_t request)
{
    if (open->n >= MAX_OPEN_REQUESTS)
        hpa_u64map_clear(open); /* their completions, if any, are dropped later */
    mg_xput(open, request, 1);
}

void mg_evw_event(void *ctx, const mg_ev *ev)
{
    mg_evw *x = ctx;
    uint64_t t = ev->t;
    if (x->any && t < x->last_t) {
        t = x->last_t;
        x->late++;
    }
    if (!x->any)
        x->first_t = t;
    x->any = true;
    x->last_t = t;
    OTF2_EvtWriter *w = x->w;
    switch (ev->type) {
    case MG_EV_ENTER: {
        OTF2_AttributeList *attrs = NULL;
        if (ev->e == 1 && (attrs = OTF2_AttributeList_New()) != NULL)
            OTF2_AttributeList_AddUint64(attrs, MG_ATTR_SYNC_OBJECT, ev->d);
        enter(x, t, ev->a, ev->c ? (uint32_t)(ev->c - 1) : MG_CC_ROOT, ev->b, attrs);
        if (attrs)
            OTF2_AttributeList_Delete(attrs);
        break;
    }
    case MG_EV_LEAVE:
        leave(x, t, ev->a);
        break;
    case MG_EV_MPI_SEND:
        check(x, OTF2_EvtWriter_MpiSend(w, NULL, t, ev->a, ev->b, (uint32_t)ev->c, ev->d));
        break;
    case MG_EV_MPI_ISEND:
        request_started(&x->isends, ev->e);
        check(x, OTF2_EvtWriter_MpiIsend(w, NULL, t, ev->a, ev->b, (uint32_t)ev->c, ev->d, ev->e));
        break;
    case MG_EV_MPI_ISEND_COMPLETE:
        if (hpa_u64map_del(&x->isends, ev->e))
            check(x, OTF2_EvtWriter_MpiIsendComplete(w, NULL, t, ev->e));
        else
            x->lone_requests++;
        break;
    case MG_EV_MPI_IRECV_REQUEST:
        request_started(&x->irecvs, ev->e);
        check(x, OTF2_EvtWriter_MpiIrecvRequest(w, NULL, t, ev->e));
        break;
    case MG_EV_MPI_RECV:
        check(x, OTF2_EvtWriter_MpiRecv(w, NULL, t, ev->a, ev->b, (uint32_t)ev->c, ev->d));
        break;
    case MG_EV_MPI_IRECV:
        if (hpa_u64map_del(&x->irecvs, ev->e)) {
            check(x,
                  OTF2_EvtWriter_MpiIrecv(w, NULL, t, ev->a, ev->b, (uint32_t)ev->c, ev->d, ev->e));
        } else {
            x->lone_requests++;
            check(x, OTF2_EvtWriter_MpiRecv(w, NULL, t, ev->a, ev->b, (uint32_t)ev->c, ev->d));
        }
        break;
    case MG_EV_MPI_REQUEST_CANCELLED:
        if (hpa_u64map_del(&x->isends, ev->e) || hpa_u64map_del(&x->irecvs, ev->e))
            check(x, OTF2_EvtWriter_MpiRequestCancelled(w, NULL, t, ev->e));
        else
            x->lone_requests++;
        break;
    case MG_EV_MPI_COLL_BEGIN:
        check(x, OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, t));
        break;
    case MG_EV_MPI_COLL_END:
        check(x, OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, t, (OTF2_CollectiveOp)ev->c, ev->a, ev->b,
                                                 ev->d, ev->e));
        break;
    case MG_EV_THREAD_FORK:
        check(x, OTF2_EvtWriter_ThreadFork(w, NULL, t, OTF2_PARADIGM_OPENMP, ev->a));
        break;
    case MG_EV_THREAD_JOIN:
        check(x, OTF2_EvtWriter_ThreadJoin(w, NULL, t, OTF2_PARADIGM_OPENMP));
        break;
    case MG_EV_TEAM_BEGIN:
        check(x, OTF2_EvtWriter_ThreadTeamBegin(w, NULL, t, ev->a));
        break;
    case MG_EV_TEAM_END:
        check(x, OTF2_EvtWriter_ThreadTeamEnd(w, NULL, t, ev->a));
        break;
    case MG_EV_SAMPLE:
        sample(x, t, ev->a, ev->b);
        break;
    case MG_EV_METRIC:
        metric(x, t, ev->a, ev->d);
        break;
    case MG_EV_METRIC_POINT: {
        OTF2_Type type = OTF2_TYPE_UINT64;
        OTF2_MetricValue v = {.unsigned_int = ev->d};
        check(x, OTF2_EvtWriter_Metric(w, NULL, t, ev->a, 1, &type, &v));
        break;
    }
    case MG_EV_IO_CREATE:
        check(x,
              OTF2_EvtWriter_IoCreateHandle(w, NULL, t, ev->a, (OTF2_IoAccessMode)ev->b,
                                            (OTF2_IoCreationFlag)ev->c, (OTF2_IoStatusFlag)ev->d));
        break;
    case MG_EV_IO_DESTROY:
        check(x, OTF2_EvtWriter_IoDestroyHandle(w, NULL, t, ev->a));
        break;
    case MG_EV_IO_DUP:
        check(x,
              OTF2_EvtWriter_IoDuplicateHandle(w, NULL, t, ev->a, ev->b, (OTF2_IoStatusFlag)ev->d));
        break;
    case MG_EV_IO_BEGIN:
        check(x, OTF2_EvtWriter_IoOperationBegin(w, NULL, t, ev->a, (OTF2_IoOperationMode)ev->b,
                                                 OTF2_IO_OPERATION_FLAG_NONE, ev->c, ev->d));
        break;
    case MG_EV_IO_COMPLETE:
        check(x, OTF2_EvtWriter_IoOperationComplete(w, NULL, t, ev->a, ev->c, ev->d));
        break;
    case MG_EV_IO_DELETE:
        check(x, OTF2_EvtWriter_IoDeleteFile(w, NULL, t, ev->a, ev->b));
        break;
    default:
        break;
    }
}

OTF2_ErrorCode mg_evw_finish(mg_evw *x)
{
    while (x->depth) {
        if (!x->stack[x->depth - 1].deferred)
            x->repaired++;
        close_top(x, x->last_t);
    }
    if (x->plain)
        move_to(x, x->last_t, MG_CC_ROOT);
    mg_tsum *s = &x->loc->sum;
    s->events = x->nevents;
    if (x->any) {
        s->t_first = x->first_t;
        s->t_last = x->last_t;
    }
    s->repaired = x->repaired + x->late + x->deferred + x->clipped;
    s->repaired += x->lone_requests;
    free(x->stack);
    free(x->down);
    mg_cctx_free(&x->cc);
    hpa_u64map_free(&x->caller_frame);
    free(x->macc);
    hpa_u64map_free(&x->dropped);
    hpa_u64map_free(&x->isends);
    hpa_u64map_free(&x->irecvs);
    return x->err;
}
