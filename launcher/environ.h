/*
 * environ.h - the environment hpcollect gives the program: the user's, plus the
 * HPCOLLECT_* settings (collector/config.h) and our libraries appended to LD_PRELOAD.
 */
#ifndef HPC_LAUNCHER_ENVIRON_H
#define HPC_LAUNCHER_ENVIRON_H

#include <stddef.h>

#include "options.h"

/* What the preload rules may look at. */
typedef struct hpc_launch {
    const hpc_opts *opts;
    const char *program; /* resolved path of the program */
    const char *libdir;  /* our lib/ directory (absolute) */
    const char *exp;     /* job experiment directory */
    const char *subexp;  /* the founder's sub-experiment name */
} hpc_launch;

/* A growable environment: NULL-terminated, malloc'd. */
typedef struct hpc_env {
    char **v;
    size_t n, cap;
} hpc_env;

/* Copy of the current environment; exits with a message when out of memory. */
void hpc_env_from_current(hpc_env *e);
/* Free e's strings and array (e is then empty). */
void hpc_env_free(hpc_env *e);
/* Set NAME=value, replacing an existing NAME. */
void hpc_env_set(hpc_env *e, const char *name, const char *value);
/* Value of NAME in e, or NULL. */
const char *hpc_env_get(const hpc_env *e, const char *name);

/*
 * Add the HPCOLLECT_* settings and the preload libraries for launch l to e. Returns 0,
 * or -1 after printing why (e.g. lib/libhpcollect.so missing).
 */
int hpc_env_prepare(hpc_env *e, const hpc_launch *l);

#endif
