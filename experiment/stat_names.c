/*
 * stat_names.c - names of the live statistics (enum hpc_stat) for reports and JSON.
 */
#include "experiment.h"

static const char *const stat_names[HPC_NSTATS] = {
    [HPC_STAT_SAMPLES] = "samples",
    [HPC_STAT_COUNTER_SAMPLES] = "counter_samples",
    [HPC_STAT_DROPPED_LIMIT] = "dropped_limit",
    [HPC_STAT_DROPPED_IO] = "dropped_io",
    [HPC_STAT_BLOCKED] = "blocked",
    [HPC_STAT_PAUSED] = "paused",
    [HPC_STAT_UNWIND_FAULTS] = "unwind_faults",
    [HPC_STAT_UNWIND_ERRORS] = "unwind_errors",
    [HPC_STAT_UNWIND_TRUNCATED] = "unwind_truncated",
    [HPC_STAT_CCT_FULL] = "cct_full",
    [HPC_STAT_FOREIGN_SIGNALS] = "foreign_signals",
    [HPC_STAT_RECORDS] = "records",
    [HPC_STAT_BYTES] = "bytes",
    [HPC_STAT_REMAPS] = "remaps",
    [HPC_STAT_TORN] = "torn",
    [HPC_STAT_EVENTS_DROPPED] = "events_dropped",
    [HPC_STAT_UNWIND_SKIPPED] = "unwind_skipped",
    [HPC_STAT_POINTS_DROPPED] = "points_dropped",
};

const char *hpc_stat_name(unsigned stat)
{
    return stat < HPC_NSTATS ? stat_names[stat] : NULL;
}
