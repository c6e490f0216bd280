/*
 * thread.h - the collector's per-thread state: the public hpc_thread of collector_api.h
 * followed by the private part. One block per followed thread, mmap'd (never malloc'd:
 * the sample handler reads it), found through an initial-exec TLS pointer so the
 * handler's lookup is one load.
 */
#ifndef HPC_COLLECTOR_THREAD_H
#define HPC_COLLECTOR_THREAD_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "collector_api.h"
#include "counters.h"
#include "states.h"

#define HPC_MAX_DEPTH 512 /* frames kept per stack; deeper stacks are cut and counted */

/* Calling-context tree of one thread: open addressing (parent id, pc) -> node id. */
typedef struct hpc_cct_slot {
    uint64_t pc;
    uint32_t parent;
    uint32_t id; /* 0 = empty slot */
} hpc_cct_slot;

typedef struct hpc_cct {
    hpc_cct_slot *slots; /* mmap'd, capacity = mask + 1 */
    uint32_t mask;
    uint32_t count;
} hpc_cct;

/* A mutex this thread holds and when it got it (sync.c: the holder's hold time). */
#define HPC_MAX_HELD 8
typedef struct hpc_held {
    uintptr_t object;
    uint64_t grant;
} hpc_held;

typedef struct hpc_thread_priv {
    hpc_thread pub; /* must stay first: hpcollect_self() returns &pub */
    /* collector-private */
    /* The re-entry flags, each of a rule of sigsafe.h. */
    int stream_ok;                         /* pub.stream is open */
    volatile sig_atomic_t in_handler;      /* rule 6: a sample is being taken */
    volatile sig_atomic_t in_unwind;       /* rule 6: a SIGSEGV/SIGBUS now is an unwinding fault */
    volatile sig_atomic_t in_dl;           /* rule 7: inside dlopen/dlclose: do not unwind */
    volatile sig_atomic_t dl_inside;       /* rule 7: its calls counted in `others` */
    volatile sig_atomic_t dl_in_callback;  /* rule 7: ... and how many are in their callback */
    volatile sig_atomic_t unwind_gave_way; /* rule 7: this unwind met another caller */
    volatile sig_atomic_t masked;          /* rule 9: a sample holds every signal but faults */
    sigset_t sample_mask;                  /* rule 9: the mask it set (sigprocmask's answer) */
    sigjmp_buf unwind_env;
    /* interpose.c: calls screened by a tracer's threshold, not yet added to the stream's
     * statistics (an atomic add per call would double a screened call's cost) */
    uint32_t screened_n;
    uint64_t screened_ticks, screened_ns; /* trace clock ticks, and ns (the OpenMP tool's) */
    int nheld;                            /* sync.c: mutexes held (-s), innermost last */
    hpc_held held[HPC_MAX_HELD];
    int clock_source;      /* enum hpc_clock_source */
    int clock_lazy;        /* on the timer until its first sample, then perf (source.h) */
    int perf_fd;           /* perf source: the event's fd (closed when mapped: its number) */
    int perf_fd_prev;      /* the number of the event before the last period change */
    void *perf_map;        /* its user page, which keeps it alive; NULL: the fd is kept */
    uint64_t perf_id;      /* a kept fd's event id (hpc_perf_close) */
    uint64_t clock_period; /* its period now (the throttle may raise it) */
    int timer_id;          /* timer source: the kernel's id */
    int timer_ok;
    hpc_counter_group ctr; /* -h counters (source_counter.c) */
    hpc_states st;         /* thread states (states.h) */
    uint64_t last_cpu_ns;  /* thread CPU time at the previous recorded sample */
    uint64_t last_node;    /* its stack (tail.c), 0 = none yet */
    int64_t thr_tokens;    /* sigsafe_throttle.c: handler ns it may still spend */
    uint64_t thr_seen_ns;  /* ... thread CPU time it has earned on so far */
    int64_t thr_cost_ns;   /* ... recent mean cost of a sample */
    uint64_t handler_ns;   /* CPU time spent in sample handlers (thread_end) */
    uint64_t samples;
    uint64_t unwinds; /* HPCOLLECT_DEBUG_UNWIND_FAULT counter */
    hpc_cct cct;
    struct hpc_trace_ctx *trace_ctx;           /* interpose.c: traced calls' stacks met before */
    uint64_t trace_anchor_tk, trace_anchor_ns; /* interpose.c (end_ns): a clock pair */
    int32_t parent_seq;
    uint64_t start_routine;
    void *(*start_fn)(void *); /* pthread_create's arguments, for the start wrapper */
    void *start_arg;
    uint64_t inherit_blocked;            /* creator's shadow mask of owned signals */
    struct hpc_thread_priv *next, *prev; /* all live thread states (fork child frees them) */
    uint32_t file_seq;                   /* its stream is t<file_seq>.hpe (reused, thread.c) */
    uint64_t pcs[HPC_MAX_DEPTH];         /* unwinding scratch */
} hpc_thread_priv;

/* The calling thread's state, or NULL. Signal-safe. Inline: every traced call asks. */
extern __thread hpc_thread_priv *hpc_tls_self __attribute__((tls_model("initial-exec")));
static inline hpc_thread_priv *hpc_self(void)
{
    return hpc_tls_self;
}
void hpc_set_self(hpc_thread_priv *t);

/* Allocate a zeroed state with the next sequence number; NULL on failure. NOT
 * signal-safe. */
hpc_thread_priv *hpc_thread_alloc(int32_t parent_seq, uint64_t start_routine);
/* Free a state (unlink it, unmap the CCT and the block). NOT signal-safe. */
void hpc_thread_free(hpc_thread_priv *t);

/*
 * Start following the calling thread with state t: create its stream, arm its clock,
 * write thread_begin, make it hpc_self(). Returns 0, or -1 (then the thread runs without
 * collection and t is freed). NOT signal-safe.
 */
int hpc_thread_begin(hpc_thread_priv *t);
/* Stop following the calling thread: disarm, write thread_end, close, free. */
void hpc_thread_end(void);

/* The end of collection: close the streams kept for reuse. NOT signal-safe. */
void hpc_threads_close(void);
/* Fork child: forget every other thread's state without touching its files. */
void hpc_threads_abandon_others(hpc_thread_priv *keep);
/* Lock/unlock the list of thread states around fork. */
void hpc_threads_lock(void);
void hpc_threads_unlock(void);

/* Number of threads followed so far (the next sequence number); take the next one; set
 * it (a fork child). Signal-safe. */
uint32_t hpc_threads_seen(void);
uint32_t hpc_threads_take_seq(void);
void hpc_threads_reset_seq(uint32_t next);

/* This thread's CPU time in ns (CLOCK_THREAD_CPUTIME_ID). Signal-safe. */
uint64_t hpc_thread_cpu_ns(void);

/* Shadow signal mask of owned signals (see signals.c): bit n = signal n. */
extern __thread uint64_t hpc_user_blocked __attribute__((tls_model("initial-exec")));
extern __thread uint64_t hpc_held_pending __attribute__((tls_model("initial-exec")));

#endif
