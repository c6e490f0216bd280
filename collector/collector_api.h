/*
 * collector_api.h - what the collector offers to the parts that run inside the profiled
 * process with it: the OpenMP tool (ompt/, linked into libhpcollect.so) and the MPI
 * wrappers (mpi_wrap/, lib/libhpcollect-mpi.so, which calls these through the dynamic
 * linker). Exported names carry the hpcollect_ prefix; everything else in the
 * collector is hidden (-fvisibility=hidden).
 *
 * Re-entry rules: collector/sigsafe.h states them once, numbered. Rules 1-5 bind the
 * callers of this API: write a thread's stream only between hpcollect_write_begin() and
 * hpcollect_write_end() (1, 2), the process stream only under hpcollect_proc_lock() (3),
 * nothing here allocates (4), hpcollect_self() may be NULL (5).
 */
#ifndef HPC_COLLECTOR_API_H
#define HPC_COLLECTOR_API_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "experiment.h"

#define HPCOLLECT_API __attribute__((visibility("default")))

/* Per-thread collector state. The public part comes first and is stable; the
 * collector's private part follows it in collector/thread.h. */
typedef struct hpc_thread {
    hpc_stream stream; /* this thread's t<seq>.hpe */
    uint32_t seq;      /* 0 = main thread */
    pid_t tid;
    volatile sig_atomic_t busy; /* rule 1 */
    /* Recorded with every clock and counter sample: */
    volatile uint32_t state;  /* HPC_STATE_* bits (MPI bit, OpenMP state) */
    volatile uint64_t region; /* current OpenMP parallel region id, 0 = none */
    volatile uint32_t mpi_fn; /* MPI function id while inside MPI, else 0 */
    /* Set by mpi_wrap around an MPI-IO call it records as I/O (-i): the POSIX and stdio
     * calls the MPI library makes for it are not traced again. */
    volatile uint32_t io_outer;
    /* A signal that kills the process came while the thread was writing (rule 1): its
     * handler left the end to hpcollect_write_end, once the record is whole, so that the
     * end's own records (the MPI call the thread dies in, its last CPU time) find the
     * stream free. 0 = none. */
    volatile sig_atomic_t death;
} hpc_thread;

/* This thread's state, or NULL (rule 5). Signal-safe. */
HPCOLLECT_API hpc_thread *hpcollect_self(void);

/* The process ends by the signal t->death now (the collector's end, then the signal's
 * default action). Signal-safe. */
HPCOLLECT_API void hpcollect_die_deferred(hpc_thread *t);

/* Rule 1/2. Signal-safe. */
static inline void hpcollect_write_begin(hpc_thread *t)
{
    t->busy = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void hpcollect_write_end(hpc_thread *t)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->busy = 0;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (__builtin_expect(t->death != 0, 0)) /* a killing signal came meanwhile */
        hpcollect_die_deferred(t);
}

/* A thread whose clock is still its first one (a POSIX CPU timer, which the kernel checks
 * only at its tick) takes its perf event now (collector/source.h, hpc_clock_check): the
 * OpenMP tool calls it at each implicit task, so a worker is on the precise clock from
 * its first region's work on. Cheap once it has. Outside hpcollect_write_begin/end. NOT
 * signal-safe. */
HPCOLLECT_API void hpcollect_clock_check(hpc_thread *t);

/* CLOCK_MONOTONIC in ns (vDSO). Signal-safe. */
HPCOLLECT_API uint64_t hpcollect_now(void);

/* True while data should be recorded: not paused (-y, hpc_pause, MPI_Pcontrol(0)),
 * inside the -t window and under the size limit. Signal-safe. */
HPCOLLECT_API bool hpcollect_recording(void);
/* The same for a time the caller has just read with hpcollect_now(): tracing layers that
 * timestamp an event anyway save a clock read (the OpenMP tool, per callback). Signal-safe. */
HPCOLLECT_API bool hpcollect_recording_at(uint64_t now);

/* Pause or resume all recording in the process; reason is an hpc_sample_reason
 * (HPC_SAMPLE_PAUSE / HPC_SAMPLE_RESUME, recorded as a sample_point) or an hpc_limit
 * passed as HPCOLLECT_REASON_LIMIT(HPC_LIMIT_PCONTROL_OFF/ON) (recorded as a limit
 * record): the two enums overlap in value, hence the marker bit. NOT signal-safe. */
#define HPCOLLECT_REASON_LIMIT_BIT 0x100u
#define HPCOLLECT_REASON_LIMIT(l)  (HPCOLLECT_REASON_LIMIT_BIT | (unsigned)(l))
HPCOLLECT_API void hpcollect_pause(unsigned reason);
HPCOLLECT_API void hpcollect_resume(unsigned reason);

/* Rule 3. lock returns the process stream (NULL if collection is off; then do not call
 * unlock). NOT signal-safe. */
HPCOLLECT_API hpc_stream *hpcollect_proc_lock(void);
HPCOLLECT_API void hpcollect_proc_unlock(void);

/* Record a global sample point (reason enum hpc_sample_reason) with the process's
 * rusage; label may be NULL. NOT signal-safe (called from a deferred context). */
HPCOLLECT_API void hpcollect_sample_point(unsigned reason, const char *label);

/*
 * Unwind the calling thread's stack from the caller of this function, skipping `skip`
 * more frames, and return the CCT node id of the result in t's calling-context tree
 * (writing new cct_node records as needed). Returns 0 if no stack could be taken.
 * Must be called between hpcollect_write_begin/end. NOT signal-safe.
 */
HPCOLLECT_API uint64_t hpcollect_capture_context(hpc_thread *t, int skip);

/* As hpcollect_capture_context; also the stack addresses holding the return addresses of
 * the captured frames, innermost first (slots[i]: frame i's return address into frame
 * i+1), at most max of them, their count in *nslots. Reading those words again tells
 * whether a later call has the same stack (mpi_wrap/context.c). NOT signal-safe. */
HPCOLLECT_API uint64_t hpcollect_capture_context_slots(hpc_thread *t, int skip, uintptr_t *slots,
                                                       int max, int *nslots);

/* Did the thread's last hpcollect_capture_context* reach the stack's root, or was it cut
 * short (it gave way to another dl_iterate_phdr caller, sigsafe.h rule 7: the frames it
 * kept are the innermost only)? A cache keyed on the whole path must not learn a cut one
 * (ompt/context.c). NOT signal-safe. */
HPCOLLECT_API bool hpcollect_last_unwind_whole(hpc_thread *t);

/* The MPI layer tells the collector this process's MPI_COMM_WORLD rank and size once
 * MPI_Init returns; the collector records it. NOT signal-safe. */
HPCOLLECT_API void hpcollect_set_mpi_rank(int rank, int size);

/* Settings read once from HPCOLLECT_* (collector/settings.def); the MPI wrappers and the
 * OpenMP tool read them here, never from the environment. Callable from a constructor
 * that runs before the collector's own: the settings are read at the first call. NOT
 * signal-safe the first time. */
typedef struct hpcollect_settings {
    int mpi_trace;           /* -m on|off */
    int follow;              /* -F on|off */
    const char *omp_runtime; /* --omp-runtime as asked */
    uint64_t clock_interval_ns;
    const char *omp_context; /* "unwind": no context cache (bench/omp_bench.sh); else "" */
} hpcollect_settings;
HPCOLLECT_API const hpcollect_settings *hpcollect_settings_get(void);

/* The collector's guard (collector/interpose.h): held around the MPI wrappers' and the
 * OpenMP tool's own work (their bookkeeping's malloc, their writes), so the tracers do
 * not record it as the program's. Nestable, per thread. Signal-safe. */
HPCOLLECT_API void hpcollect_guard_enter(void);
HPCOLLECT_API void hpcollect_guard_leave(void);

/* Thread states (collector/states.h): the calling thread is about to wait inside a
 * runtime the collector does not wrap (an OpenMP lock's futex). Time it spends off the
 * CPU until hpcollect_wait_end is charged, at the end, to the program's frames of the
 * stack (ours left out) as User Lock (lock true) or Other Wait. begin returns a token for
 * end, 0 when the thread is not followed or states are off (end then does nothing).
 * Calls nest; a token left unended (a longjmp) is dropped by the next begin. Signal-safe. */
HPCOLLECT_API unsigned hpcollect_wait_begin(bool lock);
HPCOLLECT_API void hpcollect_wait_end(unsigned token);

/* Called by the collector's fatal-signal and exit paths so the MPI layer can write
 * what it holds (registered by mpi_wrap; may be NULL). NOT signal-safe by default; the
 * hook is told whether it runs in a signal handler and must keep to signal-safe code
 * then. */
typedef void (*hpcollect_end_hook)(int in_signal_handler);
/* I/O tracing (-i, collector/io.c): a new I/O handle id of this process for an
 * io_handle record (MPI-IO files, mpi_wrap/io.c), or 0 when I/O is not traced. Ids are
 * shared with the POSIX and stdio handles. Signal-safe. */
HPCOLLECT_API uint64_t hpcollect_io_handle(void);

HPCOLLECT_API void hpcollect_register_end_hook(hpcollect_end_hook hook);

/* A synchronization wait the OpenMP tool saw (a lock, critical section, barrier): kind
 * enum hpc_sync_kind, object the lock's wait id or the barrier's code address, request
 * and grant hpcollect_now() times. With -s on it is recorded as a sync_wait at the
 * caller's stack, or counted as screened when shorter than the threshold (collector/
 * sync.c); else nothing. Call outside hpcollect_write_begin/end. NOT signal-safe. */
HPCOLLECT_API void hpcollect_sync_wait(hpc_thread *t, unsigned kind, uint64_t object,
                                       uint64_t request, uint64_t grant);

#endif /* HPC_COLLECTOR_API_H */
