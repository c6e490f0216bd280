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

/* Spread of n values (all 0 when n == 0). */
mg_spread mg_spread_of(const double *v, size_t n);

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
    char **problems; /* sorted: the same whatever the merge order */
    size_t nproblems;
} mg_agg;

void mg_agg_build(mg_agg *a, const mg_job *job);
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

#endif
