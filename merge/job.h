/*
 * job.h - the job being merged: its processes and their threads (locations).
 *
 * Rank 0 opens the experiment and lists every process in job order as an entry
 * (mg_job_open); each merge rank then holds mg_procs for its share only (rank 0 its own
 * by mg_job_take, the others by mg_job_open_share), with the same indices and location
 * ids as a serial merge, merges them and sends what it learned to rank 0 (part.c), which
 * unifies and summarizes each process as it comes and lets go of it (defs.h,
 * summary_agg.h): no merge rank holds the whole job.
 *
 * Order and ids: processes are sorted by location group id, which is the
 * MPI_COMM_WORLD rank for ranks and world_size + k for other processes (a non-MPI
 * program, fork children). Ranks that left no sub-experiment get a placeholder process
 * with one empty location, so that every rank of every communicator has a location.
 * Location id = group << 32 | thread seq.
 */
#ifndef MG_JOB_H
#define MG_JOB_H

#include "merge.h"
#include "regtab.h"
#include "summary.h"
#include "symbolize.h"

typedef struct mg_proc mg_proc;

/* A thread of a process: one OTF2 CPU-thread location. */
typedef struct mg_loc {
    mg_proc *proc;
    uint32_t seq;
    uint64_t id;
    char *path;      /* thread stream; NULL for a placeholder */
    uint64_t offset; /* where this thread's records start in it (hpc_thread_file) */
    /* calling contexts: index = CCT node id; node 0 = "no stack" */
    mg_ccnode *cc;
    size_t ncc, capcc;
    /* CCT nodes at or above job->cc_limit: deep[id - cc_limit] = parent + 1 (0: none);
     * their samples are taken at their nearest ancestor below the limit (defs.h) */
    uint32_t *deep;
    size_t ndeep;
    /* OpenMP team membership seen: team_size << 32 | thread_num */
    uint64_t *claims;
    size_t nclaims, capclaims;
    hpa_u64map claim_set;
    mg_tsum sum;
} mg_loc;

/* What an MPI function id means in this process (mpi_fn records). */
typedef struct mg_fninfo {
    char *name;
    uint32_t family, coll_op;
    uint32_t region; /* process-local region id, UINT32_MAX until used */
} mg_fninfo;

/* What a counter index means in this process (counter_def records). */
typedef struct mg_ctrinfo {
    char *name, *unit;
    uint64_t interval;
    uint32_t metric, igen; /* process-local ids */
} mg_ctrinfo;

/* An I/O handle of this process (io_handle records, -i): local id = index in iohs, given
 * where the stream first names it (its io_handle record or a call on it), so ids follow
 * stream order and every pass and merge rank gives the same. */
typedef struct mg_ioh {
    uint32_t file;     /* index in iofiles, UINT32_MAX: none known */
    uint32_t parent;   /* local handle it was made from (dup, fdopen), UINT32_MAX: none */
    uint8_t paradigm;  /* enum hpc_io_paradigm, 0 until its io_handle record is read */
    uint8_t found;     /* opened before tracing saw it: OTF2's pre-created handle */
    uint8_t guess;     /* paradigm of the first call on it (when its record is lost) */
    uint8_t mode;      /* OTF2_IoAccessMode */
    uint32_t status;   /* OTF2_IoStatusFlag */
    uint32_t creation; /* OTF2_IoCreationFlag */
} mg_ioh;

struct mg_proc {
    const hpc_proc *hp; /* NULL for placeholders */
    hpc_exp *exp;       /* merge ranks > 0: the process opened alone (mg_job_open_share) */
    uint32_t index;     /* in job->procs */
    uint64_t group;     /* OTF2 location group id */
    int64_t rank;       /* MPI_COMM_WORLD rank, -1 if none */
    char *name, *host;
    bool placeholder;
    bool ompt;   /* an OMPT tool recorded OpenMP states (omp_runtime.ompt) */
    bool mine;   /* this merge rank processes it */
    bool loaded; /* its tables and facts are read (mg_proc_load) */
    mg_clock clock;
    /* tables from process.hpe */
    mg_fninfo *fns;
    size_t nfns, capfns;
    hpa_u64map fn_by_id;   /* mpi_fn id -> index in fns */
    hpa_u64map comm_by_id; /* mpi_comm id -> index in comms */
    mg_ctrinfo *ctrs;
    size_t nctrs, capctrs;
    hpa_u64map ctr_by_index; /* counter_def index -> index in ctrs */
    /* process-local definitions (the local ids events use) */
    mg_region *regions;
    size_t nregions, capregions;
    hpa_u64map region_by_key;
    mg_comm *comms;
    size_t ncomms, capcomms;
    hpa_u64map team_by_size; /* OpenMP team size -> index in comms */
    mg_igen *igens;          /* [0] = clock */
    size_t nigens, capigens;
    mg_metric *metrics;
    size_t nmetrics, capmetrics;
    mg_ioh *iohs; /* I/O handles (-i) */
    size_t niohs, capiohs;
    hpa_u64map ioh_by_id;  /* io_handle id -> index in iohs */
    hpa_strtab iofiles;    /* paths of the files the handles are on */
    uint32_t state_metric; /* the first of HPC_NMSTATES thread-state metrics (User CPU ...,
                              in enum hpc_mstate order), UINT32_MAX: none recorded */
    /* heap tracing (-H): the metric "heap in use" (UINT32_MAX: none) and its values, model/
     * heap.h's points at corrected times; its first location writes them (while merged) */
    uint32_t heap_metric;
    uint64_t *heap_t, *heap_bytes;
    size_t nheap;
    /* threads */
    mg_loc *locs;
    size_t nlocs;
    /* while merging */
    mg_symproc *sym;
    mg_regtab *omptab; /* parallel region executions by id (regtab.h), or NULL */
    bool omptab_failed;
    mg_psum sum;
};

/* A process of the job as rank 0 holds it from the open to the end (issue 25): where it goes
 * and what the global definitions need of it, about 100 bytes. Rank 0 holds an mg_proc only
 * for the processes it merges itself and, one at a time, for those of the parts it reads. */
typedef struct mg_entry {
    uint64_t group;
    int64_t rank;
    const char *name;
    uint32_t host;      /* in job->hosts */
    uint32_t nlocs;     /* 1 for a placeholder */
    uint32_t *seqs;     /* its threads' seqs: location id = group << 32 | seq */
    uint64_t bytes;     /* its thread streams' bytes, 1 more (the share it falls into) */
    uint64_t real_time; /* proc_begin's real time, 0 if none */
    int32_t exp_proc;   /* its process in job->exp (as opened), -1: a placeholder */
} mg_entry;

typedef struct mg_job {
    char *path;
    hpc_exp *exp;      /* rank 0: the whole job lean, until its share is taken (mg_job_take) */
    mg_entry *entries; /* rank 0: every process of the job, in job order */
    size_t nentries;
    char *entry_names;    /* their names, */
    uint32_t *entry_seqs; /* and their threads' seqs (job.c) */
    hpa_strtab hosts;     /* rank 0: the entries' hosts */
    bool io_traced;       /* rank 0: a process traced I/O (-i): the summary reads the job again */
    hpc_diag *diag;
    mg_syms *syms;
    mg_proc *procs;
    size_t nprocs;
    int64_t world_size;    /* -1 if not an MPI job */
    char *command;         /* the profiled program's command line */
    char *collect_command; /* hpcollect's command line */
    char *job_id, *version;
    uint64_t real_time;      /* job creation, ns since the epoch */
    uint64_t job_time;       /* job creation, monotonic ns (rank 0's clock) */
    hpa_strtab member_lists; /* communicators' member lists (mg_job_members) */
    uint8_t *missing;        /* bit r: world rank r left no sub-experiment (a placeholder) */
    /* problems found, for the summary (stderr has them too) */
    char **problems;
    size_t nproblems, capproblems;
    size_t problems_dropped;
    /* progress: evgen counts records read (both passes) and calls tick every 64 Ki */
    uint64_t progress_records;
    void (*tick)(struct mg_job *job);
    void *tick_ctx;
    unsigned top;    /* functions listed in the summary */
    size_t cc_limit; /* sampled calling contexts kept per location (defs.h) */
    bool replay;     /* pass 2: damage was reported in pass 1 already */
    /* merge statistics */
    uint64_t records, events;
    double merge_seconds;
    int merge_ranks;
} mg_job;

/*
 * Rank 0: open the experiment at path (lean) and list its processes in job order as
 * entries (no mg_proc yet: mg_job_take). diag gets damage reports.
 * Returns 0, or a negative hpc_err after printing why (nothing usable).
 */
int mg_job_open(mg_job *job, const char *path, hpc_diag *diag);

/*
 * Rank 0: its share, the processes with owner[i] == 0, as mg_procs. With keep_exp (a
 * serial merge: its share is the job) they use the job's lean processes; otherwise each
 * is opened alone again (as the other merge ranks open theirs) and the job's experiment
 * is closed, so that rank 0 holds the entries and its share, not the whole job.
 * Returns 0, or -1 after recording a problem (as mg_job_open_share).
 */
int mg_job_take(mg_job *job, const int *owner, bool keep_exp);

/* Rank 0, every process merged: the job's lean experiment (a serial merge keeps it for
 * its processes while they are merged) is let go of, unless the summary reads it (-i). */
void mg_job_merged(mg_job *job);

/* Rank 0: process i of the job (an entry) as an mg_proc of its own, with its locations
 * but no data: what a part fills in (part.c). Free with mg_proc_free and free. */
mg_proc *mg_job_entry_proc(mg_job *job, size_t i);

/* Rank 0: the number of locations of the job. */
size_t mg_job_nlocs(const mg_job *job);
void mg_job_close(mg_job *job);

/* One process of a merge rank's share, as rank 0 names it (share.c): its place in job
 * order and its sub-experiment's directory (NULL for a placeholder). */
typedef struct mg_share_proc {
    uint32_t index;
    uint64_t group;
    int64_t rank;
    char *name, *host, *dir;
} mg_share_proc;

/* A merge rank's share of the job: what it needs of the whole (the world size, the
 * command, which ranks are missing) and its processes, a block in job order. */
typedef struct mg_share {
    int64_t world_size;
    char *command;
    uint64_t *missing; /* world ranks without a sub-experiment */
    size_t nmissing;
    mg_share_proc *procs;
    size_t nprocs;
} mg_share;

/*
 * The job of a merge rank > 0: only its share's processes, each opened alone and lean
 * from its directory, instead of the whole job (rank 0 opened that and sent the share).
 * Damage was reported by rank 0: these opens are quiet. Returns 0, or -1 after recording
 * a problem (a sub-experiment that rank 0 could read and this rank cannot).
 */
int mg_job_open_share(mg_job *job, const char *path, hpc_diag *diag, const mg_share *s);

/* Did world rank `rank` leave no sub-experiment (a placeholder stands for it)? */
bool mg_job_rank_missing(const mg_job *job, int64_t rank);

/* The job's copy of the member list m[0..n-1] (each distinct list is held once), and its
 * id in *id. */
const uint64_t *mg_job_members(mg_job *job, const uint64_t *m, uint32_t n, uint32_t *id);

/* Record a problem for the summary and print it to stderr (printf-style). */
void mg_job_problem(mg_job *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Process-local region id for key, created with the given fields if new. */
uint32_t mg_proc_region(mg_proc *p, uint64_t key, const char *name, const char *file, uint32_t line,
                        unsigned role, unsigned paradigm);
/* Process-local comm id of the OpenMP team of this size. */
uint32_t mg_proc_team(mg_proc *p, uint32_t team_size);
/* The counter info for a counter index, created (named "counter<k>") if undefined. */
mg_ctrinfo *mg_proc_counter(mg_proc *p, uint64_t index);

/* Region keys (process-local map keys). */
#define MG_RKEY_MPI(fn)         ((1ull << 60) | (uint64_t)(fn))
#define MG_RKEY_OMP(kind, site) ((2ull << 60) | ((uint64_t)(kind) << 32) | (uint64_t)(site))
#define MG_RKEY_FUNC(func)      ((3ull << 60) | (uint64_t)(func))
#define MG_RKEY_SPECIAL(n)      ((4ull << 60) | (uint64_t)(n))
#define MG_RKEY_SYNC(kind)      ((5ull << 60) | (uint64_t)(kind))
#define MG_RKEY_IO(fn)          ((6ull << 60) | (uint64_t)(fn))

/* Process-local id of the process's I/O handle `handle` (io_handle.handle), made
 * (undefined until its io_handle record comes) if new. */
uint32_t mg_proc_ioh(mg_proc *p, uint64_t handle);

/*
 * A process's tables (MPI functions, communicators, counters), clock and facts, read
 * from its process.hpe when it is merged, not when the job is opened: every merge rank
 * opens every process lean (hpc_exp_open_lean) and holds all of one only while it merges
 * it. mg_proc_load returns 0, or -1 after recording a problem (the process is merged
 * without them). mg_proc_unload lets go of what only merging it needed (the records,
 * the schema, the tables and lookup maps), keeping its definitions and summary.
 */
int mg_proc_load(mg_job *job, mg_proc *p);
void mg_proc_unload(mg_proc *p);

/* A merge rank > 0 is done with the process it merged (and unloaded): its experiment,
 * opened alone (mg_job_open_share), is closed; hp is NULL after. */
void mg_proc_release(mg_proc *p);

/* Free the process's process-local definitions (regions, communicators, interrupt
 * generators, metrics, I/O handles and files, its locations' calling contexts and team
 * claims), keeping its summary: rank 0 once they are unified (defs.h). */
void mg_proc_drop_defs(mg_proc *p);

/* Free the process's definitions and summary (not hp). */
void mg_proc_free(mg_proc *p);

#endif
