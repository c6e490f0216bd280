/*
 * defs.h - global definitions of the archive, unified from every process's local ones,
 * and the per-location mapping tables (rank 0 only, after all parts are in).
 *
 * Global ids are given in job order (processes by location group, their local ids in
 * order), so they do not depend on how processes were shared among merge ranks.
 * Unification keys:
 *   region             name, source file, line, role, paradigm
 *   calling context    (global parent, global region): a function called from the same
 *                      context is one node, whichever thread or process sampled it
 *   interrupt gen.     name, mode, period          metric    name, unit
 *   MPI communicator   (gid_root, gid_seq), which every member recorded the same;
 *                      MPI_COMM_SELF is one communicator for all
 *   OpenMP team        (process, team size); its group lists, by thread number, the
 *                      locations that reported that number in a team of that size
 */
#ifndef MG_DEFS_H
#define MG_DEFS_H

#include <otf2/otf2.h>

#include "job.h"

/* Write the global definitions and each location's mapping tables into archive a,
 * whose definition files are open. Returns 0, or -1 after printing an OTF2 error. */
int mg_defs_write(mg_job *job, OTF2_Archive *a);

/* Timestamps covered by the job's events: [*first, *last]; false if there are none. */
bool mg_defs_time_range(const mg_job *job, uint64_t *first, uint64_t *last);

#endif
