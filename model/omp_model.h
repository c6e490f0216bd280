/*
 * omp_model.h - what an OpenMP state means: its category (work, wait, idle, overhead),
 * its wait kind, its name; shared by hpanalyze and hpmerge so that `hpanalyze omp`, the
 * merge summary and the trace exports count the same time the same way.
 *
 * Meanings (the reference's Clock-based Profiling for OpenMP Programs, on Linux):
 *   OpenMP Work   CPU time of threads in serial code or working in a parallel region
 *   OpenMP Wait   CPU time of threads waiting: barriers, taskwait, taskgroup, locks,
 *                 critical, ordered, atomic, reduction (spinning waits use CPU; a thread
 *                 that sleeps while waiting adds no CPU time, and shows in the traced
 *                 wall-clock wait only)
 *   idle          CPU time of worker threads outside parallel regions
 *   overhead      fork/join time of the runtime
 * The traced (wall-clock) counterparts come from the region, wait and mutex timestamps.
 *
 * Pure functions of their arguments: thread-safe, no allocation.
 */
#ifndef HPA_OMP_MODEL_H
#define HPA_OMP_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "experiment.h"

/* Categories of OpenMP states a report sums over. */
enum hpa_omp_cat {
    HPA_OMP_CAT_NONE = 0,
    HPA_OMP_CAT_WORK,
    HPA_OMP_CAT_WAIT,
    HPA_OMP_CAT_IDLE,
    HPA_OMP_CAT_OVERHEAD,
    HPA_OMP_CAT_COUNT
};

/* Wait kinds of the reports (states and traced records map onto these). */
enum hpa_omp_wait {
    HPA_OMP_W_IMPLICIT_BARRIER = 0,
    HPA_OMP_W_EXPLICIT_BARRIER,
    HPA_OMP_W_TASKWAIT,
    HPA_OMP_W_TASKGROUP,
    HPA_OMP_W_LOCK,
    HPA_OMP_W_CRITICAL,
    HPA_OMP_W_ORDERED,
    HPA_OMP_W_ATOMIC,
    HPA_OMP_W_REDUCTION,
    HPA_OMP_W_COUNT
};

/* The category of an OpenMP state (enum hpc_omp_state); unknown states are NONE. */
enum hpa_omp_cat hpa_omp_state_cat(unsigned omp_state);
/* Wait kind of a wait state, or -1. */
int hpa_omp_state_wait(unsigned omp_state);
/* "implicit_barrier", "lock_wait" ... as in the pseudo functions <OMP-...>; NULL for an
 * unknown state. */
const char *hpa_omp_state_name(unsigned omp_state);
/* Keys and titles of wait kinds: "implicit_barrier" / "Implicit barrier"; "?" if unknown. */
const char *hpa_omp_wait_key(int w);
const char *hpa_omp_wait_title(int w);

/* Wait kind of a traced omp_sync record's kind (enum hpc_omp_sync): explicit barrier for
 * libomp's "implementation" barrier of gcc-built code and unknown kinds. */
int hpa_omp_sync_wait(uint64_t sync_kind);
/* Wait kind of a traced omp_mutex record's kind (enum hpc_omp_mutex): lock if unknown. */
int hpa_omp_mutex_wait(uint64_t mutex_kind);

#endif
