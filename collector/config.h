/*
 * config.h - the settings hpcollect passes to libhpcollect.so, and the one struct the
 * library reads them into at start-up (libpfm4's pfmlib_init_env is the model: every
 * HPCOLLECT_* variable is read once, in hpc_config_init(), and nowhere else).
 *
 * ENVIRONMENT (set by the launcher, or by the collector itself for descendants)
 *
 *   HPCOLLECT_EXP           absolute path of the job experiment (prog.1.hpc). Without it the
 *                           library stays inert (preloaded by accident, or -F off).
 *   HPCOLLECT_SUBEXP        sub-experiment name of this process ("main", "rank3",
 *                           "main.x1"); its directory already exists (the setter made it).
 *   HPCOLLECT_PARENT        parent sub-experiment name, "" for a founder.
 *   HPCOLLECT_DESCENT       enum hpc_descent: 0 founder, 2 exec, 3 spawn.
 *   HPCOLLECT_OWNER         "pid:N" (this very process) or "ppid:N" (a child of N). A
 *                           process that is neither inherited the variables without the
 *                           collector seeing it start (a raw clone+exec); it is then
 *                           recorded as a spawn descendant "<SUBEXP>.p<pid>".
 *   HPCOLLECT_CLOCK_NS      clock-profiling interval in ns, 0 = clock profiling off.
 *   HPCOLLECT_CLOCK_SOURCE  auto (default) | perf | timer: force a clock source; "timer"
 *                           is how tests exercise the fallback.
 *   HPCOLLECT_FOLLOW        1 (default) follow fork/exec descendants, 0 do not.
 *   HPCOLLECT_FOLLOW_REGEX  -F =REGEX: follow only descendants whose executable (basename)
 *                           or sub-experiment name matches; "" = all. The others run
 *                           with the library inert, so their own descendants are still
 *                           matched ("<SUBEXP>.p<pid>").
 *   HPCOLLECT_ARCHIVE       -a: enum hpc_archive_mode, recorded in the settings (the
 *                           launcher archives at the end).
 *   HPCOLLECT_LIMIT_BYTES   -L in bytes, 0 = no limit.
 *   HPCOLLECT_TSTART_NS     -t window start, ns after process start (0 = at start).
 *   HPCOLLECT_TEND_NS       -t window end, 0 = none.
 *   HPCOLLECT_MPI_TRACE     -m: 1 (default) trace MPI calls, 0 do not.
 *   HPCOLLECT_OMP_RUNTIME   --omp-runtime as asked (auto, llvm, native).
 *   HPCOLLECT_DEBUG_UNWIND_FAULT=N   tests only: fault on purpose in every N-th unwind of
 *                           a sample, to exercise the recovery (libunwind's own memory
 *                           validation makes real faults rare and racy).
 *   HPCOLLECT_DEBUG_UNWIND_NOCACHE=1  tests only: libunwind's cache is flushed before
 *                           every unwind, so each step calls dl_iterate_phdr, with the
 *                           cache's lock held as in any cache miss (races with the
 *                           program's callers become frequent enough to test).
 *   HPCOLLECT_THROTTLE_PCT  share of a thread's CPU time (percent) its sample handlers may
 *                           take before samples are skipped (sigsafe_throttle.c);
 *                           default 25 (perf's perf_cpu_time_max_percent), 0 = never.
 *   HPCOLLECT_PRELOAD       colon-separated list of the libraries hpcollect added to
 *                           LD_PRELOAD; removed again from descendants when -F off.
 *
 *   HPCOLLECT_COUNTERS      -h: the counters, resolved by the launcher (format in counters.h);
 *                           unset or "" = no counter profiling.
 *   HPCOLLECT_SAMPLE_NS     -S: period of the global sample points in ns, 0 = off.
 *   HPCOLLECT_SAMPLE_SIG    -l: signal number whose deliveries record a sample point, 0 = none.
 *   HPCOLLECT_PAUSE_SIG     -y: signal number whose deliveries toggle pause/resume, 0 = none.
 *   HPCOLLECT_START_PAUSED  -y SIG,r: 1 = start paused.
 *
 * Issues 3-5 add their variables here (and to hpc_config) the same way.
 */
#ifndef HPC_COLLECTOR_CONFIG_H
#define HPC_COLLECTOR_CONFIG_H

#include <stdint.h>

#include "counters.h"
#include "experiment.h"

#define HPCOLLECT_ENV_PREFIX "HPCOLLECT_"

enum hpc_clock_choice {
    HPC_CLOCK_CHOICE_AUTO = 0,
    HPC_CLOCK_CHOICE_PERF = 1,
    HPC_CLOCK_CHOICE_TIMER = 2
};

typedef struct hpc_config {
    int active;       /* HPCOLLECT_EXP was set and usable */
    char exp[1024];   /* job experiment directory */
    char subexp[256]; /* this process's sub-experiment name */
    char parent[256];
    int descent;  /* enum hpc_descent */
    int owner_ok; /* HPCOLLECT_OWNER matches this process */
    uint64_t clock_ns;
    unsigned throttle_pct; /* HPCOLLECT_THROTTLE_PCT */
    int clock_choice;      /* enum hpc_clock_choice */
    int follow;
    char follow_regex[1024]; /* -F =REGEX, "" = none */
    unsigned archive;        /* -a */
    uint64_t limit_bytes;
    uint64_t tstart_ns, tend_ns;
    int mpi_trace;
    char omp_runtime[32];
    char preload[2048];
    uint64_t debug_unwind_fault;
    int debug_unwind_nocache;
    char counters_env[4096]; /* HPCOLLECT_COUNTERS as given, for descendants */
    int ncounters;
    hpc_counter_def counter[HPC_MAX_COUNTERS];
    uint64_t sample_ns; /* -S */
    int sample_sig;     /* -l */
    int pause_sig;      /* -y */
    int start_paused;
} hpc_config;

/* Read every HPCOLLECT_* variable into cfg. NOT signal-safe (getenv); call once. */
void hpc_config_init(hpc_config *cfg);

#endif
