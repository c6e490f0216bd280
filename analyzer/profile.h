/*
 * profile.h - the analyzer's model: every sample of every thread of every process of the
 * experiments, aggregated, plus the symbol tables to name it.
 *
 * Loading reads each thread stream once, in order:
 *   cct_node     -> per-thread node table (parent, pc), indexed by node id
 *   sample_*     -> filter (filter.h), then add to the metric vector (metrics.h) of the
 *                   bucket (node, state): a per-thread hash of two integers, so 10M
 *                   samples reduce to thousands of buckets without any allocation or
 *                   string work per sample
 * Then only the distinct PCs of nodes on sampled paths are symbolized (symbols.h).
 *
 * Reports do not walk buckets themselves: hpa_profile_paths() hands each bucket to a
 * callback as a call stack of symbolized frames (root first), after the view's stack
 * transform (view.h). Functions, callers-callees, calltree, lines, flame graphs and
 * folded stacks are all sums over those paths.
 */
#ifndef HPA_PROFILE_H
#define HPA_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "experiment.h"
#include "filter.h"
#include "metrics.h"
#include "symbols.h"

struct hpa_view;
struct hpa_load_hooks;

/* An aggregated sample bucket of one thread. vals has metrics.n entries. */
typedef struct hpa_bucket {
    uint32_t node;    /* CCT node id, 0 = no stack */
    uint32_t state;   /* sample state bits (HPC_STATE_*) */
    uint32_t omp_ctx; /* the load hooks' context (OpenMP construct, omp_model.h), 0 = none */
    uint64_t *vals;
} hpa_bucket;

typedef struct hpa_thread {
    uint32_t seq;
    uint64_t tid;
    bool has_begin, has_end;
    hpc_rec_thread_begin begin; /* name not kept */
    hpc_rec_thread_end end;
    /* CCT: node i has parent[i] (< i for well-formed streams) and pc[i]; node 0 = root. */
    uint32_t nnodes;
    uint32_t *parent;
    uint64_t *pc;
    hpa_loc *loc; /* symbolized pc[i], filled after loading */
    uint32_t *depth;
    /* Buckets: vals are rows of one array of nbuckets * metrics.n */
    uint32_t nbuckets;
    hpa_bucket *buckets;
    uint64_t *vals;
    /* Raw totals of this thread before filtering. */
    uint64_t samples_read, cpu_ns_read, counter_samples_read;
    uint64_t state_ns_read[HPC_NMSTATES]; /* thread states: User/System from clock samples,
                                             the others from sample_state */
    uint64_t state_how_read[4];           /* sample_state ns by enum hpc_state_how */
    hpc_rec_thread_account account[2];    /* the kernel's account at begin and end */
    unsigned naccount;
    uint64_t bad_nodes;         /* samples or nodes referring to unknown nodes */
    uint64_t damaged, unknown;  /* from the reader */
    uint64_t stats[HPC_NSTATS]; /* header of t<seq>.hpe */
    bool readable;
} hpa_thread;

typedef struct hpa_process {
    const hpc_proc *proc;
    unsigned exp; /* index of its experiment */
    hpa_modmap *map;
    uint64_t t0; /* proc_begin.time, or the earliest thread start */
    uint32_t nthreads;
    hpa_thread *threads;
    unsigned counter_metric[64];       /* counter_def.index -> metric, or UINT_MAX */
    unsigned counter_time_metric[64];  /* -> its time metric (cycles), or UINT_MAX */
    uint64_t counter_hz[64];           /* cpu_hz of a counter with a time metric */
    struct hpa_omp_proc *omp;          /* the load hooks' data of it: OpenMP regions and
                                          contexts (omp_proc.h), or NULL */
    struct hpm_heap *heap;             /* its heap (-H, model/heap.h), or NULL */
    const struct hpa_periods *periods; /* while hpa_profile_replay reads it: its sample
                                          periods (--samples, periods.h), else NULL */
} hpa_process;

typedef struct hpa_profile {
    unsigned nexps;
    hpc_exp **exps;
    size_t nprocs;
    hpa_process *procs;
    hpa_metrics metrics;
    hpa_symtab *syms;
    hpc_diag *diag;
    hpa_filter filter;
    char **owned; /* strings the metric set points to */
    unsigned nowned;
    const struct hpa_load_hooks *hooks; /* hpa_profile_load's, or NULL */
    bool loaded;                        /* hpa_profile_load ran */
    bool folded;                        /* hpa_profile_load_folded ran: no thread holds its
                                           call tree and buckets any more */
    uint64_t total[HPA_MAX_METRICS];    /* folded: the sums of every bucket */
} hpa_profile;

/*
 * Open experiments (hpc_exp_open on each path) without reading samples; enough for
 * header, statistics and dump. Experiments that cannot be opened are reported to diag.
 * Returns 0 and *out, or a negative hpc_err (HPC_E_NOTFOUND / HPC_E_FORMAT ...) from the
 * first path that could not be opened at all.
 */
int hpa_profile_open(hpa_profile **out, char **paths, unsigned npaths, hpc_diag *diag);

/*
 * What the views need of loading (view.h's hpa_view_load_hooks: the OpenMP views'), so
 * the loader itself knows no view. Any hook may be NULL; every one runs in the order
 * below. Hooks returning int return 0 or an hpc_err, which stops the load.
 */
typedef struct hpa_load_hooks {
    /* Before any sample: read what the views need of process pr (into pr->omp). Called
     * for each process the filters keep. */
    int (*load_process)(hpa_profile *p, hpa_process *pr);
    /* Then once: add the views' metrics to p->metrics. */
    int (*add_metrics)(hpa_profile *p);
    /* Each sample of thread seq the filters keep: its context (the bucket's omp_ctx, 0 =
     * none); may rewrite *state. Also when timelines replay the samples. */
    uint32_t (*classify)(hpa_process *pr, uint32_t seq, uint64_t time, uint64_t region,
                         uint32_t *state);
    /* Each clock sample kept, once classified: its CPU time. Not called on replay. */
    void (*sampled)(hpa_process *pr, uint32_t seq, uint64_t time, uint64_t region, uint32_t state,
                    uint64_t cpu_ns);
    /* After every sample: make what the views' paths need (their pseudo functions). */
    int (*loaded)(const hpa_profile *p);
    /* Frames the views may add to any path (hpa_profile_paths sizes its buffers). */
    unsigned (*path_room)(const hpa_profile *p);
    /* hpa_profile_close: free what load_process made. */
    void (*close_process)(hpa_process *pr);
} hpa_load_hooks;

/*
 * What reports that read no samples need (`mpi`): the symbol table, the filter f (NULL:
 * keep everything), and each process the filter keeps given its module map (pr->map;
 * NULL = left out). Memory per process: its slim records and module map. Idempotent (the
 * first f holds); hpa_profile_load does it first. Returns 0 or HPC_E_NOMEM.
 */
int hpa_profile_prepare(hpa_profile *p, const hpa_filter *f);

/*
 * Read every thread stream, applying f (NULL: keep everything), aggregate and symbolize,
 * calling hooks (NULL: none) on the way; p keeps them for its paths, replays and close.
 * Idempotent: a second call does nothing. Damaged data is reported and skipped.
 * Returns 0 or HPC_E_NOMEM.
 */
int hpa_profile_load(hpa_profile *p, const hpa_filter *f, const hpa_load_hooks *hooks);

/*
 * The same, folding: each process, once its threads are read and symbolized, goes to fold
 * (which sums its paths: hpa_profile_paths sees this process's buckets only, the
 * processes before it hold none any more), then its threads' call trees and buckets are
 * freed, their counts and statistics kept; hooks->loaded runs before each fold, over that
 * process. So a report that only sums paths (functions, calltree) holds the sums and one
 * process at a time, whatever the number of ranks. Afterwards hpa_profile_paths and
 * hpa_profile_replay find no samples; hpa_profile_total still gives the totals. fold
 * returns 0 or an hpc_err, which stops the load.
 */
typedef int (*hpa_fold_fn)(void *arg, hpa_profile *p, hpa_process *pr);
int hpa_profile_load_folded(hpa_profile *p, const hpa_filter *f, const struct hpa_load_hooks *hooks,
                            hpa_fold_fn fold, void *arg);

void hpa_profile_close(hpa_profile *p);

/* One frame of a reported call stack. */
typedef struct hpa_frame {
    uint32_t func;
    uint32_t line;
    uint64_t pc; /* raw pc, 0 for frames a view made up */
} hpa_frame;

/* What a path callback gets besides the frames. */
typedef struct hpa_path_ctx {
    const hpa_profile *prof;
    const hpa_process *proc;
    const hpa_thread *thread;
    const hpa_bucket *bucket;
} hpa_path_ctx;

/*
 * Call fn once per bucket with a non-zero metric vector: frames[0] is the outermost
 * caller, frames[n-1] the leaf (for a stack-less sample: one "<no stack>" frame); vals
 * are the bucket's metric sums. view NULL = machine view (frames as recorded). frames is
 * valid only during the call.
 * Returns 0, or HPC_E_NOMEM.
 */
typedef void (*hpa_path_fn)(void *arg, const hpa_path_ctx *ctx, const hpa_frame *frames, unsigned n,
                            const uint64_t *vals);
int hpa_profile_paths(const hpa_profile *p, const struct hpa_view *view, hpa_path_fn fn, void *arg);
/* The frames of calling context node of thread seq of process proc, leaf first, into f (at
 * most cap), as recorded (no view); 0 when the thread or node is not loaded or the node's
 * path was not symbolized (no metric of the report on it). */
unsigned hpa_profile_stack(const hpa_profile *p, size_t proc, uint32_t seq, uint64_t node,
                           hpa_frame *f, unsigned cap);
/* The same over the processes of experiment exp only (index into p->exps; -1 = all):
 * --compare sums each experiment on its own. */
int hpa_profile_paths_of(const hpa_profile *p, int exp, const struct hpa_view *view, hpa_path_fn fn,
                         void *arg);

/*
 * Read the loaded threads' streams again, in order, for timelines (export chrome, html):
 * every clock sample the filters keep goes to sample_fn with its bucket (ctx->bucket: the
 * bucket it was added to) and its time, weight and cpu; every record other than samples
 * and call-tree nodes goes to record_fn, and record_fn gets rec == NULL after the last
 * record of each thread. Either callback may be NULL. Threads and processes the filters
 * left out are not read. Returns 0 or HPC_E_NOMEM.
 */
typedef void (*hpa_sample_fn)(void *arg, const hpa_path_ctx *ctx, uint64_t time, uint64_t cpu_ns,
                              uint32_t cpu);
typedef void (*hpa_record_fn)(void *arg, const hpa_process *pr, const hpa_thread *t,
                              const hpc_record *rec);
int hpa_profile_replay(hpa_profile *p, hpa_sample_fn sample_fn, hpa_record_fn record_fn, void *arg);

/* metrics_recorded.c: add the metrics of what the experiments recorded (a metric per
 * counter, cycles as time, MPI CPU) and map each process's counters to them. Called by
 * hpa_profile_load before reading samples. Returns 0 or HPC_E_NOMEM. */
int hpa_metrics_from_records(hpa_profile *p);

/* metrics_states.c: did any process record thread states; their metrics (user, system,
 * wait_cpu, ..., total_thread, wall; mpi_work and mpi_wait when mpi), added by
 * hpa_metrics_from_records; after loading, the ones with nothing in them are hidden by
 * default. */
bool hpa_states_recorded(const hpa_profile *p);
int hpa_states_add_metrics(hpa_profile *p, bool mpi);
void hpa_states_loaded(hpa_profile *p);
/* The title of an off-CPU hpc_mstate ("Wait CPU", "User Lock" ...), "Unknown state". */
const char *hpa_mstate_title(unsigned mstate);

/* Sum of every bucket's vals into total (metrics.n entries). */
void hpa_profile_total(const hpa_profile *p, uint64_t *total);

#endif
