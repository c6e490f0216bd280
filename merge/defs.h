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

/*
 * OTF2 reads one mapping table per kind and location, and a record must fit in one
 * definition chunk (16 MiB at most). A calling-context table takes at most 5 bytes per
 * id (global ids are 32-bit): MG_MAX_LOCATION_CCS ids. Half of them are kept for the
 * collector's nodes (the sampled stacks of one thread), half for the nodes the trace's
 * regions add (cctx.h); a sample in a deeper sampled node is written at its nearest
 * ancestor within (evgen.c), and the summary says how many were. The collector's trees
 * reach this only after about 1.7 million distinct stacks in one thread.
 */
#define MG_MAX_LOCATION_CCS ((size_t)((OTF2_CHUNK_SIZE_MAX - 65536) / 5))
#define MG_MAX_SAMPLED_CCS  (MG_MAX_LOCATION_CCS / 2)

/*
 * The definition chunk size: what the largest record needs, the largest mapping table or
 * the group of all locations, at least OTF2_CHUNK_SIZE_MIN. Each merge rank knows its
 * processes' tables: mg_defs_cc_count sums their calling contexts, mg_defs_need gives the
 * bytes of their largest mapping table once the job's sum of calling contexts (which
 * bounds the global ids) is known; rank 0 gives the size from the job's largest need and
 * its number of locations.
 */
uint64_t mg_defs_cc_count(const mg_job *job);
uint64_t mg_defs_need(const mg_job *job, uint64_t nccs);
uint64_t mg_defs_chunk_size(uint64_t need, size_t nlocs);

/*
 * Unification as the processes' definitions come (rank 0): mg_defs_add unifies process p,
 * which must come in job order, writes its locations' mapping tables into archive a
 * (whose definition files are open) or, with maps, puts them into maps for the merge rank
 * that merged p to write (mg_defs_write_maps), and lets go of its definitions, so that
 * rank 0 never holds every process's definitions at once nor opens every location's
 * definition writer; what the global definitions need of p later (its locations' names
 * and events, its times) is kept, and the processes themselves come from the job's
 * entries (job.h). It returns 0, 1 when it keeps p (a process with a metric instance,
 * whose id follows every metric class: p must live until mg_defs_end, which writes its
 * tables), or -1 after printing an OTF2 error. mg_defs_end writes the global definitions
 * and frees g, returning 0 or -1.
 */
typedef struct gdefs mg_defs;
mg_defs *mg_defs_begin(mg_job *job);
int mg_defs_add(mg_defs *g, mg_proc *p, OTF2_Archive *a, hpa_buf *maps);
/* A merge rank > 0: the mapping tables rank 0 put into b for its processes, written into
 * a. Returns 0, -1 after printing an OTF2 error, -2 if b is not well-formed. */
int mg_defs_write_maps(OTF2_Archive *a, hpa_buf *b);
int mg_defs_end(mg_defs *g, OTF2_Archive *a);
/* Free g without writing (a merge that failed). */
void mg_defs_discard(mg_defs *g);

#endif
