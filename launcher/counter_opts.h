/*
 * counter_opts.h - hpcollect's counter option (-h) and the global sample options (-S, -l,
 * -y): parsing, the event table, libpfm4 resolution, the probe-open before the program
 * starts, `-h list`, and the HPCOLLECT_* values they turn into (collector/config.h).
 */
#ifndef HPC_LAUNCHER_COUNTER_OPTS_H
#define HPC_LAUNCHER_COUNTER_OPTS_H

#include <stddef.h>
#include <stdint.h>

#include "counters.h" /* collector/counters.h: hpc_counter_def, HPC_MAX_COUNTERS */

struct hpc_opts;

/* -h list|EVENT[,INTERVAL][,EVENT2[,INTERVAL2]]... (repeatable). Resolves each event with
 * libpfm4; prints "hpcollect: -h: ..." and returns -1 on an unknown event or a bad
 * interval. */
int hpc_opt_counters(struct hpc_opts *o, const char *opt, const char *val);
/* -S on|off|<seconds> */
int hpc_opt_sample_period(struct hpc_opts *o, const char *opt, const char *val);
/* -l SIGNAL */
int hpc_opt_sample_signal(struct hpc_opts *o, const char *opt, const char *val);
/* -y SIGNAL[,r] */
int hpc_opt_pause_signal(struct hpc_opts *o, const char *opt, const char *val);

/*
 * Open the chosen counters as one group for hpcollect itself, exactly as each thread of
 * the program will, so an event this machine cannot count stops hpcollect before the
 * program starts. Also checks that -l and -y name different signals. Returns 0, or -1
 * after printing "hpcollect: NAME: REASON" (hpc_counter_error).
 */
int hpc_counters_probe(struct hpc_opts *o);

/* Print what can be counted here (`-h list`) to stdout. Returns the exit status (0). */
int hpc_counters_list(void);

/* HPCOLLECT_COUNTERS text for o's counters (collector/counters.h gives the format). */
void hpc_counters_env(const struct hpc_opts *o, char *buf, size_t cap);

/*
 * The one place counter errors are worded (perf's evsel__open_strerror is the model):
 * "EVENT: what is wrong (where it came from): what to do". pfm_err is a libpfm4 error
 * (PFM_ERR_*, 0 if none), err an errno from perf_event_open (0 if none).
 */
void hpc_counter_error(char *buf, size_t cap, const char *event, int pfm_err, int err);

/* Open one counter group for the calling thread (pid 0, any cpu), without signals.
 * Returns 0 and closes it again, or a positive errno and the failing index in *bad. */
int hpc_counters_try_open(const hpc_counter_def *defs, int n, int *bad);

#endif
