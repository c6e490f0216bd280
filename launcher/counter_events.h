/*
 * counter_events.h - the table of counters hpcollect knows by name (aliases, as collect
 * has, and the perf software events) and the libpfm4 resolution every -h event goes
 * through (counter_events.c). Shared by the option parser and `-h list`.
 */
#ifndef HPC_LAUNCHER_COUNTER_EVENTS_H
#define HPC_LAUNCHER_COUNTER_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "counters.h"

#define HPC_RAW_DEFAULT_INTERVAL 1000003 /* as collect's raw counters */

typedef struct hpc_event_alias {
    const char *name;  /* what -h takes and reports call it */
    const char *pfm;   /* libpfm4 event string it stands for */
    uint64_t interval; /* "on"; hi = on / 10, lo = on * 10 */
    const char *desc;
    bool software;
} hpc_event_alias;

extern const hpc_event_alias hpc_event_aliases[];
extern const unsigned hpc_n_event_aliases;

/* libpfm4 initialized once; returns 0 or a PFM_ERR_* code. */
int hpc_pfm_init(void);

/*
 * Resolve event text (an alias, a libpfm4 event string "pmu::EVENT:mod", a raw "rNNNN", a
 * perf event name) into d: name, spec, perf type/config/exclude bits, flags, unit, cpu_hz
 * and d->interval = the default interval for it. Returns 0 or a PFM_ERR_* code.
 */
int hpc_event_resolve(const char *text, hpc_counter_def *d);

/* The harmonic mean of the CPUs' clock rates in Hz (/proc/cpuinfo), 0 if unknown. */
uint64_t hpc_cpu_hz(void);

#endif
