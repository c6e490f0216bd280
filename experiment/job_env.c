/*
 * job_env.c - rank, size and job id from the MPI launcher's environment (job_env.h).
 */
#include "job_env.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One launcher's variables, in the order they are tried. */
typedef struct launcher_vars {
    const char *name;
    const char *rank;
    const char *size[2];
    const char *job[2];
} launcher_vars;

static const launcher_vars launchers[] = {
    {"Open MPI",
     "OMPI_COMM_WORLD_RANK",
     {"OMPI_COMM_WORLD_SIZE", NULL},
     {"PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid"}},
    {"PMIx", "PMIX_RANK", {"PMIX_SIZE", "OMPI_COMM_WORLD_SIZE"}, {"PMIX_NAMESPACE", NULL}},
    {"PMI", "PMI_RANK", {"PMI_SIZE", NULL}, {"PMI_JOBID", NULL}},
    {"Slurm", "SLURM_PROCID", {"SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"}, {NULL, NULL}},
};

/* A non-negative decimal integer variable, else -1. */
static long env_long(const char *name)
{
    const char *v = name ? getenv(name) : NULL;
    char *end;
    if (!v || !*v)
        return -1;
    long r = strtol(v, &end, 10);
    return *end || r < 0 ? -1 : r;
}

static const char *env_str(const char *name)
{
    const char *v = name ? getenv(name) : NULL;
    return v && *v ? v : NULL;
}

/* The parent's command line, NUL-separated; returns its length (0: unreadable). */
static size_t parent_cmdline(char *buf, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/cmdline", (long)getppid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n, total = 0;
    while (total < (ssize_t)cap - 1 && (n = read(fd, buf + total, cap - 1 - (size_t)total)) > 0)
        total += n;
    close(fd);
    buf[total] = 0;
    return (size_t)total;
}

/* Under Hydra our parent is hydra_pmi_proxy --control-port HOST:PORT ... --pgid N: write
 * "hydra:HOST:PORT.N" into out. Returns 1, or 0 when the parent is no Hydra proxy. */
static int hydra_job(char *out, size_t cap)
{
    static char cmd[8192];
    size_t n = parent_cmdline(cmd, sizeof cmd);
    if (!n || !strstr(cmd, "pmi_proxy")) /* argv[0]: .../hydra_pmi_proxy */
        return 0;
    const char *port = NULL, *pgid = "0";
    for (const char *a = cmd; a < cmd + n; a += strlen(a) + 1) {
        const char *next = a + strlen(a) + 1;
        if (next >= cmd + n)
            break;
        if (!strcmp(a, "--control-port"))
            port = next;
        else if (!strcmp(a, "--pgid"))
            pgid = next;
    }
    if (!port || !*port)
        return 0;
    snprintf(out, cap, "hydra:%s.%s", port, pgid);
    return 1;
}

static void slurm_job(char *out, size_t cap)
{
    const char *job = env_str("SLURM_JOB_ID"), *step = env_str("SLURM_STEP_ID");
    if (job)
        snprintf(out, cap, "%s.%s", job, step ? step : "0");
}

void hpc_job_env_read(hpc_job_env *e)
{
    *e = (hpc_job_env){NULL, -1, -1, ""};
    const launcher_vars *l = NULL;
    for (size_t i = 0; i < sizeof launchers / sizeof launchers[0] && !l; i++)
        if (env_long(launchers[i].rank) >= 0)
            l = &launchers[i];
    if (!l)
        return;
    e->launcher = l->name;
    e->rank = env_long(l->rank);
    for (int i = 0; i < 2 && e->size < 0; i++)
        e->size = env_long(l->size[i]);
    const char *id = NULL;
    for (int i = 0; i < 2 && !id; i++)
        id = env_str(l->job[i]);
    if (id)
        snprintf(e->job, sizeof e->job, "%s", id);
    else if (!strcmp(l->name, "PMI") && hydra_job(e->job, sizeof e->job))
        e->launcher = "Hydra";
    else if (!strcmp(l->name, "PMI") || !strcmp(l->name, "Slurm"))
        slurm_job(e->job, sizeof e->job);
}
