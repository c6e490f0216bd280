/*
 * evwrite.h - ordered events of one location into its OTF2 event writer.
 *
 * Two encodings of the same events (cctx.h has the calling-context tree both use):
 *   hybrid (default)  CallingContextEnter/Leave for MPI calls, OpenMP constructs and
 *                     traced regions, CallingContextSample for samples: one calling-
 *                     context tree, no plain Enter/Leave, as the OTF2 specification asks
 *                     (the two kinds are mutually exclusive in a trace). A reader that
 *                     registers only Enter/Leave callbacks gets Enter/Leave of the
 *                     instrumented regions, emulated by the OTF2 library.
 *   plain             (hpmerge --enter-leave) Enter/Leave of every node of that tree as
 *                     the location's context moves: instrumented regions at their own
 *                     times; a sampled function is entered at the first sample whose
 *                     (grafted) path holds it and left at the first later event whose
 *                     path does not (a sample elsewhere, or an instrumented region's
 *                     Enter or Leave). No samples are written; counter values are.
 *
 * Guarantees what OTF2 readers rely on, whatever the input was like:
 *   - timestamps never decrease (a late event is written at the previous time, counted);
 *   - regions are properly nested, MPI calls at their measured times: a Leave that does
 *     not close the innermost open region waits for the MPI call open inside it and
 *     ends with it, or else first closes the regions inside it (their own Leaves are
 *     dropped later); a Leave of no open region is dropped, and regions still open at
 *     the end (a thread that died inside a call) are left at the location's last
 *     timestamp; the Leaves so moved are problems (run.c);
 *   - every sample lies below the innermost open instrumented region, and each unwind
 *     distance follows from the previous calling-context event (common ancestor);
 *   - counter values are written accumulated since the start (OTF2_METRIC_ACCUMULATED_START),
 *     a process's values (heap in use) as they are (OTF2_METRIC_ABSOLUTE_POINT);
 *   - a non-blocking request completes only after it started: an MpiIsendComplete or
 *     MpiRequestCancelled without its start (lost in damaged data) is dropped, an MpiIrecv
 *     without its MpiIrecvRequest is written as the MpiRecv it still is.
 */
#ifndef MG_EVWRITE_H
#define MG_EVWRITE_H

#include <otf2/otf2.h>

#include "cctx.h"
#include "job.h"

/* An instrumented region open on the location. */
typedef struct mg_evw_open {
    uint32_t region; /* process-local region id */
    uint32_t node;   /* its calling context */
    uint32_t base;   /* sampled node its samples are grafted from (cctx.h) */
    bool deferred;   /* its Leave came with an MPI call inside it open: left with that */
} mg_evw_open;

typedef struct mg_evw {
    OTF2_EvtWriter *w;
    mg_loc *loc;
    bool plain; /* Enter/Leave of the tree's nodes instead of calling-context events */
    mg_cctx cc;
    uint64_t first_t, last_t;
    bool any;
    mg_evw_open *stack; /* open instrumented regions */
    size_t depth, capstack;
    hpa_u64map dropped; /* region -> Leaves still to drop */
    bool have_prev;
    uint32_t prev_node;      /* the previous calling-context event's context (plain: the
                                context whose nodes are entered), MG_CC_ROOT for none */
    uint32_t *down;          /* plain: nodes to enter, scratch */
    uint32_t last_sample;    /* canonical sampled node of the latest sample, MG_CC_ROOT: none */
    hpa_u64map caller_frame; /* function -> the frame the latest caller lookup found */
    size_t capdown;
    uint64_t *macc; /* accumulated metric values by local metric id */
    size_t nmacc;
    hpa_u64map isends, irecvs; /* requests started, not yet completed (at most 64 Ki) */
    uint64_t nevents, late, repaired, lone_requests;
    uint64_t deferred, clipped; /* Leaves out of nesting order (leave() says how) */
    OTF2_ErrorCode err;         /* first OTF2 error */
} mg_evw;

/* Start writing loc (its sampled calling contexts complete: after pass 1); plain picks
 * the encoding. */
void mg_evw_init(mg_evw *x, OTF2_EvtWriter *w, mg_loc *loc, bool plain);
/* Sink for order.c: write one event. */
void mg_evw_event(void *x, const mg_ev *ev);
/* Close what is still open; store counts in loc->sum; free. Returns the first OTF2
 * error (OTF2_SUCCESS if none). */
OTF2_ErrorCode mg_evw_finish(mg_evw *x);

#endif
