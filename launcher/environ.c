/*
 * environ.c - build the program's environment: HPCOLLECT_* settings (written through the
 * table of collector/settings.def) and LD_PRELOAD.
 *
 * Libraries are preloaded by rules in preload_rules[]: each says whether this program
 * needs it and where it is. The collector itself is always preloaded; the MPI and OpenMP
 * parts add their rule to the table (see the hooks below).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "environ.h"
#include "mpi_preload.h"
#include "omp_runtime.h"
#include "settings.h"

extern char **environ;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        fprintf(stderr, "hpcollect: out of memory\n");
        exit(2);
    }
    return p;
}

static char *xstrdup(const char *s)
{
    char *d = strdup(s);
    if (!d) {
        fprintf(stderr, "hpcollect: out of memory\n");
        exit(2);
    }
    return d;
}

static void env_push(hpc_env *e, char *kv)
{
    if (e->n + 2 > e->cap) {
        e->cap = e->cap ? 2 * e->cap : 64;
        e->v = xrealloc(e->v, e->cap * sizeof *e->v);
    }
    e->v[e->n++] = kv;
    e->v[e->n] = NULL;
}

void hpc_env_from_current(hpc_env *e)
{
    memset(e, 0, sizeof *e);
    for (char **p = environ; p && *p; p++)
        env_push(e, xstrdup(*p));
    if (!e->v) { /* empty environment: still a valid, NULL-terminated array */
        e->cap = 64;
        e->v = xrealloc(NULL, e->cap * sizeof *e->v);
        e->v[0] = NULL;
    }
}

void hpc_env_free(hpc_env *e)
{
    for (size_t i = 0; i < e->n; i++)
        free(e->v[i]);
    free(e->v);
    memset(e, 0, sizeof *e);
}

static ssize_t env_find(const hpc_env *e, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < e->n; i++)
        if (!strncmp(e->v[i], name, len) && e->v[i][len] == '=')
            return (ssize_t)i;
    return -1;
}

const char *hpc_env_get(const hpc_env *e, const char *name)
{
    ssize_t i = env_find(e, name);
    return i < 0 ? NULL : e->v[i] + strlen(name) + 1;
}

void hpc_env_set(hpc_env *e, const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *kv = xrealloc(NULL, len);
    snprintf(kv, len, "%s=%s", name, value);
    ssize_t i = env_find(e, name);
    if (i >= 0) {
        free(e->v[i]);
        e->v[i] = kv;
    } else {
        env_push(e, kv);
    }
}

static int env_set_cb(void *ctx, const char *name, const char *value)
{
    hpc_env_set(ctx, name, value);
    return 0;
}

/* Copy value into a setting's field; -1 with a message naming it when it does not fit. */
static int put_str(char *field, size_t cap, const char *value, const char *name)
{
    if (strlen(value) >= cap) {
        fprintf(stderr,
                "hpcollect: %s: '%.60s...' is longer than the collector takes (%zu bytes)\n", name,
                value, cap - 1);
        return -1;
    }
    memcpy(field, value, strlen(value) + 1);
    return 0;
}

/* ------------------------------------------------------------- preload rules */

typedef struct preload_rule {
    const char *what;
    /* Write the library to preload into buf and return 1, 0 if not wanted, -1 on error
     * (after printing why). */
    int (*lib)(const hpc_launch *l, char *buf, size_t cap);
} preload_rule;

static int our_lib(const hpc_launch *l, const char *name, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", l->libdir, name);
    if (access(buf, R_OK) != 0) {
        fprintf(stderr, "hpcollect: %s: %s (is hpcollect installed completely?)\n", buf,
                strerror(errno));
        return -1;
    }
    return 1;
}

static int rule_collector(const hpc_launch *l, char *buf, size_t cap)
{
    return our_lib(l, "libhpcollect.so", buf, cap);
}

static const preload_rule preload_rules[] = {
    {"collector", rule_collector},
    {"MPI wrappers (mpi_preload.c)", hpc_rule_mpi},
    {"LLVM libomp for a libgomp program (--omp-runtime, omp_runtime.c)", hpc_rule_omp_runtime},
};

/* LD_PRELOAD = the user's list (kept first, as given) + ours, which go into s->preload
 * too (descendants that are not followed lose them again). */
static int add_preloads(hpc_env *e, const hpc_launch *l, hpc_settings *s)
{
    const char *user = hpc_env_get(e, "LD_PRELOAD");
    size_t cap = 8192;
    char *preload = xrealloc(NULL, cap), *ours = xrealloc(NULL, cap);
    snprintf(preload, cap, "%s", user ? user : "");
    ours[0] = 0;
    for (size_t i = 0; i < sizeof preload_rules / sizeof preload_rules[0]; i++) {
        char lib[4096];
        int r = preload_rules[i].lib(l, lib, sizeof lib);
        if (r < 0) {
            free(preload), free(ours);
            return -1;
        }
        if (r == 0)
            continue;
        size_t pl = strlen(preload), ol = strlen(ours);
        snprintf(preload + pl, cap - pl, "%s%s", pl ? ":" : "", lib);
        snprintf(ours + ol, cap - ol, "%s%s", ol ? ":" : "", lib);
    }
    hpc_env_set(e, "LD_PRELOAD", preload);
    int rc = put_str(s->preload, sizeof s->preload, ours, HPC_SETTING_NAME(PRELOAD));
    free(preload), free(ours);
    return rc;
}

/* The founder's settings from the options (the collector/settings.def fields). */
static int settings_of(hpc_settings *s, const hpc_launch *l)
{
    const hpc_opts *o = l->opts;
    hpc_settings_defaults(s);
    if (put_str(s->exp, sizeof s->exp, l->exp, HPC_SETTING_NAME(EXP)) ||
        put_str(s->subexp, sizeof s->subexp, l->subexp, HPC_SETTING_NAME(SUBEXP)) ||
        put_str(s->follow_regex, sizeof s->follow_regex, o->follow_regex ? o->follow_regex : "",
                HPC_SETTING_NAME(FOLLOW_REGEX)) ||
        put_str(s->omp_runtime, sizeof s->omp_runtime, o->omp_runtime,
                HPC_SETTING_NAME(OMP_RUNTIME)))
        return -1;
    s->descent = HPC_DESCENT_FOUNDER;
    snprintf(s->owner, sizeof s->owner, "ppid:%ld", (long)getpid());
    s->clock_ns = o->clock_ns;
    s->follow = o->follow;
    s->archive = o->archive;
    s->limit_bytes = o->limit_bytes;
    s->tstart_ns = o->tstart_ns;
    s->tend_ns = o->tend_ns;
    s->mpi_trace = o->mpi_trace;
    s->sync = o->sync;
    s->sync_ns = o->sync_ns;
    s->heap = o->heap_trace;
    hpc_counters_env(o, s->counters, sizeof s->counters);
    s->sample_ns = o->sample_ns;
    s->sample_sig = o->sample_sig;
    s->pause_sig = o->pause_sig;
    s->start_paused = o->start_paused;
    s->io_trace = o->io_trace;
    return 0;
}

int hpc_env_prepare(hpc_env *e, const hpc_launch *l)
{
    hpc_settings s;
    if (settings_of(&s, l) || add_preloads(e, l, &s))
        return -1;
    /* the user's own HPCOLLECT_* (who USER) pass through as they are */
    return hpc_settings_write(&s, HPC_WHO_LAUNCHER | HPC_WHO_PROCESS, env_set_cb, e);
}
