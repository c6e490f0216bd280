/*
 * omp_proc.h - what the OpenMP records of a process say: parallel regions, their
 * constructs and call paths, the worksharing constructs and barriers inside them, traced
 * work and wait per thread (issue 4, issue 18).
 *
 * Loaded once per process before its samples (profile.c calls hpa_omp_load): one pass
 * over every thread stream, its OpenMP records read through the model's timeline
 * (model/omp_model.h: pairing, the thread's own times), and its cct_node records. Then
 * each sample is classified (hpa_omp_classify): its region id becomes a small "construct
 * context" id (the construct plus the encountering thread's call path there: what the
 * user view puts above a worker's frames), and its state is decided by the rules of
 * omp_model.h; hpa_omp_sample_part adds its CPU time to the worksharing construct or
 * barrier phase it fell in.
 *
 * A parallel construct is one (outlined body, codeptr) pair: separate pragmas whose forks
 * are tail calls from one helper share a codeptr but not their outlined bodies. It is
 * named by the model's site (hpa_omp_site: the function holding the pragma, its line).
 *
 * Sizes: regions are counted per execution (a loop of 1e6 regions has 1e6 entries of
 * ~48 bytes); constructs, parts and contexts are few (source locations x call paths);
 * a thread keeps one phase (~32 bytes) per worksharing construct or barrier it executed.
 *
 * Traced (wall-clock) sums are exclusive: a thread's time in an inner parallel region
 * counts for the inner construct only, so a thread's totals never exceed its life.
 */
#ifndef HPA_OMP_PROC_H
#define HPA_OMP_PROC_H

#include <stdbool.h>
#include <stdint.h>

#include "experiment.h"
#include "omp_model.h"
#include "symbols.h"
#include "u64map.h"

struct hpa_profile;
struct hpa_process;
struct hpa_frame;

/* One execution of a parallel construct. */
typedef struct hpa_omp_region {
    uint64_t id, parent;
    uint64_t t_begin, t_end; /* t_end 0: no end recorded */
    uint32_t enc_seq;        /* encountering thread */
    uint32_t node;           /* its CCT node at the construct, 0 = none */
    uint32_t team_size;
    uint32_t ctx; /* construct context */
    uint32_t con; /* index into cons */
} hpa_omp_region;

/* A parallel construct: one outlined body forked from one code address. */
typedef struct hpa_omp_con {
    uint64_t codeptr, outlined, psource; /* omp_parallel_begin's; 0 = unknown */
    uint64_t executions;
    uint32_t max_team;          /* most threads requested (parallel-begin) */
    uint32_t actual_team;       /* most threads the runtime gave (implicit tasks), 0 = unknown */
    uint64_t wall_ns;           /* sum of region durations */
    uint32_t rep_seq, rep_node; /* a call path that reached it (first region's) */
    uint64_t rep_parent;        /* and the region around it (0 = none) */
    bool loc_known;             /* loc is cached (view_omp.c) */
    hpa_loc loc;
} hpa_omp_con;

/* A worksharing construct (loop, sections, single ...) or a barrier inside a parallel
 * construct: a row of `omp regions` of its own. Its work is the thread's time in the
 * construct (a barrier's: since the thread's previous barrier in the region), its wait
 * the barrier that ends it. */
typedef struct hpa_omp_part {
    uint32_t con;      /* the parallel construct around it */
    uint8_t construct; /* enum hpa_omp_construct */
    uint64_t codeptr;
    bool loc_known;
    hpa_loc loc;
} hpa_omp_part;

/* One thread's sums in one part. */
typedef struct hpa_omp_cell {
    uint32_t part, thread;     /* thread: index into threads */
    uint64_t instances;        /* executions by this thread */
    uint64_t work_ns, wait_ns; /* traced wall-clock */
    uint64_t cpu_work_ns;      /* sampled CPU in work states */
    uint64_t cpu_wait_ns;      /* sampled CPU in wait states */
} hpa_omp_cell;

/* A thread's interval in one cell, for the samples (sorted by begin). */
typedef struct hpa_omp_phase {
    uint64_t b, e;
    uint64_t region;
    uint32_t cell;
    bool wait;
} hpa_omp_phase;

/* A construct reached by one call path on one encountering thread. */
typedef struct hpa_omp_ctx {
    uint32_t enc_seq, node, parent_ctx, con;
    /* view caches (view_omp.c): transformed frames of the context, per view variant */
    struct hpa_frame *frames[2];
    unsigned nframes[2];
    bool built[2];
} hpa_omp_ctx;

/* A thread's CCT as the model keeps it (threads that encounter constructs only). */
typedef struct hpa_omp_cct {
    uint32_t n;
    uint32_t *parent;
    uint64_t *pc;
} hpa_omp_cct;

/* Traced wall-clock sums of one thread in one construct (or outside: index ncons). */
typedef struct hpa_omp_traced {
    uint64_t in_region_ns; /* implicit-task time, clipped to the region's end (rule 1),
                              without the time in inner regions (theirs) */
    uint64_t wait_ns[HPA_OMP_W_COUNT];
    uint64_t mpi_ns; /* in MPI calls (the thread's innermost region at the call, or none):
                        MPI's time, not OpenMP work */
} hpa_omp_traced;

typedef struct hpa_omp_thread {
    uint32_t seq;
    uint32_t type;            /* enum hpa_omp_thread_type (omp_thread record) */
    uint64_t t_first, t_last; /* lifetime as the stream shows it */
    hpa_omp_cct cct;
    hpa_omp_traced *traced; /* ncons + 1 entries */
    hpa_omp_phase *phases;  /* by begin */
    size_t nphases;
} hpa_omp_thread;

typedef struct hpa_omp_proc {
    hpa_omp_runtime rt; /* which runtime ran (model/omp_model.h) */
    bool ompt;          /* = rt.ompt: an OMPT runtime recorded OpenMP states */
    size_t nregions, region_cap;
    hpa_omp_region *regions;
    hpa_u64map region_index; /* region id -> index */
    uint32_t ncons, con_cap;
    hpa_omp_con *cons;
    uint32_t nparts, part_cap;
    hpa_omp_part *parts;
    size_t ncells, cell_cap;
    hpa_omp_cell *cells;
    uint32_t nctx, ctx_cap;
    hpa_omp_ctx *ctxs; /* ctxs[0] unused: context 0 = not in a region */
    hpa_u64map ctx_index;
    uint32_t nthreads;
    hpa_omp_thread *threads; /* every thread stream of the process, by position */
    unsigned room;           /* most frames a context's call path can add to a stack in a view */
    uint64_t repaired, closed_at_end; /* the timelines' repairs (omp_model.h) */
    /* classification cache */
    uint64_t last_region;
    uint32_t last_index;
    uint32_t last_seq, last_type, last_thread;
} hpa_omp_proc;

/*
 * Read the OpenMP records of process pr (every thread stream, whatever the filters) and
 * build its model into pr->omp. Processes without OpenMP get a model with ompt false
 * and rt telling whether an OpenMP runtime without OMPT ran. Damage is reported to the
 * profile's diag and skipped. Returns 0 or HPC_E_NOMEM.
 */
int hpa_omp_load(struct hpa_profile *p, struct hpa_process *pr);
void hpa_omp_free(hpa_omp_proc *m);

/*
 * Classify one sample of thread `seq` (time, region, state bits): returns the construct
 * context (0 = not in a region) and may rewrite *state by the rules of omp_model.h
 * (hpa_omp_sample_state: a worker's implicit barrier after its region's end is idle; the
 * initial thread's samples before the runtime started are serial). m NULL or without
 * OMPT: returns 0, state unchanged.
 */
uint32_t hpa_omp_classify(hpa_omp_proc *m, uint32_t seq, uint64_t time, uint64_t region,
                          uint32_t *state);

/* Add a classified clock sample's CPU time (state after hpa_omp_classify) to the part of
 * its thread it fell in, if any. m NULL: nothing. */
void hpa_omp_sample_part(hpa_omp_proc *m, uint32_t seq, uint64_t time, uint64_t region,
                         uint32_t state, uint64_t cpu_ns);

/* What the rules of omp_model.h need of region `region` (an id of the records) into *x;
 * false when m is NULL or has no such region. */
bool hpa_omp_exec_of(hpa_omp_proc *m, uint64_t region, hpa_omp_exec *x);

/* Frames the OpenMP views may add to any stack of the profile (hpa_profile_paths sizes
 * its buffers with it). */
unsigned hpa_omp_context_room(const struct hpa_profile *p);

/* Add the OpenMP Work and Wait metrics when any process recorded OpenMP states. */
int hpa_omp_add_metrics(struct hpa_profile *p);

/*
 * Function and line of construct c of process pr: the model's site (hpa_omp_site), or,
 * when the construct's code is not the program's (teams constructs report 0, gcc's
 * GOMP_teams_reg a runtime address), the innermost program frame of a call path that
 * reached it. A construct found only in an outlined body (nested) is in the function
 * holding the enclosing construct.
 */
hpa_loc hpa_omp_construct_loc(const struct hpa_profile *p, const struct hpa_process *pr,
                              uint32_t c);

/* Function and line of part i of process pr (its code address's, in the function of its
 * parallel construct when that address is in an outlined body). */
hpa_loc hpa_omp_part_loc(const struct hpa_profile *p, const struct hpa_process *pr, uint32_t i);

/* Make every function and line id the OpenMP views will use (view_omp.c): called once
 * after loading, before reports size tables by the symbol table. Returns 0 or an hpc_err. */
int hpa_omp_views_prepare(const struct hpa_profile *p);

/* What the header says about a process's OpenMP runtime (hpa_omp_runtime_text); false
 * when no runtime was recorded. */
bool hpa_omp_runtime_line(const hpc_proc *p, char *buf, size_t cap);

/* True if any process ran OpenMP without OMPT; a note to stderr says so once. */
bool hpa_omp_note_native(const struct hpa_profile *p);

#endif
