/*
 * cmd_header.c - `header`: what was run, where, when and how, per process, as er_print's
 * header shows it:
 *
 *     Experiment: prog.1.hpc   process main
 *     Target command: ./prog a b
 *     Process pid 4731, ppid 4730
 *     Current working directory: /tmp
 *     Collector version: 0.1.0; host `vm', OS `Linux 6.1 x86_64', page size 4096, 2 CPUs
 *     Data collection parameters:
 *       Clock-profiling, interval = 1000 microsecs (perf_event task-clock)
 *     Experiment started Sun Nov 22 00:36:56 2026
 *     Experiment ended: 0.672 s, exit status 0
 *
 * The -C comments of an experiment stand once before its first process:
 *
 *     Notes (hpcollect -C):
 *       baseline, 4 ranks
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "omp_proc.h"
#include "procinfo.h"
#include "report_util.h"

/* "USR1" for a signal number from the settings record ("?" for a damaged one). */
static const char *sig_abbrev(uint64_t sig)
{
    const char *a = sig < 65 ? sigabbrev_np((int)sig) : NULL;
    return a ? a : "?";
}

static const char *onoff(uint64_t v)
{
    return v ? "on" : "off";
}

/* Why a process that ended early did: for `header` (the mpi report says it too). */
static const char *early_reason(const hpc_proc *p)
{
    size_t i = 0;
    if (hpc_proc_next_of(p, HPC_K_mpi_abort, &i))
        return "it called MPI_Abort";
    if (p->launcher_killed && !p->has_end)
        return "hpcollect was killed, and the program with it";
    i = 0;
    bool in_mpi = hpc_proc_next_of(p, HPC_K_mpi_init, &i) != NULL;
    i = 0;
    if (in_mpi && !hpc_proc_next_of(p, HPC_K_mpi_finalize, &i))
        return "it never reached MPI_Finalize";
    return "no normal exit was recorded";
}

/* The sync tracer's record of p (-s), or NULL. */
static const hpc_rec_tracer *sync_tracer(const hpc_proc *p)
{
    size_t it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_tracer, &it));)
        if (r->u.tracer.kind == HPC_TRACE_SYNC)
            return &r->u.tracer;
    return NULL;
}

static void text_process(hpa_ctx *ctx, const hpc_exp *e, const hpc_proc *p)
{
    FILE *f = ctx->out;
    char line[8192], s1[512], s2[512], s3[512];
    fprintf(f, "Experiment: %s   process %s", e->path, p->name);
    if (p->rank >= 0)
        fprintf(f, " (MPI rank %d)", p->rank);
    fputc('\n', f);
    if (!p->has_begin) {
        fprintf(f, "  no proc_begin record: the process's start was not recorded\n");
    } else {
        const hpc_rec_proc_begin *b = &p->begin;
        hpa_argv_line(b->argv, line, sizeof(line));
        fprintf(f, "Target command: %s\n", line);
        fprintf(f, "Executable: %s\n", hpc_str_copy(s1, sizeof(s1), b->exe));
        fprintf(f, "Process pid %" PRIu64 ", ppid %" PRIu64, b->pid, b->ppid);
        if (b->parent.n)
            fprintf(f, ", descendant of %s", hpc_str_copy(s1, sizeof(s1), b->parent));
        fputc('\n', f);
        fprintf(f, "Current working directory: %s\n", hpc_str_copy(s1, sizeof(s1), b->cwd));
        fprintf(f,
                "Collector version: %s; host `%s', OS `%s', page size %" PRIu64 ", %" PRIu64
                " CPUs\n",
                hpc_str_copy(s1, sizeof(s1), b->version), hpc_str_copy(s2, sizeof(s2), b->host),
                hpc_str_copy(s3, sizeof(s3), b->os), b->page_size, b->ncpus);
    }
    fprintf(f, "Data collection parameters:\n");
    const hpc_rec_settings *s = &p->settings;
    if (s->clock_source == HPC_CLOCK_NONE) {
        fprintf(f, "  Clock-profiling off\n");
    } else {
        fprintf(f, "  Clock-profiling, interval = %" PRIu64 " microsecs (%s)\n",
                s->clock_interval_ns / 1000, hpa_clock_source_name(s->clock_source));
        if (s->clock_note.n)
            fprintf(f, "    note: %s\n", hpc_str_copy(s1, sizeof(s1), s->clock_note));
    }
    size_t ci = 0; /* -h */
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_counter_def, &ci));) {
        const hpc_rec_counter_def *c = &r->u.counter_def;
        fprintf(f, "  %s counter-profiling: %s, interval = %" PRIu64 " %s (%s)\n",
                c->flags & HPC_COUNTER_SOFTWARE ? "Software" : "Hardware",
                hpc_str_copy(s1, sizeof(s1), c->name), c->interval,
                hpc_str_copy(s2, sizeof(s2), c->unit), hpc_str_copy(s3, sizeof(s3), c->spec));
    }
    if (s->clock_source == HPC_CLOCK_NONE && s->clock_note.n) /* counters that failed */
        fprintf(f, "    note: %s\n", hpc_str_copy(s1, sizeof(s1), s->clock_note));
    if (s->sample_period_ns)
        fprintf(f, "  Periodic sampling, %.3f secs\n", (double)s->sample_period_ns * 1e-9);
    if (s->sample_signal)
        fprintf(f, "  Sample signal: SIG%s\n", sig_abbrev(s->sample_signal));
    if (s->pause_signal)
        fprintf(f, "  Pause-resume signal: SIG%s%s\n", sig_abbrev(s->pause_signal),
                s->start_paused ? " (started paused)" : "");
    if (s->follow && s->follow_regex.n)
        fprintf(f, "  Follow descendant processes: those matching /%s/\n",
                hpc_str_copy(s1, sizeof(s1), s->follow_regex));
    else
        fprintf(f, "  Follow descendant processes: %s\n", onoff(s->follow));
    fprintf(f, "  Archiving (-a): %s\n", hpc_archive_mode_name((unsigned)s->archive));
    if (s->size_limit)
        fprintf(f, "  Size limit: %" PRIu64 " MB\n", s->size_limit >> 20);
    if (s->tend_ns)
        fprintf(f, "  Time window: %.3f-%.3f secs\n", (double)s->tstart_ns * 1e-9,
                (double)s->tend_ns * 1e-9);
    if (s->unwinder.n)
        fprintf(f, "  Unwinder: %s\n", hpc_str_copy(s1, sizeof(s1), s->unwinder));
    if (hpa_omp_runtime_line(p, s1, sizeof(s1)))
        fprintf(f, "  OpenMP: %s\n", s1);
    const hpc_rec_tracer *sync = sync_tracer(p);
    if (sync && sync->calibrated)
        fprintf(f,
                "  Synchronization wait tracing, threshold %.3f microsecs (calibrated: 6 x %" PRIu64
                " ns, an uncontended lock)\n",
                (double)sync->threshold_ns * 1e-3, sync->call_ns);
    else if (sync)
        fprintf(f, "  Synchronization wait tracing, threshold %.3f microsecs%s\n",
                (double)sync->threshold_ns * 1e-3, sync->threshold_ns ? "" : " (all calls)");
    hpa_start_text(p, s1, sizeof(s1));
    fprintf(f, "\nExperiment started %s\n", s1);
    hpa_end_text(p, s2, sizeof(s2));
    fprintf(f, "Experiment ended: %.3f s, %s\n", hpa_proc_duration(p), s2);
    if (p->ended_early)
        fprintf(f, "Ended early: %s; its data is complete up to its end\n", early_reason(p));
}

/* The -h counters, as the text's "counter-profiling" lines. */
static void json_counters(hpa_json *j, const hpc_proc *p)
{
    char buf[1024];
    hpa_json_key(j, "counters");
    hpa_json_begin_arr(j);
    size_t ci = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_counter_def, &ci));) {
        const hpc_rec_counter_def *c = &r->u.counter_def;
        hpa_json_begin_obj(j);
        hpa_json_ku64(j, "index", c->index);
        hpa_json_kstr(j, "name", hpc_str_copy(buf, sizeof(buf), c->name));
        hpa_json_kstr(j, "spec", hpc_str_copy(buf, sizeof(buf), c->spec));
        hpa_json_kstr(j, "kind", c->flags & HPC_COUNTER_SOFTWARE ? "software" : "hardware");
        hpa_json_ku64(j, "interval", c->interval);
        hpa_json_kstr(j, "unit", hpc_str_copy(buf, sizeof(buf), c->unit));
        hpa_json_ku64(j, "perf_type", c->perf_type);
        hpa_json_ku64(j, "perf_config", c->perf_config);
        hpa_json_ku64(j, "cpu_hz", c->cpu_hz);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
}

/* "SIGUSR1" for a signal number from the settings record, "" for none. */
static const char *sig_name(uint64_t sig, char *buf, size_t cap)
{
    if (!sig)
        return "";
    snprintf(buf, cap, "SIG%s", sig_abbrev(sig));
    return buf;
}

static void json_process(hpa_json *j, const hpc_proc *p)
{
    char buf[8192];
    hpa_json_begin_obj(j);
    hpa_json_kstr(j, "name", p->name);
    hpa_json_kstr(j, "dir", p->dir);
    hpa_json_ki64(j, "rank", p->rank);
    if (p->has_begin) {
        const hpc_rec_proc_begin *b = &p->begin;
        hpa_json_ku64(j, "pid", b->pid);
        hpa_json_ku64(j, "ppid", b->ppid);
        hpa_json_kstr(j, "parent", hpc_str_copy(buf, sizeof(buf), b->parent));
        hpa_json_kstr(j, "host", hpc_str_copy(buf, sizeof(buf), b->host));
        hpa_json_kstr(j, "cwd", hpc_str_copy(buf, sizeof(buf), b->cwd));
        hpa_json_kstr(j, "exe", hpc_str_copy(buf, sizeof(buf), b->exe));
        hpa_argv_line(b->argv, buf, sizeof(buf));
        hpa_json_kstr(j, "command", buf);
        hpa_json_kstr(j, "os", hpc_str_copy(buf, sizeof(buf), b->os));
        hpa_json_kstr(j, "collector_version", hpc_str_copy(buf, sizeof(buf), b->version));
        hpa_json_ku64(j, "ncpus", b->ncpus);
        hpa_json_ku64(j, "page_size", b->page_size);
        hpa_json_ku64(j, "start_real_time_ns", b->real_time);
    }
    const hpc_rec_settings *s = &p->settings;
    hpa_json_kstr(j, "clock_source", hpa_clock_source_name(s->clock_source));
    hpa_json_ku64(j, "clock_interval_ns", s->clock_interval_ns);
    hpa_json_kstr(j, "clock_note", hpc_str_copy(buf, sizeof(buf), s->clock_note));
    hpa_json_ku64(j, "follow", s->follow);
    hpa_json_kstr(j, "follow_regex", hpc_str_copy(buf, sizeof(buf), s->follow_regex));
    hpa_json_kstr(j, "archive", hpc_archive_mode_name((unsigned)s->archive));
    hpa_json_ku64(j, "size_limit", s->size_limit);
    json_counters(j, p);
    hpa_json_ku64(j, "sample_period_ns", s->sample_period_ns);
    hpa_json_kstr(j, "sample_signal", sig_name(s->sample_signal, buf, sizeof(buf)));
    hpa_json_kstr(j, "pause_signal", sig_name(s->pause_signal, buf, sizeof(buf)));
    hpa_json_key(j, "start_paused");
    hpa_json_bool(j, s->start_paused != 0);
    hpa_json_ku64(j, "tstart_ns", s->tstart_ns);
    hpa_json_ku64(j, "tend_ns", s->tend_ns);
    hpa_json_kstr(j, "unwinder", hpc_str_copy(buf, sizeof(buf), s->unwinder));
    hpa_json_kstr(j, "omp_runtime", hpa_omp_runtime_line(p, buf, sizeof(buf)) ? buf : "");
    const hpc_rec_tracer *sync = sync_tracer(p);
    hpa_json_key(j, "sync_trace");
    if (sync) {
        hpa_json_begin_obj(j);
        hpa_json_ku64(j, "threshold_ns", sync->threshold_ns);
        hpa_json_key(j, "calibrated");
        hpa_json_bool(j, sync->calibrated != 0);
        hpa_json_ku64(j, "call_ns", sync->call_ns);
        hpa_json_end_obj(j);
    } else {
        hpa_json_null(j);
    }
    hpa_json_kdouble(j, "duration_s", hpa_proc_duration(p));
    hpa_end_text(p, buf, sizeof(buf));
    hpa_json_kstr(j, "end", buf);
    hpa_json_key(j, "ended_early");
    hpa_json_bool(j, p->ended_early);
    hpa_json_end_obj(j);
}

static void csv_process(FILE *f, const hpc_exp *e, const hpc_proc *p)
{
    char buf[8192];
    hpa_csv_field(f, e->path, ',');
    hpa_csv_field(f, p->name, ',');
    fprintf(f, "%d,%" PRIu64 ",", p->rank, p->has_begin ? p->begin.pid : 0);
    hpa_argv_line(p->begin.argv, buf, sizeof(buf));
    hpa_csv_field(f, p->has_begin ? buf : "", ',');
    hpa_csv_field(f, hpa_clock_source_name(p->settings.clock_source), ',');
    fprintf(f, "%" PRIu64 ",%.9g,", p->settings.clock_interval_ns, hpa_proc_duration(p));
    hpa_end_text(p, buf, sizeof(buf));
    hpa_csv_field(f, buf, '\n');
}

/* Call f on each -C comment of e (NUL-terminated strings in job_begin.comments). */
static void each_comment(const hpc_exp *e, void (*f)(void *arg, const char *c), void *arg)
{
    if (!e->has_job)
        return;
    hpc_str c = e->job.comments;
    char buf[2048];
    for (uint32_t i = 0; i < c.n;) {
        uint32_t n = 0;
        while (i + n < c.n && c.p[i + n])
            n++;
        hpc_str_copy(buf, sizeof(buf), (hpc_str){c.p + i, n});
        f(arg, buf);
        i += n + 1;
    }
}

static void text_comment(void *arg, const char *c)
{
    fprintf(arg, "  %s\n", c);
}

static void json_comment(void *arg, const char *c)
{
    hpa_json_str(arg, c);
}

int cmd_header(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const hpa_profile *prof = ctx->prof;
    hpa_json j;
    if (ctx->opts.format == HPA_CSV) {
        fputs("experiment,process,rank,pid,command,clock_source,clock_interval_ns,duration_s,"
              "end\n",
              ctx->out);
    } else if (ctx->opts.format == HPA_JSON) {
        hpa_json_begin_report_list(&j, ctx->out, "header", "experiments");
    }
    for (unsigned i = 0; i < prof->nexps; i++) {
        const hpc_exp *e = prof->exps[i];
        if (ctx->opts.format == HPA_JSON) {
            hpa_json_begin_obj(&j);
            hpa_json_kstr(&j, "path", e->path);
            if (e->has_job) {
                char buf[1024];
                hpa_json_kstr(&j, "job_id", hpc_str_copy(buf, sizeof(buf), e->job.job_id));
                hpa_json_ki64(&j, "world_size", e->job.world_size);
            }
            hpa_json_key(&j, "comments");
            hpa_json_begin_arr(&j);
            each_comment(e, json_comment, &j);
            hpa_json_end_arr(&j);
            hpa_json_key(&j, "processes");
            hpa_json_begin_arr(&j);
        } else if (ctx->opts.format == HPA_TEXT && e->has_job && e->job.comments.n) {
            if (i)
                fputc('\n', ctx->out);
            fprintf(ctx->out, "Notes (hpcollect -C) of %s:\n", e->path);
            each_comment(e, text_comment, ctx->out);
            if (!i)
                fputc('\n', ctx->out); /* the first process prints none before itself */
        }
        for (size_t k = 0; k < e->nprocs; k++) {
            if (ctx->opts.format == HPA_TEXT) {
                if (i || k)
                    fputc('\n', ctx->out);
                text_process(ctx, e, &e->procs[k]);
            } else if (ctx->opts.format == HPA_CSV) {
                csv_process(ctx->out, e, &e->procs[k]);
            } else {
                json_process(&j, &e->procs[k]);
            }
        }
        if (ctx->opts.format == HPA_JSON) {
            hpa_json_end_arr(&j);
            hpa_json_end_obj(&j);
        }
    }
    if (ctx->opts.format == HPA_JSON)
        hpa_json_end_report_list(&j);
    return HPA_EXIT_OK;
}
