/*
 * iodefs.h - a process's I/O handles (-i) for OTF2: definitions from io_handle records,
 * OTF2's access mode and flags from open(2)'s (iodefs.c).
 */
#ifndef MG_IODEFS_H
#define MG_IODEFS_H

#include "job.h"

/* Define p's handle of record r (the first record of a handle stands). */
void mg_io_handle(mg_proc *p, const hpc_rec_io_handle *r);
/* The local handle a call names (UINT32_MAX: none); the call's paradigm stands for the
 * handle's while its io_handle record has not been read. */
uint32_t mg_io_op_handle(mg_proc *p, const hpc_rec_io_op *r);
/* What the definition of h says: its paradigm, and whether it is pre-created (open before
 * tracing saw it, or its record lost: no IoCreateHandle). Returns whether its record was
 * read. */
bool mg_io_defined(const mg_ioh *h, uint8_t *paradigm, bool *precreated);

#endif
