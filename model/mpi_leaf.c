/*
 * mpi_leaf.c - an MPI call is a leaf of the stacks users read (mpi_leaf.h).
 */
#include "mpi_leaf.h"

#include <string.h>
#include <strings.h>

bool hpa_mpi_entry(const hpa_func *f)
{
    return f && f->collector && f->exported && f->name && strncasecmp(f->name, "mpi_", 4) == 0;
}

bool hpa_mpi_leaf_hides(hpa_mpi_leaf *s, const hpa_func *prev, const hpa_func *f)
{
    if (s->inside) {
        if (!f->collector && s->caller && f->module && strcmp(f->module, s->caller) == 0) {
            s->inside = false; /* called back: the program's code again */
            return false;
        }
        return true;
    }
    if (hpa_mpi_entry(f)) {
        s->inside = true;
        s->caller = prev && prev->module && *prev->module ? prev->module : NULL;
    }
    return false;
}
