/*
 * config.h - the settings hpcollect passes to libhpcollect.so, and the one struct the
 * library reads them into at start-up (libpfm4's pfmlib_init_env is the model: every
 * HPCOLLECT_* variable is read once, in hpc_config_init(), and nowhere else).
 *
 * The variables, what each means and who sets it are the table settings.def; this
 * struct holds them as read (by name: cfg.clock_ns, or all as cfg.set) and what the
 * library derives from them at start-up.
 */
#ifndef HPC_COLLECTOR_CONFIG_H
#define HPC_COLLECTOR_CONFIG_H

#include <stdint.h>

#include "counters.h"
#include "experiment.h"
#include "settings.h"

enum hpc_clock_choice {
    HPC_CLOCK_CHOICE_AUTO = 0,
    HPC_CLOCK_CHOICE_PERF = 1,
    HPC_CLOCK_CHOICE_TIMER = 2
};

typedef struct hpc_config {
    /* Every setting as read. The anonymous struct has the members of hpc_settings, in the
     * same order from the same table, so code names them directly (cfg.exp, cfg.clock_ns)
     * and the settings functions take them all (&cfg.set). */
    union {
        hpc_settings set;
        struct {
#define HPC_SETTING(id, type, field, size, dflt, who, what) HPC_SETTING_##type##_FIELD(field, size)
#include "settings.def"
#undef HPC_SETTING
        };
    };
    /* derived at start-up */
    int read;         /* hpc_config_init has run */
    int active;       /* HPCOLLECT_EXP was set and usable */
    int owner_ok;     /* HPCOLLECT_OWNER matches this process */
    int clock_choice; /* enum hpc_clock_choice, from clock_source */
    int ncounters;    /* the counters, parsed */
    hpc_counter_def counter[HPC_MAX_COUNTERS];
} hpc_config;

/* Read every HPCOLLECT_* variable into cfg, the first time only (the MPI wrappers may ask
 * for the settings before the library's constructor ran). NOT signal-safe (getenv). */
void hpc_config_init(hpc_config *cfg);

#endif
