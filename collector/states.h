/*
 * states.h - thread states: where each moment of a followed thread's life goes, charged
 * to call stacks (the reference's microstates; docs/thread-states.md says why it works
 * this way and what was measured).
 *
 * Per thread, with clock profiling on (states.c opens them, NOT signal-safe):
 *   - a dummy perf event with context_switch=1 and a small mmap'd ring buffer, no
 *     signal: the kernel writes a record each time the thread leaves the CPU (flagged
 *     when it was preempted, i.e. still runnable) and each time it comes back. It is
 *     enabled as it is opened and its descriptor closed: the mapping keeps it (the
 *     program's descriptors stay its own, fds.c), unmapping ends it;
 *   - a major-faults event writing its samples (address, pc) into the same buffer, and
 *     SIGPROF right after each major fault (its fd is the signal's si_fd). Its
 *     descriptor must stay open (an event writing into another's buffer cannot be
 *     mapped): it is moved well above the program's descriptor limit, or kept low when
 *     there is no room and it is within the first 16th of the limit (states.c:
 *     keep_out), else the thread has no fault event (page-fault sleeps are Other Wait).
 * The records are read by the thread itself (sigsafe_states.c, signal-safe) at three
 * kinds of moments, each with a call stack at hand:
 *   - leaving a blocking call of the program (blocking_calls.c, through
 *     hpc_states_call_begin/end below): the intervals inside the call are charged to the
 *     call's stack (unwound only when a sample_state is written), as User Lock or Other
 *     Wait by the call, Wait CPU when preempted;
 *   - a major fault's SIGPROF: the sleep before it is charged to the faulting
 *     instruction's stack, as Text or Data Page Fault;
 *   - a clock sample: intervals no call saw are charged to the sample's stack.
 * Time accumulates per state and is written as one sample_state once it reaches the
 * clock interval (the clock's own rule: a weight since the previous sample), so a thread
 * that blocks thousands of times per second is unwound about once per interval.
 */
#ifndef HPC_COLLECTOR_STATES_H
#define HPC_COLLECTOR_STATES_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "experiment.h"

struct hpc_thread_priv;

/* A blocking call in progress. The thread's calls are a small array, not a list on the
 * wrappers' stacks: a program's signal handler may leave a call by longjmp, and a
 * reader must never follow a pointer into a dead frame. */
typedef struct hpc_call {
    uint64_t head;  /* the ring buffer's head when the call began; with call times (the
                       fallback), the time it began */
    uint64_t fn;    /* the real function (the leaf of the call's stack), 0: the wrapper,
                       HPC_STATES_PROGRAM: the program's frames */
    uintptr_t sp;   /* a stack address inside the call: entries at or below a new call's
                       are frames a longjmp left */
    unsigned state; /* enum hpc_mstate a sleep inside the call is (USER_LOCK, OTHER_WAIT) */
} hpc_call;
#define HPC_MAX_CALLS 8 /* nested blocking calls followed (signal handlers nest them) */

/* The intervals read since the thread's clocks were last read (sigsafe_states_window.c). */
typedef struct hpc_states_window {
    uint64_t raw_acc[HPC_NMSTATES], raw_pend[HPC_NMSTATES]; /* ns, as the records say */
    uint32_t n_acc[HPC_NMSTATES], n_pend[HPC_NMSTATES];     /* intervals */
    bool lost;                                              /* records were lost */
    bool call_times; /* the intervals are blocking calls' elapsed times (the fallback): they
                        include the CPU time spent in the calls and miss what happens outside */
} hpc_states_window;

/*
 * Turn a window's intervals into the time the kernel accounts: off_ns is the window's
 * elapsed time minus the thread's CPU time in it (exact), run_delay_ns schedstat's run
 * delay in it (UINT64_MAX = unknown). Adds each state's time to acc[] (what was read
 * where it happened) and pend[] (what waits for the next clock sample). Returns the
 * off-CPU time no interval covered when records were lost, else 0 (with call times that
 * time is charged to pend: Wait CPU as far as the run delay goes, Other Wait beyond).
 * Signal-safe.
 */
uint64_t hpc_states_window_settle(const hpc_states_window *w, uint64_t off_ns,
                                  uint64_t run_delay_ns, uint64_t acc[HPC_NMSTATES],
                                  uint64_t pend[HPC_NMSTATES]);

/* One thread's thread-state machinery (inside hpc_thread_priv). */
typedef struct hpc_states {
    int source;            /* enum hpc_states_source */
    int fd;                /* switch-record event while it is being opened, then -1 */
    int fault_fd;          /* major-faults event, -1 = none */
    int fault_sig_fd;      /* its number, kept after it is closed: a SIGPROF it sent that was
                              still pending then is ours, never the program's; -1 = none */
    uint64_t id, fault_id; /* their event ids (hpc_perf_close: the program may have closed
                              them and reused the numbers) */
    struct perf_event_mmap_page *rb;
    size_t rb_map;                 /* bytes mapped (header page + data) */
    uint64_t data_off;             /* where the data area starts in the mapping */
    uint64_t mask;                 /* data bytes - 1 */
    hpc_call calls[HPC_MAX_CALLS]; /* blocking calls in progress, outermost first */
    volatile unsigned ncalls;
    volatile int reading; /* the thread is reading or settling (sigsafe_states.c): its
                             handlers leave the states alone */
    /* reading */
    uint64_t out_time; /* the last switch-out, while its switch-in has not been read */
    uint64_t out_off;  /* ... and its offset in the buffer */
    bool out_seen, out_preempt;
    hpc_states_window win;
    /* the window's start: CLOCK_MONOTONIC, thread CPU time, schedstat run delay
     * (UINT64_MAX: unreadable) */
    uint64_t win_time, win_cpu, win_run_delay; /* win_time 0: no window */
    bool win_preset; /* the first window's start was read at thread_begin */
    /* settled time not yet written: acc where it happened (the call or fault that read
     * it), pend at the thread's next clock sample; unseen: lost records' time */
    uint64_t acc[HPC_NMSTATES], pend[HPC_NMSTATES], unseen;
    uint64_t last_node[HPC_NMSTATES]; /* where each state was last written */
    unsigned written;                 /* bit st: state st was written once */
    uint64_t last_sample_node;        /* the last clock sample's stack */
    uint64_t stime_ns; /* the thread's rusage system time at its previous clock sample */
    /* the thread's /proc schedstat, kept open as the fault event is (states.c): reading it
     * again costs a pread instead of an open, read and close (1.2 us against 7.7); its
     * device and inode tell it from a file of the program's that took its number */
    bool sched_kept;
    int sched_fd;
    uint64_t sched_dev, sched_ino;
    char note[120]; /* why states are off or partial for this thread, "" if not */
    int fault_err;  /* why the fault event could not be opened (negative errno), 0 */
    /* lazy: a thread from pthread_create opens nothing at its start (1000 short threads
     * cost 233 us each more than plain with their events and schedstat reads, bench/):
     * its blocking calls are timed (the fallback's call times) and its first window runs
     * from its creation (CPU time and run delay 0) until its first clock sample, or until
     * its calls have taken a clock interval (lazy_ns), where hpc_states_upgrade opens its
     * events. A thread that ends before is settled once at its end from its clocks
     * (sigsafe_states.c: lazy_run_delay), and its thread_account records are written
     * then. */
    bool lazy;
    uint64_t lazy_ns;     /* its timed calls' total so far */
    uint64_t begin_time;  /* thread_begin's time (its first thread_account's) */
    struct rusage end_ru; /* read at its end (lazy_run_delay), for its last thread_account */
    bool end_ru_ok;
    bool end_ru_final; /* end_ru read at the thread's very end (hpc_states_end_usage): its
                          tail sample's system time and its last window take it */
    bool gap_done;     /* tests: HPCOLLECT_DEBUG_STATES_GAP's sleep was taken */
} hpc_states;

/* Open the calling thread's events and map the buffer, without enabling them (nothing
 * when HPCOLLECT_STATES is off or clock profiling is; nothing yet when lazy, the threads
 * from pthread_create: above). Returns 0, or a negative errno
 * with the reason in t->st.note (states are then off for the thread; the clock is not
 * affected). NOT signal-safe. */
int hpc_states_open(struct hpc_thread_priv *t, bool lazy);
/* sigsafe_states_events.c: open the calling thread's events into s (the switch records
 * enabled, the fault event too when faults_on; s->fault_err says why there is none), and
 * keep its schedstat open; 0, or a negative errno when the switch records cannot be had
 * (then nothing is open). Close them all (source NONE after). Signal-safe. */
int hpc_states_events_open(hpc_states *s, bool faults_on);
/* The fault event moved off numbers a and b (the clock's signal numbers), where it had
 * taken one of them. Signal-safe. */
void hpc_states_fault_avoid(hpc_states *s, int a, int b);
void hpc_states_events_release(hpc_states *s);
extern size_t hpc_states_page;
/* Enable (after thread_begin is written). NOT signal-safe. */
void hpc_states_start(struct hpc_thread_priv *t);
/* Disable, close, unmap. Signal-safe. */
void hpc_states_stop(struct hpc_thread_priv *t);
/* Fork child: forget the parent's events (the buffer is not inherited). Signal-safe. */
void hpc_states_abandon(struct hpc_thread_priv *t);

/* Is this SIGPROF the major-fault event of t? Signal-safe. */
bool hpc_states_is_fault(const struct hpc_thread_priv *t, const siginfo_t *si);
/* The fault's SIGPROF: charge its sleep to the interrupted stack. Signal-safe. */
void hpc_states_fault(struct hpc_thread_priv *t, void *ucontext);

/* The System CPU part of a clock sample's weight cpu_ns (the thread's rusage since its
 * previous sample); 0 when states are off. Signal-safe. */
uint64_t hpc_states_sys_ns(struct hpc_thread_priv *t, uint64_t cpu_ns);
/* A clock sample of t was written at CCT node `node` (0 = no stack) at `now`, the
 * thread's CPU time being `cpu`: charge what no call saw there. Inside the sample
 * handler, between hpcollect_write_begin/end. Signal-safe. */
void hpc_states_at_sample(struct hpc_thread_priv *t, uint64_t node, uint64_t now, uint64_t cpu);

/* The thread's recording ends: read and charge what its events saw (normal context,
 * between hpcollect_write_begin/end, before the events are stopped). Then, stopped,
 * finish charges the last moments up to `now` (its thread CPU time `cpu`), as the next
 * clock sample would, and returns whether states were on. Signal-safe. */
void hpc_states_end(struct hpc_thread_priv *t);
/* A lazy thread's rusage at its very end, read once for its tail sample (system time) and
 * its last window and account (finish), where each read it before. Signal-safe. */
void hpc_states_end_usage(struct hpc_thread_priv *t);
bool hpc_states_finish(struct hpc_thread_priv *t, uint64_t now, uint64_t cpu);
/* The thread's first window starts now (thread_begin's time, returned): clocks read
 * before its events are even opened, so its life is counted whole. Signal-safe. */
uint64_t hpc_states_window_preset(struct hpc_thread_priv *t);
/* Charge what the thread spent off the CPU so far to the calling stack: the collector's
 * own start (the main thread's setup before main; its preemptions would otherwise go to
 * the program's first clock sample). NOT signal-safe. */
void hpc_states_here(struct hpc_thread_priv *t);
/* Open the first window: the thread's clocks now. Signal-safe. */
void hpc_states_window_open(struct hpc_thread_priv *t);
/* Write a thread_account record with the kernel's figures for the calling thread (at
 * begin and at end). Signal-safe. */
void hpc_states_write_account(struct hpc_thread_priv *t);

/* The blocking-call wrappers (blocking_calls.c, quiet_wait.c). begin notes the call
 * (state: what a sleep in it is; fn: the real function, NULL for the wrapper itself) in
 * *slot and returns the thread when its states are on (else NULL: nothing more to do);
 * end, called with errno as the call left it, charges what happened inside the call.
 * Both signal-safe. */
struct hpc_thread_priv *hpc_states_call_begin(unsigned *slot, unsigned state, void *fn);
#define HPC_STATES_PROGRAM                                                                         \
    ((void *)-1) /* fn: the call's stack is the program's frames only                              \
                    (an OpenMP tool callback: the runtime's lock) */
void hpc_states_call_end(struct hpc_thread_priv *t, unsigned slot);
/* sigsafe_states.c: the state of a sleep in the threads library's function fn (a call
 * begun with HPC_STATES_BY_FN: the sync tracer's wrappers): User Lock for its locks and
 * semaphores, Other Wait for the rest. Signal-safe. */
unsigned hpc_blocking_state(uint64_t fn);

#endif
