/*
 * omp_runtime.h - the --omp-runtime preload rule: run libgomp programs on LLVM libomp.
 *
 * GNU libgomp has no OMPT, so OpenMP states cannot be recorded for gcc-built programs
 * running on it. LLVM libomp implements libgomp's GOMP_* and omp_* entry points; preloaded,
 * it serves those calls and the OMPT tool in libhpcollect.so sees every region.
 *
 *   auto    (default) preload libomp when the program or a library it needs links
 *           libgomp and libomp is installed; otherwise run natively
 *   llvm    as auto, but a libgomp program with no libomp installed is an error
 *   native  never preload: libgomp programs run on libgomp (no OpenMP states)
 */
#ifndef HPC_LAUNCHER_OMP_RUNTIME_H
#define HPC_LAUNCHER_OMP_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>

#include "environ.h"

/*
 * Preload rule (environ.c): writes the libomp path into buf and returns 1 when it is to
 * be preloaded, 0 when not, -1 after printing why (--omp-runtime llvm and no libomp).
 */
int hpc_rule_omp_runtime(const hpc_launch *l, char *buf, size_t cap);

/*
 * True if the ELF file `path` or a shared library it needs (DT_NEEDED, transitively,
 * searched as the dynamic linker does: RPATH/RUNPATH, LD_LIBRARY_PATH, the default
 * directories) has a DT_NEEDED entry whose name starts with `soname_prefix`.
 * False for non-ELF files (scripts) and static programs.
 */
bool hpc_elf_needs(const char *path, const char *soname_prefix);
/* The same for several prefixes (NULL-terminated): the first DT_NEEDED name met that
 * starts with one of them is copied into found (if not NULL). */
bool hpc_elf_needs_any(const char *path, const char *const *prefixes, char *found, size_t cap);

/* Path of the installed LLVM libomp (HPCOLLECT_LIBOMP, if set, first), or NULL. */
const char *hpc_find_libomp(void);

#endif
