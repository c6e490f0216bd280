/*
 * dry_run.c - hpcollect -n (gprofng collect's dry run): the settings a run would use,
 * one per line, as "  name    value":
 *
 *     hpcollect: dry run (-n): nothing is run and nothing is created
 *       target              /usr/bin/sort -n data.txt
 *       experiment          /tmp/sort.3.hpc (new)
 *       clock profiling     every 10 ms of CPU per thread (perf_event task-clock; ...)
 *       ...
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dry_run.h"
#include "environ.h"
#include "settings.h"

static void row(const char *name, const char *value)
{
    printf("  %-20s %s\n", name, value);
}

static void row_signal(const char *name, int sig, const char *extra)
{
    char buf[128];
    if (!sig)
        snprintf(buf, sizeof buf, "none");
    else
        snprintf(buf, sizeof buf, "SIG%s%s", sigabbrev_np(sig) ? sigabbrev_np(sig) : "?", extra);
    row(name, buf);
}

static void row_target(const hpc_opts *o, const char *program)
{
    char buf[8192];
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s", program);
    for (char **a = o->argv + 1; *a && n < sizeof buf; a++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", *a);
    row("target", buf);
}

static void row_experiment(const char *exp, int rc)
{
    char buf[8192];
    const char *verdict = rc == 1 ? "new" : rc == 2 ? "exists: -O replaces it" : hpc_strerror(rc);
    snprintf(buf, sizeof buf, "%s (%s)", *exp ? exp : "?", verdict);
    row("experiment", buf);
}

static void row_clock(const hpc_opts *o)
{
    char buf[256];
    if (!o->clock_ns)
        snprintf(buf, sizeof buf, "off");
    else
        snprintf(buf, sizeof buf,
                 "every %.3f ms of CPU per thread (perf_event task-clock; the POSIX CPU timer "
                 "where perf_event_open is refused)",
                 (double)o->clock_ns / 1e6);
    row("clock profiling", buf);
}

static void row_counters(const hpc_opts *o)
{
    char buf[2048];
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < o->ncounters && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s every %" PRIu64 " %s", i ? ", " : "",
                              o->counters[i].name, o->counters[i].interval, o->counters[i].unit);
    row("counters (-h)", n ? buf : "none");
}

static void row_follow(const hpc_opts *o)
{
    char buf[1200];
    if (!o->follow)
        snprintf(buf, sizeof buf, "not followed");
    else if (o->follow_regex)
        snprintf(buf, sizeof buf,
                 "followed when the executable or sub-experiment name matches /%s/",
                 o->follow_regex);
    else
        snprintf(buf, sizeof buf, "all followed (fork, exec, posix_spawn, system)");
    row("descendants (-F)", buf);
}

static void row_limits(const hpc_opts *o)
{
    char buf[256];
    if (o->limit_bytes)
        snprintf(buf, sizeof buf, "%" PRIu64 " MB per process", o->limit_bytes >> 20);
    else
        snprintf(buf, sizeof buf, "none");
    row("size limit (-L)", buf);
    if (o->tend_ns)
        snprintf(buf, sizeof buf, "%.3f s to %.3f s after each process starts",
                 (double)o->tstart_ns * 1e-9, (double)o->tend_ns * 1e-9);
    else
        snprintf(buf, sizeof buf, "the whole run");
    row("time window (-t)", buf);
}

static void row_archive(const hpc_opts *o)
{
    static const char *const what[] = {
        [HPC_ARCHIVE_OFF] = "nothing",
        [HPC_ARCHIVE_OBJECTS] = "every load object",
        [HPC_ARCHIVE_OBJECTS | HPC_ARCHIVE_SOURCES] = "every load object and its sources",
        [HPC_ARCHIVE_OBJECTS | HPC_ARCHIVE_USED] = "the load objects with samples",
        [HPC_ARCHIVE_OBJECTS | HPC_ARCHIVE_SOURCES | HPC_ARCHIVE_USED] =
            "the load objects with samples and the sources of sampled lines",
    };
    char buf[256];
    snprintf(buf, sizeof buf, "%s: %s%s", hpc_archive_mode_name(o->archive),
             o->archive < sizeof what / sizeof what[0] && what[o->archive] ? what[o->archive] : "?",
             o->archive ? ", copied into the experiment at the end of the run" : "");
    row("archive (-a)", buf);
}

static void row_comments(const hpc_opts *o)
{
    char buf[HPC_MAX_COMMENTS * 1100];
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < o->ncomments && n < sizeof buf; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s\"%s\"", i ? ", " : "", o->comments[i]);
    row("comments (-C)", n ? buf : "none");
}

static void row_preload(const hpc_opts *o, const char *program, const char *libdir, const char *exp)
{
    hpc_env env;
    hpc_env_from_current(&env);
    hpc_launch l = {o, program, libdir, exp, "main"};
    const char *ours =
        hpc_env_prepare(&env, &l) == 0 ? hpc_env_get(&env, HPC_SETTING_NAME(PRELOAD)) : NULL;
    row("preloaded", ours ? ours : "? (see the message above)");
    hpc_env_free(&env);
}

int hpc_dry_run(const hpc_opts *o, const char *program, const char *libdir, const char *exp,
                int layout_rc)
{
    char buf[256];
    printf("hpcollect: dry run (-n): nothing is run and nothing is created\n");
    row_target(o, program);
    row_experiment(exp, layout_rc);
    row_clock(o);
    row_counters(o);
    if (o->sample_ns)
        snprintf(buf, sizeof buf, "every %.3f s", (double)o->sample_ns * 1e-9);
    row("sample points (-S)", o->sample_ns ? buf : "off");
    row_signal("sample signal (-l)", o->sample_sig, "");
    row_signal("pause signal (-y)", o->pause_sig, o->start_paused ? ", starting paused" : "");
    row_follow(o);
    row_limits(o);
    row("MPI tracing (-m)", o->mpi_trace ? "on (when the program uses MPI)" : "off");
    if (o->sync == 2)
        snprintf(buf, sizeof buf, "on, waits of at least %.3f us recorded",
                 (double)o->sync_ns * 1e-3);
    row("sync tracing (-s)", o->sync == 1 ? "on, threshold calibrated at start-up"
                             : o->sync    ? buf
                                          : "off");
    row("heap tracing (-H)", o->heap_trace ? "on" : "off");
    row("I/O tracing (-i)", o->io_trace ? "on" : "off");
    row("OpenMP runtime", o->omp_runtime);
    row_archive(o);
    row_comments(o);
    row_preload(o, program, libdir, exp);
    fflush(stdout);
    if (layout_rc < 0) {
        fprintf(stderr, "hpcollect: a run would stop here: %s %s\n", exp, hpc_strerror(layout_rc));
        return 2;
    }
    return 0;
}
