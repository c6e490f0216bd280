/*
 * procinfo.h - facts about a process that header and statistics both print: its
 * command line, mechanism names, how it ended and its OS CPU time.
 */
#ifndef HPA_PROCINFO_H
#define HPA_PROCINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment.h"

/* argv (NUL-separated) as one line with spaces. */
void hpa_argv_line(hpc_str argv, char *buf, size_t cap);
/* "perf_event task-clock", "POSIX CPU timer", "none". */
const char *hpa_clock_source_name(uint64_t src);
/* Thread states (settings.states): "context-switch records (perf_event) and blocking-call
 * wrappers", "blocking-call times (fallback)", "off". */
const char *hpa_states_source_name(uint64_t src);
/* What a source cannot tell apart, for header and statistics ("" for none). */
const char *hpa_states_source_limits(uint64_t src);

/* "exit status 0", "killed by signal 9 (SIGKILL)", "unknown (no end record)". */
void hpa_end_text(const hpc_proc *p, char *buf, size_t cap);

/* The OS's CPU time of the process: proc_end's rusage, else the launcher's wait4. */
typedef struct hpa_os_cpu {
    bool known;
    uint64_t user_ns, sys_ns;
    const char *source; /* "proc_end", "launcher" */
} hpa_os_cpu;
hpa_os_cpu hpa_proc_os_cpu(const hpc_proc *p);

/* The process's start as local time: "Sun Nov 22 00:36:56 2026", or "(unknown)". */
void hpa_start_text(const hpc_proc *p, char *buf, size_t cap);

/* "start", "periodic", "signal", "api", "pause", "resume", "end" (enum hpc_sample_reason). */
const char *hpa_sample_reason_name(uint64_t reason);

/* Seconds from the process's start to its last known time (end record, launcher). */
double hpa_proc_duration(const hpc_proc *p);

#endif
