/*
 * mpi_leaf.h - an MPI call is a leaf of the call stacks users read (hpanalyze's user and
 * expert views, hpmerge's summary of functions): the MPI library's frames below our MPI
 * entry (its progress engine, the sched_yield of its busy wait, the libraries it calls,
 * our interposers it goes through) are hidden until the program's code is called back
 * (a user reduction operator, an error handler): a frame of the module that made the
 * call. So the time spent waiting or working inside MPI_Allreduce is MPI_Allreduce's own,
 * as the MPI reports count it, not __sched_yield's or opal_progress's.
 */
#ifndef HPA_MPI_LEAF_H
#define HPA_MPI_LEAF_H

#include <stdbool.h>

#include "symbols.h"

/* The state of one walk over a stack, root first; zero-initialised before it. */
typedef struct hpa_mpi_leaf {
    bool inside;        /* below an MPI call's entry */
    const char *caller; /* module of the frame that made the call, NULL if none */
} hpa_mpi_leaf;

/* True if f is one of our MPI entries (the PMPI wrappers, C or Fortran). */
bool hpa_mpi_entry(const hpa_func *f);

/* Whether frame f, the next one from the root, is hidden as part of an MPI call; prev is
 * the last frame kept (NULL: none). */
bool hpa_mpi_leaf_hides(hpa_mpi_leaf *s, const hpa_func *prev, const hpa_func *f);

#endif
