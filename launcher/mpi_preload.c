/*
 * mpi_preload.c - the launcher's preload rule for the MPI wrappers (issue 3): put
 * lib/libhpcollect-mpi.so into LD_PRELOAD, after libhpcollect.so (rules run in table
 * order), when the program needs the MPI library the wrappers were built for
 * (HPC_MPI_SONAME, e.g. libmpi.so.40 of Open MPI 4), directly or through the DT_NEEDED
 * closure of its libraries. Programs that do not use MPI get nothing of it, with or
 * without mpirun around them; a program built with another MPI runs untraced, with a
 * note (the wrappers would load a second MPI library into it). The ELF walk is
 * omp_runtime.c's hpc_elf_needs: the program is read, never run.
 */
#include <stdio.h>
#include <unistd.h>

#include "mpi_preload.h"
#include "omp_runtime.h"

#ifndef HPC_MPI_SONAME /* set by mpi_wrap/module.mk from the MPI library's SONAME */
#define HPC_MPI_SONAME "libmpi.so.40"
#endif

int hpc_rule_mpi(const hpc_launch *l, char *buf, size_t cap)
{
    if (!hpc_elf_needs(l->program, HPC_MPI_SONAME)) {
        if (hpc_elf_needs(l->program, "libmpi")) /* libmpi.so.12 (MPICH), libmpich ... */
            fprintf(stderr,
                    "hpcollect: note: %s uses an MPI library other than %s, which the MPI "
                    "wrappers were built for: MPI calls are not traced\n",
                    l->program, HPC_MPI_SONAME);
        return 0;
    }
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
