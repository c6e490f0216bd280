/*
 * fortran.c - what the Fortran wrappers need beyond the C ones.
 *
 * Open MPI's mpif.h / `use mpi` bindings (libmpi_mpifh) convert their arguments and
 * call the C PMPI_ functions directly, so a Fortran program's calls never pass through
 * the C wrappers. The generated Fortran wrappers (wrappers_f.c) therefore interpose the
 * binding's own symbols (mpi_send_, mpi_send, mpi_send__, MPI_SEND) and call its PMPI
 * entry (pmpi_send_), found here with dlsym. Buffers arrive with Fortran's sentinels
 * for MPI_IN_PLACE and MPI_BOTTOM, which are Fortran common blocks, not C's constants.
 *
 * The `use mpi_f08` binding (libmpi_usempif08) has its own entry points (mpi_send_f08_,
 * PMPI entries pmpi_send_f08_) with the same arguments; its handles are derived types
 * holding the integer handle, and its optional IERROR may be NULL. Both bindings share
 * the Fortran sentinels (the f08 library's definitions interpose the others').
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpiw.h"

static const void *f_in_place, *f_bottom;

void *hpcw_fortran_real(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        f = dlsym(RTLD_DEFAULT, name);
    if (!f) {
        fprintf(stderr,
                "hpcollect: the MPI library has no Fortran entry %s; run without the MPI "
                "wrappers (hpcollect -m off) or report this MPI version\n",
                name);
        abort();
    }
    return f;
}

void hpcw_fortran_init(void)
{
    f_in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
    f_bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
}

const void *hpcw_fbuf(const void *buf)
{
    if (buf && buf == f_in_place)
        return MPI_IN_PLACE;
    if (buf && buf == f_bottom)
        return MPI_BOTTOM;
    return buf;
}

const MPI_Status *hpcw_fstatus(const MPI_Fint *f, MPI_Status *st)
{
    if (PMPI_Status_f2c(f, st) != MPI_SUCCESS)
        *st = (MPI_Status){.MPI_SOURCE = MPI_PROC_NULL, .MPI_TAG = MPI_ANY_TAG};
    return st;
}
