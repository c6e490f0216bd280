/*
 * mpi_preload.h - the launcher's preload rule for the MPI wrappers (mpi_preload.c).
 */
#ifndef HPC_LAUNCHER_MPI_PRELOAD_H
#define HPC_LAUNCHER_MPI_PRELOAD_H

#include <stddef.h>

#include "environ.h"

/*
 * Preload rule (environ.c): when the program needs an MPI library that hpcollect has
 * wrappers for (directly or through the DT_NEEDED closure of its libraries), write the
 * path of that ABI's wrapper library into buf and return 1; return 0 for other
 * programs, and, after a note saying why, for an MPI without wrappers here. The rule
 * does not depend on -m: with -m off the wrappers still mark clock samples taken inside
 * MPI calls.
 */
int hpc_rule_mpi(const hpc_launch *l, char *buf, size_t cap);

#endif
