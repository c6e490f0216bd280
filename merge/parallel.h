/*
 * parallel.h - serial or MPI-parallel merging behind one interface.
 *
 * `hpmerge EXP` runs alone; `mpirun -np K hpmerge EXP` runs K merge ranks that share the
 * processes of the job, write their locations' event files through OTF2's MPI
 * collective callbacks (OTF2_MPI_Collectives.h) and send what they learned to rank 0,
 * which writes the definitions and the summary. MPI is initialized only when a launcher
 * started us (a rank announced in the environment: experiment/job_env.h), so a serial
 * merge never pays for MPI start-up.
 *
 * Every call is collective over the merge ranks unless it says otherwise.
 */
#ifndef MG_PARALLEL_H
#define MG_PARALLEL_H

#include <otf2/otf2.h>
#include <stdbool.h>

#include "util.h"

typedef struct mg_par {
    int rank, size;
    bool mpi;
} mg_par;

/* Initialize (MPI_Init under a launcher). Not collective in the serial case. */
void mg_par_init(mg_par *par, int *argc, char ***argv);
/* Finalize MPI if it was initialized. */
void mg_par_finalize(mg_par *par);
/* Abort all ranks with status code (serial: exit). Not collective. */
void mg_par_abort(mg_par *par, int code) __attribute__((noreturn));

/* Give the archive its collective callbacks (serial or MPI). Returns OTF2's code. */
OTF2_ErrorCode mg_par_archive_callbacks(mg_par *par, OTF2_Archive *a);

/* Rank 0's value of *v on every rank. */
void mg_par_bcast_u64(mg_par *par, uint64_t *v);
/* Wait until every rank got here, asleep: MPI's own waits spin, and a rank that spins
 * while the others work (merge ranks that finished their share, all but rank 0 while it
 * writes the definitions and the summary) takes a core from them on an oversubscribed
 * node. */
void mg_par_wait(mg_par *par);
/* Maximum of v over the ranks, on every rank (to agree on failure). */
int mg_par_max(mg_par *par, int v);
/* Sum and maximum of v over the ranks, on every rank. */
uint64_t mg_par_sum_u64(mg_par *par, uint64_t v);
uint64_t mg_par_max_u64(mg_par *par, uint64_t v);
/* Rank 0 sends each other rank r the buffer make(b, r, ctx) fills, one at a time in rank
 * order; rank r > 0 receives its own into *got, asleep until it comes (rank 0 may take a
 * while to make them). Returns 0, or -1 on every rank when a buffer was over 2 GiB (*got
 * then empty). */
int mg_par_scatter(mg_par *par, void (*make)(hpa_buf *b, int r, void *ctx), void *ctx,
                   hpa_buf *got);
/* Every other rank's pieces to rank 0, one rank at a time in rank order: rank r > 0
 * sends the pieces next(b, ctx) fills (into an empty b, until it returns false), asleep
 * until rank 0 takes each; rank 0 gives each to take(b, answer, ctx) (returns 0, or
 * non-zero when it is damaged), which may put an answer for rank r into answer (an empty
 * buffer); rank r gives it to back(answer, ctx) before it sends its next piece. Returns 0
 * on every rank but rank 0; there -1 when a piece was over 2 GiB, or the first rank whose
 * piece take refused. */
int mg_par_collect(mg_par *par, bool (*next)(hpa_buf *b, void *ctx),
                   int (*take)(hpa_buf *b, hpa_buf *answer, void *ctx),
                   void (*back)(hpa_buf *answer, void *ctx), void *ctx);

#endif
