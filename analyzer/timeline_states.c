/*
 * timeline_states.c - thread states' layer of the timelines (timeline.h): the off-CPU
 * time each sample_state record charges (Wait CPU, User Lock, the page faults, Other
 * Wait), named after its state, as a slice ending where it was charged.
 *
 * What a slice is: the collector adds a thread's off-CPU time up per state and writes it
 * once its total reaches a clock interval (docs/thread-states.md), so a record is one
 * long block exactly (a 1 s sleep: a 1 s slice ending at the sleep's end) or the sum of
 * several short ones since the state's previous record. The slice is that much time
 * before the charge, cut so as not to begin before the thread's previous state slice; its
 * "state time" is what the record charged (more than the slice when it was cut), "charged"
 * says where (at the blocking call, at the next clock sample ...), the site is the
 * program's call (at a call) or where the thread was.
 *
 * Sizes: the end of the thread's last slice.
 */
#include <stdlib.h>

#include "report_util.h"
#include "timeline.h"

static const char *const keys_state[] = {"state_time_ns", NULL};

static const char *const how_text[] = {
    [HPC_STATE_AT_CALL] = "at its blocking call",
    [HPC_STATE_AT_SAMPLE] = "at the thread's next clock sample",
    [HPC_STATE_AT_END] = "at the end of the thread's recording",
    [HPC_STATE_UNSEEN] = "unseen (the kernel lost its switch records)",
};

typedef struct states_layer {
    uint64_t last_end; /* local time the thread's last state slice ended */
} states_layer;

static int layer_open(hpa_timeline *tl, void **state)
{
    (void)tl;
    *state = calloc(1, sizeof(states_layer));
    return *state ? 0 : HPC_E_NOMEM;
}

static void layer_record(hpa_timeline *tl, void *state, const hpa_process *pr, const hpa_thread *t,
                         const hpc_record *rec)
{
    states_layer *L = state;
    if (rec->kind != HPC_K_sample_state)
        return;
    const hpc_rec_sample_state *s = &rec->u.sample_state;
    if (s->mstate >= HPC_NMSTATES || s->mstate <= HPC_MSTATE_SYSTEM || !s->ns)
        return; /* CPU time is the clock samples' */
    uint64_t b = s->time > s->ns ? s->time - s->ns : 0;
    if (b < L->last_end)
        b = L->last_end < s->time ? L->last_end : s->time;
    hpa_tl_slice x = {.name = hpa_mstate_title((unsigned)s->mstate),
                      .keys = keys_state,
                      .v = {(int64_t)s->ns},
                      .note_key = "charged",
                      .note = how_text[s->how < 4 ? s->how : HPC_STATE_UNSEEN]};
    if (s->node && s->node < t->nnodes) {
        bool at_call = s->how == HPC_STATE_AT_CALL;
        x.site_key = at_call ? "call_site" : "location";
        x.site = at_call ? hpa_call_site(hpa_timeline_profile(tl), pr, t, s->node, true)
                         : hpa_modmap_resolve(pr->map, t->pc[s->node]);
    }
    hpa_timeline_slice(tl, pr, hpa_timeline_layer_index(&hpa_tl_layer_states), b, s->time, &x);
    L->last_end = s->time;
}

static void layer_thread_end(hpa_timeline *tl, void *state, const hpa_process *pr,
                             const hpa_thread *t)
{
    (void)tl;
    (void)pr;
    (void)t;
    ((states_layer *)state)->last_end = 0;
}

const hpa_tl_layer hpa_tl_layer_states = {
    .key = "states",
    .title = "Thread states",
    .open = layer_open,
    .record = layer_record,
    .thread_end = layer_thread_end,
    .close = free,
};
