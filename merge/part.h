/*
 * part.h - a merge rank's results as bytes, for rank 0 (see part.c).
 */
#ifndef MG_PART_H
#define MG_PART_H

#include "job.h"

/* Serialize the processes marked `mine` and the problems from first_problem on. */
void mg_part_write(hpa_buf *b, const mg_job *job, size_t first_problem);
/* Read another rank's part into job (rank 0), calling got(p, ctx) on each process once
 * it is read. Returns 0, -1 if the bytes are not a well-formed part, -2 if got failed. */
int mg_part_read(hpa_buf *b, mg_job *job, int (*got)(mg_proc *p, void *ctx), void *ctx);

#endif
