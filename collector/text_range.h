/*
 * text_range.h - where a loaded object's code lies: the lowest start and the highest end
 * of its executable PT_LOAD segments, from its program headers (a dl_iterate_phdr
 * callback's info). The collector finds its own code so (interpose.c: a traced call's
 * stack starts outside it), the MPI wrappers MPICH's Fortran binding (mpi_wrap/fortran.c:
 * a call's site is outside it).
 */
#ifndef HPC_TEXT_RANGE_H
#define HPC_TEXT_RANGE_H

#include <link.h>
#include <stdint.h>

/* Widens [*lo, *hi) (empty: both 0) to the object's code. */
static inline void hpc_text_range(const struct dl_phdr_info *info, uintptr_t *lo, uintptr_t *hi)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
            continue;
        uintptr_t l = info->dlpi_addr + ph->p_vaddr, h = l + ph->p_memsz;
        *lo = *lo && *lo < l ? *lo : l;
        *hi = *hi > h ? *hi : h;
    }
}

#endif
