/*
 * mpi_preload.c - the launcher's preload rule for the MPI wrappers: put the wrapper
 * library of the MPI ABI the program loads into LD_PRELOAD, after libhpcollect.so (rules
 * run in table order). The program's MPI library is the first libmpi of a known name
 * in the DT_NEEDED closure of the program and its libraries (read, never run: the ELF
 * walk is omp_runtime.c's hpc_elf_needs_any):
 *
 *   libmpi.so.40                      Open MPI 3-5            lib/libhpcollect-mpi.so
 *   libmpi.so.12, libmpich.so.12,     MPICH ABI: MPICH, Intel lib/libhpcollect-mpi-mpich.so
 *   libmpi_cray.so.12                 MPI, MVAPICH, Cray MPICH
 *   libmpi_abi.so                     MPI 5 standard ABI      none (no library here
 *                                                             implements it yet)
 *   any other libmpi.so.N             unknown                 none
 *
 * Programs that do not use MPI get nothing of it, with or without a launcher around
 * them. A program whose MPI has no wrappers here runs untraced, with a note saying
 * which library it loads: wrappers built for another ABI would bind to the wrong
 * handles and constants, or load a second MPI library into it.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpi_preload.h"
#include "omp_runtime.h"

typedef struct mpi_abi {
    const char *soname;   /* prefix of the DT_NEEDED name */
    const char *family;   /* for messages */
    const char *wrappers; /* file in lib/, NULL: none */
} mpi_abi;

static const mpi_abi abis[] = {
    {"libmpi.so.40", "Open MPI", "libhpcollect-mpi.so"},
    {"libmpi.so.12", "the MPICH ABI", "libhpcollect-mpi-mpich.so"},
    {"libmpich.so.12", "the MPICH ABI", "libhpcollect-mpi-mpich.so"},
    {"libmpi_cray.so.12", "the MPICH ABI", "libhpcollect-mpi-mpich.so"},
    {"libmpi_abi.so", "the MPI standard ABI", NULL},
};

/* Names that mean "an MPI library", known or not. */
static const char *const mpi_names[] = {"libmpi.so.", "libmpich.so.", "libmpi_cray.so.",
                                        "libmpi_abi.so", NULL};

static const mpi_abi *abi_of(const char *soname)
{
    for (size_t i = 0; i < sizeof abis / sizeof abis[0]; i++)
        if (!strncmp(soname, abis[i].soname, strlen(abis[i].soname)))
            return &abis[i];
    return NULL;
}

int hpc_rule_mpi(const hpc_launch *l, char *buf, size_t cap)
{
    char soname[256];
    if (!hpc_elf_needs_any(l->program, mpi_names, soname, sizeof soname))
        return 0;
    const mpi_abi *a = abi_of(soname);
    if (!a || !a->wrappers) {
        fprintf(stderr,
                "hpcollect: note: %s loads %s (%s), which hpcollect has no MPI wrappers for "
                "(it has them for Open MPI's libmpi.so.40 and the MPICH ABI's libmpi.so.12): "
                "its MPI calls are not traced%s\n",
                l->program, soname, a ? a->family : "an unknown MPI library",
                a && !strcmp(a->soname, "libmpi_abi.so")
                    ? "; the MPI standard ABI is not supported yet: no MPI installed here "
                      "provides it to build and test wrappers against"
                    : "");
        return 0;
    }
    snprintf(buf, cap, "%s/%s", l->libdir, a->wrappers);
    if (access(buf, R_OK) != 0) {
        fprintf(stderr,
                "hpcollect: note: %s loads %s (%s), but %s is missing (hpcollect was built "
                "without that MPI's headers, or installed incompletely): its MPI calls are not "
                "traced\n",
                l->program, soname, a->family, buf);
        return 0;
    }
    return 1;
}
