/*
 * api.c - collector_api.h: what the OpenMP tool and the MPI wrappers call.
 */
#include <string.h>

#include "collector.h"
#include "source.h"
#include "control.h"
#include "interpose.h"
#include "inlib.h"

HPCOLLECT_API hpc_thread *hpcollect_self(void)
{
    return hpc_inlib_self();
}

HPCOLLECT_API uint64_t hpcollect_now(void)
{
    return hpc_now_ns();
}

HPCOLLECT_API bool hpcollect_recording(void)
{
    return hpc_recording_at(hpc_now_ns());
}

HPCOLLECT_API bool hpcollect_recording_at(uint64_t now)
{
    return hpc_inlib_recording_at(now);
}

static void pause_or_resume(unsigned reason, int pause)
{
    hpc_P.paused = pause;
    hpc_gate_update();
    hpc_stream *s = hpc_proc_lock();
    if (!s)
        return;
    if (reason & HPCOLLECT_REASON_LIMIT_BIT) {
        hpc_rec_limit r = {
            .time = hpc_now_ns(),
            .what = reason & ~HPCOLLECT_REASON_LIMIT_BIT,
            .detail = hpc_cstr(pause ? "recording paused" : "recording resumed"),
        };
        hpc_write_limit(s, &r);
    } else {
        hpc_write_sample_point_locked(s, reason, pause ? "pause" : "resume");
    }
    hpc_proc_unlock();
}

HPCOLLECT_API void hpcollect_pause(unsigned reason)
{
    pause_or_resume(reason, 1);
}

HPCOLLECT_API void hpcollect_resume(unsigned reason)
{
    pause_or_resume(reason, 0);
}

HPCOLLECT_API hpc_stream *hpcollect_proc_lock(void)
{
    return hpc_proc_lock();
}

HPCOLLECT_API void hpcollect_proc_unlock(void)
{
    hpc_proc_unlock();
}

HPCOLLECT_API void hpcollect_sample_point(unsigned reason, const char *label)
{
    hpc_thread_priv *t = hpc_self();
    if (t) { /* the program's call: its thread's CPU so far belongs before the point */
        hpcollect_write_begin(&t->pub);
        hpc_tail_sample_here(t);
        hpcollect_write_end(&t->pub);
    }
    hpc_stream *s = hpc_proc_lock();
    if (!s)
        return;
    hpc_write_sample_point_locked(s, reason, label);
    hpc_proc_unlock();
}

__attribute__((noinline)) HPCOLLECT_API uint64_t hpcollect_capture_context(hpc_thread *pub,
                                                                           int skip)
{
    hpc_thread_priv *t = (hpc_thread_priv *)pub;
    if (!t || !hpc_P.active)
        return 0;
    int n = hpc_unwind_here_slots(t, skip, t->pcs, NULL, HPC_MAX_DEPTH);
    if (n <= 0)
        return 0;
    int err = 0;
    uint64_t node = hpc_cct_insert(t, t->pcs, n, &err);
    if (err == HPC_E_LIMIT)
        hpc_limit_reached();
    return err ? 0 : node;
}

__attribute__((noinline)) HPCOLLECT_API uint64_t
hpcollect_capture_context_slots(hpc_thread *pub, int skip, uintptr_t *slots, int max, int *nslots)
{
    hpc_thread_priv *t = (hpc_thread_priv *)pub;
    uintptr_t all[HPC_MAX_DEPTH];
    *nslots = 0;
    if (!t || !hpc_P.active)
        return 0;
    memset(all, 0, sizeof all);
    int n = hpc_unwind_here_slots(t, skip, t->pcs, all, HPC_MAX_DEPTH);
    if (n <= 0)
        return 0;
    int err = 0;
    uint64_t node = hpc_cct_insert(t, t->pcs, n, &err);
    if (err == HPC_E_LIMIT)
        hpc_limit_reached();
    if (err)
        return 0;
    int k = 0; /* the slots of the frames below the outermost (which returns nowhere) */
    while (k < n - 1 && k < max && all[k]) {
        slots[k] = all[k];
        k++;
    }
    *nslots = k;
    return node;
}

HPCOLLECT_API bool hpcollect_last_unwind_whole(hpc_thread *pub)
{
    hpc_thread_priv *t = (hpc_thread_priv *)pub;
    return t && !t->unwind_gave_way;
}

HPCOLLECT_API void hpcollect_clock_check(hpc_thread *pub)
{
    hpc_inlib_clock_check(pub);
}

/* The rank is recorded by the MPI layer's own mpi_init record; the collector keeps it
 * for its own use (names of later descendants stay as they were). */
HPCOLLECT_API void hpcollect_set_mpi_rank(int rank, int size)
{
    hpc_P.mpi_rank = rank;
    hpc_P.mpi_size = size;
}

HPCOLLECT_API const hpcollect_settings *hpcollect_settings_get(void)
{
    hpcollect_settings *s = &hpc_P.settings;
    hpc_config_init(&hpc_P.cfg); /* once: a constructor may ask before ours ran */
    s->mpi_trace = hpc_P.cfg.mpi_trace != 0;
    s->follow = hpc_P.cfg.follow != 0;
    s->omp_runtime = hpc_P.cfg.omp_runtime;
    s->clock_interval_ns = hpc_P.cfg.clock_ns;
    s->omp_context = hpc_P.cfg.omp_context;
    return s;
}

HPCOLLECT_API void hpcollect_guard_enter(void)
{
    hpc_guard_enter();
}

HPCOLLECT_API void hpcollect_guard_leave(void)
{
    hpc_guard_leave();
}

HPCOLLECT_API unsigned hpcollect_wait_begin(bool lock)
{
    unsigned slot;
    hpc_thread_priv *t = hpc_states_call_begin(
        &slot, lock ? HPC_MSTATE_USER_LOCK : HPC_MSTATE_OTHER_WAIT, HPC_STATES_PROGRAM);
    return t ? slot + 1 : 0;
}

HPCOLLECT_API void hpcollect_wait_end(unsigned token)
{
    hpc_thread_priv *t = hpc_self();
    if (token && t)
        hpc_states_call_end(t, token - 1);
}

HPCOLLECT_API void hpcollect_register_end_hook(hpcollect_end_hook hook)
{
    hpc_P.end_hook = hook;
}
