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
 * With thread states, each state's sampled total beside the kernel's own account of the
 * same threads (thread_account: rusage, schedstat, at each thread's start and end):
 *
 *                       Thread states: context-switch records (perf_event) and ...
 *              Total Thread (sec.): 6.532   (the threads' lives: 6.540)
 *                  User CPU (sec.): 2.051   (kernel: 2.049 user time)
 *                  ...
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
    /* thread states */
    uint64_t state_ns[HPC_NMSTATES], how_ns[4], life_ns;
    uint32_t accounted; /* threads with the kernel's account at both ends */
    uint64_t k_user, k_sys, k_run, k_delay, k_majflt, k_nvcsw, k_nivcsw, k_life;
} proc_sums;

static uint64_t life_of(const hpa_thread *th)
{
    return th->has_begin && th->has_end && th->end.time > th->begin.time
               ? th->end.time - th->begin.time
               : 0;
}

static uint64_t diff(uint64_t b, uint64_t a)
{
    return b > a ? b - a : 0;
}

/* The kernel's account of th's recorded life into s. */
static void add_account(proc_sums *s, const hpa_thread *th)
{
    if (th->naccount < 2)
        return;
    const hpc_rec_thread_account *a = &th->account[0], *b = &th->account[1];
    s->accounted++;
    s->k_user += diff(b->utime_ns, a->utime_ns);
    s->k_sys += diff(b->stime_ns, a->stime_ns);
    s->k_run += diff(b->run_ns, a->run_ns);
    s->k_delay += diff(b->run_delay_ns, a->run_delay_ns);
    s->k_majflt += diff(b->majflt, a->majflt);
    s->k_nvcsw += diff(b->nvcsw, a->nvcsw);
    s->k_nivcsw += diff(b->nivcsw, a->nivcsw);
    s->k_life += diff(b->time, a->time);
}

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
        for (unsigned k = 0; k < HPC_NMSTATES; k++)
            s.state_ns[k] += th->state_ns_read[k];
        for (unsigned k = 0; k < 4; k++)
            s.how_ns[k] += th->state_how_read[k];
        s.life_ns += life_of(th);
        add_account(&s, th);
    }
    return s;
}

#define ROW(f, label, fmt, ...) fprintf(f, "%36s: " fmt "\n", label, __VA_ARGS__)

static const char *const state_titles[HPC_NMSTATES] = {
    "User CPU",        "System CPU",      "Wait CPU",  "User Lock",
    "Text Page Fault", "Data Page Fault", "Other Wait"};
static const char *const state_keys[HPC_NMSTATES] = {"user",    "system",  "wait_cpu",  "user_lock",
                                                     "text_pf", "data_pf", "other_wait"};

static uint64_t sum_states(const uint64_t *ns)
{
    uint64_t t = 0;
    for (unsigned k = 0; k < HPC_NMSTATES; k++)
        t += ns[k];
    return t;
}

/* Sleeping: lifetime - on a CPU - waiting for one, by the kernel's clocks. */
static uint64_t kernel_sleep(const proc_sums *s)
{
    return diff(s->k_life, s->k_run + s->k_delay);
}

static void text_states(FILE *f, const hpc_proc *p, const proc_sums *s)
{
    char buf[512];
    ROW(f, "Thread states", "%s", hpa_states_source_name(p->settings.states));
    if (p->settings.states == HPC_STATES_NONE)
        return;
    if (*hpa_states_source_limits(p->settings.states))
        ROW(f, "Cannot tell", "%s", hpa_states_source_limits(p->settings.states));
    if (p->settings.states_note.n)
        ROW(f, "Thread states note", "%s", hpc_str_copy(buf, sizeof(buf), p->settings.states_note));
    double sec = 1e-9;
    fprintf(f, "%36s: %.3f   (the threads' recorded lives: %.3f)\n", "Total Thread (sec.)",
            (double)sum_states(s->state_ns) * sec, (double)s->life_ns * sec);
    bool k = s->accounted > 0;
    for (unsigned m = 0; m < HPC_NMSTATES; m++) {
        char label[64];
        snprintf(label, sizeof(label), "%s (sec.)", state_titles[m]);
        fprintf(f, "%36s: %.3f", label, (double)s->state_ns[m] * sec);
        if (k && m == HPC_MSTATE_USER)
            fprintf(f, "   (kernel: %.3f user time, rusage)", (double)s->k_user * sec);
        else if (k && m == HPC_MSTATE_SYSTEM)
            fprintf(f, "   (kernel: %.3f system time, rusage)", (double)s->k_sys * sec);
        else if (k && m == HPC_MSTATE_WAIT_CPU)
            fprintf(f, "   (kernel: %.3f run delay, schedstat)", (double)s->k_delay * sec);
        else if (k && m == HPC_MSTATE_DATA_PF)
            fprintf(f, "   (kernel: %" PRIu64 " major faults, text and data)", s->k_majflt);
        fputc('\n', f);
    }
    uint64_t sleep = 0;
    for (unsigned m = HPC_MSTATE_USER_LOCK; m < HPC_NMSTATES; m++)
        sleep += s->state_ns[m];
    fprintf(f, "%36s: %.3f", "Asleep, all states (sec.)", (double)sleep * sec);
    if (k)
        fprintf(f, "   (kernel: %.3f = lives - run time - run delay, schedstat)",
                (double)kernel_sleep(s) * sec);
    fputc('\n', f);
    ROW(f, "Off the CPU, charged (sec.)",
        "%.3f at the blocking call, %.3f at the next sample, "
        "%.3f at the thread's end, %.3f unseen (records lost)",
        (double)s->how_ns[HPC_STATE_AT_CALL] * sec, (double)s->how_ns[HPC_STATE_AT_SAMPLE] * sec,
        (double)s->how_ns[HPC_STATE_AT_END] * sec, (double)s->how_ns[HPC_STATE_UNSEEN] * sec);
    if (k)
        ROW(f, "Context switches (kernel)", "%" PRIu64 " voluntary, %" PRIu64 " involuntary",
            s->k_nvcsw, s->k_nivcsw);
}

static void json_states(hpa_json *j, const hpc_proc *p, const proc_sums *s)
{
    char buf[512];
    hpa_json_key(j, "thread_states");
    hpa_json_begin_obj(j);
    hpa_json_kstr(j, "source", hpa_states_source_name(p->settings.states));
    hpa_json_kstr(j, "cannot_tell", hpa_states_source_limits(p->settings.states));
    hpa_json_kstr(j, "note", hpc_str_copy(buf, sizeof(buf), p->settings.states_note));
    for (unsigned m = 0; m < HPC_NMSTATES; m++) {
        char key[48];
        snprintf(key, sizeof(key), "%s_s", state_keys[m]);
        hpa_json_kdouble(j, key, (double)s->state_ns[m] * 1e-9);
    }
    hpa_json_kdouble(j, "total_thread_s", (double)sum_states(s->state_ns) * 1e-9);
    hpa_json_kdouble(j, "lives_s", (double)s->life_ns * 1e-9);
    hpa_json_kdouble(j, "at_call_s", (double)s->how_ns[HPC_STATE_AT_CALL] * 1e-9);
    hpa_json_kdouble(j, "at_sample_s", (double)s->how_ns[HPC_STATE_AT_SAMPLE] * 1e-9);
    hpa_json_kdouble(j, "at_end_s", (double)s->how_ns[HPC_STATE_AT_END] * 1e-9);
    hpa_json_kdouble(j, "unseen_s", (double)s->how_ns[HPC_STATE_UNSEEN] * 1e-9);
    if (s->accounted) {
        hpa_json_key(j, "kernel");
        hpa_json_begin_obj(j);
        hpa_json_ku64(j, "threads", s->accounted);
        hpa_json_kdouble(j, "user_s", (double)s->k_user * 1e-9);
        hpa_json_kdouble(j, "system_s", (double)s->k_sys * 1e-9);
        hpa_json_kdouble(j, "run_s", (double)s->k_run * 1e-9);
        hpa_json_kdouble(j, "run_delay_s", (double)s->k_delay * 1e-9);
        hpa_json_kdouble(j, "asleep_s", (double)kernel_sleep(s) * 1e-9);
        hpa_json_kdouble(j, "lives_s", (double)s->k_life * 1e-9);
        hpa_json_ku64(j, "majflt", s->k_majflt);
        hpa_json_ku64(j, "nvcsw", s->k_nvcsw);
        hpa_json_ku64(j, "nivcsw", s->k_nivcsw);
        hpa_json_end_obj(j);
    }
    hpa_json_end_obj(j);
}

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
    text_states(f, p, &s);
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
    json_states(j, p, &s);
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
        hpa_json_kdouble(j, "life_s", (double)life_of(th) * 1e-9);
        hpa_json_kdouble(j, "total_thread_s", (double)sum_states(th->state_ns_read) * 1e-9);
        for (unsigned m = 0; m < HPC_NMSTATES; m++) {
            char key[48];
            snprintf(key, sizeof(key), "%s_s", state_keys[m]);
            hpa_json_kdouble(j, key, (double)th->state_ns_read[m] * 1e-9);
        }
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
