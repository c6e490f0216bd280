/*
 * dry_run.h - hpcollect -n: what would be collected, and where, with nothing run or made.
 */
#ifndef HPC_LAUNCHER_DRY_RUN_H
#define HPC_LAUNCHER_DRY_RUN_H

#include "options.h"

/*
 * Print the collection parameters of o for program (resolved path) to stdout: the
 * experiment exp that hpc_layout_job_dir(..., HPC_LAYOUT_DRYRUN) named and its verdict
 * layout_rc (1 new, 0 joined, or the hpc_err a real run would meet), the clock, counters,
 * sample points, descendants, limits, archiving, comments and the preloaded libraries.
 * Returns hpcollect's exit status: 0, or 2 when a real run would be refused.
 */
int hpc_dry_run(const hpc_opts *o, const char *program, const char *libdir, const char *exp,
                int layout_rc);

#endif
