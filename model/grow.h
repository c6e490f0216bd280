/*
 * grow.h - the growing array of both analysis tools: make room for `need` elements of
 * `elem` bytes in *p (capacity *cap elements), doubling from `first`. Returns 0, or
 * HPC_E_NOMEM with *p and *cap unchanged.
 */
#ifndef HPA_GROW_H
#define HPA_GROW_H

#include <stdlib.h>

#include "experiment.h"

static inline int hpa_grow(void **p, size_t *cap, size_t need, size_t elem, size_t first)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap * 2 : first;
    while (c < need)
        c *= 2;
    void *n = realloc(*p, c * elem);
    if (!n)
        return HPC_E_NOMEM;
    *p = n;
    *cap = c;
    return 0;
}

#endif /* HPA_GROW_H */
