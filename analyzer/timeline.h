/*
 * timeline.h - the trace records of the kept threads as slices in time, one row per
 * thread, in layers, and the messages between rows: what the timeline exports draw
 * (export chrome, export html).
 *
 * A layer is one kind of record turned into slices: MPI calls (timeline_mpi.c), OpenMP
 * regions, constructs and waits (timeline_omp.c), and the tracers' records: thread
 * states' off-CPU time (timeline_states.c), sync waits and holds (timeline_sync.c), heap
 * calls (timeline_heap.c), I/O calls (timeline_io.c). A tracer adding records adds a
 * layer: a file timeline_<kind>.c defining an hpa_tl_layer, listed in timeline.c's table;
 * every timeline export then shows it.
 *
 * Times are nanoseconds from the origin (the earliest start of a kept process) on rank
 * 0's clock: when the processes ran on several hosts, each process's times are corrected
 * by its clock_offset records (linear between the MPI_Init and MPI_Finalize measurements);
 * processes of one host share its CLOCK_MONOTONIC and are not corrected. Filters apply:
 * left-out processes and threads are not read, and slices that end before or start after
 * a --time window are left out (the window is per process start; the origin is near them).
 *
 * Use: hpa_timeline_open, then hpa_timeline_walk once with a sink; the sink gets each
 * thread's slices when its stream ends and the matched messages after the last thread.
 * Not thread-safe.
 */
#ifndef HPA_TIMELINE_H
#define HPA_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define HPA_TL_NV 4 /* numbers a slice carries (bytes, peer, region ...) */

/* One interval of one thread. */
typedef struct hpa_tl_slice {
    uint64_t b, e;           /* from the origin (ns; hpa_tl_nest works in any unit) */
    const char *name;        /* "MPI_Send", "omp parallel" ...: valid during the walk */
    unsigned layer;          /* index into hpa_tl_layers */
    const char *const *keys; /* names of v[]: NULL-terminated, at most HPA_TL_NV, or NULL */
    int64_t v[HPA_TL_NV];
    const char *site_key; /* what site is: "call_site", "location"; NULL = no site */
    hpa_loc site;         /* where it is in the source (func 0: unknown) */
    const char *note_key; /* what note is ("file"); NULL = no note */
    const char *note;     /* a text of the slice (a file's path): valid for the whole walk */
    uint64_t order;       /* creation order in its thread (stable sorting) */
    uint64_t clipped;     /* set by hpa_tl_nest: time cut off its end to nest in its parent */
    unsigned depth;       /* set by hpa_tl_nest: slices it lies in, 0 = outermost */
} hpa_tl_slice;

/* A point-to-point message: a send matched to its completed receive. */
typedef struct hpa_tl_msg {
    const hpa_process *from_pr, *to_pr;
    uint32_t from_seq, to_seq; /* the threads that sent and received it */
    uint64_t send_ns, recv_ns; /* from the origin; inside their calls' slices */
    uint64_t bytes;
    int64_t tag;
} hpa_tl_msg;

/* What a walk hands out. Any callback may be NULL. */
typedef struct hpa_tl_sink {
    void *arg;
    /* The slices of one thread when its stream ends, in the order they were made (sort
     * and nest them with hpa_tl_nest); the sink may reorder or change them. */
    void (*thread)(void *arg, const hpa_process *pr, const hpa_thread *t, hpa_tl_slice *s,
                   size_t n);
    /* Each matched message, after the last thread (both ends kept by the filters). */
    void (*message)(void *arg, const hpa_tl_msg *m);
    /* Each clock sample the filters keep, as hpa_profile_replay gives it (local time). */
    hpa_sample_fn sample;
} hpa_tl_sink;

/* What the walk repaired or left out, for the exports to say. */
typedef struct hpa_tl_stats {
    uint64_t omp_repaired, omp_shift_ns; /* OpenMP events moved to nest with MPI calls */
    uint64_t omp_closed; /* OpenMP tasks and regions without an end, closed at the last event */
    uint64_t slices, messages;
} hpa_tl_stats;

typedef struct hpa_timeline hpa_timeline;

/* A layer: one kind of record as slices (the file comment says how to add one). */
typedef struct hpa_tl_layer {
    const char *key;   /* "mpi", "omp": stable, pages and tests name layers by it */
    const char *title; /* "MPI", "OpenMP": Chrome's category, the page's legend */
    /* Make the layer's walk state (*state) before the first record; 0 or an hpc_err. */
    int (*open)(hpa_timeline *tl, void **state);
    /* Every record of the thread being read, in order (not samples nor cct nodes). */
    void (*record)(hpa_timeline *tl, void *state, const hpa_process *pr, const hpa_thread *t,
                   const hpc_record *rec);
    /* The thread's stream ended: make what it still holds into slices. */
    void (*thread_end)(hpa_timeline *tl, void *state, const hpa_process *pr, const hpa_thread *t);
    /* After the last thread (messages are matched here). */
    void (*finish)(hpa_timeline *tl, void *state);
    void (*close)(void *state);
} hpa_tl_layer;

/* The layers, in the order they see each record. */
extern const hpa_tl_layer *const hpa_tl_layers[];
extern const unsigned hpa_tl_nlayers;
extern const hpa_tl_layer hpa_tl_layer_mpi, hpa_tl_layer_omp, hpa_tl_layer_states,
    hpa_tl_layer_sync, hpa_tl_layer_heap, hpa_tl_layer_io;

/* Prepare a walk over the loaded profile p (its filters): clock corrections, origin,
 * window. Returns 0 or HPC_E_NOMEM. */
int hpa_timeline_open(hpa_timeline **out, hpa_profile *p);
/* Read the kept threads again (hpa_profile_replay) and hand out what the layers make.
 * Returns 0 or an hpc_err (HPC_E_NOMEM). */
int hpa_timeline_walk(hpa_timeline *tl, const hpa_tl_sink *sink);
const hpa_tl_stats *hpa_timeline_stats(const hpa_timeline *tl);
/* Closing NULL does nothing. */
void hpa_timeline_close(hpa_timeline *tl);

/* A local time t of process pr as ns from the origin (0 if before it). */
uint64_t hpa_timeline_time(const hpa_timeline *tl, const hpa_process *pr, uint64_t t);
/* The --time window in ns from the origin: true if [b, e] touches it. */
bool hpa_timeline_in_window(const hpa_timeline *tl, uint64_t b, uint64_t e);
/* "main", "OpenMP worker" or "" (the thread's role, for row names). */
const char *hpa_timeline_thread_role(const hpa_process *pr, const hpa_thread *t);

/* ---------------------------------------------------------------- for layers */

/* The profile walked. */
hpa_profile *hpa_timeline_profile(const hpa_timeline *tl);
/* Add a slice of thread t from local times b to e (corrected here; left out when outside
 * the window). s gives name, keys, v, site; layer is set from `layer`. */
void hpa_timeline_slice(hpa_timeline *tl, const hpa_process *pr, unsigned layer, uint64_t b,
                        uint64_t e, const hpa_tl_slice *s);
/* The index of layer l in hpa_tl_layers. */
unsigned hpa_timeline_layer_index(const hpa_tl_layer *l);
/* A message matched by a layer: to the sink. */
void hpa_timeline_message(hpa_timeline *tl, const hpa_tl_msg *m);
/* Stop the walk with error rc (HPC_E_NOMEM) at the next record. */
void hpa_timeline_fail(hpa_timeline *tl, int rc);
/* The walk's counters, for layers to add to. */
hpa_tl_stats *hpa_timeline_counters(hpa_timeline *tl);

/* ---------------------------------------------------------------- nesting */

/*
 * Sort one thread's slices outer first (by begin, the longer first, then by order) and
 * make them nest: a slice that begins inside another but would end after it is cut at
 * the other's end (clipped says by how much); depth is set. A zero-length slice at
 * another's end lies inside it. Returns 0 or HPC_E_NOMEM.
 */
int hpa_tl_nest(hpa_tl_slice *s, size_t n);

#endif
