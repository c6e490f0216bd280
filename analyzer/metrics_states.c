/*
 * metrics_states.c - the thread-state metrics (issue 13; collector/states.h says how
 * they are recorded), added when an experiment recorded thread states:
 *
 *   user, system      User CPU, System CPU: each clock sample's weight, split by the
 *                     thread's rusage (sample_clock.sys_ns)
 *   wait_cpu          Wait CPU: runnable, waiting for a CPU
 *   user_lock         User Lock: asleep waiting for a mutex, rwlock, semaphore or futex lock
 *   text_pf, data_pf  Text / Data Page Fault: asleep in a major fault on code / data
 *   other_wait        Other Wait: any other sleep
 *   total_thread      Total Thread: all of them, a thread's whole life
 *   wall              Wall: Total Thread of each process's main thread (the reference's
 *                     "LWP time spent in LWP 1")
 *   mpi_work          MPI processes: User + System CPU outside MPI calls
 *   mpi_wait          every state inside MPI calls, and Wait CPU outside them (the
 *                     reference: "whether the wait is using CPU time or sleeping, or
 *                     when work is being done in parallel, but the thread is not
 *                     scheduled on a CPU")
 *
 * OpenMP Work and Wait follow the same rule (omp_proc.c asks hpa_states_recorded).
 * Metrics with nothing in them are hidden by default once loaded (Total Thread never).
 */
#include <string.h>

#include "profile.h"

_Static_assert(HPA_NMSTATES == HPC_NMSTATES, "metrics.h's thread states are experiment.h's");

bool hpa_states_recorded(const hpa_profile *p)
{
    for (size_t i = 0; i < p->nprocs; i++) {
        size_t it = 0;
        const hpc_record *r = hpc_proc_next_of(p->procs[i].proc, HPC_K_settings, &it);
        if (r && r->u.settings.states != HPC_STATES_NONE)
            return true;
    }
    return false;
}

static const struct {
    const char *key, *title;
    uint32_t mstates;
    bool main_thread;
} defs[] = {
    {"user", "User CPU", HPA_MS(HPC_MSTATE_USER), false},
    {"system", "System CPU", HPA_MS(HPC_MSTATE_SYSTEM), false},
    {"wait_cpu", "Wait CPU", HPA_MS(HPC_MSTATE_WAIT_CPU), false},
    {"user_lock", "User Lock", HPA_MS(HPC_MSTATE_USER_LOCK), false},
    {"text_pf", "Text Page Fault", HPA_MS(HPC_MSTATE_TEXT_PF), false},
    {"data_pf", "Data Page Fault", HPA_MS(HPC_MSTATE_DATA_PF), false},
    {"other_wait", "Other Wait", HPA_MS(HPC_MSTATE_OTHER_WAIT), false},
    {"total_thread", "Total Thread", HPA_MS_ALL, false},
    {"wall", "Wall", HPA_MS_ALL, true},
};

const char *hpa_mstate_title(unsigned mstate)
{
    for (size_t i = 0; mstate < HPC_NMSTATES && i < sizeof defs / sizeof defs[0]; i++)
        if (defs[i].mstates == HPA_MS(mstate))
            return defs[i].title;
    return "Unknown state";
}

static int add(hpa_profile *p, const char *key, const char *title, hpa_metric m)
{
    m.key = key;
    m.title = title;
    m.unit = "sec.";
    m.source = HPA_SRC_THREAD;
    m.scale = 1e-9;
    m.time = true;
    return hpa_metrics_add(&p->metrics, &m) < 0 ? HPC_E_NOMEM : 0;
}

int hpa_states_add_metrics(hpa_profile *p, bool mpi)
{
    if (!hpa_states_recorded(p))
        return 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof defs / sizeof defs[0]; i++) {
        /* every state is shown, User and System CPU beside the Total CPU they add up to
         * (the columns the issue names); Wall, the main thread's Total Thread, is not */
        bool shown = !defs[i].main_thread;
        hpa_metric m = {
            .mstates = defs[i].mstates, .main_thread = defs[i].main_thread, .visible = shown};
        rc = add(p, defs[i].key, defs[i].title, m);
    }
    if (rc || !mpi)
        return rc;
    uint32_t cpu = HPA_MS(HPC_MSTATE_USER) | HPA_MS(HPC_MSTATE_SYSTEM);
    hpa_metric work = {
        .state_mask = HPC_STATE_MPI, .state_value = 0, .mstates = cpu, .visible = true};
    hpa_metric wait = {.state_mask = HPC_STATE_MPI,
                       .state_value = HPC_STATE_MPI,
                       .mstates = HPA_MS_ALL,
                       .alt = {.state_mask = HPC_STATE_MPI,
                               .state_value = 0,
                               .mstates = HPA_MS(HPC_MSTATE_WAIT_CPU)},
                       .visible = true};
    rc = add(p, "mpi_work", "MPI Work", work);
    return rc ? rc : add(p, "mpi_wait", "MPI Wait", wait);
}

void hpa_states_loaded(hpa_profile *p)
{
    hpa_metrics *ms = &p->metrics;
    uint64_t total[HPA_MAX_METRICS];
    bool any = false;
    for (unsigned m = 0; m < ms->n; m++)
        any = any || ms->m[m].source == HPA_SRC_THREAD;
    if (!any)
        return;
    hpa_profile_total(p, total);
    for (unsigned m = 0; m < ms->n; m++)
        if (ms->m[m].source == HPA_SRC_THREAD && !total[m] &&
            strcmp(ms->m[m].key, "total_thread") != 0)
            ms->m[m].visible = false;
}
