/*
 * summary_agg.h - the job-wide view of the summary: per-process accumulators (summary.h)
 * combined across processes, for summary.txt and summary.json alike.
 *
 * "Across ranks" statistics take one value per MPI rank that made the call: min, mean,
 * max and the coefficient of variation (population standard deviation / mean, as
 * hpanalyze's mpi report computes it: model/mpi_stats.h).
 */
#ifndef MG_SUMMARY_AGG_H
#define MG_SUMMARY_AGG_H

#include "job.h"

typedef struct mg_spread {
    double min, mean, max, cov;
} mg_spread;

typedef struct mg_aggcall {
    const char *call, *site;
    hpa_mpi_sum s;   /* all ranks */
    uint64_t ranks;  /* ranks that made the call */
    mg_spread time;  /* seconds per rank, over those ranks */
    mg_spread count; /* calls per rank, over those ranks */
    double cov;      /* of the time per rank (hpa_mpi_cov) */
} mg_aggcall;

typedef struct mg_aggfunc {
    const char *name, *module;
    uint64_t samples, excl_ns, incl_ns;
} mg_aggfunc;

typedef struct mg_aggompthr {
    int64_t rank; /* process's MPI rank, or -1 */
    const char *proc;
    uint32_t seq;
    uint64_t work_ns, wait_ns;
} mg_aggompthr;

typedef struct mg_aggomp {
    const char *name;
    uint64_t instances, wall_ns, work_ns, wait_ns;
    mg_aggompthr *threads;
    size_t nthreads, capthreads;
} mg_aggomp;

typedef struct mg_aggctr {
    const char *name, *unit;
    uint64_t samples, value;
} mg_aggctr;

typedef struct mg_agg {
    const mg_job *job;
    size_t nprocs_data; /* processes with a sub-experiment */
    size_t nranks;      /* MPI ranks with a sub-experiment */
    size_t nthreads;
    size_t nhosts;
    const char **hosts;
    uint64_t t0, t1; /* first and last event (corrected) */
    bool have_events;
    uint64_t samples, counter_samples, sampled_cpu_ns, os_cpu_ns, events, records, damaged;
    uint64_t stats[HPC_NSTATS];
    uint64_t mpi_ns, app_ns;
    mg_aggcall *calls; /* by total time, descending */
    size_t ncalls;
    mg_aggcall *sites;
    size_t nsites;
    mg_aggfunc *funcs; /* by exclusive time, descending */
    size_t nfuncs;
    mg_aggomp *omps; /* by wall time, descending */
    size_t nomps;
    mg_aggctr *ctrs;
    size_t nctrs;
    const char **runtimes; /* the OpenMP runtimes that ran, each once, in job order */
    size_t nruntimes;
    bool any_states, any_sync, any_heap; /* a process has thread states, sync waits, -H */
    char **problems;                     /* sorted: the same whatever the merge order */
    size_t nproblems;
    /* while processes are added */
    FILE *ranks;      /* each MPI rank's calls and time per call and site, for the spreads */
    bool ranks_bad;   /* writing them failed */
    hpa_strtab names; /* every string above, each once */
    hpa_strtab host_keys, call_keys, site_keys, func_keys, omp_keys, ctr_keys;
    size_t capcalls, capsites, capfuncs, capomps, capctrs, capruntimes;
} mg_agg;

/* The job-wide view built as processes are added (mg_agg_add, in job order, each once;
 * its strings copied), then finished (spreads, sorting, the job's problems). The values
 * the spreads across ranks are of go to the file ranks (read back by mg_agg_finish), so
 * that the view holds nothing per rank. mg_agg_finish returns 0, or -1 if ranks could not
 * be read back. */
void mg_agg_init(mg_agg *a, const mg_job *job, FILE *ranks);
void mg_agg_add(mg_agg *a, const mg_proc *p);
int mg_agg_finish(mg_agg *a);
void mg_agg_free(mg_agg *a);

/* A process's wall time in ns: begin to end record, or to its last event. */
uint64_t mg_proc_app_ns(const mg_proc *p);
/* Did p record thread states (any of its threads has time in one)? From the summed data,
 * so rank 0 of a parallel merge answers for every rank's process. */
bool mg_proc_has_states(const mg_proc *p);
/* True for a process that is an MPI rank with data. */
bool mg_proc_is_rank(const mg_proc *p);
/* True for a process with MPI records (what hpanalyze's mpi report lists). */
bool mg_proc_is_mpi(const mg_proc *p);

/*
 * The summary as processes come, in job order (rank 0): each process's rows of
 * summary.txt and summary.json (its MPI row, heap row, threads' states, sync waits and
 * summaries; its JSON object) are written to unlinked temporary files in a directory,
 * its numbers added to the job-wide view, and its summary let go of (issue 25: rank 0
 * no longer holds every process's summary until the end). The writers then copy the
 * rows where the sections are.
 */
enum mg_rows {
    MG_ROWS_MPI,
    MG_ROWS_HEAP,
    MG_ROWS_STATES,
    MG_ROWS_SYNC,
    MG_ROWS_THREADS,
    MG_ROWS_JSON,
    MG_ROWS_RANKS, /* not rows: the agg's values per rank (binary) */
    MG_NROWS
};

typedef struct mg_summary {
    const mg_job *job;
    FILE *rows[MG_NROWS];
    mg_agg agg;
    size_t nadded;
} mg_summary;

/* Returns 0, or -1 after saying why (a temporary file could not be made in dir). */
int mg_summary_begin(mg_summary *s, const mg_job *job, const char *dir);
/* Add p (its rows, its numbers) and free its summary and its threads'. */
void mg_summary_add(mg_summary *s, mg_proc *p);
/* Every process is in: the view is finished. Returns 0, or -1 (as mg_agg_finish). */
int mg_summary_finish(mg_summary *s);
/* Copy the rows of one kind to f: 0, or -1 if they could not be read back. */
int mg_summary_copy(const mg_summary *s, enum mg_rows which, FILE *f);
/* The rows of p: summary_text.c's, summary_json.c's (first: the first process). */
void mg_summary_rows_text(FILE *const rows[MG_NROWS], const mg_proc *p);
void mg_summary_rows_json(FILE *f, const mg_proc *p, bool first);
void mg_summary_end(mg_summary *s);

/* Write summary.txt and summary.json once every process is added.
 * Returns 0, or -1 with errno set when a file could not be written. */
int mg_summary_write_text(const mg_summary *s, FILE *f);
int mg_summary_write_json(const mg_summary *s, FILE *f);

#endif
