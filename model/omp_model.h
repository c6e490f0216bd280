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

/*
 * The rules. The runtime's records and states do not say everything; these decide the
 * rest, the same way for samples (hpanalyze's buckets, hpmerge's summary) and for traced
 * intervals (`hpanalyze omp`'s wall-clock columns, the trace exports).
 */

/* Thread types of the omp_thread record (ompt_thread_t). */
enum hpa_omp_thread_type {
    HPA_OMP_THREAD_UNKNOWN = 0, /* no omp_thread record: not an OpenMP thread (so far) */
    HPA_OMP_THREAD_INITIAL = 1,
    HPA_OMP_THREAD_WORKER = 2,
};

/* What the rules need to know of one execution of a parallel region. */
typedef struct hpa_omp_exec {
    uint64_t t_end;   /* the encountering thread's parallel-end, 0 = not recorded */
    uint32_t enc_seq; /* the encountering thread */
} hpa_omp_exec;

/*
 * Rule 1, a worker's time in a region ends with the region: libomp reports a worker's
 * implicit-barrier end (and its implicit task's) only at the next fork, and the time
 * between is idle, not wait. Returns `end` clipped to the region's end when thread seq is
 * a worker of region x (not its encountering thread) and the end is known; else `end`.
 * x NULL (region unknown): `end`.
 */
uint64_t hpa_omp_region_time_end(const hpa_omp_exec *x, uint32_t seq, uint64_t end);

/*
 * Rule 2, time the runtime did not describe: a sample with no OpenMP state outside every
 * region (before the runtime started; libomp starts at the first construct), or a thread's
 * traced time outside every region. The initial thread ran serial code of an OpenMP
 * program there: HPC_OMP_STATE_SERIAL (work); other threads: HPC_OMP_STATE_NONE.
 */
unsigned hpa_omp_unreported_state(uint32_t thread_type);

/* True for a sample rule 2 decides (no OpenMP state, outside every region): its state
 * depends on the thread's type only. */
bool hpa_omp_sample_unreported(unsigned omp_state, uint64_t region);

/*
 * Both rules for one sample of thread seq (type thread_type) at `time` in state
 * omp_state and region `region` (0 = none), whose execution is x (NULL = unknown):
 * returns the OpenMP state the sample counts in. An implicit-barrier sample of a worker
 * after its region's end is HPC_OMP_STATE_IDLE; see hpa_omp_unreported_state for samples
 * outside every region.
 */
unsigned hpa_omp_sample_state(unsigned omp_state, uint64_t region, const hpa_omp_exec *x,
                              uint32_t seq, uint64_t time, uint32_t thread_type);

#endif
