/*
 * settings.c - the table of settings.def and its reading and writing (settings.h).
 */
#include "settings.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HPC_SETTING_U64_ROW(field, size, dflt)                                                     \
    'U', offsetof(hpc_settings, field), sizeof(uint64_t), (dflt), ""
#define HPC_SETTING_INT_ROW(field, size, dflt)                                                     \
    'I', offsetof(hpc_settings, field), sizeof(int), (dflt), ""
#define HPC_SETTING_STR_ROW(field, size, dflt) 'S', offsetof(hpc_settings, field), (size), 0, (dflt)

const hpc_setting_desc hpc_settings_table[HPC_NSETTINGS] = {
#define HPC_SETTING(id, type, field, size, dflt, who, what)                                        \
    [HPC_SET_##id] = {HPC_SETTING_NAME(id), HPC_SETTING_##type##_ROW(field, size, dflt),           \
                      HPC_WHO_##who, what},
#include "settings.def"
#undef HPC_SETTING
};

/* Store number v in a U64 or INT field at p. */
static void put_num(const hpc_setting_desc *d, char *p, uint64_t v)
{
    if (d->type == 'U') {
        memcpy(p, &v, sizeof v);
    } else {
        int i = (int)v;
        memcpy(p, &i, sizeof i);
    }
}

static uint64_t get_num(const hpc_setting_desc *d, const char *p)
{
    if (d->type == 'U') {
        uint64_t v;
        memcpy(&v, p, sizeof v);
        return v;
    }
    int i;
    memcpy(&i, p, sizeof i);
    return (uint64_t)(int64_t)i;
}

static void set_default(hpc_settings *s, const hpc_setting_desc *d)
{
    char *p = (char *)s + d->offset;
    if (d->type == 'S')
        snprintf(p, d->size, "%s", d->dflt_str);
    else
        put_num(d, p, d->dflt_u64);
}

void hpc_settings_defaults(hpc_settings *s)
{
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < HPC_NSETTINGS; i++)
        set_default(s, &hpc_settings_table[i]);
}

void hpc_settings_read(hpc_settings *s, const char *(*get)(void *ctx, const char *name), void *ctx)
{
    hpc_settings_defaults(s);
    for (size_t i = 0; i < HPC_NSETTINGS; i++) {
        const hpc_setting_desc *d = &hpc_settings_table[i];
        const char *v = get(ctx, d->name);
        char *p = (char *)s + d->offset;
        if (!v || !*v)
            continue;
        if (d->type == 'S') {
            snprintf(p, d->size, "%s", v);
            continue;
        }
        char *end;
        unsigned long long x = strtoull(v, &end, 10);
        if (!*end && *v != '-' && (d->type == 'U' || x <= INT_MAX))
            put_num(d, p, x);
    }
}

int hpc_settings_write(const hpc_settings *s, unsigned mask,
                       int (*set)(void *ctx, const char *name, const char *value), void *ctx)
{
    for (size_t i = 0; i < HPC_NSETTINGS; i++) {
        const hpc_setting_desc *d = &hpc_settings_table[i];
        if (!(d->who & mask))
            continue;
        const char *p = (const char *)s + d->offset;
        char num[24];
        if (d->type != 'S') {
            snprintf(num, sizeof num, "%" PRIu64, get_num(d, p));
            p = num;
        }
        int rc = set(ctx, d->name, p);
        if (rc)
            return rc;
    }
    return 0;
}
