/*
 * config.c - read the HPCOLLECT_* environment once (config.h lists the variables).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

static uint64_t env_u64(const char *name, uint64_t dflt)
{
    const char *v = getenv(name);
    char *end;
    if (!v || !*v)
        return dflt;
    unsigned long long x = strtoull(v, &end, 10);
    return *end ? dflt : (uint64_t)x;
}

static void env_str(const char *name, char *buf, size_t cap, const char *dflt)
{
    const char *v = getenv(name);
    snprintf(buf, cap, "%s", v ? v : dflt);
}

/* "pid:N" must be us, "ppid:N" our parent. */
static int owner_matches(const char *owner)
{
    if (!owner)
        return 0;
    long n;
    if (sscanf(owner, "pid:%ld", &n) == 1)
        return n == (long)getpid();
    if (sscanf(owner, "ppid:%ld", &n) == 1)
        return n == (long)getppid();
    return 0;
}

void hpc_config_init(hpc_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    env_str("HPCOLLECT_EXP", cfg->exp, sizeof cfg->exp, "");
    env_str("HPCOLLECT_SUBEXP", cfg->subexp, sizeof cfg->subexp, "");
    env_str("HPCOLLECT_PARENT", cfg->parent, sizeof cfg->parent, "");
    cfg->descent = (int)env_u64("HPCOLLECT_DESCENT", HPC_DESCENT_FOUNDER);
    cfg->owner_ok = owner_matches(getenv("HPCOLLECT_OWNER"));
    cfg->clock_ns = env_u64("HPCOLLECT_CLOCK_NS", 10000000);
    uint64_t pct = env_u64("HPCOLLECT_THROTTLE_PCT", 25);
    cfg->throttle_pct = pct > 100 ? 100 : (unsigned)pct;
    const char *src = getenv("HPCOLLECT_CLOCK_SOURCE");
    cfg->clock_choice = !src                    ? HPC_CLOCK_CHOICE_AUTO
                        : !strcmp(src, "perf")  ? HPC_CLOCK_CHOICE_PERF
                        : !strcmp(src, "timer") ? HPC_CLOCK_CHOICE_TIMER
                                                : HPC_CLOCK_CHOICE_AUTO;
    cfg->follow = (int)env_u64("HPCOLLECT_FOLLOW", 1);
    env_str("HPCOLLECT_FOLLOW_REGEX", cfg->follow_regex, sizeof cfg->follow_regex, "");
    cfg->archive = (unsigned)env_u64("HPCOLLECT_ARCHIVE", HPC_ARCHIVE_DEFAULT);
    cfg->limit_bytes = env_u64("HPCOLLECT_LIMIT_BYTES", 0);
    cfg->tstart_ns = env_u64("HPCOLLECT_TSTART_NS", 0);
    cfg->tend_ns = env_u64("HPCOLLECT_TEND_NS", 0);
    cfg->mpi_trace = (int)env_u64("HPCOLLECT_MPI_TRACE", 1);
    env_str("HPCOLLECT_OMP_RUNTIME", cfg->omp_runtime, sizeof cfg->omp_runtime, "auto");
    cfg->debug_unwind_fault = env_u64("HPCOLLECT_DEBUG_UNWIND_FAULT", 0);
    cfg->debug_unwind_nocache = (int)env_u64("HPCOLLECT_DEBUG_UNWIND_NOCACHE", 0);
    env_str("HPCOLLECT_PRELOAD", cfg->preload, sizeof cfg->preload, "");
    env_str("HPCOLLECT_COUNTERS", cfg->counters_env, sizeof cfg->counters_env, "");
    cfg->ncounters = hpc_counters_parse(cfg->counters_env, cfg->counter, HPC_MAX_COUNTERS);
    if (cfg->ncounters < 0) {
        fprintf(stderr, "hpcollect: HPCOLLECT_COUNTERS is malformed: no counter profiling\n");
        cfg->ncounters = 0;
    }
    cfg->sample_ns = env_u64("HPCOLLECT_SAMPLE_NS", 0);
    cfg->sample_sig = (int)env_u64("HPCOLLECT_SAMPLE_SIG", 0);
    cfg->pause_sig = (int)env_u64("HPCOLLECT_PAUSE_SIG", 0);
    cfg->start_paused = (int)env_u64("HPCOLLECT_START_PAUSED", 0);
    cfg->active = cfg->exp[0] == '/' && cfg->subexp[0] != 0;
}
