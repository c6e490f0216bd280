/*
 * evwrite.h - ordered events of one location into its OTF2 event writer.
 *
 * Guarantees what OTF2 readers rely on, whatever the input was like:
 *   - timestamps never decrease (a late event is written at the previous time, counted);
 *   - Enter/Leave are properly nested: a Leave that does not close the innermost open
 *     region first closes the regions inside it (their own Leaves are dropped later),
 *     a Leave of no open region is dropped, and regions still open at the end (a thread
 *     that died inside a call) are left at the location's last timestamp;
 *   - each CallingContextSample's unwind distance follows from the previous sample on
 *     the location (common ancestor in the calling-context tree);
 *   - a sample's calling context has an id below cc_limit (what one OTF2 mapping table
 *     holds, defs.h): a deeper one is written as its nearest ancestor below (a parent's
 *     id is always below its child's), counted in cut_samples;
 *   - counter values are written accumulated since the start (OTF2_METRIC_ACCUMULATED_START);
 *   - a non-blocking request completes only after it started: an MpiIsendComplete or
 *     MpiRequestCancelled without its start (lost in damaged data) is dropped, an MpiIrecv
 *     without its MpiIrecvRequest is written as the MpiRecv it still is.
 */
#ifndef MG_EVWRITE_H
#define MG_EVWRITE_H

#include <otf2/otf2.h>

#include "job.h"

typedef struct mg_evw {
    OTF2_EvtWriter *w;
    mg_loc *loc;
    uint64_t first_t, last_t;
    bool any;
    uint32_t *stack; /* open regions */
    size_t depth, capstack;
    mg_map dropped; /* region -> Leaves still to drop */
    bool have_prev;
    uint32_t prev_node;
    uint64_t *macc; /* accumulated metric values by local metric id */
    size_t nmacc;
    mg_map isends, irecvs; /* requests started, not yet completed (at most 64 Ki) */
    size_t cc_limit;       /* calling contexts at or above it are written as their ancestor */
    uint64_t nevents, late, repaired, lone_requests, cut_samples;
    OTF2_ErrorCode err; /* first OTF2 error */
} mg_evw;

/* cc_limit: see above (MG_MAX_LOCATION_CCS unless a test lowers it). */
void mg_evw_init(mg_evw *x, OTF2_EvtWriter *w, mg_loc *loc, size_t cc_limit);
/* Sink for order.c: write one event. */
void mg_evw_event(void *x, const mg_ev *ev);
/* Close what is still open; store counts in loc->sum; free. Returns the first OTF2
 * error (OTF2_SUCCESS if none). */
OTF2_ErrorCode mg_evw_finish(mg_evw *x);

#endif
