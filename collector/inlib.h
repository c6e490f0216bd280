/*
 * inlib.h - collector_api.h's per-event answers, inline, for the code linked into
 * libhpcollect.so itself (the OpenMP tool, ompt/).
 *
 * The exported hpcollect_* functions are called through the PLT even from inside the
 * library, and cannot be inlined; an OMPT callback asks for its thread, the clock and
 * whether to record each time (issue 24: about 190 of the 1 927 instructions hpcollect
 * added to an empty parallel region were those calls). These give the same answers as
 * hpcollect_self(), hpcollect_now(), hpcollect_recording_at() and hpcollect_clock_check()
 * with the collector's own inline tests: the thread is one initial-exec TLS load, the
 * recording test a few loads while no -t window, pause or size limit applies.
 * mpi_wrap (another library) keeps to collector_api.h.
 */
#ifndef HPC_COLLECTOR_INLIB_H
#define HPC_COLLECTOR_INLIB_H

#include "collector.h"
#include "interpose.h"
#include "source.h"

/* hpcollect_self(). Signal-safe. */
static inline hpc_thread *hpc_inlib_self(void)
{
    hpc_thread_priv *t = hpc_self();
    return t && hpc_P.active ? &t->pub : NULL;
}

/* hpcollect_recording_at(now): the slow test only when a window, a pause or the size
 * limit may apply. Signal-safe. */
static inline bool hpc_inlib_recording_at(uint64_t now)
{
    return hpc_recording_always() || hpc_recording_at(now);
}

/* hpcollect_clock_check(t): nothing to do once the thread has its perf event. NOT
 * signal-safe. */
static inline void hpc_inlib_clock_check(hpc_thread *pub)
{
    hpc_thread_priv *t = (hpc_thread_priv *)pub;
    if (t != NULL && __builtin_expect(t->clock_lazy, 0))
        hpc_clock_check(t);
}

/* Is the sync tracer (-s) on, which hpcollect_sync_wait feeds? Signal-safe. */
static inline bool hpc_inlib_sync_on(void)
{
    return hpc_tracers[HPC_TRACER_SYNC].on;
}

#endif /* HPC_COLLECTOR_INLIB_H */
