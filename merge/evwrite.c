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
                   (int)MG_PAR_SAMPLING == (int)OTF2_PARADIGM_SAMPLING,
               "mg_paradigm must equal OTF2_Paradigm");

#define MAX_DEPTH 4096 /* deeper Enters are dropped with their Leaves */

void mg_evw_init(mg_evw *x, OTF2_EvtWriter *w, mg_loc *loc, size_t cc_limit)
{
    memset(x, 0, sizeof(*x));
    x->w = w;
    x->loc = loc;
    x->cc_limit = cc_limit;
}

static void check(mg_evw *x, OTF2_ErrorCode rc)
{
    if (rc != OTF2_SUCCESS && x->err == OTF2_SUCCESS)
        x->err = rc;
    x->nevents++;
}

static void drop_later(mg_evw *x, uint32_t region)
{
    (*mg_map_slot(&x->dropped, region, 0))++;
}

static void enter(mg_evw *x, uint64_t t, uint32_t region)
{
    if (x->depth == MAX_DEPTH) {
        drop_later(x, region);
        x->repaired++;
        return;
    }
    *MG_PUSH(x->stack, x->depth, x->capstack) = region;
    check(x, OTF2_EvtWriter_Enter(x->w, NULL, t, region));
}

static void leave(mg_evw *x, uint64_t t, uint32_t region)
{
    if (x->depth && x->stack[x->depth - 1] == region) {
        x->depth--;
        check(x, OTF2_EvtWriter_Leave(x->w, NULL, t, region));
        return;
    }
    uint64_t *pending = mg_map_slot(&x->dropped, region, 0);
    if (*pending) {
        (*pending)--; /* closed earlier by a repair */
        return;
    }
    size_t k = x->depth;
    while (k > 0 && x->stack[k - 1] != region)
        k--;
    x->repaired++;
    if (k == 0)
        return; /* never entered */
    while (x->depth > k) {
        uint32_t inner = x->stack[--x->depth];
        check(x, OTF2_EvtWriter_Leave(x->w, NULL, t, inner));
        drop_later(x, inner);
    }
    x->depth--;
    check(x, OTF2_EvtWriter_Leave(x->w, NULL, t, region));
}

/* OTF2's unwind distance from the previous sample's context to this one. */
static uint32_t unwind_distance(mg_evw *x, uint32_t node)
{
    const mg_ccnode *cc = x->loc->cc;
    uint32_t prev = x->prev_node;
    bool first = !x->have_prev;
    x->have_prev = true;
    x->prev_node = node;
    if (!first && prev == node)
        return 1;
    uint32_t dn = cc[node].depth;
    if (first || node == 0 || prev == 0)
        return dn + 1;
    /* walk both up to equal depth, then together to the common ancestor */
    uint32_t a = node, b = prev, da = dn, db = cc[prev].depth, entered = 0;
    while (da > db) {
        a = cc[a].parent;
        da--;
        entered++;
    }
    while (db > da) {
        b = cc[b].parent;
        db--;
    }
    while (a != b && da > 0) {
        a = cc[a].parent;
        b = cc[b].parent;
        da--;
        entered++;
    }
    if (a != b || da == 0)
        return dn + 1; /* no common frame */
    return entered + 1;
}

static void sample(mg_evw *x, uint64_t t, uint32_t node, uint32_t igen)
{
    if (node >= x->loc->ncc)
        node = 0;
    if (node >= x->cc_limit) {
        x->cut_samples++;
        while (node >= x->cc_limit)
            node = x->loc->cc[node].parent;
    }
    uint32_t dist = unwind_distance(x, node);
    check(x, OTF2_EvtWriter_CallingContextSample(x->w, NULL, t, node, dist, igen));
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

static void request_started(mg_map *open, uint64_t request)
{
    if (open->n >= MAX_OPEN_REQUESTS)
        mg_map_clear(open); /* their completions, if any, are dropped later */
    mg_map_put(open, request, 1);
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
    case MG_EV_ENTER:
        enter(x, t, ev->a);
        break;
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
        if (mg_map_del(&x->isends, ev->e))
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
        if (mg_map_del(&x->irecvs, ev->e)) {
            check(x,
                  OTF2_EvtWriter_MpiIrecv(w, NULL, t, ev->a, ev->b, (uint32_t)ev->c, ev->d, ev->e));
        } else {
            x->lone_requests++;
            check(x, OTF2_EvtWriter_MpiRecv(w, NULL, t, ev->a, ev->b, (uint32_t)ev->c, ev->d));
        }
        break;
    case MG_EV_MPI_REQUEST_CANCELLED:
        if (mg_map_del(&x->isends, ev->e) || mg_map_del(&x->irecvs, ev->e))
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
    default:
        break;
    }
}

OTF2_ErrorCode mg_evw_finish(mg_evw *x)
{
    while (x->depth) {
        uint32_t r = x->stack[--x->depth];
        check(x, OTF2_EvtWriter_Leave(x->w, NULL, x->last_t, r));
        x->repaired++;
    }
    mg_tsum *s = &x->loc->sum;
    s->events = x->nevents;
    if (x->any) {
        s->t_first = x->first_t;
        s->t_last = x->last_t;
    }
    s->repaired = x->repaired + x->late;
    s->repaired += x->lone_requests;
    free(x->stack);
    free(x->macc);
    mg_map_free(&x->dropped);
    mg_map_free(&x->isends);
    mg_map_free(&x->irecvs);
    return x->err;
}
