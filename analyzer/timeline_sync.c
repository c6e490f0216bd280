/*
 * timeline_sync.c - the sync tracer's layer of the timelines (timeline.h, -s): each wait
 * in a synchronization call a slice from its request to its grant, named after what it
 * waited for ("mutex wait", "condition variable wait", "thread join wait" ...), with the
 * object's address, the call's result and its call site (where the waiting stack leaves
 * the threads library: hpa_call_site, as `syncs` says it); each hold of a mutex another
 * thread waited for a slice "mutex held" from its grant to its release, where the holder
 * let go. Only waits and holds longer than the tracer's threshold are recorded.
 *
 * Sizes: nothing kept between records.
 */
#include <stdio.h>

#include "report_util.h"
#include "timeline.h"

static const char *const keys_wait[] = {"address", "result", NULL};
static const char *const keys_hold[] = {"address", NULL};

/* "mutex wait" ...: made once, kept for the run (slices keep the pointer). */
static const char *wait_name(unsigned kind)
{
    static char names[HPC_SYNC_KIND_COUNT_ + 1][48];
    unsigned k = kind < HPC_SYNC_KIND_COUNT_ ? kind : HPC_SYNC_KIND_COUNT_;
    if (!names[k][0])
        snprintf(names[k], sizeof names[k], "%s wait", hpa_sync_kind_name(kind));
    return names[k];
}

static void layer_record(hpa_timeline *tl, void *state, const hpa_process *pr, const hpa_thread *t,
                         const hpc_record *rec)
{
    (void)state;
    unsigned layer = hpa_timeline_layer_index(&hpa_tl_layer_sync);
    if (rec->kind == HPC_K_sync_wait) {
        const hpc_rec_sync_wait *w = &rec->u.sync_wait;
        hpa_tl_slice s = {.name = wait_name((unsigned)w->kind),
                          .keys = keys_wait,
                          .v = {(int64_t)w->object, w->result},
                          .site_key = "call_site",
                          .site = hpa_call_site(hpa_timeline_profile(tl), pr, t, w->node)};
        hpa_timeline_slice(tl, pr, layer, w->time_request, w->time_grant, &s);
    } else if (rec->kind == HPC_K_sync_hold) {
        const hpc_rec_sync_hold *h = &rec->u.sync_hold;
        hpa_tl_slice s = {.name = "mutex held", .keys = keys_hold, .v = {(int64_t)h->object}};
        if (h->node && h->node < t->nnodes) {
            s.site_key = "location";
            s.site = hpa_modmap_resolve(pr->map, t->pc[h->node]);
        }
        hpa_timeline_slice(tl, pr, layer, h->time_grant, h->time_release, &s);
    }
}

const hpa_tl_layer hpa_tl_layer_sync = {
    .key = "sync",
    .title = "Sync waits",
    .record = layer_record,
};
