/*
 * stat_names.c - keys and labels of the live statistics (enum hpc_stat), from stats.def.
 */
#include "experiment.h"

static const struct {
    const char *key, *label;
} stats[HPC_NSTATS] = {
#define HPC_STAT(id, key, label) [HPC_STAT_##id] = {key, label},
#include "stats.def"
#undef HPC_STAT
};

const char *hpc_stat_name(unsigned stat)
{
    return stat < HPC_NSTATS ? stats[stat].key : NULL;
}

const char *hpc_stat_label(unsigned stat)
{
    return stat < HPC_NSTATS ? stats[stat].label : NULL;
}
