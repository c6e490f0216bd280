/*
 * job.c - build the job model from an experiment (see job.h).
 */
#include "job.h"

#include "heap.h"
#include "omp_model.h"
#include "share.h"

#include <otf2/OTF2_Definitions.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_PROBLEMS 1000

void mg_job_problem(mg_job *job, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = NULL;
    if (vasprintf(&msg, fmt, ap) < 0)
        msg = NULL;
    va_end(ap);
    if (!msg)
        return;
    char *clean = mg_utf8_clean(msg); /* names from damaged data may be any bytes */
    free(msg);
    msg = clean;
    fprintf(stderr, "%s: %s\n", MG_PROG, msg);
    if (job->nproblems >= MAX_PROBLEMS) {
        job->problems_dropped++;
        free(msg);
        return;
    }
    *MG_PUSH(job->problems, job->nproblems, job->capproblems) = msg;
}

const uint64_t *mg_job_members(mg_job *job, const uint64_t *m, uint32_t n, uint32_t *id)
{
    *id = mg_xintern(&job->member_lists, (const char *)m, (size_t)n * sizeof(uint64_t));
    return (const uint64_t *)(const void *)hpa_strtab_get(&job->member_lists, *id);
}

/* NUL-separated argv -> one line with spaces. */
static char *argv_line(hpc_str a)
{
    char *s = mg_strdup_n(a.p, a.n);
    for (uint32_t i = 0; i + 1 < a.n; i++)
        if (s[i] == 0)
            s[i] = ' ';
    return s;
}

uint32_t mg_proc_region(mg_proc *p, uint64_t key, const char *name, const char *file, uint32_t line,
                        unsigned role, unsigned paradigm)
{
    uint64_t *slot = mg_xslot(&p->region_by_key, key, UINT64_MAX);
    if (*slot != UINT64_MAX)
        return (uint32_t)*slot;
    *slot = p->nregions;
    mg_region *r = MG_PUSH(p->regions, p->nregions, p->capregions);
    *r = (mg_region){mg_xstrdup(name), mg_xstrdup(file ? file : ""), line, (uint8_t)role,
                     (uint8_t)paradigm};
    return (uint32_t)(p->nregions - 1);
}

uint32_t mg_proc_team(mg_proc *p, uint32_t team_size)
{
    uint64_t *slot = mg_xslot(&p->team_by_size, team_size, UINT64_MAX);
    if (*slot != UINT64_MAX)
        return (uint32_t)*slot;
    *slot = p->ncomms;
    mg_comm *c = MG_PUSH(p->comms, p->ncomms, p->capcomms);
    *c = (mg_comm){.type = MG_COMM_OMP,
                   .parent = -1,
                   .mlist = UINT32_MAX,
                   .size = team_size,
                   .name = mg_xasprintf("OpenMP team of %u", team_size)};
    return (uint32_t)(p->ncomms - 1);
}

uint32_t mg_proc_ioh(mg_proc *p, uint64_t handle)
{
    uint64_t *slot = mg_xslot(&p->ioh_by_id, handle, UINT64_MAX);
    if (*slot != UINT64_MAX)
        return (uint32_t)*slot;
    *slot = p->niohs;
    *MG_PUSH(p->iohs, p->niohs, p->capiohs) = (mg_ioh){.file = UINT32_MAX, .parent = UINT32_MAX};
    return (uint32_t)(p->niohs - 1);
}

static void add_counter(mg_proc *p, uint64_t index, const char *name, const char *unit,
                        uint64_t interval)
{
    mg_xput(&p->ctr_by_index, index, p->nctrs);
    mg_ctrinfo *c = MG_PUSH(p->ctrs, p->nctrs, p->capctrs);
    c->name = mg_xstrdup(name);
    c->unit = mg_xstrdup(unit);
    c->interval = interval;
    c->metric = (uint32_t)p->nmetrics;
    c->igen = (uint32_t)p->nigens;
    mg_metric *m = MG_PUSH(p->metrics, p->nmetrics, p->capmetrics);
    *m = (mg_metric){
        mg_xstrdup(name), mg_xstrdup(unit),
        mg_xasprintf("%s, sampled every %llu %s", name, (unsigned long long)interval, unit),
        MG_METRIC_THREAD};
    mg_igen *g = MG_PUSH(p->igens, p->nigens, p->capigens);
    *g = (mg_igen){mg_xstrdup(name), OTF2_INTERRUPT_GENERATOR_MODE_COUNT, interval};
}

/* Thread states as OTF2 metrics, one per state (accumulated ns per thread: what the
 * sample_state records and the clock samples' User/System split add). */
static void add_state_metrics(mg_proc *p)
{
    static const char *const names[HPC_NMSTATES] = {
        [HPC_MSTATE_USER] = "User CPU",           [HPC_MSTATE_SYSTEM] = "System CPU",
        [HPC_MSTATE_WAIT_CPU] = "Wait CPU",       [HPC_MSTATE_USER_LOCK] = "User Lock",
        [HPC_MSTATE_TEXT_PF] = "Text Page Fault", [HPC_MSTATE_DATA_PF] = "Data Page Fault",
        [HPC_MSTATE_OTHER_WAIT] = "Other Wait"};
    p->state_metric = (uint32_t)p->nmetrics;
    for (unsigned s = 0; s < HPC_NMSTATES; s++) {
        mg_metric *m = MG_PUSH(p->metrics, p->nmetrics, p->capmetrics);
        *m = (mg_metric){
            mg_xstrdup(names[s]), mg_xstrdup("ns"),
            mg_xasprintf("thread state: the thread's time as %s, accumulated", names[s]),
            MG_METRIC_THREAD};
    }
}

mg_ctrinfo *mg_proc_counter(mg_proc *p, uint64_t index)
{
    uint64_t i;
    if (!hpa_u64map_get(&p->ctr_by_index, index, &i)) {
        char name[32];
        snprintf(name, sizeof(name), "counter%llu", (unsigned long long)index);
        add_counter(p, index, name, "events", 0);
        i = p->nctrs - 1;
    }
    return &p->ctrs[i];
}

static const char *comm_kind_name(unsigned kind)
{
    static const char *names[] = {[HPC_COMM_WORLD] = "MPI_COMM_WORLD",
                                  [HPC_COMM_SELF] = "MPI_COMM_SELF",
                                  [HPC_COMM_DUP] = "dup",
                                  [HPC_COMM_SPLIT] = "split",
                                  [HPC_COMM_CREATE] = "create",
                                  [HPC_COMM_CART] = "cart",
                                  [HPC_COMM_GRAPH] = "graph",
                                  [HPC_COMM_INTERCOMM] = "intercomm",
                                  [HPC_COMM_MERGE] = "merge",
                                  [HPC_COMM_OTHER] = "comm"};
    return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "comm";
}

static void load_comm(mg_job *job, mg_proc *p, const hpc_record *r, uint64_t *parent_id)
{
    const hpc_rec_mpi_comm *c = &r->u.mpi_comm;
    if (hpa_u64map_get(&p->comm_by_id, c->id, NULL)) {
        mg_job_problem(job, "%s: offset %llu: communicator %llu defined twice; second ignored",
                       p->hp->dir, (unsigned long long)r->offset, (unsigned long long)c->id);
        return;
    }
    if (c->size == 0 || c->size > (1u << 24) || c->rank >= c->size) {
        mg_job_problem(job, "%s: offset %llu: communicator %llu has size %llu, rank %llu; ignored",
                       p->hp->dir, (unsigned long long)r->offset, (unsigned long long)c->id,
                       (unsigned long long)c->size, (unsigned long long)c->rank);
        return;
    }
    mg_comm m = {.type = c->kind == HPC_COMM_SELF ? MG_COMM_SELF : MG_COMM_MPI,
                 .gid_root = c->gid_root,
                 .gid_seq = c->gid_seq,
                 .parent = -1,
                 .size = (uint32_t)c->size};
    uint64_t *members = mg_xcalloc(c->size, sizeof(uint64_t));
    long got = hpc_varints_decode(c->members, members, c->size);
    if (m.type == MG_COMM_MPI && got != (long)c->size) {
        mg_job_problem(job, "%s: offset %llu: communicator %llu lists %ld of %llu members; ignored",
                       p->hp->dir, (unsigned long long)r->offset, (unsigned long long)c->id, got,
                       (unsigned long long)c->size);
        free(members);
        return;
    }
    /* members must be ranks of this job, and this process must be member `rank` */
    for (uint64_t k = 0; m.type == MG_COMM_MPI && k < c->size; k++)
        if ((job->world_size > 0 && members[k] >= (uint64_t)job->world_size) ||
            (k == c->rank && p->rank >= 0 && members[k] != (uint64_t)p->rank)) {
            mg_job_problem(job,
                           "%s: offset %llu: communicator %llu lists world rank %llu as "
                           "member %llu, which cannot be; ignored",
                           p->hp->dir, (unsigned long long)r->offset, (unsigned long long)c->id,
                           (unsigned long long)members[k], (unsigned long long)k);
            free(members);
            return;
        }
    m.members = mg_job_members(job, members, m.size, &m.mlist);
    free(members);
    m.name = c->name.n ? mg_strdup_n(c->name.p, c->name.n) : mg_xstrdup(comm_kind_name(c->kind));
    mg_xput(&p->comm_by_id, c->id, p->ncomms);
    parent_id[p->ncomms] = c->parent;
    *MG_PUSH(p->comms, p->ncomms, p->capcomms) = m;
}

static void load_tables(mg_job *job, mg_proc *p)
{
    const hpc_proc *hp = p->hp;
    size_t i = 0;
    const hpc_record *r;
    while ((r = hpc_proc_next_of(hp, HPC_K_mpi_fn, &i))) {
        const hpc_rec_mpi_fn *f = &r->u.mpi_fn;
        mg_xput(&p->fn_by_id, f->id, p->nfns);
        mg_fninfo *fi = MG_PUSH(p->fns, p->nfns, p->capfns);
        *fi = (mg_fninfo){mg_strdup_n(f->name.p, f->name.n), (uint32_t)f->family,
                          (uint32_t)f->coll_op, UINT32_MAX};
    }
    /* comms: parents refer to process comm ids, resolved after all are loaded */
    size_t ncomm_recs = 0;
    for (i = 0; hpc_proc_next_of(hp, HPC_K_mpi_comm, &i);)
        ncomm_recs++;
    uint64_t *parent_id = mg_xcalloc(ncomm_recs + 1, sizeof(uint64_t));
    for (i = 0; (r = hpc_proc_next_of(hp, HPC_K_mpi_comm, &i));)
        load_comm(job, p, r, parent_id);
    for (size_t k = 0; k < p->ncomms; k++) {
        uint64_t pi;
        if (parent_id[k] && hpa_u64map_get(&p->comm_by_id, parent_id[k], &pi) && pi != k)
            p->comms[k].parent = (int64_t)pi;
    }
    free(parent_id);
    /* interrupt generator 0 is the clock */
    uint64_t interval = 0, states = HPC_STATES_NONE;
    for (i = 0; (r = hpc_proc_next_of(hp, HPC_K_settings, &i));) {
        interval = r->u.settings.clock_interval_ns;
        states = r->u.settings.states;
    }
    p->sum.clock_interval_ns = interval;
    mg_igen *g = MG_PUSH(p->igens, p->nigens, p->capigens);
    *g = (mg_igen){mg_xstrdup("clock"), OTF2_INTERRUPT_GENERATOR_MODE_TIME, interval};
    for (i = 0; (r = hpc_proc_next_of(hp, HPC_K_counter_def, &i));) {
        const hpc_rec_counter_def *c = &r->u.counter_def;
        char *name = mg_strdup_n(c->name.p, c->name.n);
        char *unit = c->unit.n ? mg_strdup_n(c->unit.p, c->unit.n) : mg_xstrdup("events");
        if (!hpa_u64map_get(&p->ctr_by_index, c->index, NULL))
            add_counter(p, c->index, name, unit, c->interval);
        free(name);
        free(unit);
    }
    if (states != HPC_STATES_NONE)
        add_state_metrics(p);
}

/* Heap in use over time as an OTF2 metric: model/heap.h's points (the timeline's, the
 * sample points', the end's), the process's values at those moments (Score-P writes its
 * allocated memory so: one metric per process, recorded by one location). */
static void add_heap_metric(mg_proc *p, const hpm_heap *h)
{
    p->heap_metric = (uint32_t)p->nmetrics;
    mg_metric *m = MG_PUSH(p->metrics, p->nmetrics, p->capmetrics);
    *m = (mg_metric){mg_xstrdup("heap in use"), mg_xstrdup("bytes"),
                     mg_xstrdup("heap tracing (-H): bytes the program's blocks held at that "
                                "moment (each twentieth of the run's most, sample points, end)"),
                     MG_METRIC_PROCESS};
    p->nheap = h->npoints;
    p->heap_t = mg_xcalloc(h->npoints + 1, sizeof(uint64_t));
    p->heap_bytes = mg_xcalloc(h->npoints + 1, sizeof(uint64_t));
    for (size_t k = 0; k < h->npoints; k++) {
        p->heap_t[k] = mg_clock_apply(&p->clock, h->points[k].time);
        p->heap_bytes[k] = h->points[k].bytes;
    }
}

/* Heap tracing's numbers of the process (-H; model/heap.h reads its thread streams). */
static void load_heap(mg_proc *p)
{
    const hpc_proc *hp = p->hp;
    hpm_heap h;
    if (!hp->settings.heap_trace)
        return;
    if (hpm_heap_read(&h, hp) != 0) {
        fprintf(stderr, "hpmerge: %s: out of memory reading its heap records: no heap numbers\n",
                hp->dir);
        return;
    }
    p->sum.heap_traced = true;
    hpm_heap_summary(&h, p->sum.heap);
    add_heap_metric(p, &h);
    hpm_heap_free(&h);
}

/* Process facts for the summary from proc_begin, proc_end, launcher_exit. */
static void load_facts(mg_job *job, mg_proc *p)
{
    const hpc_proc *hp = p->hp;
    mg_psum *s = &p->sum;
    s->has_begin = hp->has_begin;
    s->has_end = hp->has_end;
    s->ended_early = hp->ended_early;
    memcpy(s->stats, hp->stats, sizeof(s->stats));
    load_heap(p);
    hpa_mpi_sum_init(&s->mpi);
    hpa_mpi_window_init(&s->win, hp);
    size_t it = 0;
    for (const hpc_record *o; (o = hpc_proc_next_of(hp, HPC_K_omp_runtime, &it));)
        p->ompt |= o->u.omp_runtime.ompt != 0;
    s->is_mpi = hpc_proc_next_of(hp, HPC_K_mpi_fn, &(size_t){0}) ||
                hpc_proc_next_of(hp, HPC_K_mpi_init, &(size_t){0});
    if (hp->has_begin) {
        s->pid = hp->begin.pid;
        s->exe = mg_strdup_n(hp->begin.exe.p, hp->begin.exe.n);
        s->argv = argv_line(hp->begin.argv);
        s->t_begin = mg_clock_apply(&p->clock, hp->begin.time);
    } else {
        s->exe = mg_xstrdup("");
        s->argv = mg_xstrdup("");
    }
    s->os_cpu_ns = hp->os_cpu_known ? hp->os_user_ns + hp->os_sys_ns : 0;
    if (hp->has_end) {
        s->t_end = mg_clock_apply(&p->clock, hp->end.time);
        s->maxrss_kb = hp->end.maxrss_kb;
    }
    if (hp->has_launcher_exit) {
        const hpc_rec_launcher_exit *le = &hp->launcher_exit;
        if (!hp->has_end) {
            s->t_end = mg_clock_apply(&p->clock, le->time);
            s->maxrss_kb = le->maxrss_kb;
        }
        s->end_note = le->exited ? mg_xasprintf("exit %lld", (long long)le->status)
                                 : mg_xasprintf("killed by signal %lld%s", (long long)le->status,
                                                le->core_dumped ? " (core dumped)" : "");
    } else if (hp->has_end) {
        const hpc_rec_proc_end *e = &hp->end;
        s->end_note =
            e->reason == HPC_END_SIGNAL      ? mg_xasprintf("signal %lld", (long long)e->status)
            : e->reason == HPC_END_MPI_ABORT ? mg_xasprintf("MPI_Abort(%lld)", (long long)e->status)
            : e->reason == HPC_END_EXEC      ? mg_xstrdup("exec")
                                             : mg_xasprintf("exit %lld", (long long)e->status);
    } else if (hp->launcher_killed) {
        s->end_note = mg_xstrdup("killed with its launcher (hpcollect was killed)");
    } else {
        s->end_note = mg_xstrdup("no end record (killed?)");
    }
    hpa_omp_runtime rt;
    char text[1024];
    hpa_omp_runtime_of(hp, &rt);
    hpa_omp_runtime_text(&rt, text, sizeof(text));
    s->omp_runtime = mg_xstrdup(text);
    size_t i = 0;
    const hpc_record *r;
    while ((r = hpc_proc_next_of(hp, HPC_K_clock_offset, &i)))
        if (r->u.clock_offset.phase == 0)
            s->clock_offset_ns = r->u.clock_offset.offset_ns;
    if (hp->ended_early)
        mg_job_problem(job, "%s: process %s ended early (%s); its data may stop short", hp->dir,
                       p->name, s->end_note);
    hpc_loss loss[16]; /* what the collector could not record (experiment/losses.c) */
    size_t nloss = hpc_proc_losses(hp, loss, 16);
    for (size_t k = 0; k < nloss && k < 16; k++)
        mg_job_problem(job, "%s: %s", hp->dir, hpc_loss_text(&loss[k], text, sizeof(text)));
}

static int cmp_group(const void *a, const void *b)
{
    const mg_entry *x = a, *y = b;
    return x->group < y->group ? -1 : x->group > y->group;
}

static void init_locations(mg_proc *p)
{
    size_t n = p->hp ? p->hp->nthreads : 0;
    p->nlocs = p->placeholder ? 1 : n;
    p->locs = mg_xcalloc(p->nlocs ? p->nlocs : 1, sizeof(mg_loc));
    for (size_t k = 0; k < p->nlocs; k++) {
        mg_loc *l = &p->locs[k];
        l->proc = p;
        l->seq = p->placeholder ? 0 : p->hp->threads[k].seq;
        l->path = p->placeholder ? NULL : mg_xstrdup(p->hp->threads[k].path);
        l->offset = p->placeholder ? 0 : p->hp->threads[k].offset;
        l->id = (p->group << 32) | l->seq;
        l->sum.seq = l->seq;
        l->sum.t_first = UINT64_MAX;
        l->sum.name = mg_xasprintf("thread %u", l->seq);
    }
}

/* A rank that left no sub-experiment: one empty location, shown as missing. */
static void placeholder_init(mg_job *job, mg_proc *p, int64_t r)
{
    p->placeholder = true;
    p->rank = r;
    p->group = (uint64_t)r;
    p->name = mg_xasprintf("rank%lld", (long long)r);
    p->host = mg_xstrdup("unknown");
    p->sum.placeholder = true;
    hpa_mpi_sum_init(&p->sum.mpi);
    p->sum.exe = mg_xstrdup("");
    p->sum.argv = mg_xstrdup("");
    p->sum.end_note = mg_xstrdup("missing: no sub-experiment");
    if (job->missing && r >= 0 && r < job->world_size)
        job->missing[r / 8] |= (uint8_t)(1u << (r % 8));
}

/* What every process gets once it has its place (index) in job order. */
static void proc_init(mg_proc *p, size_t index)
{
    p->index = (uint32_t)index;
    p->state_metric = UINT32_MAX;
    p->heap_metric = UINT32_MAX;
    if (!p->hp) {
        mg_igen *g = MG_PUSH(p->igens, p->nigens, p->capigens);
        *g = (mg_igen){mg_xstrdup("clock"), OTF2_INTERRUPT_GENERATOR_MODE_TIME, 0};
    }
    init_locations(p);
}

bool mg_job_rank_missing(const mg_job *job, int64_t rank)
{
    return job->missing && rank >= 0 && rank < job->world_size &&
           (job->missing[rank / 8] >> (rank % 8) & 1);
}

/*
 * The entries' names and threads live in two blocks sized before the job is listed:
 * allocated one by one, they would sit between the lean job's records, whose pages they
 * would keep once the lean job is let go of (mg_job_take).
 */
typedef struct entry_mem {
    char *names;
    uint32_t *seqs;
    size_t nnames, nseqs;
} entry_mem;

static void entry_mem_init(mg_job *job, const hpc_exp *e, size_t nranks, entry_mem *m)
{
    size_t names = nranks * 24, seqs = nranks;
    for (size_t i = 0; i < e->nprocs; i++) {
        names += strlen(e->procs[i].name) + 1;
        seqs += e->procs[i].nthreads;
    }
    *m = (entry_mem){mg_xmalloc(names + 1), mg_xcalloc(seqs + 1, sizeof(uint32_t)), 0, 0};
    job->entry_names = m->names;
    job->entry_seqs = m->seqs;
}

static char *entry_name(entry_mem *m, const char *name)
{
    char *s = m->names + m->nnames;
    size_t n = strlen(name) + 1;
    memcpy(s, name, n);
    m->nnames += n;
    return s;
}

static uint32_t *entry_seqs(entry_mem *m, size_t n)
{
    uint32_t *s = m->seqs + m->nseqs;
    m->nseqs += n;
    return s;
}

/* The entry of a process of the job's experiment (group given). */
static void entry_of(mg_job *job, entry_mem *m, mg_entry *e, const hpc_proc *hp, int32_t exp_proc)
{
    e->rank = hp->rank;
    e->name = entry_name(m, hp->name);
    e->exp_proc = exp_proc;
    e->host = hp->has_begin ? mg_xintern(&job->hosts, hp->begin.host.p, hp->begin.host.n)
                            : mg_xcstr(&job->hosts, "unknown");
    e->nlocs = (uint32_t)hp->nthreads;
    e->seqs = entry_seqs(m, hp->nthreads);
    e->bytes = 1;
    for (size_t k = 0; k < hp->nthreads; k++) {
        struct stat st;
        e->seqs[k] = hp->threads[k].seq;
        if (stat(hp->threads[k].path, &st) == 0)
            e->bytes += (uint64_t)st.st_size;
    }
    e->real_time = hp->has_begin ? hp->begin.real_time : 0;
    job->io_traced |= hp->settings.io_trace != 0;
}

int mg_job_open(mg_job *job, const char *path, hpc_diag *diag)
{
    memset(job, 0, sizeof(*job));
    job->path = mg_xstrdup(path);
    job->diag = diag;
    /* lean: a process's tables are read when it is merged (mg_proc_load); rank 0 keeps an
     * entry per process (mg_job_take) */
    int rc = hpc_exp_open_lean(&job->exp, path, diag);
    if (rc < 0)
        return rc; /* reported by hpc_exp_open */
    hpc_exp *e = job->exp;
    if (e->nprocs == 0) { /* placeholders only would make an empty trace look merged */
        fprintf(stderr,
                "%s: %s: no process of this experiment can be read (none was recorded, or "
                "each is damaged as said above); nothing to merge\n",
                MG_PROG, path);
        return HPC_E_NOTFOUND;
    }
    job->world_size = e->has_job ? e->job.world_size : -1;
    if (e->has_job) {
        job->collect_command = argv_line(e->job.argv);
        job->job_id = mg_strdup_n(e->job.job_id.p, e->job.job_id.n);
        job->version = mg_strdup_n(e->job.version.p, e->job.version.n);
        job->real_time = e->job.real_time;
        job->job_time = e->job.time;
    }
    for (size_t i = 0; i < e->nprocs; i++) {
        const hpc_proc *hp = &e->procs[i];
        int64_t ws = hp->has_begin ? hp->begin.world_size : -1;
        size_t k = 0;
        const hpc_record *r = hpc_proc_next_of(hp, HPC_K_mpi_init, &k);
        if (r)
            ws = (int64_t)r->u.mpi_init.size;
        if (ws > job->world_size && ws < (1 << 24))
            job->world_size = ws;
    }
    /* ranks keep their number as group id; duplicates and non-ranks go after */
    size_t nranks = job->world_size > 0 ? (size_t)job->world_size : 0;
    bool *taken = mg_xcalloc(nranks + 1, 1);
    job->entries = mg_xcalloc(e->nprocs + nranks + 1, sizeof(mg_entry));
    entry_mem mem;
    entry_mem_init(job, e, nranks, &mem);
    uint64_t next_other = nranks;
    for (size_t i = 0; i < e->nprocs; i++) {
        const hpc_proc *hp = &e->procs[i];
        mg_entry *en = &job->entries[job->nentries++];
        entry_of(job, &mem, en, hp, (int32_t)i);
        if (en->rank >= 0 && (size_t)en->rank < nranks && !taken[en->rank]) {
            taken[en->rank] = true;
            en->group = (uint64_t)en->rank;
        } else {
            if (en->rank >= 0)
                mg_job_problem(job,
                               "%s: rank %lld appears twice (or beyond the job's %zu ranks); "
                               "merged as a separate process",
                               hp->dir, (long long)en->rank, nranks);
            en->group = next_other++;
        }
    }
    job->missing = mg_xcalloc(nranks / 8 + 1, 1);
    for (size_t r = 0; r < nranks; r++)
        if (!taken[r]) {
            mg_entry *en = &job->entries[job->nentries++];
            char name[24];
            snprintf(name, sizeof name, "rank%zu", r);
            *en = (mg_entry){.group = r,
                             .rank = (int64_t)r,
                             .name = entry_name(&mem, name),
                             .host = mg_xcstr(&job->hosts, "unknown"),
                             .nlocs = 1,
                             .seqs = entry_seqs(&mem, 1),
                             .exp_proc = -1};
            job->missing[r / 8] |= (uint8_t)(1u << (r % 8));
            mg_job_problem(job,
                           "%s: rank %zu of %zu left no sub-experiment (it died before "
                           "hpcollect started, or its files were removed); it is shown empty",
                           path, r, nranks);
        }
    free(taken);
    qsort(job->entries, job->nentries, sizeof(mg_entry), cmp_group);
    for (size_t i = 0; i < job->nentries && !job->command; i++) {
        const mg_entry *en = &job->entries[i];
        if (en->exp_proc >= 0 && e->procs[en->exp_proc].has_begin)
            job->command = argv_line(e->procs[en->exp_proc].begin.argv);
    }
    if (!job->command)
        job->command = mg_xstrdup("");
    if (!job->collect_command)
        job->collect_command = mg_xstrdup("");
    if (job->nentries == 0) {
        fprintf(stderr, "%s: %s: the experiment holds no process data\n", MG_PROG, path);
        return HPC_E_FORMAT;
    }
    return 0;
}

size_t mg_job_nlocs(const mg_job *job)
{
    size_t n = 0;
    for (size_t i = 0; i < job->nentries; i++)
        n += job->entries[i].nlocs;
    return n;
}

mg_proc *mg_job_entry_proc(mg_job *job, size_t i)
{
    const mg_entry *e = &job->entries[i];
    mg_proc *p = mg_xcalloc(1, sizeof(mg_proc));
    if (e->exp_proc < 0) {
        placeholder_init(job, p, e->rank);
    } else {
        p->rank = e->rank;
        p->group = e->group;
        p->name = mg_xstrdup(e->name);
        p->host = mg_xstrdup(hpa_strtab_get(&job->hosts, e->host));
        mg_igen *g = MG_PUSH(p->igens, p->nigens, p->capigens); /* as proc_init, hp unknown */
        *g = (mg_igen){mg_xstrdup("clock"), OTF2_INTERRUPT_GENERATOR_MODE_TIME, 0};
    }
    p->index = (uint32_t)i;
    p->state_metric = UINT32_MAX;
    p->heap_metric = UINT32_MAX;
    p->nlocs = e->nlocs;
    p->locs = mg_xcalloc(p->nlocs + 1, sizeof(mg_loc));
    for (size_t k = 0; k < p->nlocs; k++) {
        mg_loc *l = &p->locs[k];
        l->proc = p;
        l->seq = e->seqs[k];
        l->id = (p->group << 32) | l->seq;
        l->sum.seq = l->seq;
        l->sum.t_first = UINT64_MAX;
    }
    return p;
}

/* The processes of share s (their places in job order given) added to the job, each
 * opened alone and lean from its directory. */
static int add_share(mg_job *job, const mg_share *s)
{
    int rc = 0;
    for (size_t i = 0; i < s->nprocs; i++) {
        const mg_share_proc *sp = &s->procs[i];
        mg_proc *p = &job->procs[job->nprocs++];
        if (!sp->dir) {
            placeholder_init(job, p, sp->rank);
        } else {
            p->rank = sp->rank;
            p->group = sp->group;
            p->name = mg_xstrdup(sp->name);
            p->host = mg_xstrdup(sp->host);
            int orc = hpc_exp_open_lean(&p->exp, sp->dir, &(hpc_diag){.quiet = 1});
            if (orc < 0 || p->exp->nprocs != 1) {
                mg_job_problem(job, "%s: cannot read this process again (%s)", sp->dir,
                               orc < 0 ? hpc_strerror(orc) : "not one sub-experiment");
                rc = -1;
            } else {
                p->hp = &p->exp->procs[0];
            }
        }
        proc_init(p, sp->index);
        p->mine = true;
    }
    return rc;
}

int mg_job_take(mg_job *job, const int *owner, bool keep_exp)
{
    size_t n = 0;
    for (size_t i = 0; i < job->nentries; i++)
        n += owner[i] == 0;
    job->procs = mg_xcalloc(n + 1, sizeof(mg_proc));
    if (!keep_exp) { /* opened alone again, as the other merge ranks open theirs */
        hpa_buf b = {0};
        mg_share s;
        mg_share_write(&b, job, owner, 0);
        int rc = mg_share_read(&b, &s);
        hpa_buf_free(&b);
        if (rc == 0)
            rc = add_share(job, &s);
        mg_share_free(&s);
        hpc_exp_close(job->exp);
        job->exp = NULL;
        /* the lean job's pages back to the system: freed in small pieces between the
         * entries', they would otherwise stay resident as holes the merge need not fill */
        malloc_trim(0);
        return rc;
    }
    for (size_t i = 0; i < job->nentries; i++) {
        const mg_entry *e = &job->entries[i];
        if (owner[i] != 0)
            continue;
        mg_proc *p = &job->procs[job->nprocs++];
        if (e->exp_proc < 0) {
            placeholder_init(job, p, e->rank);
        } else {
            p->hp = &job->exp->procs[e->exp_proc];
            p->rank = e->rank;
            p->group = e->group;
            p->name = mg_xstrdup(e->name);
            p->host = mg_xstrdup(hpa_strtab_get(&job->hosts, e->host));
        }
        proc_init(p, i);
        p->mine = true;
    }
    return 0;
}

void mg_job_merged(mg_job *job)
{
    if (!job->exp || job->io_traced)
        return;
    for (size_t i = 0; i < job->nprocs; i++)
        job->procs[i].hp = NULL;
    hpc_exp_close(job->exp);
    job->exp = NULL;
}

int mg_job_open_share(mg_job *job, const char *path, hpc_diag *diag, const mg_share *s)
{
    memset(job, 0, sizeof(*job));
    job->path = mg_xstrdup(path);
    job->diag = diag;
    job->world_size = s->world_size;
    job->command = mg_xstrdup(s->command);
    job->collect_command = mg_xstrdup("");
    size_t nranks = job->world_size > 0 ? (size_t)job->world_size : 0;
    job->missing = mg_xcalloc(nranks / 8 + 1, 1);
    for (size_t k = 0; k < s->nmissing; k++)
        if (s->missing[k] < nranks)
            job->missing[s->missing[k] / 8] |= (uint8_t)(1u << (s->missing[k] % 8));
    job->procs = mg_xcalloc(s->nprocs + 1, sizeof(mg_proc));
    return add_share(job, s);
}

int mg_proc_load(mg_job *job, mg_proc *p)
{
    if (!p->hp || p->loaded)
        return 0;
    /* damage in process.hpe was reported when the job was opened */
    int rc = hpc_proc_load((hpc_proc *)p->hp, &(hpc_diag){.quiet = 1});
    if (rc < 0) {
        mg_job_problem(job, "%s: cannot read process.hpe again (%s); its tables are left out",
                       p->hp->dir, hpc_strerror(rc));
        return -1;
    }
    p->loaded = true;
    mg_clock_init(&p->clock, p->hp, job->diag);
    load_tables(job, p);
    load_facts(job, p);
    return 0;
}

/* The tables that events are generated with (not the definitions they produced). */
static void free_tables(mg_proc *p)
{
    for (size_t i = 0; i < p->nfns; i++)
        free(p->fns[i].name);
    free(p->fns);
    p->fns = NULL;
    p->nfns = p->capfns = 0;
    hpa_u64map_free(&p->fn_by_id);
    hpa_u64map_free(&p->comm_by_id);
    for (size_t i = 0; i < p->nctrs; i++) {
        free(p->ctrs[i].name);
        free(p->ctrs[i].unit);
    }
    free(p->ctrs);
    p->ctrs = NULL;
    p->nctrs = p->capctrs = 0;
    hpa_u64map_free(&p->ctr_by_index);
}

void mg_proc_unload(mg_proc *p)
{
    free_tables(p);
    free(p->heap_t);
    free(p->heap_bytes);
    p->heap_t = p->heap_bytes = NULL;
    p->nheap = 0;
    hpa_u64map_free(&p->region_by_key);
    hpa_u64map_free(&p->team_by_size);
    for (size_t i = 0; i < p->nlocs; i++)
        hpa_u64map_free(&p->locs[i].claim_set);
    mg_psum_done(&p->sum);
    if (p->hp)
        hpc_proc_unload((hpc_proc *)p->hp);
}

void mg_proc_drop_defs(mg_proc *p)
{
    for (size_t i = 0; i < p->nregions; i++) {
        free(p->regions[i].name);
        free(p->regions[i].file);
    }
    free(p->regions);
    p->regions = NULL;
    p->nregions = p->capregions = 0;
    for (size_t i = 0; i < p->ncomms; i++)
        free(p->comms[i].name);
    free(p->comms);
    p->comms = NULL;
    p->ncomms = p->capcomms = 0;
    for (size_t i = 0; i < p->nigens; i++)
        free(p->igens[i].name);
    free(p->igens);
    p->igens = NULL;
    p->nigens = p->capigens = 0;
    for (size_t i = 0; i < p->nmetrics; i++) {
        free(p->metrics[i].name);
        free(p->metrics[i].unit);
        free(p->metrics[i].desc);
    }
    free(p->metrics);
    p->metrics = NULL;
    p->nmetrics = p->capmetrics = 0;
    free(p->iohs);
    p->iohs = NULL;
    p->niohs = p->capiohs = 0;
    hpa_strtab_free(&p->iofiles);
    p->iofiles = (hpa_strtab){0};
    for (size_t i = 0; i < p->nlocs; i++) {
        mg_loc *l = &p->locs[i];
        free(l->cc);
        free(l->deep);
        free(l->claims);
        l->cc = NULL;
        l->deep = NULL;
        l->claims = NULL;
        l->ncc = l->capcc = l->ndeep = l->nclaims = l->capclaims = 0;
    }
}

void mg_proc_release(mg_proc *p)
{
    if (!p->exp)
        return;
    for (size_t i = 0; i < p->nlocs; i++) { /* their streams are read */
        free(p->locs[i].path);
        p->locs[i].path = NULL;
    }
    hpc_exp_close(p->exp);
    p->exp = NULL;
    p->hp = NULL;
}

void mg_proc_free(mg_proc *p)
{
    free_tables(p);
    free(p->heap_t);
    free(p->heap_bytes);
    for (size_t i = 0; i < p->nregions; i++) {
        free(p->regions[i].name);
        free(p->regions[i].file);
    }
    free(p->regions);
    hpa_u64map_free(&p->region_by_key);
    for (size_t i = 0; i < p->ncomms; i++)
        free(p->comms[i].name);
    free(p->comms);
    hpa_u64map_free(&p->team_by_size);
    for (size_t i = 0; i < p->nigens; i++)
        free(p->igens[i].name);
    free(p->igens);
    for (size_t i = 0; i < p->nmetrics; i++) {
        free(p->metrics[i].name);
        free(p->metrics[i].unit);
        free(p->metrics[i].desc);
    }
    free(p->metrics);
    free(p->iohs);
    hpa_u64map_free(&p->ioh_by_id);
    hpa_strtab_free(&p->iofiles);
    for (size_t i = 0; i < p->nlocs; i++) {
        mg_loc *l = &p->locs[i];
        free(l->path);
        free(l->cc);
        free(l->deep);
        free(l->claims);
        hpa_u64map_free(&l->claim_set);
        mg_tsum_free(&l->sum);
    }
    free(p->locs);
    mg_symproc_close(p->sym);
    mg_regtab_close(p->omptab);
    mg_psum_free(&p->sum);
    free(p->name);
    free(p->host);
    hpc_exp_close(p->exp);
    memset(p, 0, sizeof(*p));
}

void mg_job_close(mg_job *job)
{
    for (size_t i = 0; i < job->nprocs; i++)
        mg_proc_free(&job->procs[i]);
    free(job->procs);
    for (size_t i = 0; i < job->nproblems; i++)
        free(job->problems[i]);
    free(job->problems);
    hpa_strtab_free(&job->member_lists);
    free(job->missing);
    hpc_exp_close(job->exp);
    free(job->entries);
    free(job->entry_names);
    free(job->entry_seqs);
    hpa_strtab_free(&job->hosts);
    mg_syms_close(job->syms);
    free(job->path);
    free(job->command);
    free(job->collect_command);
    free(job->job_id);
    free(job->version);
    memset(job, 0, sizeof(*job));
}
