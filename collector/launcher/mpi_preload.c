/*
 * mpi_preload.c - the launcher's preload rule for the MPI wrappers (issue 3): put
 * lib/libhpcollect-mpi.so into LD_PRELOAD, after libhpcollect.so (rules run in table
 * order), when the program needs an MPI library. Programs that do not use MPI get
 * nothing of it, with or without mpirun around them. The ELF walk is omp_runtime.c's
 * hpc_elf_needs: the program is read, never run.
 */
#include <stdio.h>
#include <unistd.h>

#include "mpi_preload.h"
#include "omp_runtime.h"

int hpc_rule_mpi(const hpc_launch *l, char *buf, size_t cap)
{
    if (!hpc_elf_needs(l->program, "libmpi")) /* libmpi.so, libmpi_mpifh, libmpich ... */
        return 0;
    snprintf(buf, cap, "%s/libhpcollect-mpi.so", l->libdir);
    if (access(buf, R_OK) != 0) {
        fprintf(stderr,
                "hpcollect: %s: missing; the program uses MPI but its calls cannot be traced "
                "(is hpcollect installed completely?)\n",
                buf);
        return -1;
    }
    return 1;
}
