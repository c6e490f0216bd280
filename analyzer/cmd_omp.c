/*
 * cmd_omp.c - `omp [regions|threads]`: OpenMP parallel regions, the worksharing
 * constructs and barriers inside them, and threads: work and wait.
 *
 *     OpenMP runtime: LLVM libomp (LLVM OMP version: 5.0.20140926) (--omp-runtime auto):
 *     OpenMP states recorded
 *
 *     Parallel regions (process main, rank 0):
 *         Execs Threads     Wall     Work     Wait  Work(w)  Wait(w)  Imbal.  Region
 *                           sec.     sec.     sec.     sec.     sec.
 *            10       2    0.554    0.900    0.203    1.105    0.326    1.24  loops
 * (omp_loops.c:25) 10       2             0.399    0.079    0.432    0.173    1.50    for
 * (omp_loops.c:27) 10       2             0.298    0.001    0.336    0.099    1.33    for
 * (omp_loops.c:30)
 *
 *     Threads (Work, Wait, Idle, Overhead, MPI: CPU sec.; (w): traced wall-clock sec.):
 *        Rank Thread     Work     Wait     Idle   Overhd      MPI  Work(w)  Wait(w)  Waits by kind
 *           0      0    0.501    0.002    0.000    0.000    0.000    0.562    0.009  ...
 *
 * Meanings (model/omp_model.h): Work and Wait are CPU time of samples in OpenMP work and
 * wait states, as the reference defines them for Linux; time inside MPI calls is MPI's;
 * idle is a worker's time outside regions; (w) columns are traced wall-clock time from
 * the region and wait records (exclusive: a nested region's time is its own; MPI calls
 * left out), so a thread that sleeps while it waits has Wait(w) but little Wait.
 * Imbalance is the largest thread's work (CPU) in the region, or the construct, over the
 * mean of the threads that ran in it. A region's indented rows are its worksharing
 * constructs and barriers (a barrier's work is its threads' time since their previous
 * barrier; the region's end is one when anything else is): where the imbalance is.
 *
 * CSV: `omp` or `omp threads` prints the thread table, `omp regions` the region table
 * (with a row per construct inside: kind and region_index tell). JSON has both. Stable
 * keys, threads: rank, process, thread, omp_work_s, omp_wait_s, omp_idle_s,
 * omp_overhead_s, mpi_s, omp_wait_<kind>_s, omp_work_wall_s, omp_wait_wall_s,
 * omp_in_region_wall_s, mpi_wall_s, life_wall_s, omp_wait_<kind>_wall_s; regions: rank,
 * process, kind ("parallel"), function, file, line, executions, threads, wall_s,
 * omp_work_s, omp_wait_s, omp_overhead_s, mpi_s, omp_work_wall_s, omp_wait_wall_s,
 * imbalance, omp_wait_<kind>_s, parts (kind: "loop", "barrier", "workshare_barrier",
 * "implicit_barrier" ...; construct, function, file, line, executions, threads,
 * omp_work_s, omp_wait_s, omp_work_wall_s, omp_wait_wall_s, imbalance, imbalance_wall,
 * per_thread: thread, executions, omp_work_s, omp_wait_s, omp_work_wall_s,
 * omp_wait_wall_s); processes: process, rank, runtime, ompt, runtime_replaced,
 * runtime_text. rank is the MPI rank, or the process's position when not MPI.
 */
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "omp_proc.h"

/* Sampled CPU sums of one thread, over all constructs or one. */
typedef struct cpu_sums {
    uint64_t cat[HPA_OMP_CAT_COUNT];
    uint64_t wait[HPA_OMP_W_COUNT];
} cpu_sums;

/* Everything the report prints for one process. */
typedef struct omp_proc_report {
    const hpa_process *pr;
    hpa_omp_proc *m;
    int rank;
    uint32_t nthreads;        /* = m->nthreads */
    cpu_sums *thread_cpu;     /* [thread] */
    cpu_sums *construct_cpu;  /* [construct] */
    uint64_t *work;           /* [thread * (ncons + 1) + construct]: sampled work */
    uint64_t *busy;           /* the same, work + wait: who ran in the construct */
    const hpa_filter *filter; /* --threads */
} omp_proc_report;

/* A bucket's CPU time by its category (model/omp_model.h: in an MPI call it is MPI's). */
static void add_bucket(cpu_sums *s, uint32_t state, uint64_t ns)
{
    enum hpa_omp_cat cat = hpa_omp_sample_cat(state);
    s->cat[cat] += ns;
    int w = cat == HPA_OMP_CAT_WAIT ? hpa_omp_state_wait(HPC_STATE_OMP(state)) : -1;
    if (w >= 0)
        s->wait[w] += ns;
}

static int omp_thread_index(const hpa_omp_proc *m, uint32_t seq)
{
    for (uint32_t i = 0; i < m->nthreads; i++)
        if (m->threads[i].seq == seq)
            return (int)i;
    return -1;
}

static int build(omp_proc_report *r, const hpa_profile *p, size_t proc_index)
{
    const hpa_process *pr = &p->procs[proc_index];
    r->pr = pr;
    r->m = pr->omp;
    r->rank = pr->proc->rank >= 0 ? pr->proc->rank : (int)proc_index;
    r->nthreads = r->m->nthreads;
    r->filter = &p->filter;
    r->thread_cpu = calloc(r->nthreads ? r->nthreads : 1, sizeof(cpu_sums));
    r->construct_cpu = calloc(r->m->ncons + 1, sizeof(cpu_sums));
    size_t cells = (size_t)(r->nthreads ? r->nthreads : 1) * (r->m->ncons + 1);
    r->work = calloc(cells, sizeof(uint64_t));
    r->busy = calloc(cells, sizeof(uint64_t));
    if (!r->thread_cpu || !r->construct_cpu || !r->work || !r->busy)
        return HPC_E_NOMEM;
    unsigned cpu = p->metrics.cpu;
    for (uint32_t t = 0; t < pr->nthreads; t++) {
        const hpa_thread *th = &pr->threads[t];
        int ti = omp_thread_index(r->m, th->seq);
        for (uint32_t b = 0; b < th->nbuckets; b++) {
            const hpa_bucket *bk = &th->buckets[b];
            uint64_t ns = bk->vals[cpu];
            if (ti >= 0)
                add_bucket(&r->thread_cpu[ti], bk->state, ns);
            uint32_t con =
                bk->omp_ctx && bk->omp_ctx < r->m->nctx ? r->m->ctxs[bk->omp_ctx].con : r->m->ncons;
            add_bucket(&r->construct_cpu[con], bk->state, ns);
            if (ti < 0)
                continue;
            size_t cell = (size_t)ti * (r->m->ncons + 1) + con;
            enum hpa_omp_cat cat = hpa_omp_sample_cat(bk->state);
            if (cat == HPA_OMP_CAT_WORK)
                r->work[cell] += ns;
            if (cat == HPA_OMP_CAT_WORK || cat == HPA_OMP_CAT_WAIT)
                r->busy[cell] += ns;
        }
    }
    return 0;
}

/* Thread t is listed: kept by --threads, and an OpenMP thread (it has an omp_thread
 * record or OpenMP samples; other threads of the process, e.g. MPI's, are not). */
static bool listed(const omp_proc_report *r, uint32_t t)
{
    const cpu_sums *s = &r->thread_cpu[t];
    bool omp = r->m->threads[t].type != 0 || s->cat[HPA_OMP_CAT_WORK] || s->cat[HPA_OMP_CAT_WAIT];
    return omp && (!r->filter->active || hpa_filter_thread(r->filter, r->m->threads[t].seq));
}

static void free_report(omp_proc_report *r)
{
    free(r->thread_cpu);
    free(r->construct_cpu);
    free(r->work);
    free(r->busy);
}

/* Threads of a construct: what the runtime gave, else what the program asked for. */
static unsigned team_of(const hpa_omp_con *c)
{
    return c->actual_team ? c->actual_team : c->max_team;
}

static double sec(uint64_t ns)
{
    return (double)ns * 1e-9;
}

static uint64_t traced_wait(const hpa_omp_traced *t)
{
    uint64_t w = 0;
    for (int k = 0; k < HPA_OMP_W_COUNT; k++)
        w += t->wait_ns[k];
    return w;
}

/* Time in the construct's implicit tasks neither waiting nor in MPI calls. */
static uint64_t traced_work(const hpa_omp_traced *t)
{
    uint64_t w = traced_wait(t) + t->mpi_ns;
    return t->in_region_ns > w ? t->in_region_ns - w : 0;
}

/* Traced work and wait of every thread in construct c. */
static void construct_traced(const hpa_omp_proc *m, uint32_t c, uint64_t *work, uint64_t *wait)
{
    *work = *wait = 0;
    for (uint32_t t = 0; t < m->nthreads; t++) {
        *work += traced_work(&m->threads[t].traced[c]);
        *wait += traced_wait(&m->threads[t].traced[c]);
    }
}

/* Traced totals of one thread over every construct; serial work for the initial thread
 * (lifetime outside regions), idle for workers. */
typedef struct thread_traced {
    uint64_t work, wait, wait_kind[HPA_OMP_W_COUNT], in_region, outside, mpi, life;
} thread_traced;

static thread_traced thread_totals(const hpa_omp_proc *m, const hpa_omp_thread *th)
{
    thread_traced x = {0};
    for (uint32_t c = 0; c <= m->ncons; c++) {
        const hpa_omp_traced *t = &th->traced[c];
        x.in_region += t->in_region_ns;
        x.wait += traced_wait(t);
        x.work += c < m->ncons ? traced_work(t) : 0;
        x.mpi += t->mpi_ns;
        for (int k = 0; k < HPA_OMP_W_COUNT; k++)
            x.wait_kind[k] += t->wait_ns[k];
    }
    x.life = th->t_last > th->t_first ? th->t_last - th->t_first : 0;
    x.outside = x.life > x.in_region ? x.life - x.in_region : 0;
    uint64_t serial_mpi = th->traced[m->ncons].mpi_ns;
    if (hpa_omp_state_cat(hpa_omp_unreported_state(th->type)) == HPA_OMP_CAT_WORK)
        x.work += x.outside > serial_mpi ? x.outside - serial_mpi : 0; /* serial code */
    return x;
}

/* Imbalance of construct c: the largest thread's work over the mean of the threads that
 * ran in it (work and wait samples there). CPU work, not wall-clock: a thread the
 * scheduler keeps from running does not look busier. */
static double imbalance(const omp_proc_report *r, uint32_t c)
{
    uint64_t most = 0, sum = 0;
    unsigned n = 0;
    for (uint32_t t = 0; t < r->nthreads; t++) {
        size_t cell = (size_t)t * (r->m->ncons + 1) + c;
        if (r->busy[cell] == 0)
            continue;
        most = r->work[cell] > most ? r->work[cell] : most;
        sum += r->work[cell];
        n++;
    }
    return n && sum ? (double)most / ((double)sum / n) : 0;
}

/* Function, file and line of construct c. */
static void construct_where(const hpa_profile *p, const omp_proc_report *r, uint32_t c,
                            const char **func, const char **file, unsigned *line)
{
    hpa_loc l = hpa_omp_construct_loc(p, r->pr, c);
    const hpa_line *ln = hpa_symtab_line(p->syms, l.line);
    *func = hpa_symtab_func(p->syms, l.func)->name;
    *file = ln && ln->file ? ln->file : "";
    *line = ln ? ln->lineno : 0;
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ------------------------------------------------------------------ parts */

/* What a part's row shows: sums over the threads that executed it. */
typedef struct part_row {
    uint64_t instances;      /* most executions by one thread */
    unsigned threads;        /* threads that executed it */
    uint64_t work, wait;     /* CPU */
    uint64_t work_w, wait_w; /* wall */
    uint64_t most, most_w;   /* the largest thread's work, CPU and wall */
} part_row;

static part_row part_sums(const hpa_omp_proc *m, uint32_t part)
{
    part_row x = {0};
    for (size_t i = 0; i < m->ncells; i++) {
        const hpa_omp_cell *c = &m->cells[i];
        if (c->part != part)
            continue;
        x.threads += c->instances > 0;
        x.instances = c->instances > x.instances ? c->instances : x.instances;
        x.work += c->cpu_work_ns, x.wait += c->cpu_wait_ns;
        x.work_w += c->work_ns, x.wait_w += c->wait_ns;
        x.most = c->cpu_work_ns > x.most ? c->cpu_work_ns : x.most;
        x.most_w = c->work_ns > x.most_w ? c->work_ns : x.most_w;
    }
    return x;
}

/* The largest thread's work over the mean of the threads that executed the part. */
static double part_imbalance(const part_row *x, bool wall)
{
    uint64_t sum = wall ? x->work_w : x->work, most = wall ? x->most_w : x->most;
    return x->threads && sum ? (double)most / ((double)sum / x->threads) : 0;
}

/* Part i is a row of its own: not the region's end alone (the region's row says it). */
static bool part_shown(const hpa_omp_proc *m, uint32_t i)
{
    if (m->parts[i].construct != HPA_OC_IMPLICIT_BARRIER)
        return true;
    for (uint32_t k = 0; k < m->nparts; k++)
        if (k != i && m->parts[k].con == m->parts[i].con)
            return true;
    return false;
}

/* What a part is called in a row: "for", "barrier", "implicit barrier (worksharing)". */
static const char *part_kind(const hpa_omp_part *pt)
{
    return hpa_omp_construct(pt->construct)->name;
}

static void part_where(const hpa_profile *p, const omp_proc_report *r, uint32_t i,
                       const char **func, const char **file, unsigned *line)
{
    hpa_loc l = hpa_omp_part_loc(p, r->pr, i);
    const hpa_line *ln = hpa_symtab_line(p->syms, l.line);
    *func = hpa_symtab_func(p->syms, l.func)->name;
    *file = ln && ln->file ? ln->file : "";
    *line = ln ? ln->lineno : 0;
}

/* ------------------------------------------------------------------ text */

static void text_part(FILE *f, const hpa_profile *p, const omp_proc_report *r, uint32_t i)
{
    const hpa_omp_part *pt = &r->m->parts[i];
    part_row x = part_sums(r->m, i);
    const char *func, *file;
    unsigned line;
    part_where(p, r, i, &func, &file, &line);
    fprintf(f, "  %7llu %7u %8s %8.3f %8.3f %8.3f %8.3f %7.2f    %s (%s:%u)\n",
            (unsigned long long)x.instances, x.threads, "", sec(x.work), sec(x.wait), sec(x.work_w),
            sec(x.wait_w), part_imbalance(&x, x.work == 0), part_kind(pt), base_name(file), line);
}

static void text_process(FILE *f, const hpa_profile *p, const omp_proc_report *r)
{
    const hpa_omp_proc *m = r->m;
    fprintf(f, "Parallel regions (process %s, rank %d):\n", r->pr->proc->name, r->rank);
    fprintf(f, "  %7s %7s %8s %8s %8s %8s %8s %7s  %s\n", "Execs", "Threads", "Wall", "Work",
            "Wait", "Work(w)", "Wait(w)", "Imbal.", "Region");
    fprintf(f, "  %7s %7s %8s %8s %8s %8s %8s\n", "", "", "sec.", "sec.", "sec.", "sec.", "sec.");
    for (uint32_t c = 0; c < m->ncons; c++) {
        const hpa_omp_con *con = &m->cons[c];
        uint64_t work_w, wait_w;
        construct_traced(m, c, &work_w, &wait_w);
        const char *func, *file;
        unsigned line;
        construct_where(p, r, c, &func, &file, &line);
        fprintf(f, "  %7llu %7u %8.3f %8.3f %8.3f %8.3f %8.3f %7.2f  %s (%s:%u)\n",
                (unsigned long long)con->executions, team_of(con), sec(con->wall_ns),
                sec(r->construct_cpu[c].cat[HPA_OMP_CAT_WORK]),
                sec(r->construct_cpu[c].cat[HPA_OMP_CAT_WAIT]), sec(work_w), sec(wait_w),
                imbalance(r, c), func, base_name(file), line);
        for (uint32_t i = 0; i < m->nparts; i++)
            if (m->parts[i].con == c && part_shown(m, i))
                text_part(f, p, r, i);
    }
    fprintf(f, "  Work, Wait: CPU sec., sampled; (w): wall-clock sec., traced; both summed over "
               "the threads.\n  Imbal.: the largest thread's CPU work over the mean. Indented: "
               "worksharing constructs and barriers\n  (a barrier's work: its threads' time "
               "since their previous barrier).\n");
    fprintf(f, "\nThreads (Work, Wait, Idle, Overhead, MPI: CPU sec.; (w): traced wall-clock "
               "sec.):\n");
    fprintf(f, "  %5s %6s %8s %8s %8s %8s %8s %8s %8s  %s\n", "Rank", "Thread", "Work", "Wait",
            "Idle", "Overhd", "MPI", "Work(w)", "Wait(w)", "Waits by kind (CPU sec.)");
    for (uint32_t t = 0; t < m->nthreads; t++) {
        if (!listed(r, t))
            continue;
        const cpu_sums *s = &r->thread_cpu[t];
        thread_traced x = thread_totals(m, &m->threads[t]);
        fprintf(f, "  %5d %6u %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f ", r->rank,
                m->threads[t].seq, sec(s->cat[HPA_OMP_CAT_WORK]), sec(s->cat[HPA_OMP_CAT_WAIT]),
                sec(s->cat[HPA_OMP_CAT_IDLE]), sec(s->cat[HPA_OMP_CAT_OVERHEAD]),
                sec(s->cat[HPA_OMP_CAT_MPI]), sec(x.work), sec(x.wait));
        for (int k = 0; k < HPA_OMP_W_COUNT; k++)
            if (s->wait[k])
                fprintf(f, " %s %.3f", hpa_omp_wait_key(k), sec(s->wait[k]));
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* ------------------------------------------------------------------ CSV and JSON */

static void csv_thread_header(FILE *f)
{
    fputs("rank,process,thread,omp_work_s,omp_wait_s,omp_idle_s,omp_overhead_s", f);
    for (int k = 0; k < HPA_OMP_W_COUNT; k++)
        fprintf(f, ",omp_wait_%s_s", hpa_omp_wait_key(k));
    fputs(",omp_work_wall_s,omp_wait_wall_s", f);
    for (int k = 0; k < HPA_OMP_W_COUNT; k++)
        fprintf(f, ",omp_wait_%s_wall_s", hpa_omp_wait_key(k));
    fputs(",mpi_s\n", f);
}

static void csv_threads(FILE *f, const omp_proc_report *r)
{
    const hpa_omp_proc *m = r->m;
    for (uint32_t t = 0; t < m->nthreads; t++) {
        if (!listed(r, t))
            continue;
        const cpu_sums *s = &r->thread_cpu[t];
        thread_traced x = thread_totals(m, &m->threads[t]);
        fprintf(f, "%d,", r->rank);
        hpa_csv_field(f, r->pr->proc->name, ',');
        fprintf(f, "%u,%.9f,%.9f,%.9f,%.9f", m->threads[t].seq, sec(s->cat[HPA_OMP_CAT_WORK]),
                sec(s->cat[HPA_OMP_CAT_WAIT]), sec(s->cat[HPA_OMP_CAT_IDLE]),
                sec(s->cat[HPA_OMP_CAT_OVERHEAD]));
        for (int k = 0; k < HPA_OMP_W_COUNT; k++)
            fprintf(f, ",%.9f", sec(s->wait[k]));
        fprintf(f, ",%.9f,%.9f", sec(x.work), sec(x.wait));
        for (int k = 0; k < HPA_OMP_W_COUNT; k++)
            fprintf(f, ",%.9f", sec(x.wait_kind[k]));
        fprintf(f, ",%.9f\n", sec(s->cat[HPA_OMP_CAT_MPI]));
    }
}

static void csv_region_header(FILE *f)
{
    fputs("rank,process,function,file,line,executions,threads,wall_s,omp_work_s,omp_wait_s,"
          "omp_work_wall_s,omp_wait_wall_s,imbalance",
          f);
    for (int k = 0; k < HPA_OMP_W_COUNT; k++)
        fprintf(f, ",omp_wait_%s_s", hpa_omp_wait_key(k));
    fputs(",kind,region_index\n", f);
}

static void csv_regions(FILE *f, const hpa_profile *p, const omp_proc_report *r)
{
    const hpa_omp_proc *m = r->m;
    for (uint32_t c = 0; c < m->ncons; c++) {
        const hpa_omp_con *con = &m->cons[c];
        const cpu_sums *s = &r->construct_cpu[c];
        uint64_t work_w, wait_w;
        construct_traced(m, c, &work_w, &wait_w);
        const char *func, *file;
        unsigned line;
        construct_where(p, r, c, &func, &file, &line);
        fprintf(f, "%d,", r->rank);
        hpa_csv_field(f, r->pr->proc->name, ',');
        hpa_csv_field(f, func, ',');
        hpa_csv_field(f, file, ',');
        fprintf(f, "%u,%llu,%u,%.9f,%.9f,%.9f,%.9f,%.9f,%.4f", line,
                (unsigned long long)con->executions, team_of(con), sec(con->wall_ns),
                sec(s->cat[HPA_OMP_CAT_WORK]), sec(s->cat[HPA_OMP_CAT_WAIT]), sec(work_w),
                sec(wait_w), imbalance(r, c));
        for (int k = 0; k < HPA_OMP_W_COUNT; k++)
            fprintf(f, ",%.9f", sec(s->wait[k]));
        fprintf(f, ",parallel,%u\n", c);
        for (uint32_t i = 0; i < m->nparts; i++) {
            if (m->parts[i].con != c || !part_shown(m, i))
                continue;
            part_row x = part_sums(m, i);
            part_where(p, r, i, &func, &file, &line);
            fprintf(f, "%d,", r->rank);
            hpa_csv_field(f, r->pr->proc->name, ',');
            hpa_csv_field(f, func, ',');
            hpa_csv_field(f, file, ',');
            fprintf(f, "%u,%llu,%u,,%.9f,%.9f,%.9f,%.9f,%.4f", line,
                    (unsigned long long)x.instances, x.threads, sec(x.work), sec(x.wait),
                    sec(x.work_w), sec(x.wait_w), part_imbalance(&x, x.work == 0));
            for (int k = 0; k < HPA_OMP_W_COUNT; k++)
                fputs(",", f);
            fprintf(f, ",%s,%u\n", hpa_omp_construct(m->parts[i].construct)->key, c);
        }
    }
}

static void json_waits(hpa_json *j, const char *fmt, const uint64_t *ns)
{
    for (int k = 0; k < HPA_OMP_W_COUNT; k++) {
        char key[64];
        snprintf(key, sizeof(key), fmt, hpa_omp_wait_key(k));
        hpa_json_kdouble(j, key, sec(ns[k]));
    }
}

static void json_parts(hpa_json *j, const hpa_profile *p, const omp_proc_report *r, uint32_t c)
{
    const hpa_omp_proc *m = r->m;
    hpa_json_key(j, "parts");
    hpa_json_begin_arr(j);
    for (uint32_t i = 0; i < m->nparts; i++) {
        if (m->parts[i].con != c || !part_shown(m, i))
            continue;
        part_row x = part_sums(m, i);
        const char *func, *file;
        unsigned line;
        part_where(p, r, i, &func, &file, &line);
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "kind", hpa_omp_construct(m->parts[i].construct)->key);
        hpa_json_kstr(j, "construct", part_kind(&m->parts[i]));
        hpa_json_kstr(j, "function", func);
        hpa_json_kstr(j, "file", file);
        hpa_json_ku64(j, "line", line);
        hpa_json_ku64(j, "executions", x.instances);
        hpa_json_ku64(j, "threads", x.threads);
        hpa_json_kdouble(j, "omp_work_s", sec(x.work));
        hpa_json_kdouble(j, "omp_wait_s", sec(x.wait));
        hpa_json_kdouble(j, "omp_work_wall_s", sec(x.work_w));
        hpa_json_kdouble(j, "omp_wait_wall_s", sec(x.wait_w));
        hpa_json_kdouble(j, "imbalance", part_imbalance(&x, false));
        hpa_json_kdouble(j, "imbalance_wall", part_imbalance(&x, true));
        hpa_json_key(j, "per_thread");
        hpa_json_begin_arr(j);
        for (size_t k = 0; k < m->ncells; k++)
            if (m->cells[k].part == i) {
                hpa_json_begin_obj(j);
                hpa_json_ku64(j, "thread", m->threads[m->cells[k].thread].seq);
                hpa_json_ku64(j, "executions", m->cells[k].instances);
                hpa_json_kdouble(j, "omp_work_s", sec(m->cells[k].cpu_work_ns));
                hpa_json_kdouble(j, "omp_wait_s", sec(m->cells[k].cpu_wait_ns));
                hpa_json_kdouble(j, "omp_work_wall_s", sec(m->cells[k].work_ns));
                hpa_json_kdouble(j, "omp_wait_wall_s", sec(m->cells[k].wait_ns));
                hpa_json_end_obj(j);
            }
        hpa_json_end_arr(j);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
}

static void json_regions(hpa_json *j, const hpa_profile *p, const omp_proc_report *r)
{
    const hpa_omp_proc *m = r->m;
    for (uint32_t c = 0; c < m->ncons; c++) {
        const hpa_omp_con *con = &m->cons[c];
        const cpu_sums *s = &r->construct_cpu[c];
        uint64_t work_w, wait_w;
        construct_traced(m, c, &work_w, &wait_w);
        const char *func, *file;
        unsigned line;
        construct_where(p, r, c, &func, &file, &line);
        hpa_json_begin_obj(j);
        hpa_json_ki64(j, "rank", r->rank);
        hpa_json_kstr(j, "process", r->pr->proc->name);
        hpa_json_kstr(j, "kind", "parallel");
        hpa_json_kstr(j, "function", func);
        hpa_json_kstr(j, "file", file);
        hpa_json_ku64(j, "line", line);
        hpa_json_ku64(j, "executions", con->executions);
        hpa_json_ku64(j, "threads", team_of(con));
        hpa_json_kdouble(j, "wall_s", sec(con->wall_ns));
        hpa_json_kdouble(j, "omp_work_s", sec(s->cat[HPA_OMP_CAT_WORK]));
        hpa_json_kdouble(j, "omp_wait_s", sec(s->cat[HPA_OMP_CAT_WAIT]));
        hpa_json_kdouble(j, "omp_overhead_s", sec(s->cat[HPA_OMP_CAT_OVERHEAD]));
        hpa_json_kdouble(j, "mpi_s", sec(s->cat[HPA_OMP_CAT_MPI]));
        hpa_json_kdouble(j, "omp_work_wall_s", sec(work_w));
        hpa_json_kdouble(j, "omp_wait_wall_s", sec(wait_w));
        hpa_json_kdouble(j, "imbalance", imbalance(r, c));
        json_waits(j, "omp_wait_%s_s", s->wait);
        json_parts(j, p, r, c);
        hpa_json_end_obj(j);
    }
}

static void json_threads(hpa_json *j, const omp_proc_report *r)
{
    const hpa_omp_proc *m = r->m;
    for (uint32_t t = 0; t < m->nthreads; t++) {
        if (!listed(r, t))
            continue;
        const cpu_sums *s = &r->thread_cpu[t];
        const hpa_omp_thread *th = &m->threads[t];
        thread_traced x = thread_totals(m, th);
        hpa_json_begin_obj(j);
        hpa_json_ki64(j, "rank", r->rank);
        hpa_json_kstr(j, "process", r->pr->proc->name);
        hpa_json_ku64(j, "thread", th->seq);
        hpa_json_kdouble(j, "omp_work_s", sec(s->cat[HPA_OMP_CAT_WORK]));
        hpa_json_kdouble(j, "omp_wait_s", sec(s->cat[HPA_OMP_CAT_WAIT]));
        hpa_json_kdouble(j, "omp_idle_s", sec(s->cat[HPA_OMP_CAT_IDLE]));
        hpa_json_kdouble(j, "omp_overhead_s", sec(s->cat[HPA_OMP_CAT_OVERHEAD]));
        hpa_json_kdouble(j, "mpi_s", sec(s->cat[HPA_OMP_CAT_MPI]));
        json_waits(j, "omp_wait_%s_s", s->wait);
        hpa_json_kdouble(j, "omp_work_wall_s", sec(x.work));
        hpa_json_kdouble(j, "omp_wait_wall_s", sec(x.wait));
        hpa_json_kdouble(j, "omp_in_region_wall_s", sec(x.in_region));
        hpa_json_kdouble(j, "mpi_wall_s", sec(x.mpi));
        hpa_json_kdouble(j, "life_wall_s", sec(x.life));
        json_waits(j, "omp_wait_%s_wall_s", x.wait_kind);
        hpa_json_end_obj(j);
    }
}

/* ------------------------------------------------------------------ command */

static void say_unavailable(FILE *f, const hpa_profile *p)
{
    bool any = false;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_omp_proc *m = p->procs[i].omp;
        if (!m || m->ompt || !m->rt.seen)
            continue;
        fprintf(f,
                "Process %s ran on %s, which has no OMPT: OpenMP states are unavailable "
                "(reports show the machine view). hpcollect --omp-runtime llvm runs gcc-built "
                "programs on LLVM libomp, which has.\n",
                p->procs[i].proc->name, m->rt.name);
        any = true;
    }
    if (!any)
        fprintf(f, "No OpenMP runtime was seen in %s.\n",
                p->nexps ? p->exps[0]->path : "the experiment");
}

int cmd_omp(hpa_ctx *ctx, int argc, char **argv)
{
    const char *table = argc > 0 ? argv[0] : "threads";
    if (strcmp(table, "threads") != 0 && strcmp(table, "regions") != 0)
        return hpa_usage_error("omp", "%s: expected 'regions' or 'threads'", table);
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    omp_proc_report *rep = calloc(p->nprocs ? p->nprocs : 1, sizeof(*rep));
    if (!rep)
        return HPA_EXIT_DATA;
    size_t n = 0;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < p->nprocs; i++)
        if (p->procs[i].omp && p->procs[i].omp->ompt)
            rc = build(&rep[n++], p, i);
    FILE *f = ctx->out;
    char text[1024];
    if (rc == 0 && ctx->opts.format == HPA_TEXT) {
        if (n == 0)
            say_unavailable(f, p);
        for (size_t i = 0; i < n; i++) {
            hpa_omp_runtime_text(&rep[i].m->rt, text, sizeof(text));
            if (i == 0 || strcmp(rep[i].m->rt.name, rep[i - 1].m->rt.name) != 0 ||
                rep[i].m->rt.replaced != rep[i - 1].m->rt.replaced)
                fprintf(f, "OpenMP runtime: %s\n\n", text);
            text_process(f, p, &rep[i]);
        }
    } else if (rc == 0 && ctx->opts.format == HPA_CSV) {
        if (strcmp(table, "regions") == 0) {
            csv_region_header(f);
            for (size_t i = 0; i < n; i++)
                csv_regions(f, p, &rep[i]);
        } else {
            csv_thread_header(f);
            for (size_t i = 0; i < n; i++)
                csv_threads(f, &rep[i]);
        }
    } else if (rc == 0) {
        hpa_json j;
        hpa_json_init(&j, f);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", "omp");
        hpa_json_key(&j, "ompt");
        hpa_json_bool(&j, n > 0);
        hpa_json_key(&j, "processes");
        hpa_json_begin_arr(&j);
        for (size_t i = 0; i < p->nprocs; i++) {
            const hpa_omp_proc *m = p->procs[i].omp;
            hpa_json_begin_obj(&j);
            hpa_json_kstr(&j, "process", p->procs[i].proc->name);
            hpa_json_ki64(&j, "rank", p->procs[i].proc->rank);
            hpa_json_kstr(&j, "runtime", m && m->rt.seen ? m->rt.name : "");
            hpa_json_key(&j, "ompt");
            hpa_json_bool(&j, m && m->ompt);
            hpa_json_key(&j, "runtime_replaced");
            hpa_json_bool(&j, m && m->rt.replaced);
            hpa_json_kstr(&j, "runtime_text",
                          m && hpa_omp_runtime_text(&m->rt, text, sizeof(text)) ? text : "");
            hpa_json_end_obj(&j);
        }
        hpa_json_end_arr(&j);
        hpa_json_key(&j, "regions");
        hpa_json_begin_arr(&j);
        for (size_t i = 0; i < n; i++)
            json_regions(&j, p, &rep[i]);
        hpa_json_end_arr(&j);
        hpa_json_key(&j, "threads");
        hpa_json_begin_arr(&j);
        for (size_t i = 0; i < n; i++)
            json_threads(&j, &rep[i]);
        hpa_json_end_arr(&j);
        hpa_json_end_obj(&j);
        fputc('\n', f);
    }
    for (size_t i = 0; i < n; i++)
        free_report(&rep[i]);
    free(rep);
    return rc ? HPA_EXIT_DATA : HPA_EXIT_OK;
}
