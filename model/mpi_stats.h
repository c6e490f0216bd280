/*
 * mpi_stats.h - the MPI numbers of a rank, an MPI function or a call site, computed one
 * way for hpanalyze's mpi report (cmd_mpi.c) and hpmerge's summary (merge/evgen.c), so
 * the two never disagree.
 *
 * A thread stream is read in order: each mpi_call record opens a call
 * (hpa_mpi_call_open), the mpi_p2p / mpi_coll records after it add its messages, and
 * the next mpi_call (or the end of the stream) finishes it: hpa_mpi_rank_add() adds it
 * to its rank, and callers add it to their function and call-site rows with
 * hpa_mpi_sum_add(row, hpa_mpi_call_ns(c), &c->d) unless it is MPI_Init or
 * MPI_Finalize.
 *
 * Meanings (the reference's Table 2-4, as mpiP reports them): MPI Sends counts
 * point-to-point sends started, MPI Receives point-to-point receives completed (bytes as
 * received), Other MPI Events the calls that neither send nor receive; a message to or
 * from MPI_PROC_NULL is none. AppTime runs from the end of MPI_Init to the start of
 * MPI_Finalize (to the process's last record when it never got there). A rank's MPI
 * time sums its calls in that window except MPI_Init, MPI_Finalize and calls made from
 * inside other MPI calls (HPC_MPI_CALL_NESTED), which are part of the outer call's time.
 * Times are the process's own clock (durations need no correction). COV is the standard
 * deviation of the ranks' times over their mean, among the ranks that made the call.
 *
 * Pure functions over caller-owned structs: no allocation, thread-compatible.
 */
#ifndef HPA_MPI_STATS_H
#define HPA_MPI_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment.h"

/* Sums of a rank, a function or a call site. */
typedef struct hpa_mpi_sum {
    uint64_t calls, time_ns, min_ns, max_ns;
    uint64_t sends, bytes_sent, recvs, bytes_recv, other;
    uint64_t coll_calls, coll_sent, coll_recv;
    uint64_t msg_min, msg_max; /* point-to-point sent sizes */
} hpa_mpi_sum;

void hpa_mpi_sum_init(hpa_mpi_sum *s);
/* Add one call lasting dur with the messages d (a call's detail sums) to s. */
void hpa_mpi_sum_add(hpa_mpi_sum *s, uint64_t dur, const hpa_mpi_sum *d);
/* Add the sums of s (another rank's, say) to into: as if into had seen its calls. */
void hpa_mpi_sum_merge(hpa_mpi_sum *into, const hpa_mpi_sum *s);

/* One call being read: its record and the details that followed it. */
typedef struct hpa_mpi_call {
    bool open;
    uint32_t fn; /* the caller's function index */
    uint64_t enter, leave, site_pc, flags;
    hpa_mpi_sum d; /* sends, receives, bytes, collectives of this call */
} hpa_mpi_call;

/* Start call c from its mpi_call record; fn is the caller's index for the function. */
void hpa_mpi_call_open(hpa_mpi_call *c, uint32_t fn, const hpc_rec_mpi_call *r);
/* Add a point-to-point detail; true when it counted a send (message histograms). */
bool hpa_mpi_call_p2p(hpa_mpi_call *c, const hpc_rec_mpi_p2p *p);
/* Add a collective detail; true when it was counted. */
bool hpa_mpi_call_coll(hpa_mpi_call *c, const hpc_rec_mpi_coll *r);
/* The call's duration in ns (0 for a record whose leave precedes its enter). */
uint64_t hpa_mpi_call_ns(const hpa_mpi_call *c);

/* A rank's MPI window: MPI_Init's end to MPI_Finalize's start, or its last record. */
typedef struct hpa_mpi_window {
    bool has_init, has_fin, aborted;
    uint64_t init_leave, fin_enter, last;
    int64_t abort_code;
} hpa_mpi_window;

/* The window from a process's records (mpi_init, mpi_finalize, mpi_abort, proc_end). */
void hpa_mpi_window_init(hpa_mpi_window *w, const hpc_proc *p);
/* A record of the rank at time t (thread_end ...): extends the window's end. */
void hpa_mpi_window_seen(hpa_mpi_window *w, uint64_t t);
/* AppTime in ns; 0 without MPI_Init. */
uint64_t hpa_mpi_app_ns(const hpa_mpi_window *w);

/* True for MPI_Init, MPI_Init_thread and MPI_Finalize. */
bool hpa_mpi_is_lifecycle(const char *name);
/* Add the finished call c to its rank's sums (and the window's end). */
void hpa_mpi_rank_add(hpa_mpi_sum *rank, hpa_mpi_window *w, const hpa_mpi_call *c, bool lifecycle);

/* COV of the times of per_rank[0..n-1] among the ranks that made a call (0 for fewer
 * than two such ranks). */
double hpa_mpi_cov(const hpa_mpi_sum *per_rank, size_t n);
/* The same, one rank at a time (a report that holds no sum per rank): add each rank's
 * sum in rank order, then read the COV; the same number as hpa_mpi_cov. */
typedef struct hpa_mpi_cov_acc {
    double sum, sq;
    size_t n;
} hpa_mpi_cov_acc;
void hpa_mpi_cov_add(hpa_mpi_cov_acc *a, const hpa_mpi_sum *rank);
double hpa_mpi_cov_of(const hpa_mpi_cov_acc *a);

#endif
