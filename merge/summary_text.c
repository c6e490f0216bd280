/*
 * summary_text.c - summary.txt, for people. Example (abridged):
 *
 *   hpmerge summary: /home/u/solver.1.hpc
 *   Command        ./solver 200
 *   Processes      4 MPI ranks on 1 host (node1), 8 threads
 *   Duration       2.031 s
 *   Samples        1624 clock, 0 counter; lost: none
 *   CPU time       sampled 8.051 s, OS 8.120 s (99.2%)
 *
 *   Top functions (sampled CPU time, all processes)
 *      Excl. s  Excl. %    Incl. s  Samples  Function
 *        4.012    49.8%      4.012      802  relax (solver)
 *
 *   MPI per rank
 *   Rank   App s   MPI s  MPI %   Sends  Bytes sent  Receives  Bytes recv  Other
 *      0   2.031   0.412  20.3%     400     3276800       400     3276800    205
 *
 * Numbers are printed from integer nanoseconds and counts only at the end, so a serial
 * and a parallel merge print the same text.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "summary.h"
#include "summary_agg.h"

static double s_of(uint64_t ns)
{
    return ns / 1e9;
}

static double pct(double part, double whole)
{
    return whole > 0 ? 100.0 * part / whole : 0.0;
}

static void run_facts(FILE *f, const mg_agg *a)
{
    const mg_job *job = a->job;
    fprintf(f, "hpmerge summary: %s\n", job->path);
    fprintf(f, "Command        %s\n", job->command[0] ? job->command : "(unknown)");
    if (job->collect_command[0]) {
        fprintf(f, "Collected by   %s", job->collect_command);
        if (job->version && job->version[0])
            fprintf(f, " (hpcollect %s)", job->version);
        fputc('\n', f);
    }
    fprintf(f, "Processes      ");
    if (job->world_size > 0)
        fprintf(f, "%lld MPI ranks (%zu with data)", (long long)job->world_size, a->nranks);
    else
        fprintf(f, "%zu", a->nprocs_data);
    if (a->nprocs_data > a->nranks && job->world_size > 0)
        fprintf(f, " + %zu other processes", a->nprocs_data - a->nranks);
    fprintf(f, " on %zu host%s (", a->nhosts, a->nhosts == 1 ? "" : "s");
    for (size_t h = 0; h < a->nhosts; h++)
        fprintf(f, "%s%s", h ? ", " : "", a->hosts[h]);
    fprintf(f, "), %zu threads\n", a->nthreads);
    fprintf(f, "Duration       %.3f s (first to last event, rank 0's clock)\n",
            a->have_events ? s_of(a->t1 - a->t0) : 0.0);
    const uint64_t *st = a->stats;
    uint64_t lost = st[HPC_STAT_DROPPED_LIMIT] + st[HPC_STAT_DROPPED_IO];
    fprintf(f,
            "Samples        %" PRIu64 " clock, %" PRIu64 " counter; dropped %" PRIu64
            ", blocked %" PRIu64 ", paused %" PRIu64 "; unwind faults %" PRIu64 ", errors %" PRIu64
            ", truncated %" PRIu64 "; trace events dropped %" PRIu64 "\n",
            a->samples, a->counter_samples, lost, st[HPC_STAT_BLOCKED], st[HPC_STAT_PAUSED],
            st[HPC_STAT_UNWIND_FAULTS], st[HPC_STAT_UNWIND_ERRORS], st[HPC_STAT_UNWIND_TRUNCATED],
            st[HPC_STAT_EVENTS_DROPPED]);
    fprintf(f, "CPU time       sampled %.3f s, OS (rusage) %.3f s (%.1f%%)\n",
            s_of(a->sampled_cpu_ns), s_of(a->os_cpu_ns),
            pct((double)a->sampled_cpu_ns, (double)a->os_cpu_ns));
    fprintf(f,
            "Trace          otf2/traces.otf2: %" PRIu64 " events from %" PRIu64 " records (%" PRIu64
            " damaged records skipped)\n",
            a->events, a->records, a->damaged);
    if (a->nproblems || job->problems_dropped) {
        fprintf(f, "\nProblems (%zu)\n", a->nproblems + job->problems_dropped);
        for (size_t i = 0; i < a->nproblems; i++)
            fprintf(f, "  %s\n", a->problems[i]);
        if (job->problems_dropped)
            fprintf(f, "  ... and %zu more\n", job->problems_dropped);
    }
}

static void functions(FILE *f, const mg_agg *a)
{
    if (!a->nfuncs)
        return;
    unsigned top = a->job->top;
    fprintf(f, "\nTop functions (sampled CPU time, all processes)\n");
    fprintf(f, "   Excl. s  Excl. %%    Incl. s   Samples  Function\n");
    for (size_t i = 0; i < a->nfuncs && i < top; i++) {
        const mg_aggfunc *fn = &a->funcs[i];
        fprintf(f, "%10.3f  %6.1f%%  %9.3f  %8" PRIu64 "  %s", s_of(fn->excl_ns),
                pct((double)fn->excl_ns, (double)a->sampled_cpu_ns), s_of(fn->incl_ns), fn->samples,
                fn->name);
        if (fn->module[0])
            fprintf(f, " (%s)", fn->module);
        fputc('\n', f);
    }
}

static void mpi_rank_row(FILE *f, const mg_proc *p)
{
    if (!mg_proc_is_mpi(p))
        return;
    const hpa_mpi_sum *s = &p->sum.mpi;
    double app = s_of(mg_proc_app_ns(p)), mpi = s_of(s->time_ns);
    fprintf(f,
            "%5lld %9.3f %9.3f %5.1f%% %8" PRIu64 " %12" PRIu64 " %9" PRIu64 " %12" PRIu64
            " %7" PRIu64 "\n",
            (long long)p->rank, app, mpi, pct(mpi, app), s->sends, s->bytes_sent, s->recvs,
            s->bytes_recv, s->other);
}

static int mpi_ranks(FILE *f, const mg_summary *s)
{
    fprintf(f, "\nMPI per rank (App: MPI_Init to MPI_Finalize; Sends, Receives and their bytes: "
               "point-to-point messages; as hpanalyze mpi)\n");
    fprintf(f, "%5s %9s %9s %6s %8s %12s %9s %12s %7s\n", "Rank", "App s", "MPI s", "MPI %",
            "Sends", "Bytes sent", "Receives", "Bytes recv", "Other");
    return mg_summary_copy(s, MG_ROWS_MPI, f);
}

/* Bytes a row moved: point-to-point and collective together, per direction. */
static uint64_t row_sent(const hpa_mpi_sum *m)
{
    return m->bytes_sent + m->coll_sent;
}

static uint64_t row_recv(const hpa_mpi_sum *m)
{
    return m->bytes_recv + m->coll_recv;
}

static void mpi_calls(FILE *f, const char *title, const mg_aggcall *c, size_t n, bool sites)
{
    if (!n)
        return;
    fprintf(f,
            "\n%s (Rank min/mean/max s: one rank's total time in the call, over the ranks "
            "that made it; COV: of those ranks' times; Call max us: the longest single call; "
            "bytes: point-to-point and collective, as hpanalyze mpi)\n",
            title);
    fprintf(f, "%-16s %8s %9s %10s %11s %10s %6s %12s %12s %12s", "Call", "Calls", "Total s",
            "Rank min s", "Rank mean s", "Rank max s", "COV", "Call max us", "Bytes sent",
            "Bytes recv");
    fprintf(f, sites ? "  Site\n" : "\n");
    for (size_t i = 0; i < n; i++) {
        const hpa_mpi_sum *m = &c[i].s;
        fprintf(f,
                "%-16s %8" PRIu64 " %9.3f %10.3f %11.3f %10.3f %6.2f %12.1f %12" PRIu64
                " %12" PRIu64,
                c[i].call, m->calls, s_of(m->time_ns), c[i].time.min, c[i].time.mean, c[i].time.max,
                c[i].cov, (double)m->max_ns / 1e3, row_sent(m), row_recv(m));
        if (sites)
            fprintf(f, "  %s", c[i].site);
        fputc('\n', f);
    }
}

/* Each OpenMP runtime that ran, once ("LLVM libomp ... in place of the program's GNU
 * libgomp": hpcollect's choice, which the reader must know). */
static void omp_runtimes(FILE *f, const mg_agg *a)
{
    for (size_t i = 0; i < a->nruntimes; i++)
        fprintf(f, "%sOpenMP runtime: %s\n", i == 0 ? "\n" : "", a->runtimes[i]);
}

static void openmp(FILE *f, const mg_agg *a)
{
    omp_runtimes(f, a);
    if (!a->nomps)
        return;
    fprintf(f, "\nOpenMP parallel regions (sampled CPU time)\n");
    fprintf(f, "%-40s %9s %9s %9s %9s %7s\n", "Region", "Instances", "Wall s", "Work s", "Wait s",
            "Wait %");
    for (size_t i = 0; i < a->nomps; i++) {
        const mg_aggomp *o = &a->omps[i];
        fprintf(f, "%-40s %9" PRIu64 " %9.3f %9.3f %9.3f %6.1f%%\n", o->name, o->instances,
                s_of(o->wall_ns), s_of(o->work_ns), s_of(o->wait_ns),
                pct((double)o->wait_ns, (double)(o->work_ns + o->wait_ns)));
        for (size_t k = 0; k < o->nthreads; k++) {
            const mg_aggompthr *t = &o->threads[k];
            char who[64];
            if (t->rank >= 0)
                snprintf(who, sizeof(who), "rank %lld thread %u", (long long)t->rank, t->seq);
            else
                snprintf(who, sizeof(who), "%s thread %u", t->proc, t->seq);
            fprintf(f, "  %-38s %9s %9s %9.3f %9.3f %6.1f%%\n", who, "", "", s_of(t->work_ns),
                    s_of(t->wait_ns), pct((double)t->wait_ns, (double)(t->work_ns + t->wait_ns)));
        }
    }
}

/* Heap tracing (-H) per process: allocations, leaks, peak. */
static void heap_row(FILE *f, const mg_proc *p)
{
    const uint64_t *h = p->sum.heap;
    if (!p->sum.heap_traced)
        return;
    fprintf(f,
            "%-12s %6lld %12" PRIu64 " %14" PRIu64 " %10" PRIu64 " %12" PRIu64 " %12" PRIu64
            " %12" PRIu64 "%s\n",
            p->name, (long long)p->rank, h[0], h[1], h[3], h[4], h[5], h[6],
            p->sum.ended_early ? "  (leaks as of its last record)" : "");
}

static int heap(FILE *f, const mg_summary *s)
{
    if (!s->agg.any_heap)
        return 0;
    fprintf(f, "\nHeap (-H) per process\n");
    fprintf(f, "%-12s %6s %12s %14s %10s %12s %12s %12s\n", "Process", "Rank", "Allocations",
            "Bytes", "Leaks", "Bytes leaked", "Peak bytes", "Temporary");
    return mg_summary_copy(s, MG_ROWS_HEAP, f);
}

static void thread_rows(FILE *f, const mg_proc *p)
{
    for (size_t k = 0; k < p->nlocs; k++) {
        const mg_tsum *t = &p->locs[k].sum;
        fprintf(f, "%-12s %7u %-22s %9" PRIu64 " %9.3f %9.3f %9.3f %9.3f %10" PRIu64 "\n",
                k == 0 ? p->name : "", t->seq, k == 0 ? p->sum.end_note : "", t->samples,
                s_of(t->cpu_ns), s_of(t->sample_cpu_ns), s_of(t->omp_work_ns), s_of(t->omp_wait_ns),
                t->events);
    }
}

static int threads(FILE *f, const mg_summary *s)
{
    fprintf(f, "\nProcesses and threads\n");
    fprintf(f, "%-12s %7s %-22s %9s %9s %9s %9s %9s %10s\n", "Process", "Thread", "End", "Samples",
            "CPU s", "Sampled s", "OMP work", "OMP wait", "Events");
    return mg_summary_copy(s, MG_ROWS_THREADS, f);
}

/* Thread states per rank and thread (User and System CPU from the samples, the others
 * from the sample_state records; Total = all of them, the thread's life). */
static void states_rows(FILE *f, const mg_proc *p)
{
    if (!mg_proc_has_states(p))
        return;
    for (size_t k = 0; k < p->nlocs; k++) {
        const mg_tsum *t = &p->locs[k].sum;
        uint64_t total = 0;
        fprintf(f, "%-12s %7u", k == 0 ? p->name : "", t->seq);
        for (unsigned m = 0; m < HPC_NMSTATES; m++) {
            fprintf(f, " %9.3f", s_of(t->state_ns[m]));
            total += t->state_ns[m];
        }
        fprintf(f, " %9.3f %9.3f\n", s_of(total), s_of(t->life_ns));
    }
}

static int thread_states(FILE *f, const mg_summary *s)
{
    if (!s->agg.any_states)
        return 0;
    fprintf(f, "\nThread states (seconds)\n");
    fprintf(f, "%-12s %7s %9s %9s %9s %9s %9s %9s %9s %9s %9s\n", "Process", "Thread", "User",
            "System", "Wait CPU", "User Lock", "Text PF", "Data PF", "Other", "Total", "Life");
    return mg_summary_copy(s, MG_ROWS_STATES, f);
}

/* Synchronization waits (-s) per process and thread, when any was recorded. */
static void sync_rows(FILE *f, const mg_proc *p)
{
    for (size_t k = 0; k < p->nlocs; k++) {
        const mg_tsum *t = &p->locs[k].sum;
        fprintf(f, "%-12s %7u %12.6f %12" PRIu64 "\n", k == 0 ? p->name : "", t->seq,
                s_of(t->sync_ns), t->sync_waits);
    }
}

static int sync_waits(FILE *f, const mg_summary *s)
{
    if (!s->agg.any_sync)
        return 0;
    fprintf(f, "\nSynchronization waits (recorded at or above the threshold, -s)\n");
    fprintf(f, "%-12s %7s %12s %12s\n", "Process", "Thread", "Sync Wait s", "Sync Waits");
    return mg_summary_copy(s, MG_ROWS_SYNC, f);
}

void mg_summary_rows_text(FILE *const rows[MG_NROWS], const mg_proc *p)
{
    mpi_rank_row(rows[MG_ROWS_MPI], p);
    heap_row(rows[MG_ROWS_HEAP], p);
    states_rows(rows[MG_ROWS_STATES], p);
    sync_rows(rows[MG_ROWS_SYNC], p);
    thread_rows(rows[MG_ROWS_THREADS], p);
}

static void counters(FILE *f, const mg_agg *a)
{
    if (!a->nctrs)
        return;
    fprintf(f, "\nCounters (all processes)\n");
    fprintf(f, "%-24s %-10s %10s %16s\n", "Counter", "Unit", "Samples", "Total");
    for (size_t i = 0; i < a->nctrs; i++)
        fprintf(f, "%-24s %-10s %10" PRIu64 " %16" PRIu64 "\n", a->ctrs[i].name, a->ctrs[i].unit,
                a->ctrs[i].samples, a->ctrs[i].value);
}

/* I/O (-i): per process, then per file (the job's top files by I/O time), whether one
 * process or several used each file. */
static void io(FILE *f, const mg_job *job)
{
    mg_io m;
    if (!mg_summary_io(job, &m))
        return;
    char who[64], slow[64];
    fprintf(f, "\nI/O per process (-i)\n%-14s %14s %8s %14s %8s %8s %8s %10s\n", "Process",
            "Read bytes", "Reads", "Write bytes", "Writes", "Other", "Errors", "Time(s)");
    for (size_t i = 0; i < m.nprocs; i++) {
        const hpa_io_sum *s = &m.procs[i];
        fprintf(f,
                "%-14s %14" PRIu64 " %8" PRIu64 " %14" PRIu64 " %8" PRIu64 " %8" PRIu64 " %8" PRIu64
                " %10.3f\n",
                mg_summary_io_label(job, (uint32_t)i, who, sizeof who), s->bytes[HPA_IO_READ],
                s->count[HPA_IO_READ], s->bytes[HPA_IO_WRITE], s->count[HPA_IO_WRITE],
                s->count[HPA_IO_OTHER], s->count[HPA_IO_ERROR], s_of(hpa_io_ns(s)));
    }
    fprintf(f,
            "\nI/O per file (%" PRIu32 " files: %" PRIu32 " shared by processes, %" PRIu32
            " used by one)\n%14s %14s %10s %10s %-16s %-10s %s\n",
            m.nfiles, m.shared, m.single, "Read bytes", "Write bytes", "Time(s)", "MB/s", "Used by",
            "Slowest", "File");
    size_t n = m.nfiles < job->top ? m.nfiles : job->top;
    for (size_t k = 0; k < n; k++) {
        const hpa_io_file *fl = &m.io.files[m.order[k]];
        if (fl->nshares > 1)
            snprintf(who, sizeof who, "shared by %" PRIu32, fl->nshares);
        else
            mg_summary_io_label(job, fl->shares[0].proc, who, sizeof who);
        fprintf(f, "%14" PRIu64 " %14" PRIu64 " %10.3f %10.1f %-16s %-10s %s\n",
                fl->s.bytes[HPA_IO_READ], fl->s.bytes[HPA_IO_WRITE], s_of(hpa_io_ns(&fl->s)),
                hpa_io_bandwidth(&fl->s) / 1e6, who,
                fl->nshares > 1
                    ? mg_summary_io_label(job, fl->shares[mg_summary_io_slowest(fl)].proc, slow,
                                          sizeof slow)
                    : "",
                hpa_strtab_get(&m.io.paths, fl->path));
    }
    mg_summary_io_free(&m);
}

int mg_summary_write_text(const mg_summary *s, FILE *f)
{
    const mg_agg *a = &s->agg;
    int bad = 0;
    run_facts(f, a);
    functions(f, a);
    if (a->nranks) {
        bad |= mpi_ranks(f, s);
        mpi_calls(f, "MPI calls across ranks", a->calls, a->ncalls, false);
        mpi_calls(f, "MPI call sites across ranks", a->sites, a->nsites, true);
    }
    openmp(f, a);
    counters(f, a);
    bad |= thread_states(f, s);
    bad |= sync_waits(f, s);
    bad |= heap(f, s);
    io(f, s->job);
    bad |= threads(f, s);
    return ferror(f) || bad ? -1 : 0;
}
