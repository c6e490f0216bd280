/*
 * settings.h - the HPCOLLECT_* settings as one struct, read and written through the table
 * of settings.def (the model is libpfm4's pfmlib_init_env: every variable read once, into
 * one struct). The launcher writes them (launcher/environ.c), the collector reads them at
 * start-up (config.c) and writes them again for each descendant it follows
 * (descendants.c), so what a descendant reads is what its parent read, except the
 * settings of the process itself (who PROCESS in settings.def).
 *
 * settings.c is compiled into both the launcher and the collector. NOT signal-safe
 * (getenv, snprintf): start-up and normal context only.
 */
#ifndef HPC_COLLECTOR_SETTINGS_H
#define HPC_COLLECTOR_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "experiment.h" /* HPC_DESCENT_*, HPC_ARCHIVE_*: defaults of the table */

/* The variables' common prefix, and a variable's name: HPC_SETTING_NAME(EXP) is
 * "HPCOLLECT_EXP". */
#define HPC_SETTING_PREFIX   "HPCOLLECT_"
#define HPC_SETTING_NAME(id) (HPC_SETTING_PREFIX #id)

#define HPC_SETTING_U64_FIELD(field, size) uint64_t field;
#define HPC_SETTING_INT_FIELD(field, size) int field;
#define HPC_SETTING_STR_FIELD(field, size) char field[size];

/* Every setting, as read (or about to be written). */
typedef struct hpc_settings {
#define HPC_SETTING(id, type, field, size, dflt, who, what) HPC_SETTING_##type##_FIELD(field, size)
#include "settings.def"
#undef HPC_SETTING
} hpc_settings;

enum hpc_setting_id {
#define HPC_SETTING(id, type, field, size, dflt, who, what) HPC_SET_##id,
#include "settings.def"
#undef HPC_SETTING
    HPC_NSETTINGS
};

/* Who sets a setting (settings.def's `who`), as bits for hpc_settings_write's mask. */
enum hpc_setting_who { HPC_WHO_LAUNCHER = 1, HPC_WHO_PROCESS = 2, HPC_WHO_USER = 4 };

/* One row of the table. */
typedef struct hpc_setting_desc {
    const char *name; /* HPCOLLECT_... */
    char type;        /* 'U' (uint64_t), 'I' (int) or 'S' (char[size]) */
    size_t offset, size;
    uint64_t dflt_u64;
    const char *dflt_str;
    unsigned who; /* enum hpc_setting_who */
    const char *what;
} hpc_setting_desc;

/* The table, in settings.def's order (HPC_NSETTINGS rows). */
extern const hpc_setting_desc hpc_settings_table[HPC_NSETTINGS];

/* Every setting at its default. */
void hpc_settings_defaults(hpc_settings *s);

/* Read every setting from get(ctx, name) (NULL, empty or, for a number, not a decimal
 * number: the default); a longer string is cut to its field. get is getenv-like. */
void hpc_settings_read(hpc_settings *s, const char *(*get)(void *ctx, const char *name), void *ctx);

/* Call set(ctx, name, value) for each setting whose `who` is in mask (enum bits), in table
 * order. Returns 0, or the first non-zero value set returned. */
int hpc_settings_write(const hpc_settings *s, unsigned mask,
                       int (*set)(void *ctx, const char *name, const char *value), void *ctx);

#endif
