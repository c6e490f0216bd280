/*
 * cmd_statistics.c - `statistics`: per process, the run facts and every way a sample was
 * recorded or lost, then the sampled CPU time next to the OS's own accounting:
 *
 *     Experiment: prog.1.hpc   process main
 *                              Threads: 1
 *                      Duration (sec.): 2.011
 *                      Clock profiling: perf_event task-clock, interval 1.000 ms
 *                         Samples read: 2003
 *                     Samples recorded: 2003
 *            Dropped: size limit (-L): 0
 *     ...
 *                Sampled CPU (sec.): 2.003
 *      OS CPU, user+system (sec.): 2.010   (user 2.006, system 0.004; from proc_end)
 *                   Difference (sec.): -0.007 (-0.35%)
 *
 * Counts come from the stream headers' live statistics (experiment/stats.def, summed over the
 * process's streams) and from reading the thread streams (samples read, damaged and
 * unknown records). Filters do not apply here: this is what was recorded.
 */
#include <inttypes.h>
#include <string.h>

#include "procinfo.h"
#include "report_util.h"

static const char *stat_key(unsigned i, char *buf, size_t cap)
{
    const char *n = hpc_stat_name(i);
    if (n)
        return n;
    snprintf(buf, cap, "stat%u", i);
    return buf;
}

typedef struct proc_sums {
    uint32_t threads;
    uint64_t samples_read, counter_samples_read, cpu_ns, tail_ns, damaged, unknown, bad_nodes;
} proc_sums;

static proc_sums sums_of(const hpa_process *pr)
{
    proc_sums s = {.threads = pr->proc->nthreads};
    for (uint32_t t = 0; t < pr->nthreads; t++) {
        const hpa_thread *th = &pr->threads[t];
        s.samples_read += th->samples_read;
        s.counter_samples_read += th->counter_samples_read;
        s.cpu_ns += th->cpu_ns_read;
        s.tail_ns += th->has_end ? th->end.tail_cpu_ns : 0;
        s.damaged += th->damaged;
        s.unknown += th->unknown;
        s.bad_nodes += th->bad_nodes;
    }
    return s;
}

#define ROW(f, label, fmt, ...) fprintf(f, "%36s: " fmt "\n", label, __VA_ARGS__)

static void text_process(FILE *f, const hpa_profile *prof, const hpa_process *pr)
{
    const hpc_proc *p = pr->proc;
    proc_sums s = sums_of(pr);
    char buf[512];
    fprintf(f, "Experiment: %s   process %s", prof->exps[pr->exp]->path, p->name);
    if (p->rank >= 0)
        fprintf(f, " (MPI rank %d)", p->rank);
    fputc('\n', f);
    ROW(f, "Process id", "%" PRIu64, p->has_begin ? p->begin.pid : 0);
    ROW(f, "Threads", "%u", s.threads);
    ROW(f, "Duration (sec.)", "%.3f", hpa_proc_duration(p));
    hpa_end_text(p, buf, sizeof(buf));
    ROW(f, "End", "%s", buf);
    ROW(f, "Clock profiling", "%s, interval %.3f ms",
        hpa_clock_source_name(p->settings.clock_source),
        (double)p->settings.clock_interval_ns * 1e-6);
    if (p->settings.clock_note.n)
        ROW(f, "Clock note", "%s", hpc_str_copy(buf, sizeof(buf), p->settings.clock_note));
    ROW(f, "Clock samples read", "%" PRIu64, s.samples_read);
    ROW(f, "Counter samples read", "%" PRIu64, s.counter_samples_read);
    for (unsigned i = 0; i < HPC_STAT_COUNT_; i++)
        ROW(f, hpc_stat_label(i), "%" PRIu64, p->stats[i]);
    for (unsigned i = HPC_STAT_COUNT_; i < HPC_NSTATS; i++)
        if (p->stats[i])
            fprintf(f, "%30s slot %2u: %" PRIu64 "\n", "Statistics", i, p->stats[i]);
    ROW(f, "Damaged records skipped", "%" PRIu64, s.damaged);
    ROW(f, "Unknown records skipped", "%" PRIu64, s.unknown);
    if (s.bad_nodes)
        ROW(f, "References to missing nodes", "%" PRIu64, s.bad_nodes);
    double sampled = (double)s.cpu_ns * 1e-9;
    ROW(f, "Sampled CPU (sec.)", "%.3f", sampled);
    ROW(f, "CPU after last samples (sec.)", "%.3f", (double)s.tail_ns * 1e-9);
    hpa_os_cpu os = hpa_proc_os_cpu(p);
    if (!os.known) {
        ROW(f, "OS CPU, user+system (sec.)", "%s", "unknown (no end record)");
        return;
    }
    double osc = (double)(os.user_ns + os.sys_ns) * 1e-9;
    fprintf(f, "%36s: %.3f   (user %.3f, system %.3f; from %s)\n", "OS CPU, user+system (sec.)",
            osc, (double)os.user_ns * 1e-9, (double)os.sys_ns * 1e-9, os.source);
    ROW(f, "Difference (sec.)", "%+.3f (%+.2f%%)", sampled - osc,
        osc > 0 ? 100.0 * (sampled - osc) / osc : 0.0);
}

static void json_process(hpa_json *j, const hpa_profile *prof, const hpa_process *pr)
{
    const hpc_proc *p = pr->proc;
    proc_sums s = sums_of(pr);
    char buf[512], key[32];
    hpa_json_begin_obj(j);
    hpa_json_kstr(j, "experiment", prof->exps[pr->exp]->path);
    hpa_json_kstr(j, "process", p->name);
    hpa_json_ki64(j, "rank", p->rank);
    hpa_json_ku64(j, "pid", p->has_begin ? p->begin.pid : 0);
    hpa_json_ku64(j, "threads", s.threads);
    hpa_json_kdouble(j, "duration_s", hpa_proc_duration(p));
    hpa_end_text(p, buf, sizeof(buf));
    hpa_json_kstr(j, "end", buf);
    hpa_json_kstr(j, "clock_source", hpa_clock_source_name(p->settings.clock_source));
    hpa_json_ku64(j, "clock_interval_ns", p->settings.clock_interval_ns);
    hpa_json_ku64(j, "samples_read", s.samples_read);
    hpa_json_ku64(j, "counter_samples_read", s.counter_samples_read);
    hpa_json_key(j, "stats");
    hpa_json_begin_obj(j);
    for (unsigned i = 0; i < HPC_STAT_COUNT_; i++)
        hpa_json_ku64(j, stat_key(i, key, sizeof(key)), p->stats[i]);
    hpa_json_end_obj(j);
    hpa_json_ku64(j, "damaged_records", s.damaged);
    hpa_json_ku64(j, "unknown_records", s.unknown);
    hpa_json_ku64(j, "missing_node_refs", s.bad_nodes);
    hpa_json_kdouble(j, "sampled_cpu_s", (double)s.cpu_ns * 1e-9);
    hpa_json_kdouble(j, "tail_cpu_s", (double)s.tail_ns * 1e-9);
    hpa_os_cpu os = hpa_proc_os_cpu(p);
    if (os.known) {
        hpa_json_kdouble(j, "os_user_s", (double)os.user_ns * 1e-9);
        hpa_json_kdouble(j, "os_system_s", (double)os.sys_ns * 1e-9);
        hpa_json_kdouble(j, "os_cpu_s", (double)(os.user_ns + os.sys_ns) * 1e-9);
        hpa_json_kstr(j, "os_cpu_source", os.source);
    }
    hpa_json_key(j, "thread_list");
    hpa_json_begin_arr(j);
    for (uint32_t t = 0; t < pr->nthreads; t++) {
        const hpa_thread *th = &pr->threads[t];
        hpa_json_begin_obj(j);
        hpa_json_ku64(j, "seq", th->seq);
        hpa_json_ku64(j, "tid", th->tid);
        hpa_json_ku64(j, "samples_read", th->samples_read);
        hpa_json_kdouble(j, "sampled_cpu_s", (double)th->cpu_ns_read * 1e-9);
        hpa_json_key(j, "ended");
        hpa_json_bool(j, th->has_end);
        if (th->has_end)
            hpa_json_kdouble(j, "thread_cpu_s", (double)th->end.cpu_ns * 1e-9);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
    hpa_json_end_obj(j);
}

static void csv_process(FILE *f, const hpa_profile *prof, const hpa_process *pr)
{
    const hpc_proc *p = pr->proc;
    proc_sums s = sums_of(pr);
    hpa_os_cpu os = hpa_proc_os_cpu(p);
    hpa_csv_field(f, prof->exps[pr->exp]->path, ',');
    hpa_csv_field(f, p->name, ',');
    fprintf(f, "%d,%u,%" PRIu64 ",", p->rank, s.threads, s.samples_read);
    for (unsigned i = 0; i < HPC_STAT_COUNT_; i++)
        fprintf(f, "%" PRIu64 ",", p->stats[i]);
    fprintf(f, "%" PRIu64 ",%.9g,", s.damaged, (double)s.cpu_ns * 1e-9);
    if (os.known)
        fprintf(f, "%.9g\n", (double)(os.user_ns + os.sys_ns) * 1e-9);
    else
        fputs("\n", f);
}

int cmd_statistics(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    const hpa_profile *prof = hpa_ctx_profile(ctx);
    if (!prof)
        return HPA_EXIT_DATA;
    FILE *f = ctx->out;
    hpa_json j;
    char key[32];
    if (ctx->opts.format == HPA_CSV) {
        fputs("experiment,process,rank,threads,samples_read,", f);
        for (unsigned i = 0; i < HPC_STAT_COUNT_; i++)
            fprintf(f, "%s,", stat_key(i, key, sizeof(key)));
        fputs("damaged_records,sampled_cpu_s,os_cpu_s\n", f);
    } else if (ctx->opts.format == HPA_JSON) {
        hpa_json_begin_report_list(&j, f, "statistics", "processes");
    }
    for (size_t i = 0; i < prof->nprocs; i++) {
        const hpa_process *pr = &prof->procs[i];
        if (ctx->opts.format == HPA_TEXT) {
            if (i)
                fputc('\n', f);
            text_process(f, prof, pr);
        } else if (ctx->opts.format == HPA_CSV) {
            csv_process(f, prof, pr);
        } else {
            json_process(&j, prof, pr);
        }
    }
    if (ctx->opts.format == HPA_JSON)
        hpa_json_end_report_list(&j);
    return HPA_EXIT_OK;
}
