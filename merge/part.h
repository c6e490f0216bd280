/*
 * part.h - a merge rank's results as bytes, for rank 0 (see part.c).
 */
#ifndef MG_PART_H
#define MG_PART_H

#include "job.h"

/* A piece holds whole processes, about this many bytes of them (the last one's more). */
#define MG_PART_PIECE ((size_t)1 << 20)

/*
 * A merge rank's part, written in pieces (the member lists its processes use; its
 * processes, a piece of about MG_PART_PIECE bytes at a time; the problems from
 * first_problem on and its counts), so that neither it nor rank 0 holds all of it at
 * once: each process's definitions and summary are let go of once in a piece.
 */
typedef struct mg_part_writer {
    mg_job *job;
    size_t first_problem;
    size_t piece_bytes; /* MG_PART_PIECE, or less for tests */
    size_t next;        /* the next process to write */
    hpa_u64map lists;   /* the job's member list id -> its number in this part */
    bool started, done;
} mg_part_writer;

void mg_part_writer_init(mg_part_writer *w, mg_job *job, size_t first_problem, size_t piece_bytes);
/* The next piece, into an empty b; false (b untouched) once every piece is written. */
bool mg_part_next(mg_part_writer *w, hpa_buf *b);
void mg_part_writer_free(mg_part_writer *w);

/* Rank 0 reading one merge rank's pieces in order: its member lists as the job's (ids[k]:
 * list k's id in job->member_lists). Zero-initialized per rank. */
typedef struct mg_part_reader {
    uint32_t *ids;
    size_t n;
} mg_part_reader;

/* Read a piece for job (rank 0), calling got(p, ctx) on each process once it is read: p is
 * an mg_proc of its own (mg_job_entry_proc), got's to free. Returns 0, -1 if the bytes are
 * not a well-formed piece, -2 if got failed. */
int mg_part_read(mg_part_reader *r, hpa_buf *b, mg_job *job, int (*got)(mg_proc *p, void *ctx),
                 void *ctx);
void mg_part_reader_free(mg_part_reader *r);

#endif
