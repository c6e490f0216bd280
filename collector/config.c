/*
 * config.c - read the HPCOLLECT_* environment once (settings.def lists the variables),
 * and derive what the library needs from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

static const char *env_get(void *ctx, const char *name)
{
    (void)ctx;
    return getenv(name);
}

/* "pid:N" must be us, "ppid:N" our parent. */
static int owner_matches(const char *owner)
{
    long n;
    if (sscanf(owner, "pid:%ld", &n) == 1)
        return n == (long)getpid();
    if (sscanf(owner, "ppid:%ld", &n) == 1)
        return n == (long)getppid();
    return 0;
}

void hpc_config_init(hpc_config *cfg)
{
    if (cfg->read)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->read = 1;
    hpc_settings_read(&cfg->set, env_get, NULL);
    cfg->owner_ok = owner_matches(cfg->owner);
    const char *src = cfg->clock_source;
    cfg->clock_choice = !strcmp(src, "perf")    ? HPC_CLOCK_CHOICE_PERF
                        : !strcmp(src, "timer") ? HPC_CLOCK_CHOICE_TIMER
                                                : HPC_CLOCK_CHOICE_AUTO;
    cfg->ncounters = hpc_counters_parse(cfg->counters, cfg->counter, HPC_MAX_COUNTERS);
    if (cfg->ncounters < 0) {
        fprintf(stderr, "hpcollect: %s is malformed: no counter profiling\n",
                HPC_SETTING_NAME(COUNTERS));
        cfg->ncounters = 0;
    }
    cfg->active = cfg->exp[0] == '/' && cfg->subexp[0] != 0;
}
