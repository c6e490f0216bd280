/*
 * summary.h - what the summary reports, accumulated per thread and per process while
 * the events are generated (pass 1), then combined across the job for summary.txt and
 * summary.json.
 *
 * Everything is kept in integer nanoseconds and counts, so that the sums do not depend
 * on the order in which processes were merged: a parallel merge gives the same summary
 * as a serial one. Seconds and ratios are computed only when printing.
 *
 * The MPI numbers (per rank, per call, per call site) are computed by the shared
 * model/mpi_stats.c, the code hpanalyze's mpi report uses, so both always agree: app_time
 * from MPI_Init's end to MPI_Finalize's start, MPI time without MPI_Init/Finalize and
 * nested calls, sends started, receives completed, other calls. Processes that are not
 * MPI ranks report their wall time (proc_begin to its end) as app_time.
 *   omp_work      sampled CPU time in OpenMP work states (serial and parallel work)
 *   omp_wait      sampled CPU time in OpenMP wait states (barriers, taskwait, locks ...)
 */
#ifndef MG_SUMMARY_H
#define MG_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "experiment.h"
#include "heap.h"
#include "io_stats.h"
#include "mpi_stats.h"
#include "util.h"

/* One MPI function, or one call site, in one process. */
typedef struct mg_callstat {
    char *call; /* "MPI_Send" */
    char *site; /* call sites: "exchange solver.c:42"; "" for functions */
    hpa_mpi_sum s;
} mg_callstat;

/* One function's sampled time in one process. */
typedef struct mg_funcstat {
    char *name, *module;
    uint64_t samples; /* clock samples with this function as leaf */
    uint64_t excl_ns, incl_ns;
} mg_funcstat;

/* One OpenMP parallel region (construct site) in one process. */
typedef struct mg_ompstat {
    char *name;                  /* "#pragma omp parallel @solver.c:42" */
    uint64_t instances, wall_ns; /* on the encountering thread */
    uint64_t work_ns, wait_ns;   /* sampled, all threads */
} mg_ompstat;

/* One (region, thread) pair. */
typedef struct mg_ompthr {
    uint32_t region; /* index in the process's omp list */
    uint32_t seq;
    uint64_t work_ns, wait_ns;
} mg_ompthr;

/* One counter's total in one process. */
typedef struct mg_ctrstat {
    char *name, *unit;
    uint64_t samples, value;
} mg_ctrstat;

/* A thread (location). */
typedef struct mg_tsum {
    uint32_t seq;
    uint64_t tid;
    char *name;
    bool ended; /* thread_end seen */
    uint64_t records, damaged, unknown;
    uint64_t events;          /* OTF2 events written */
    uint64_t early;           /* events that came out of stream order (order.c) */
    uint64_t repaired;        /* Enter/Leave nesting repairs */
    uint64_t t_first, t_last; /* corrected; t_first > t_last when no event */
    uint64_t samples, counter_samples, sample_cpu_ns, cpu_ns;
    uint64_t omp_work_ns, omp_wait_ns;
    uint64_t mpi_ns, mpi_calls;
    uint64_t state_ns[HPC_NMSTATES]; /* thread states (User and System CPU from the samples) */
    uint64_t life_ns;                /* thread_end - thread_begin, 0 when unknown */
    uint64_t t_begin;                /* thread_begin's time, local clock */
    uint64_t sync_ns, sync_waits;    /* recorded synchronization waits (-s), and their time */
} mg_tsum;

/* The per-process heap numbers of the summary (summary.json keys "heap_<key>"): model/heap.h's
 * hpm_heap_summary. */
#define MG_HEAP_NVALS HPM_HEAP_NSUMMARY
#define mg_heap_keys  hpm_heap_summary_keys

/* A process. */
typedef struct mg_psum {
    uint64_t pid;
    char *exe, *argv; /* argv NUL-separated turned to spaces */
    bool has_begin, has_end, ended_early, placeholder;
    char *end_note;          /* "exit 0", "killed by signal 9", "MPI_Abort(3)", ... */
    char *omp_runtime;       /* which OpenMP runtime ran (hpa_omp_runtime_text), "" if none */
    uint64_t t_begin, t_end; /* corrected */
    uint64_t os_cpu_ns;      /* utime + stime (proc_end or launcher_exit) */
    uint64_t maxrss_kb;
    uint64_t stats[HPC_NSTATS];
    uint64_t clock_interval_ns;
    /* MPI (mpi_stats.h) */
    bool is_mpi;     /* has mpi_fn or mpi_init records */
    hpa_mpi_sum mpi; /* the rank's sums */
    hpa_mpi_window win;
    int64_t clock_offset_ns; /* at MPI_Init */
    mg_callstat *calls;
    size_t ncalls, capcalls;
    hpa_u64map call_by_key;
    mg_callstat *sites;
    size_t nsites, capsites;
    hpa_u64map site_by_key;
    mg_funcstat *funcs;
    size_t nfuncs, capfuncs;
    hpa_u64map func_by_key;
    mg_ompstat *omps;
    size_t nomps, capomps;
    hpa_u64map omp_by_key;
    mg_ompthr *ompthr;
    size_t nompthr, capompthr;
    hpa_u64map ompthr_by_key;
    mg_ctrstat *ctrs;
    size_t nctrs, capctrs;
    /* heap tracing (-H, model/heap.h): values in the order of mg_heap_keys */
    bool heap_traced;
    uint64_t heap[MG_HEAP_NVALS];
} mg_psum;

/* Get or create the entry for key (callers choose keys); name/site are copied. */
mg_callstat *mg_psum_call(mg_psum *s, uint64_t key, const char *call);
mg_callstat *mg_psum_site(mg_psum *s, uint64_t key, const char *call, const char *site);
mg_funcstat *mg_psum_func(mg_psum *s, uint64_t key, const char *name, const char *module);
mg_ompstat *mg_psum_omp(mg_psum *s, uint64_t key, const char *name);
mg_ompthr *mg_psum_ompthr(mg_psum *s, uint32_t region, uint32_t seq);

/* The process is merged: free the lookup maps (mg_psum_call ... add no more entries). */
void mg_psum_done(mg_psum *s);
void mg_psum_free(mg_psum *s);
void mg_tsum_free(mg_tsum *t);

void mg_psum_write(hpa_buf *b, const mg_psum *s);
void mg_psum_read(hpa_buf *b, mg_psum *s);
void mg_tsum_write(hpa_buf *b, const mg_tsum *t);
void mg_tsum_read(hpa_buf *b, mg_tsum *t);

struct mg_job;

/* The job's traced I/O (summary_io.c): files as model/io_stats.c counts them, the files
 * with any call by total time (order), each process's totals over its files (procs, by
 * index in the experiment), and how many files one process or several used. */
typedef struct mg_io {
    hpa_io io;
    uint32_t *order, nfiles;
    hpa_io_sum *procs;
    size_t nprocs;
    uint32_t shared, single;
} mg_io;
/* Load it when a process traced I/O (-i); false when none did (or it could not be read:
 * said on stderr). */
bool mg_summary_io(const struct mg_job *job, mg_io *out);
void mg_summary_io_free(mg_io *m);
/* "rank 3", or the process's name. */
const char *mg_summary_io_label(const struct mg_job *job, uint32_t proc, char *buf, size_t cap);
/* The share of the process with the most I/O time on f. */
uint32_t mg_summary_io_slowest(const hpa_io_file *f);

/* summary_agg.h: the job-wide view and the writers of summary.txt and summary.json. */

#endif
