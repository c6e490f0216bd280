/*
 * special.c - the wrappers gen_wrappers.py does not generate (`special` in the tables):
 * MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort and MPI_Pcontrol, in C and for
 * both Fortran bindings (mpif.h / `use mpi`, and `use mpi_f08`). They start and end the MPI layer
 * (lifecycle.c) or switch collection itself, so each has its own order of events; otherwise they
 * follow the generated template.
 */
#include "mpiw.h"

HPCW_EXPORT int MPI_Init(int *argc, char ***argv)
{
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Init, __builtin_return_address(0), 0);
    c.cfa = (uintptr_t)__builtin_dwarf_cfa(); /* for its calling context */
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        hpcw_init_after(&c, -1);
    if (hpcw_leave(&c, rc, MPI_COMM_NULL))
        hpcw_done(&c);
    return rc;
}

HPCW_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Init_thread, __builtin_return_address(0), 0);
    c.cfa = (uintptr_t)__builtin_dwarf_cfa(); /* for its calling context */
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        hpcw_init_after(&c, *provided);
    if (hpcw_leave(&c, rc, MPI_COMM_NULL))
        hpcw_done(&c);
    return rc;
}

HPCW_EXPORT int MPI_Finalize(void)
{
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Finalize, __builtin_return_address(0), 0);
    c.cfa = (uintptr_t)__builtin_dwarf_cfa(); /* for its calling context */
    hpcw_finalize_before();
    int rc = PMPI_Finalize();
    hpcw_finalize_after(&c);
    if (hpcw_leave(&c, rc, MPI_COMM_NULL))
        hpcw_done(&c);
    return rc;
}

HPCW_EXPORT int MPI_Abort(MPI_Comm comm, int errorcode)
{
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Abort, __builtin_return_address(0), 0);
    hpcw_abort_before(&c, comm, errorcode);
    return PMPI_Abort(comm, errorcode);
}

HPCW_EXPORT int MPI_Pcontrol(const int level, ...)
{
    hpcw_call c;
    hpcw_enter(&c, HPCW_FN_MPI_Pcontrol, __builtin_return_address(0), 0);
    int rc = PMPI_Pcontrol(level);
    hpcw_pcontrol(&c, level);
    return rc;
}

/* ------------------------------------------------------------ Fortran bindings */

/* Only where the generator writes Fortran wrappers (mpi_wrap/module.mk): Open MPI's two
 * bindings (HPCW_FORTRAN_WRAPPERS), and MPICH's mpi_f08 one (HPCW_MPICH_F08: its mpif.h
 * binding calls the C MPI_ functions above, its mpi_f08 one MPICH's PMPI_ ones, and it
 * has no pmpi_init_f08_: the wrapper calls the library's mpi_init_f08_). */
#if defined(HPCW_FORTRAN_WRAPPERS) || defined(HPCW_MPICH_F08)

/* Each special has one body for every Fortran binding: `real` names the binding's entry
 * to call (pmpi_init_, pmpi_init_f08_, or MPICH's mpi_init_f08_) and `site` is the entry
 * point's return address. IERROR is NULL when an mpi_f08 caller leaves it out. */

typedef void hpcw_f_ierr_fn(MPI_Fint *ierr);
typedef void hpcw_f_init_thread_fn(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);
typedef void hpcw_f_abort_fn(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr);
typedef void hpcw_f_pcontrol_fn(MPI_Fint *level);

static int f_rc(const MPI_Fint *ierr)
{
    return ierr ? *ierr : MPI_SUCCESS;
}

static void f_init(const char *real, void *site, MPI_Fint *ierr)
{
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Init, site, HPC_MPI_CALL_FORTRAN);
    ((hpcw_f_ierr_fn *)hpcw_fortran_real(real))(ierr);
    if (f_rc(ierr) == MPI_SUCCESS)
        hpcw_init_after(&c, -1);
    if (hpcw_leave(&c, f_rc(ierr), MPI_COMM_NULL))
        hpcw_done(&c);
}

static void f_init_thread(const char *real, void *site, MPI_Fint *required, MPI_Fint *provided,
                          MPI_Fint *ierr)
{
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Init_thread, site, HPC_MPI_CALL_FORTRAN);
    ((hpcw_f_init_thread_fn *)hpcw_fortran_real(real))(required, provided, ierr);
    if (f_rc(ierr) == MPI_SUCCESS)
        hpcw_init_after(&c, *provided);
    if (hpcw_leave(&c, f_rc(ierr), MPI_COMM_NULL))
        hpcw_done(&c);
}

static void f_finalize(const char *real, void *site, MPI_Fint *ierr)
{
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Finalize, site, HPC_MPI_CALL_FORTRAN);
    hpcw_f_ierr_fn *fn = (hpcw_f_ierr_fn *)hpcw_fortran_real(real);
    hpcw_finalize_before();
    fn(ierr);
    hpcw_finalize_after(&c);
    if (hpcw_leave(&c, f_rc(ierr), MPI_COMM_NULL))
        hpcw_done(&c);
}

static void f_abort(const char *real, void *site, MPI_Fint *comm, MPI_Fint *errorcode,
                    MPI_Fint *ierr)
{
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Abort, site, HPC_MPI_CALL_FORTRAN);
    hpcw_f_abort_fn *fn = (hpcw_f_abort_fn *)hpcw_fortran_real(real);
    hpcw_abort_before(&c, PMPI_Comm_f2c(*comm), *errorcode);
    fn(comm, errorcode, ierr);
}

/* MPI_PCONTROL has no IERROR argument in Fortran. */
static void f_pcontrol(const char *real, void *site, MPI_Fint *level)
{
    hpcw_call c;
    hpcw_enter(&c, HPCW_FN_MPI_Pcontrol, site, HPC_MPI_CALL_FORTRAN);
    ((hpcw_f_pcontrol_fn *)hpcw_fortran_real(real))(level);
    hpcw_pcontrol(&c, *level);
}

#ifdef HPCW_FORTRAN_WRAPPERS
HPCW_EXPORT void mpi_init_(MPI_Fint *ierr)
{
    f_init("pmpi_init_", __builtin_return_address(0), ierr);
}
HPCW_FORTRAN_ALIASES(mpi_init_, mpi_init, mpi_init__, MPI_INIT)

HPCW_EXPORT void mpi_init_f08_(MPI_Fint *ierr)
{
    f_init("pmpi_init_f08_", __builtin_return_address(0), ierr);
}

HPCW_EXPORT void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    f_init_thread("pmpi_init_thread_", __builtin_return_address(0), required, provided, ierr);
}
HPCW_FORTRAN_ALIASES(mpi_init_thread_, mpi_init_thread, mpi_init_thread__, MPI_INIT_THREAD)

HPCW_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    f_init_thread("pmpi_init_thread_f08_", __builtin_return_address(0), required, provided, ierr);
}

HPCW_EXPORT void mpi_finalize_(MPI_Fint *ierr)
{
    f_finalize("pmpi_finalize_", __builtin_return_address(0), ierr);
}
HPCW_FORTRAN_ALIASES(mpi_finalize_, mpi_finalize, mpi_finalize__, MPI_FINALIZE)

HPCW_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr)
{
    f_finalize("pmpi_finalize_f08_", __builtin_return_address(0), ierr);
}

HPCW_EXPORT void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    f_abort("pmpi_abort_", __builtin_return_address(0), comm, errorcode, ierr);
}
HPCW_FORTRAN_ALIASES(mpi_abort_, mpi_abort, mpi_abort__, MPI_ABORT)

HPCW_EXPORT void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    f_abort("pmpi_abort_f08_", __builtin_return_address(0), comm, errorcode, ierr);
}

HPCW_EXPORT void mpi_pcontrol_(MPI_Fint *level)
{
    f_pcontrol("pmpi_pcontrol_", __builtin_return_address(0), level);
}
HPCW_FORTRAN_ALIASES(mpi_pcontrol_, mpi_pcontrol, mpi_pcontrol__, MPI_PCONTROL)

HPCW_EXPORT void mpi_pcontrol_f08_(MPI_Fint *level)
{
    f_pcontrol("pmpi_pcontrol_f08_", __builtin_return_address(0), level);
}

#endif /* HPCW_FORTRAN_WRAPPERS */

#ifdef HPCW_MPICH_F08
HPCW_EXPORT void mpi_init_f08_(MPI_Fint *ierr)
{
    f_init("mpi_init_f08_", __builtin_return_address(0), ierr);
}

HPCW_EXPORT void mpi_init_thread_f08_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    f_init_thread("mpi_init_thread_f08_", __builtin_return_address(0), required, provided, ierr);
}

HPCW_EXPORT void mpi_finalize_f08_(MPI_Fint *ierr)
{
    f_finalize("mpi_finalize_f08_", __builtin_return_address(0), ierr);
}

HPCW_EXPORT void mpi_abort_f08_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    f_abort("mpi_abort_f08_", __builtin_return_address(0), comm, errorcode, ierr);
}

HPCW_EXPORT void mpi_pcontrol_f08_(MPI_Fint *level)
{
    f_pcontrol("mpi_pcontrol_f08_", __builtin_return_address(0), level);
}
#endif /* HPCW_MPICH_F08 */

#endif /* HPCW_FORTRAN_WRAPPERS || HPCW_MPICH_F08 */
