/*
 * timeline_sync.c - the sync tracer's layer of the timelines (timeline.h, -s): each wait
 * in a synchronization call a slice from its request to its grant, named after what it
 * waited for ("mutex wait", "condition variable wait", "thread join wait" ...), with the
 * object's address, the call's result and its call site (where the waiting stack leaves
 * the threads library: hpa_call_site, as `syncs` says it); each hold of a mutex another
 * thread waited for a slice "mutex held" from its grant to its release, where the holder
 * let go. Only waits and holds longer than the tracer's threshold are recorded.
 *
 * A hold begins where its thread's wait for the same mutex ended when the two records'
 * clocks (read at different moments of the grant) have it begin a little earlier: else
 * the lane's nesting would cut the hold to end inside the wait.
 *
 * Sizes: the thread's last wait.
 */
#include <stdio.h>
#include <stdlib.h>

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

typedef struct sync_layer {
    uint64_t object, request, grant; /* the thread's last wait */
} sync_layer;

static int layer_open(hpa_timeline *tl, void **state)
{
    (void)tl;
    *state = calloc(1, sizeof(sync_layer));
    return *state ? 0 : HPC_E_NOMEM;
}

static void layer_thread_end(hpa_timeline *tl, void *state, const hpa_process *pr,
                             const hpa_thread *t)
{
    (void)tl;
    (void)pr;
    (void)t;
    *(sync_layer *)state = (sync_layer){0};
}

static void layer_record(hpa_timeline *tl, void *state, const hpa_process *pr, const hpa_thread *t,
                         const hpc_record *rec)
{
    sync_layer *L = state;
    unsigned layer = hpa_timeline_layer_index(&hpa_tl_layer_sync);
    if (rec->kind == HPC_K_sync_wait) {
        const hpc_rec_sync_wait *w = &rec->u.sync_wait;
        hpa_tl_slice s = {.name = wait_name((unsigned)w->kind),
                          .keys = keys_wait,
                          .v = {(int64_t)w->object, w->result},
                          .site_key = "call_site",
                          .site = hpa_call_site(hpa_timeline_profile(tl), pr, t, w->node, true)};
        hpa_timeline_slice(tl, pr, layer, w->time_request, w->time_grant, &s);
        *L = (sync_layer){w->object, w->time_request, w->time_grant};
    } else if (rec->kind == HPC_K_sync_hold) {
        const hpc_rec_sync_hold *h = &rec->u.sync_hold;
        hpa_tl_slice s = {.name = "mutex held", .keys = keys_hold, .v = {(int64_t)h->object}};
        if (h->node && h->node < t->nnodes) {
            s.site_key = "location";
            s.site = hpa_modmap_resolve(pr->map, t->pc[h->node]);
        }
        uint64_t b = h->time_grant;
        if (h->object == L->object && b >= L->request && b < L->grant &&
            L->grant <= h->time_release)
            b = L->grant;
        hpa_timeline_slice(tl, pr, layer, b, h->time_release, &s);
    }
}

const hpa_tl_layer hpa_tl_layer_sync = {
    .key = "sync",
    .title = "Sync waits",
    .open = layer_open,
    .record = layer_record,
    .thread_end = layer_thread_end,
    .close = free,
};
