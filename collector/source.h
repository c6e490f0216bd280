/*
 * source.h - clock-profiling sources, one ops struct per mechanism (libpfm4's pmu table
 * is the model): source_perf_clock.c (perf_event task-clock, exact rate) and
 * source_timer_clock.c (POSIX thread CPU timer, the fallback; fires at the kernel tick).
 * Both deliver SIGPROF to the thread they measure.
 */
#ifndef HPC_COLLECTOR_SOURCE_H
#define HPC_COLLECTOR_SOURCE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "thread.h"

#define HPC_CLOCK_SIGNAL SIGPROF

typedef struct hpc_clock_ops {
    const char *name; /* for notes: "perf task-clock" */
    int id;           /* enum hpc_clock_source */
    /* Prepare t's source for the calling thread without starting it. Returns 0, or a
     * negative errno (the caller falls back). NOT signal-safe. */
    int (*open)(hpc_thread_priv *t, uint64_t interval_ns);
    /* Start delivering signals. Returns 0 or a negative errno. */
    int (*start)(hpc_thread_priv *t);
    /* Stop and release. Signal-safe. */
    void (*stop)(hpc_thread_priv *t);
    /* In a fork child: release the inherited copy without stopping the parent's. */
    void (*abandon)(hpc_thread_priv *t);
    /* Whether a delivery is one of t's samples is the handler's business: each source's
     * is_ours lives in sigsafe_clock.c (the signal-safe boundary, sigsafe.h). */
} hpc_clock_ops;

/* sigsafe_clock.c: the sources' steps a handler takes too. Signal-safe.
 * A task-clock event for thread tid at interval_ns, its signal routed there, disabled:
 * its fd or a negative errno. */
int hpc_perf_event_open(pid_t tid, uint64_t interval_ns);
/* Make fd t's event: mapped, started and closed (t->perf_map), or kept (disabled, for
 * start) where the mapping is refused. 0 or a negative errno (fd then closed). */
int hpc_perf_event_settle(hpc_thread_priv *t, int fd);
/* End an event: unmap it, or close a kept fd while it is still ours. */
void hpc_perf_event_release(void *map, int fd, uint64_t id);
/* The timer source: (re)arm t's timer at interval_ns; delete it. */
int hpc_timer_set_period(hpc_thread_priv *t, uint64_t interval_ns);
void hpc_timer_release(hpc_thread_priv *t);

/*
 * perf_event descriptors the collector owns, closed only while they are still the same
 * event: a program may close every descriptor it does not know and reuse the numbers
 * (chromium does before it execs a helper), and closing ours again then closed the
 * program's (chromium's network service lost its IPC channel and crashed, again and
 * again). PERF_EVENT_IOC_ID names the event; 0 for anything else. Signal-safe.
 */
uint64_t hpc_perf_id(int fd);
void hpc_perf_close(int fd, uint64_t id);

extern const hpc_clock_ops hpc_perf_clock_ops;
extern const hpc_clock_ops hpc_timer_clock_ops;

/*
 * Arm the calling thread's clock (choice: enum hpc_clock_choice), falling back from perf
 * to the timer. Sets t->clock_source (HPC_CLOCK_NONE if nothing works) and writes why a
 * fallback happened into note ("" if none). Does not start it: hpc_clock_start().
 * NOT signal-safe.
 */
void hpc_clock_arm(hpc_thread_priv *t, uint64_t interval_ns, int choice, bool lazy, char *note,
                   size_t cap);
/* lazy (threads from pthread_create, with the automatic choice): a POSIX thread CPU timer
 * first (a few us to set up and delete, where a mapped perf event costs about 20), and
 * the perf event from the thread's first sample on (hpc_clock_upgrade, called by the
 * sample): a thread that ends before the timer fires (within one kernel tick or clock
 * interval of CPU time) never pays for the event; its CPU time is still charged at its
 * end (tail.c). Signal-safe. */
void hpc_clock_upgrade(hpc_thread_priv *t);
/* From the thread's own code outside its handlers (the OpenMP tool at each implicit
 * task; thread states once a lazy thread's blocking calls took a clock interval): a lazy
 * thread takes its perf event now, whatever it ran so far. The kernel
 * checks CPU timers at its tick only, on the CPU where the thread runs: on a loaded
 * machine a thread preempted between ticks was seen to run 103 ms (100 time slices)
 * without its timer firing, and an OpenMP worker 50 ms of a region's work (38 slices)
 * with no sample at all, its CPU time then charged at its end to the stack it ended in.
 * A worker lives as long as the runtime's pool, so its event's cost (about 20 us) is paid
 * once. Cheap once upgraded. NOT signal-safe (it keeps its handler out meanwhile). */
void hpc_clock_check(hpc_thread_priv *t);
void hpc_clock_start(hpc_thread_priv *t);
void hpc_clock_stop(hpc_thread_priv *t);
void hpc_clock_abandon(hpc_thread_priv *t);

/* sigsafe_clock.c: the handler's side of the sources, which tells their deliveries
 * apart. Is si a clock sample of the collector? With t == NULL (a thread no longer
 * followed) answers from the signal alone. Signal-safe. */
bool hpc_clock_is_ours(const hpc_thread_priv *t, const siginfo_t *si);
/* The clock interval of t's source now, and a change of it (sigsafe_throttle.c). Signal-safe. */
uint64_t hpc_clock_period(const hpc_thread_priv *t);
void hpc_clock_set_period(hpc_thread_priv *t, uint64_t interval_ns);
/* The same for each source (their ops' is_ours). Signal-safe. */
bool hpc_perf_clock_is_ours(const hpc_thread_priv *t, const siginfo_t *si);
bool hpc_timer_clock_is_ours(const hpc_thread_priv *t, const siginfo_t *si);

/* The timer source's si_value: "HPC" in the high bytes and the thread's sequence number,
 * so foreign SIGPROF timers are told apart. */
#define HPC_TIMER_COOKIE_MAGIC 0x4850430000000000ULL
#define HPC_TIMER_COOKIE_MASK  0xffffff0000000000ULL
static inline uint64_t hpc_timer_cookie(const hpc_thread_priv *t)
{
    return HPC_TIMER_COOKIE_MAGIC | t->pub.seq;
}

/* glibc 2.36 names the SIGEV_THREAD_ID target only by its union member (the clock's
 * timer source and the points timer, periodic.c) */
#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#endif
