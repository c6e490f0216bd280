/*
 * collector.h - process-wide state of libhpcollect.so and the internal interfaces
 * between its files. Nothing here is exported (-fvisibility=hidden).
 */
#ifndef HPC_COLLECTOR_H
#define HPC_COLLECTOR_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "collector_api.h"
#include "config.h"
#include "sigsafe.h"
#include "thread.h"

/* Exported names of the library: interposed standard functions and hpcollect_*. */
#define HPC_INTERPOSE __attribute__((visibility("default")))

typedef struct hpc_process {
    hpc_config cfg;
    volatile int active; /* collecting in this process */
    volatile int ended;  /* proc_end written */
    char dir[PATH_MAX];  /* EXP/<name> */
    char name[256];      /* sub-experiment name */
    char parent[256];
    int descent;
    hpc_stream proc;          /* process.hpe: written under hpc_proc_lock() */
    hpc_budget budget;        /* -L, shared by the thread streams */
    uint64_t start_ns;        /* proc_begin time; -t is relative to it */
    int clock_source;         /* main thread's source */
    char clock_note[160];     /* why a fallback ran */
    int states_source;        /* main thread's thread states: enum hpc_states_source */
    char states_note[160];    /* why they are off or partial */
    unsigned fork_count;      /* .f<k> */
    unsigned exec_count;      /* .x<k> */
    volatile int paused;      /* hpcollect_pause */
    volatile int limit_noted; /* the size-limit record is written (or being written) */
    volatile int window_start_noted, window_end_noted;
    volatile int exit_status_known;
    int exit_status;
    int mpi_rank, mpi_size;
    hpcollect_end_hook end_hook;
    hpcollect_settings settings;
    uint64_t sample_index;
    volatile int fd_moments; /* see hpc_fd_moment_begin */
    int gate; /* HPC_GATE_* bits of active, paused, the -t window (hpc_gate_update) */
} hpc_process;

extern hpc_process hpc_P;

/*
 * Descriptors the collector holds for a moment: a thread stream being created, perf
 * events being opened (and closed again when past their share). A thread start that
 * meets EMFILE waits while any are held: their holders take no lock and only make system
 * calls, so they give them back, however long a loaded machine keeps them off the CPU.
 * end returns how many are still held by others. Signal-safe.
 */
static inline void hpc_fd_moment_begin(void)
{
    __atomic_add_fetch(&hpc_P.fd_moments, 1, __ATOMIC_RELAXED);
}
static inline int hpc_fd_moment_end(void)
{
    return __atomic_sub_fetch(&hpc_P.fd_moments, 1, __ATOMIC_RELAXED);
}

/*
 * The collector's own system calls in a program thread (a stream's open and close, a
 * chunk change, libunwind's validating read and write) are cancellation points: the
 * program's pthread_cancel must not act there, between our first and last step (a
 * thread cancelled inside hpc_thread_begin had no stream; one cancelled inside a sample
 * handler never left it). So cancellation is held off around them, and a pending cancel
 * acts at the program's next cancellation point. The cancel type is also set to
 * asynchronous meanwhile (harmless while disabled): glibc's cancellable calls then do
 * not switch it, and so do not wait for a SIGCANCEL that is in flight: a sample that
 * interrupted a thread between pthread_cancel's signal and its delivery waited for it
 * in libunwind's read() for ever (the clock handler blocks SIGCANCEL; test_cancel at
 * -p hi hung 1 run in 77). glibc's pthread_setcancelstate and pthread_setcanceltype
 * are atomic updates of the thread's cancel word: safe in a signal handler, and they
 * act on a pending cancel only when it is enabled and asynchronous.
 */
typedef struct hpc_nocancel {
    int state, type;
} hpc_nocancel;
static inline hpc_nocancel hpc_nocancel_begin(void)
{
    hpc_nocancel old = {PTHREAD_CANCEL_DISABLE, PTHREAD_CANCEL_ASYNCHRONOUS};
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old.state);
    pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, &old.type);
    return old;
}
static inline void hpc_nocancel_end(hpc_nocancel old)
{
    if (old.type != PTHREAD_CANCEL_ASYNCHRONOUS)
        pthread_setcanceltype(old.type, NULL);
    if (old.state != PTHREAD_CANCEL_DISABLE)
        pthread_setcancelstate(old.state, NULL);
}

/* init.c */
/* Start collecting in this process as sub-experiment `name` (directory made already).
 * Used by the constructor and by a fork child. Returns 0 or -1. NOT signal-safe. */
int hpc_process_begin(const char *name, const char *parent, int descent,
                      hpc_thread_priv *main_thread);
/* Normal end: thread_end of the caller, sample_point end, proc_end. NOT signal-safe. */
void hpc_process_end(int reason, int status);
/* sigsafe_process.c */
/* End from a fatal signal handler: sample_point end and proc_end. Signal-safe. */
void hpc_process_end_sigsafe(int sig);
/* Write proc_end (reason enum hpc_end_reason, status) with the rusage `at` (read as the
 * program's part ended, before the collector's own end work), or now if NULL. Lock held.
 * Signal-safe. */
struct hpc_usage;
void hpc_record_proc_end(hpc_stream *s, int reason, int status, const struct hpc_usage *at);

/* Lock for process.hpe (hpcollect_proc_lock): blocks the collector's signals. Returns
 * the stream or NULL when collection is off. trylock gives up after a bounded spin
 * (signal handlers use it). */
hpc_stream *hpc_proc_lock(void);
hpc_stream *hpc_proc_trylock(void);
/* One attempt, no wait: NULL if the lock is held (by this thread or another). */
hpc_stream *hpc_proc_trylock_once(void);
/* Unlock, then write a sample point left to the holder (periodic.c). */
void hpc_proc_unlock(void);
/* Unlock only (the points writer itself). */
void hpc_proc_unlock_quiet(void);
/* Fork child: the lock may have been held by a thread that the child does not have. */
void hpc_proc_lock_reset(void);
/* n threads the collector could not follow: counted in process.hpe's threads_unrecorded
 * (by the next holder of its lock). Signal-safe. */
void hpc_threads_unrecorded(uint64_t n);

/* sigsafe_limits.c: -L and -t. */
/* True while samples may be recorded now. Signal-safe. */
bool hpc_recording_at(uint64_t now);
/* hpc_P.gate: active, paused and the -t window in one word, so that the quick test below
 * is one load (an OMPT callback and a traced call each ask). It follows the fields: every
 * place that changes active or paused calls hpc_gate_update after, which reads them
 * again (a pause signal between a field's store and its update converges: the last
 * update reads the last value). 0 until the process's collection begins: the slow test. */
enum { HPC_GATE_ACTIVE = 1, HPC_GATE_PAUSED = 2, HPC_GATE_WINDOW = 4 };
static inline void hpc_gate_update(void)
{
    const hpc_config *cfg = &hpc_P.cfg;
    int g = (hpc_P.active ? HPC_GATE_ACTIVE : 0) | (hpc_P.paused ? HPC_GATE_PAUSED : 0) |
            (cfg->tstart_ns || cfg->tend_ns ? HPC_GATE_WINDOW : 0);
    __atomic_store_n(&hpc_P.gate, g, __ATOMIC_RELAXED);
}
/* What hpc_recording_at says at any time, without its call, when it is true for all of
 * them (no -t window, not paused, the -L budget not spent): the traced calls' quick test;
 * false means ask hpc_recording_at. Signal-safe. */
static inline bool hpc_recording_always(void)
{
    return __builtin_expect(__atomic_load_n(&hpc_P.gate, __ATOMIC_RELAXED) == HPC_GATE_ACTIVE &&
                                !__atomic_load_n(&hpc_P.budget.exceeded, __ATOMIC_RELAXED),
                            1);
}
/* The size limit refused a write: say so once in process.hpe. Signal-safe. */
void hpc_limit_reached(void);
/* Write a limit record (time window crossings). Signal-safe. */
void hpc_note_limit(unsigned what, uint64_t when, const char *detail);

/* sigsafe_throttle.c: sample handlers keep to HPCOLLECT_THROTTLE_PCT of the thread's CPU.
 * skip: should the signal that found the thread at CPU time `cpu` be skipped (counted
 * as throttled)? spent: a sample that started at `cpu_at_entry` is done. Signal-safe. */
bool hpc_throttle_skip(hpc_thread_priv *t, uint64_t cpu);
void hpc_throttle_spent(hpc_thread_priv *t, uint64_t cpu_at_entry);

/* tail.c: the CPU time after a thread's last sample, charged as one more clock sample
 * when the thread ends. init: at start-up (NOT signal-safe). charge: t's, up to thread
 * CPU time `cpu`, between hpcollect_write_begin/end (NOT signal-safe: may unwind).
 * charge_sigsafe: the calling thread's, from a fatal signal's handler. */
void hpc_tail_init(void);
void hpc_tail_charge(hpc_thread_priv *t, uint64_t cpu);
void hpc_tail_charge_sigsafe(hpc_thread_priv *t);
/* tail.c: t's CPU since its last sample as a sample at the caller's stack now (a sample
 * point the program records), between hpcollect_write_begin/end (NOT signal-safe). */
void hpc_tail_sample_here(hpc_thread_priv *t);
/* sigsafe_tail.c's parts: is a tail due (clock on, CPU time since the last sample,
 * recording)? the node of the last sample, start routine or entry point; write it. */
extern uint64_t hpc_tail_entry_pc;
bool hpc_tail_due(const hpc_thread_priv *t, uint64_t cpu, uint64_t now);
uint64_t hpc_tail_node_known(hpc_thread_priv *t);
void hpc_tail_write(hpc_thread_priv *t, uint64_t cpu, uint64_t now, uint64_t node);

/* sigsafe_sample.c */
void hpc_sample_clock(hpc_thread_priv *t, void *ucontext);

/* sigsafe_unwind.c: our memory accessor for libunwind (see there), and libunwind's own
 * for the program's unwinds; init.c installs ours. Signal-safe. */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
extern int (*hpc_unwind_lib_access_mem)(unw_addr_space_t, unw_word_t, unw_word_t *, int, void *);
int hpc_unwind_access_mem(unw_addr_space_t as, unw_word_t addr, unw_word_t *val, int write,
                          void *arg);
/* Leaf-first pcs of the interrupted context; returns the count. */
int hpc_unwind_signal(hpc_thread_priv *t, void *ucontext, uint64_t *pcs, int max);
/* pcs of the caller of the caller, skipping `skip` more frames, and where each frame's
 * return address is stored (slots[i] for frame i, 0 for the last frame and where
 * unknown; slots may be NULL, else has room for max entries). NOT signal-safe. */
int hpc_unwind_here_slots(hpc_thread_priv *t, int skip, uint64_t *pcs, uintptr_t *slots, int max);

/* sigsafe_cct.c */
/* Node id for the stack pcs[0..n) (leaf first), writing cct_node records for new nodes
 * to t's stream first. Returns 0 if the stack could not be stored (*err says why:
 * an hpc_err from the writer, or 0 when the tree was full). Signal-safe. */
uint64_t hpc_cct_insert(hpc_thread_priv *t, const uint64_t *pcs, int n, int *err);
void hpc_cct_free(hpc_cct *c);
/* Empty the tree for a new thread (a small table is zeroed, a large one freed). */
void hpc_cct_clear(hpc_cct *c);

/* signals.c */
void hpc_signals_install(void);
/* Give a delivery that is not ours to the program (its handler, ignore, or default
 * action). Signal-safe. */
void hpc_signal_forward(int sig, siginfo_t *si, void *uc);
/* Unblock owned signals for real in this thread, keeping the program's view. */
void hpc_signals_thread_init(uint64_t inherited_blocked);
/* Real mask for exec: the program's view of owned signals restored. */
void hpc_signals_before_exec(void);
/* After an exec that failed: a fork child's hold again where its handler is gone. */
void hpc_signals_exec_failed(void);
/* Deliver foreign signals held while the program had them blocked. */
void hpc_signals_deliver_held(void);
/* The mask the clock signal's handler runs with (all but fault signals). */
void hpc_sample_mask(sigset_t *m);
/* Bit mask of the owned signals. */
uint64_t hpc_signals_owned_mask(void);

/* modules.c */
/* Record the load map in a new process.hpe: the modules known already (a fork child's
 * inherited map) and everything loaded now. */
void hpc_modules_init(void);
void hpc_modules_rescan(void); /* after dlopen/dlclose */

/* last_thread.c: the sampler must not outlive the program's threads (see there) */
void hpc_last_thread_init(void);

/* heap.c: turn the heap tracer on as -H says (the constructor). NOT signal-safe. */
void hpc_heap_init(void);
void hpc_last_thread_fork_child(void);

/* sigsafe_dl_guard.c: dl_iterate_phdr across fork (see there) */
struct dl_phdr_info;
/* dl_iterate_phdr, counted. NOT signal-safe (as the original). */
int hpc_dl_iterate(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data);
/* May the thread unwind now (libunwind calls dl_iterate_phdr and holds locks of its
 * own)? If so it is counted in, and a fork waits for it, until hpc_dl_unwind_end.
 * Signal-safe. */
int hpc_dl_unwind_begin(hpc_thread_priv *t);
void hpc_dl_unwind_end(void);
/* May this process scan its modules (or is it a child that inherited the lock held)? */
int hpc_dl_scan_ok(void);
void hpc_dl_fork_prepare(void);
void hpc_dl_fork_parent(void);
void hpc_dl_fork_child(void);

/* sync.c: the sync tracer (-s) */
/* Calibrate its threshold if asked and turn it on (the constructor). NOT signal-safe. */
void hpc_sync_init(void);
/* Its tracer record into process.hpe (with the settings). */
void hpc_sync_write_settings(hpc_stream *s);

/* io.c: the I/O tracer (-i) */
/* Turn it on if asked: its descriptor table, fork handler (the constructor). NOT
 * signal-safe. */
void hpc_io_init(void);
/* mmap of a file, traced as I/O (heap.c's mmap interposer, which has the anonymous ones,
 * hands them here with its call site and CFA). errno and the result are mmap's. NOT
 * signal-safe. */
void *hpc_io_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off, uintptr_t site,
                  uintptr_t cfa);

/* descendants.c */
void hpc_descendants_init(void); /* pthread_atfork */
/* Is a process the collector did not see start (init.c: "<SUBEXP>.p<pid>") followed:
 * -F on, or its executable or that name matching -F =REGEX? NOT signal-safe. */
int hpc_follow_unexpected(void);

/* fds.c: fd moved above the program's RLIMIT_NOFILE soft limit (fd itself if it is
 * there already), or -1 (fd closed) when the hard limit leaves no room. NOT signal-safe. */
int hpc_fd_keep_high(int fd);
/* The same, at or above the soft limit + skip, within room more: descriptors that are
 * not moved again when the program raises its limit (thread states' fault events) keep
 * a margin for a program that raises it a little. NOT signal-safe. */
int hpc_fd_keep_high_at(int fd, unsigned skip, unsigned room);
/* sigsafe_fds.c: RLIMIT_NOFILE held while it changes, ours or the program's (one thread at
 * a time; nested in the holding thread, whose nested hold returns false): release what
 * hold returned. A fork child resets it. The program's limit, also while a move has it
 * raised. Signal-safe. */
struct rlimit;
bool hpc_fd_limit_hold(unsigned looks); /* looks: HPCOLLECT_DEBUG_FD_MOVE_WAIT's, below */
void hpc_fd_limit_release(bool took);
void hpc_fd_limit_reset(void);
int hpc_fd_program_limit(struct rlimit *rl);
/* HPCOLLECT_DEBUG_FD_MOVE_WAIT: the program read its limit (n 1), or waits to set it (16,
 * each round of its hold's wait). */
void hpc_fd_limit_looked(unsigned n);

/* sigsafe_util.c: clocks, rusage, statistics. Signal-safe. */
uint64_t hpc_now_ns(void); /* CLOCK_MONOTONIC */
/* The same without the call, for callers that read it per event (inlib.h). */
static inline uint64_t hpc_now_ns_inline(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
uint64_t hpc_realtime_ns(void);  /* CLOCK_REALTIME */
void hpc_debug_sleep_ms(int ms); /* tests' HPCOLLECT_DEBUG_* waits */
/* Add n to statistic s of t's stream (nothing when t or its stream is missing). */
void hpc_stat(hpc_thread_priv *t, enum hpc_stat s, uint64_t n);
/* The writer refused a sample's record with err (errno as it failed): count it by why
 * (HPC_E_LIMIT: the size limit, which is then noted in process.hpe; a full file system:
 * disk_full; anything else: the file could not grow). */
void hpc_stat_write_failed(hpc_thread_priv *t, int err);
/* rusage of the process in the fields a sample_point / proc_end wants. */
typedef struct hpc_usage {
    uint64_t utime_ns, stime_ns, maxrss_kb, minflt, majflt, nvcsw, nivcsw, inblock, oublock;
} hpc_usage;
void hpc_get_usage(hpc_usage *u);

/* A C string as the writer's string. Signal-safe. */
static inline hpc_str hpc_cstr(const char *s)
{
    return (hpc_str){s, (uint32_t)__builtin_strlen(s)};
}

#endif
