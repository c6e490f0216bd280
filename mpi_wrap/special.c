/*
 * special.c - the wrappers gen_wrappers.py does not generate (`special` in the tables):
 * MPI_Init, MPI_Init_thread, MPI_Finalize, MPI_Abort and MPI_Pcontrol, in C and for
 * the Fortran bindings. They start and end the MPI layer (lifecycle.c) or switch
 * collection itself, so each has its own order of events; otherwise they follow the
 * generated template.
 */
#include "mpiw.h"

HPCW_EXPORT int MPI_Init(int *argc, char ***argv)
{
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Init, __builtin_return_address(0), 0);
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

typedef void hpcw_f_ierr_fn(MPI_Fint *ierr);

HPCW_EXPORT void mpi_init_(MPI_Fint *ierr)
{
    static hpcw_f_ierr_fn *real;
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Init, __builtin_return_address(0), HPC_MPI_CALL_FORTRAN);
    if (!real)
        real = (hpcw_f_ierr_fn *)hpcw_fortran_real("pmpi_init_");
    real(ierr);
    if (*ierr == MPI_SUCCESS)
        hpcw_init_after(&c, -1);
    if (hpcw_leave(&c, *ierr, MPI_COMM_NULL))
        hpcw_done(&c);
}
HPCW_FORTRAN_ALIASES(mpi_init_, mpi_init, mpi_init__, MPI_INIT)

typedef void hpcw_f_init_thread_fn(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr);

HPCW_EXPORT void mpi_init_thread_(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    static hpcw_f_init_thread_fn *real;
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Init_thread, __builtin_return_address(0),
                     HPC_MPI_CALL_FORTRAN);
    if (!real)
        real = (hpcw_f_init_thread_fn *)hpcw_fortran_real("pmpi_init_thread_");
    real(required, provided, ierr);
    if (*ierr == MPI_SUCCESS)
        hpcw_init_after(&c, *provided);
    if (hpcw_leave(&c, *ierr, MPI_COMM_NULL))
        hpcw_done(&c);
}
HPCW_FORTRAN_ALIASES(mpi_init_thread_, mpi_init_thread, mpi_init_thread__, MPI_INIT_THREAD)

HPCW_EXPORT void mpi_finalize_(MPI_Fint *ierr)
{
    static hpcw_f_ierr_fn *real;
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Finalize, __builtin_return_address(0), HPC_MPI_CALL_FORTRAN);
    if (!real)
        real = (hpcw_f_ierr_fn *)hpcw_fortran_real("pmpi_finalize_");
    hpcw_finalize_before();
    real(ierr);
    hpcw_finalize_after(&c);
    if (hpcw_leave(&c, *ierr, MPI_COMM_NULL))
        hpcw_done(&c);
}
HPCW_FORTRAN_ALIASES(mpi_finalize_, mpi_finalize, mpi_finalize__, MPI_FINALIZE)

typedef void hpcw_f_abort_fn(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr);

HPCW_EXPORT void mpi_abort_(MPI_Fint *comm, MPI_Fint *errorcode, MPI_Fint *ierr)
{
    static hpcw_f_abort_fn *real;
    hpcw_call c;
    hpcw_enter_timed(&c, HPCW_FN_MPI_Abort, __builtin_return_address(0), HPC_MPI_CALL_FORTRAN);
    if (!real)
        real = (hpcw_f_abort_fn *)hpcw_fortran_real("pmpi_abort_");
    hpcw_abort_before(&c, PMPI_Comm_f2c(*comm), *errorcode);
    real(comm, errorcode, ierr);
}
HPCW_FORTRAN_ALIASES(mpi_abort_, mpi_abort, mpi_abort__, MPI_ABORT)

typedef void hpcw_f_pcontrol_fn(MPI_Fint *level);

/* MPI_PCONTROL has no IERROR argument in Fortran. */
HPCW_EXPORT void mpi_pcontrol_(MPI_Fint *level)
{
    static hpcw_f_pcontrol_fn *real;
    hpcw_call c;
    hpcw_enter(&c, HPCW_FN_MPI_Pcontrol, __builtin_return_address(0), HPC_MPI_CALL_FORTRAN);
    if (!real)
        real = (hpcw_f_pcontrol_fn *)hpcw_fortran_real("pmpi_pcontrol_");
    real(level);
    hpcw_pcontrol(&c, *level);
}
HPCW_FORTRAN_ALIASES(mpi_pcontrol_, mpi_pcontrol, mpi_pcontrol__, MPI_PCONTROL)
