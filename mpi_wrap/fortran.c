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
 *
 * MPICH's mpif.h binding calls the C MPI_ functions (the C wrappers see it); its `use
 * mpi_f08` binding (libmpichfort: mpi_send_f08ts_, mpi_barrier_f08_) calls PMPI_ ones
 * and has no PMPI entries of its own, so its wrappers (--fortran mpich) call the
 * library's definition of the same name. Its choice buffers come as gfortran array
 * descriptors (the data address first), its statuses in mpi_f08's layout (MPI_SOURCE,
 * MPI_TAG, MPI_ERROR, then the count: PMPI_Status_f082c), and MPI_STATUS(ES)_IGNORE,
 * MPI_IN_PLACE and MPI_BOTTOM are objects of its own (MPIR_F08_*).
 */
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpiw.h"
#include "text_range.h"

static const void *f_in_place, *f_bottom, *f08_in_place, *f08_bottom;
const MPI_Fint *hpcw_f08_status_ignore, *hpcw_f08_statuses_ignore;
typedef int hpcw_f082c_fn(const void *f08, MPI_Status *c);
static hpcw_f082c_fn *f082c;

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

/* The code of the MPI library's Fortran binding that calls the C MPI_ functions (MPICH's
 * libmpichfort, libmpifort in other builds; Open MPI's bindings call PMPI_ functions):
 * a C wrapper called from there takes its call site from the first frame outside it
 * (context.c), the program's line instead of the binding's. */
static uintptr_t binding_lo, binding_hi;

static int find_binding(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size, (void)arg;
    const char *base = strrchr(info->dlpi_name, '/');
    base = base ? base + 1 : info->dlpi_name;
    if (strncmp(base, "libmpichfort.", 13) != 0 && strncmp(base, "libmpifort.", 11) != 0)
        return 0;
    hpc_text_range(info, &binding_lo, &binding_hi);
    return 1;
}

bool hpcw_in_binding(uintptr_t pc)
{
    return pc >= binding_lo && pc < binding_hi;
}

void hpcw_fortran_init(void)
{
    dl_iterate_phdr(find_binding, NULL);
    f_in_place = dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_");
    f_bottom = dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_");
    f08_in_place = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_IN_PLACE");
    f08_bottom = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_BOTTOM");
    hpcw_f08_status_ignore = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUS_IGNORE_OBJ");
    hpcw_f08_statuses_ignore = dlsym(RTLD_DEFAULT, "MPIR_F08_MPI_STATUSES_IGNORE_OBJ");
    f082c = (hpcw_f082c_fn *)dlsym(RTLD_DEFAULT, "PMPI_Status_f082c");
}

/* A binding's buffer with its sentinels (the addresses of its MPI_IN_PLACE and
 * MPI_BOTTOM objects) turned into C's. */
static const void *c_buf(const void *buf, const void *in_place, const void *bottom)
{
    if (buf && buf == in_place)
        return MPI_IN_PLACE;
    if (buf && buf == bottom)
        return MPI_BOTTOM;
    return buf;
}

const void *hpcw_fbuf(const void *buf)
{
    return c_buf(buf, f_in_place, f_bottom);
}

/* What a status that cannot be converted says: nothing received from anyone. */
static const MPI_Status *no_status(MPI_Status *st)
{
    *st = (MPI_Status){.MPI_SOURCE = MPI_PROC_NULL, .MPI_TAG = MPI_ANY_TAG};
    return st;
}

const MPI_Status *hpcw_fstatus(const MPI_Fint *f, MPI_Status *st)
{
    return PMPI_Status_f2c(f, st) == MPI_SUCCESS ? st : no_status(st);
}

const void *hpcw_f08buf(const void *desc)
{
    /* the descriptor's data address comes first */
    return c_buf(desc ? *(const void *const *)desc : NULL, f08_in_place, f08_bottom);
}

const MPI_Status *hpcw_f08status(const MPI_Fint *f, MPI_Status *st)
{
    return f082c && f082c(f, st) == MPI_SUCCESS ? st : no_status(st);
}
