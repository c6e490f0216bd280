/*
 * counters.h - counter overflow profiling (-h): the counters the launcher chose, and each
 * thread's group of perf events.
 *
 * The launcher resolves every event (libpfm4 names, aliases, raw events, perf software
 * events) into perf_event_attr fields, probe-opens the group and passes the result in
 * HPCOLLECT_COUNTERS (format below); the preloaded library needs no libpfm4. Each followed
 * thread opens the counters as one group (the first is the leader) for itself; every
 * event's fd sends SIGPROF to that thread on overflow (si_code POLL_IN, si_fd = the
 * event's fd), and the handler records a sample_counter with the value the event counted
 * since the thread's previous sample of it (sigsafe_counter.c).
 *
 * HPCOLLECT_COUNTERS: counters separated by ';', fields of one counter by '|':
 *     name|spec|type|config|config1|config2|interval|flags|unit|cpu_hz|attr_bits|precise
 * name (what reports call it; no '|' ';' ':' ','), spec (as the user wrote it), unit text;
 * the numbers in decimal. flags = enum hpc_counter_flags. attr_bits: HPC_CTR_EXCL_*.
 */
#ifndef HPC_COLLECTOR_COUNTERS_H
#define HPC_COLLECTOR_COUNTERS_H

#include <linux/perf_event.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define HPC_MAX_COUNTERS 8

/* perf_event_attr exclude_* bits as passed in attr_bits. */
enum {
    HPC_CTR_EXCL_USER = 1,
    HPC_CTR_EXCL_KERNEL = 2,
    HPC_CTR_EXCL_HV = 4,
    HPC_CTR_EXCL_IDLE = 8,
    HPC_CTR_EXCL_HOST = 16,
    HPC_CTR_EXCL_GUEST = 32
};

/* One counter as the launcher resolved it. */
typedef struct hpc_counter_def {
    char name[64];
    char spec[160];
    char unit[16];
    uint32_t type;
    uint64_t config, config1, config2;
    uint64_t interval;
    uint32_t flags; /* enum hpc_counter_flags */
    uint64_t cpu_hz;
    uint32_t attr_bits;
    uint32_t precise;
} hpc_counter_def;

/* The perf_event_attr of counter d; leader: the group leader, created disabled (members
 * follow it). Used by the collector and by the launcher's probe alike. */
static inline void hpc_counter_attr(const hpc_counter_def *d, struct perf_event_attr *a, int leader)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = d->type;
    a->config = d->config;
    a->config1 = d->config1;
    a->config2 = d->config2;
    a->sample_period = d->interval;
    a->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    a->disabled = leader;
    a->wakeup_events = 1;
    a->exclude_user = !!(d->attr_bits & HPC_CTR_EXCL_USER);
    a->exclude_kernel = !!(d->attr_bits & HPC_CTR_EXCL_KERNEL);
    a->exclude_hv = !!(d->attr_bits & HPC_CTR_EXCL_HV);
    a->exclude_idle = !!(d->attr_bits & HPC_CTR_EXCL_IDLE);
    a->exclude_host = !!(d->attr_bits & HPC_CTR_EXCL_HOST);
    a->exclude_guest = !!(d->attr_bits & HPC_CTR_EXCL_GUEST);
    a->precise_ip = d->precise & 3;
}

/* A thread's open group: fd[i] for counter i (the group leader is fd[0]), and what each
 * counted at the thread's previous sample of it. */
typedef struct hpc_counter_group {
    int n; /* open events; 0 = none */
    int fd[HPC_MAX_COUNTERS];
    uint64_t id[HPC_MAX_COUNTERS]; /* their event ids (hpc_perf_close) */
    uint64_t last_value[HPC_MAX_COUNTERS];
    uint64_t last_enabled[HPC_MAX_COUNTERS];
    uint64_t last_running[HPC_MAX_COUNTERS];
} hpc_counter_group;

/*
 * Parse HPCOLLECT_COUNTERS text into defs (at most max). Returns the count, or -1 if the
 * text is malformed (nothing is profiled then). NOT signal-safe.
 */
int hpc_counters_parse(const char *text, hpc_counter_def *defs, int max);

struct hpc_thread_priv;
struct hpc_stream;

/*
 * Open the process's counters as one group for the calling thread, without starting
 * them. Returns 0 (also when no counters are asked), or a negative errno with the failing
 * counter's name and the reason in note (the thread then runs without counters).
 * NOT signal-safe.
 */
int hpc_counters_open(struct hpc_thread_priv *t, char *note, size_t cap);
/* Reset and enable the group. NOT signal-safe. */
void hpc_counters_start(struct hpc_thread_priv *t);
/* Disable and close the group. Signal-safe. */
void hpc_counters_stop(struct hpc_thread_priv *t);
/* Fork child: close the inherited fds (they count the parent's thread). Signal-safe. */
void hpc_counters_abandon(struct hpc_thread_priv *t);

/* Which counter of t sent this SIGPROF (0..n-1), or -1 if none did. Signal-safe. */
int hpc_counter_of_signal(const struct hpc_thread_priv *t, const siginfo_t *si);

/* Record a counter sample of counter i for the interrupted context. Signal-safe. */
void hpc_sample_counter(struct hpc_thread_priv *t, int i, void *ucontext);

/* Write a counter_def record per counter to the process stream (lock held).
 * NOT signal-safe. */
void hpc_counters_write_defs(struct hpc_stream *s);

#endif
