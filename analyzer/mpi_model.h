/*
 * mpi_model.h - the MPI numbers of a loaded profile, as `hpanalyze mpi` prints them and
 * `export html` shows them: per rank, per MPI function and per call site (each with one
 * sum per rank, so min, mean, max and COV across ranks), collectives by operation, the
 * point-to-point message-size histogram and the communication matrix.
 *
 * One pass over the MPI records of every kept thread of every MPI process (mpi_call and
 * its mpi_p2p / mpi_coll details); the numbers themselves are model/mpi_stats.c's, which
 * hpmerge's summary shares. Meanings are cmd_mpi.c's (and README.md's "MPI numbers").
 *
 * The communication matrix counts point-to-point sends started (the rule of MPI Sends:
 * a message to MPI_PROC_NULL is none), from the sending process's MPI_COMM_WORLD rank to
 * the destination's (mpi_p2p.peer_world; sends whose destination's world rank is unknown
 * are counted in matrix_unknown), as messages and bytes. Collectives are not in it.
 *
 * Sizes: a summary per rank, a row per MPI function and per call site (each with nranks
 * sums only when asked: JSON); the matrix is sparse (one cell per pair that talked).
 * Not thread-safe.
 */
#ifndef HPA_MPI_MODEL_H
#define HPA_MPI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpi_stats.h"
#include "profile.h"
#include "u64map.h"

#define HPA_MPI_NSIZES 41 /* message size histogram: 0, then [2^k, 2^(k+1)) for k < 40 */

/* One MPI process. */
typedef struct hpa_mpi_rank {
    const hpa_process *pr;
    hpa_mpi_sum s;
    hpa_mpi_window w; /* MPI_Init to MPI_Finalize (or the end), how it ended */
    uint64_t nested, dropped, damaged;
    int64_t died_in;  /* function the process ended inside (HPC_MPI_CALL_INTERRUPTED), or -1 */
    bool has_heap;    /* heap[] holds its heap numbers (-H; cmd_mpi.c reads them) */
    uint64_t heap[8]; /* model/heap.h's hpm_heap_summary (HPM_HEAP_NSUMMARY values) */
} hpa_mpi_rank;

/* A function or call site row: totals, the COV of its time across ranks, and (when the
 * model was built with per_rank) one sum per rank (index into ranks). */
typedef struct hpa_mpi_row {
    uint32_t fn;   /* index into names */
    uint32_t line; /* call sites: symbol table line id; 0 for function rows */
    uint32_t site; /* call sites: number shown in the report (1 = most time) */
    hpa_mpi_sum s;
    hpa_mpi_sum *per_rank; /* NULL unless built with per_rank */
    double cov;
    /* while building: the sum of the rank being read (ranks are read one after the
     * other), folded into the COV when the next rank's call comes */
    size_t rank_at;
    hpa_mpi_sum rank_sum;
    hpa_mpi_cov_acc cov_acc;
} hpa_mpi_row;

typedef struct hpa_mpi_rows {
    hpa_mpi_row *v; /* by time, most first */
    size_t n, cap;
    hpa_u64map index;
} hpa_mpi_rows;

/* One cell of the communication matrix. */
typedef struct hpa_mpi_cell {
    int64_t src, dst; /* MPI_COMM_WORLD ranks */
    uint64_t messages, bytes;
} hpa_mpi_cell;

/* The rows of a call site of the process being read (its return address and function),
 * so that a call repeated from the same place resolves and finds them once. */
#define HPA_MPI_SITE_CACHE 64
typedef struct hpa_mpi_site {
    bool valid;
    uint32_t fn;
    uint64_t pc;
    size_t fn_row, site_row;
} hpa_mpi_site;

typedef struct hpa_mpi_model {
    hpa_profile *prof;
    size_t nranks;
    hpa_mpi_rank *ranks; /* in the profile's process order */
    char **names;        /* MPI function names, global index */
    bool *lifecycle;     /* names[i] is MPI_Init, MPI_Init_thread or MPI_Finalize */
    size_t nnames;
    hpa_mpi_rows fns, sites;
    uint64_t coll_calls[32], coll_sent[32], coll_recv[32]; /* by enum hpc_mpi_coll */
    uint64_t hist[HPA_MPI_NSIZES];
    hpa_mpi_sum total;
    hpa_mpi_cell *cells; /* sorted by (src, dst) */
    size_t ncells, cells_cap;
    hpa_u64map cell_index;
    uint64_t matrix_unknown; /* sends whose destination's world rank is unknown */
    char scope[512];         /* "all ranks", or the --ranks list (`ranks 0,2-3`) the model covers */
    bool per_rank;           /* rows hold per_rank */
    hpa_mpi_site site_cache[HPA_MPI_SITE_CACHE];
} hpa_mpi_model;

/* Build the model of a prepared profile (hpa_profile_prepare; filters applied: kept
 * processes and threads), reading each rank's MPI records in turn. per_rank: keep every
 * row's sum per rank (the JSON report lists them), which costs rows x ranks sums; without
 * it the model holds one summary per rank (ranks) and the rows' totals.
 * Returns 0 or HPC_E_NOMEM; free with hpa_mpi_model_free in either case. */
int hpa_mpi_model_build(hpa_mpi_model *m, hpa_profile *prof, bool per_rank);
void hpa_mpi_model_free(hpa_mpi_model *m);

/* AppTime of a rank, and of all ranks together, in ns. */
uint64_t hpa_mpi_model_app_ns(const hpa_mpi_rank *r);
uint64_t hpa_mpi_model_total_app_ns(const hpa_mpi_model *m);

/* "main heat.c:132" (function, file's base name, line), "main", or "<Unknown>". */
void hpa_mpi_site_location(const hpa_mpi_model *m, const hpa_mpi_row *r, char *buf, size_t cap);

/* Name of a collective operation (enum hpc_mpi_coll), or NULL. */
const char *hpa_mpi_coll_name(unsigned op);

/* Bounds of histogram bucket b: [lo, hi] bytes. */
void hpa_mpi_size_bucket(unsigned b, uint64_t *lo, uint64_t *hi);

#endif
