/*
 * omp_model.c - OpenMP states: categories, wait kinds, names, and the rules that decide
 * what the runtime does not say (see omp_model.h).
 */
#include "omp_model.h"

enum hpa_omp_cat hpa_omp_state_cat(unsigned s)
{
    switch (s) {
    case HPC_OMP_STATE_SERIAL:
    case HPC_OMP_STATE_WORK:
        return HPA_OMP_CAT_WORK;
    case HPC_OMP_STATE_IDLE:
        return HPA_OMP_CAT_IDLE;
    case HPC_OMP_STATE_OVERHEAD:
        return HPA_OMP_CAT_OVERHEAD;
    case HPC_OMP_STATE_NONE:
        return HPA_OMP_CAT_NONE;
    default:
        return hpa_omp_state_wait(s) >= 0 ? HPA_OMP_CAT_WAIT : HPA_OMP_CAT_NONE;
    }
}

int hpa_omp_state_wait(unsigned s)
{
    switch (s) {
    case HPC_OMP_STATE_IMPLICIT_BARRIER:
        return HPA_OMP_W_IMPLICIT_BARRIER;
    case HPC_OMP_STATE_EXPLICIT_BARRIER:
        return HPA_OMP_W_EXPLICIT_BARRIER;
    case HPC_OMP_STATE_TASKWAIT:
        return HPA_OMP_W_TASKWAIT;
    case HPC_OMP_STATE_TASKGROUP:
        return HPA_OMP_W_TASKGROUP;
    case HPC_OMP_STATE_LOCK_WAIT:
        return HPA_OMP_W_LOCK;
    case HPC_OMP_STATE_CRITICAL_WAIT:
        return HPA_OMP_W_CRITICAL;
    case HPC_OMP_STATE_ORDERED_WAIT:
        return HPA_OMP_W_ORDERED;
    case HPC_OMP_STATE_ATOMIC_WAIT:
        return HPA_OMP_W_ATOMIC;
    case HPC_OMP_STATE_REDUCTION:
        return HPA_OMP_W_REDUCTION;
    default:
        return -1;
    }
}

const char *hpa_omp_state_name(unsigned s)
{
    static const char *const names[] = {
        [HPC_OMP_STATE_SERIAL] = "serial",
        [HPC_OMP_STATE_WORK] = "work",
        [HPC_OMP_STATE_IMPLICIT_BARRIER] = "implicit_barrier",
        [HPC_OMP_STATE_EXPLICIT_BARRIER] = "explicit_barrier",
        [HPC_OMP_STATE_TASKWAIT] = "taskwait",
        [HPC_OMP_STATE_TASKGROUP] = "taskgroup",
        [HPC_OMP_STATE_LOCK_WAIT] = "lock_wait",
        [HPC_OMP_STATE_CRITICAL_WAIT] = "critical_section_wait",
        [HPC_OMP_STATE_ORDERED_WAIT] = "ordered_section_wait",
        [HPC_OMP_STATE_ATOMIC_WAIT] = "atomic_wait",
        [HPC_OMP_STATE_REDUCTION] = "reduction",
        [HPC_OMP_STATE_IDLE] = "idle",
        [HPC_OMP_STATE_OVERHEAD] = "overhead",
    };
    return s < sizeof(names) / sizeof(names[0]) ? names[s] : NULL;
}

static const struct {
    const char *key, *title;
} wait_kinds[HPA_OMP_W_COUNT] = {
    [HPA_OMP_W_IMPLICIT_BARRIER] = {"implicit_barrier", "Implicit barrier"},
    [HPA_OMP_W_EXPLICIT_BARRIER] = {"explicit_barrier", "Explicit barrier"},
    [HPA_OMP_W_TASKWAIT] = {"taskwait", "Taskwait"},
    [HPA_OMP_W_TASKGROUP] = {"taskgroup", "Taskgroup"},
    [HPA_OMP_W_LOCK] = {"lock", "Lock"},
    [HPA_OMP_W_CRITICAL] = {"critical", "Critical"},
    [HPA_OMP_W_ORDERED] = {"ordered", "Ordered"},
    [HPA_OMP_W_ATOMIC] = {"atomic", "Atomic"},
    [HPA_OMP_W_REDUCTION] = {"reduction", "Reduction"},
};

const char *hpa_omp_wait_key(int w)
{
    return w >= 0 && w < HPA_OMP_W_COUNT ? wait_kinds[w].key : "?";
}

const char *hpa_omp_wait_title(int w)
{
    return w >= 0 && w < HPA_OMP_W_COUNT ? wait_kinds[w].title : "?";
}

int hpa_omp_sync_wait(uint64_t kind)
{
    switch (kind) {
    case HPC_OMP_SYNC_IMPLICIT_BARRIER:
        return HPA_OMP_W_IMPLICIT_BARRIER;
    case HPC_OMP_SYNC_TASKWAIT:
        return HPA_OMP_W_TASKWAIT;
    case HPC_OMP_SYNC_TASKGROUP:
        return HPA_OMP_W_TASKGROUP;
    case HPC_OMP_SYNC_REDUCTION:
        return HPA_OMP_W_REDUCTION;
    default: /* explicit, and libomp's "implementation" barrier of gcc-built code */
        return HPA_OMP_W_EXPLICIT_BARRIER;
    }
}

int hpa_omp_mutex_wait(uint64_t kind)
{
    switch (kind) {
    case HPC_OMP_MUTEX_CRITICAL:
        return HPA_OMP_W_CRITICAL;
    case HPC_OMP_MUTEX_ORDERED:
        return HPA_OMP_W_ORDERED;
    case HPC_OMP_MUTEX_ATOMIC:
        return HPA_OMP_W_ATOMIC;
    default:
        return HPA_OMP_W_LOCK;
    }
}

/* ---------------------------------------------------------------- rules */

uint64_t hpa_omp_region_time_end(const hpa_omp_exec *x, uint32_t seq, uint64_t end)
{
    if (x && x->t_end && x->enc_seq != seq && end > x->t_end)
        return x->t_end;
    return end;
}

unsigned hpa_omp_unreported_state(uint32_t thread_type)
{
    return thread_type == HPA_OMP_THREAD_INITIAL ? HPC_OMP_STATE_SERIAL : HPC_OMP_STATE_NONE;
}

bool hpa_omp_sample_unreported(unsigned omp_state, uint64_t region)
{
    return region == 0 && omp_state == HPC_OMP_STATE_NONE;
}

unsigned hpa_omp_sample_state(unsigned omp_state, uint64_t region, const hpa_omp_exec *x,
                              uint32_t seq, uint64_t time, uint32_t thread_type)
{
    if (hpa_omp_sample_unreported(omp_state, region))
        return hpa_omp_unreported_state(thread_type);
    if (omp_state == HPC_OMP_STATE_IMPLICIT_BARRIER && hpa_omp_region_time_end(x, seq, time) < time)
        return HPC_OMP_STATE_IDLE;
    return omp_state;
}
