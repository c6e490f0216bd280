/*
 * export_chrome.c - `export chrome`: the experiment as a Chrome trace (the JSON trace event
 * format that the Perfetto UI and chrome://tracing open).
 *
 *   - a track per process (pid: its position in the profile, named "rank N" or by its
 *     sub-experiment) and per thread (tid: the thread's sequence number, named "thread N"
 *     with its role: main, OpenMP worker);
 *   - MPI calls as complete slices ("X", cat "MPI", named after the function, args: bytes,
 *     peer, tag);
 *   - messages as flow arrows from the send to the completed receive ("s"/"f", cat
 *     "message"; sends and receives are matched in order per source, destination,
 *     communicator and tag, as MPI's non-overtaking rule orders them);
 *   - OpenMP: "omp parallel" on the encountering thread, "omp implicit task" on each team
 *     member, waits ("omp implicit barrier", "omp_set_lock wait", "omp critical wait" ...),
 *     worksharing ("omp for" ...), "omp masked", explicit tasks ("omp task"), cat "OpenMP",
 *     named and paired by the OpenMP model (model/omp_model.h), each at its own thread's
 *     times (libomp reports a worker's implicit barrier and task end at the next fork: the
 *     slices say so; `omp` counts that time as idle);
 *   - clock samples in the format's sampling form: the top-level "samples" array, each
 *     with its thread (pid, tid), "sf" naming its stack in "stackFrames" (the selected
 *     view's frames) and "weight" its CPU time in microseconds. A sample stands for the CPU
 *     time its thread used since its previous one: it is placed at the start of that much
 *     time before its own timestamp, and an "off-CPU" sample without a stack marks where it
 *     ends, so viewers that weigh a sample by the time to the next one of its thread
 *     (speedscope) give each function exactly its CPU time. Above 200000 samples every k-th
 *     sample of a thread is kept, weighing the k it stands for; otherData.samples_per_event
 *     says k.
 *
 *   - heap tracing (-H): a counter track "heap in use" per process (bytes, the most within
 *     each twentieth of the process's heap timeline, model/heap.h).
 *
 * Slice names are stable (the function, "omp parallel", "omp implicit task" ...): instance
 * ids (region, task, wait id) and sizes are args. Times are whole microseconds, every time
 * of a process rounded down the same way, so a slice that lies inside another in
 * nanoseconds does so in microseconds too (ts + dur exact, no staircase in viewers). The
 * slices of a thread are written nested: a slice that begins inside another but would end
 * after it is cut at the other's end and says so in args.clipped_us (the time cut off).
 *
 * Timestamps are microseconds from the earliest process start, on rank 0's clock: when the
 * processes ran on several hosts, each process's times are corrected by its clock_offset
 * records (linear between the MPI_Init and MPI_Finalize measurements); processes of one
 * host share its CLOCK_MONOTONIC, and a measured offset would only add its error. Filters apply:
 * left-out ranks and threads have no tracks, samples outside --time/--cpus/--samples are not shown,
 * and trace slices that end before or start after a --time window are left out.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "heap.h"
#include "omp_proc.h"
#include "u64map.h"
#include "view.h"

#define MAX_SAMPLE_EVENTS 200000

typedef struct msg {
    int64_t src, dst, tag;
    uint64_t comm;  /* communicator's global id */
    uint64_t ts_ns; /* corrected, from the origin */
    uint32_t pid, tid;
    uint64_t bytes;
    uint64_t order; /* record order, for stable matching */
} msg;

typedef struct msgs {
    msg *v;
    size_t n, cap;
} msgs;

/* A process's clock correction and definitions. */
typedef struct proc_info {
    bool has0, has1;
    uint64_t l0, l1; /* local times of the two measurements */
    int64_t o0, o1;  /* offsets there */
    char **fn_names; /* mpi_fn id -> name */
    size_t nfn;
    hpa_u64map comm_gid; /* local communicator id -> index into comm_keys */
    uint64_t *comm_keys;
    size_t ncomm;
} proc_info;

/* The MPI call being read on the current thread: the record and its details. */
typedef struct open_call {
    bool open;
    hpc_rec_mpi_call c;
    uint64_t bytes_sent, bytes_recv;
    int64_t peer, tag;
} open_call;

typedef struct begin {
    uint64_t time, team, codeptr, outlined, psource; /* a fork: what its slice reports */
} begin;

/* A slice of the thread being replayed, written when the thread's stream ends. */
typedef struct xslice {
    uint64_t b, e; /* whole microseconds from the origin */
    const char *name, *cat;
    char *args; /* members of "args" (JSON text), or NULL */
    uint64_t order;
} xslice;

typedef struct chrome {
    hpa_ctx *ctx;
    hpa_profile *p;
    FILE *out;
    bool first;
    uint64_t origin;
    proc_info *pi;
    int64_t tmin, tmax; /* --time window in corrected ns from the origin, or -1 */
    /* stack frames: (parent, func) -> id, ids from 1 */
    hpa_u64map sf_map;
    uint32_t nsf, sf_cap;
    uint32_t *sf_parent, *sf_func;
    uint32_t ***bucket_sf; /* [process][thread][bucket] */
    int err;
    /* per thread while replaying */
    open_call call;
    hpa_omp_timeline tl;      /* the thread's OpenMP items (model/omp_model.h) */
    const hpa_process *tl_pr; /* what the timeline's items belong to */
    const hpa_thread *tl_t;
    bool tl_open;
    uint64_t omp_repaired, omp_shift, omp_closed; /* the timelines' repairs, summed */
    hpa_u64map begins_map;                        /* fork's region id -> index into begins */
    begin *begins;
    size_t nbegins, begins_cap;
    uint64_t stride, seen;
    xslice *xs;
    size_t nxs, capxs;
    uint64_t sample_ns;      /* CPU time of the samples skipped (stride) since the last kept */
    uint64_t last_sample_us; /* the thread's latest sample time written */
    bool any_sample;
    FILE *samples; /* the "samples" array's text (open_memstream) */
    char *samples_buf;
    size_t samples_len;
    bool first_sample;
    /* messages */
    msgs sends, recvs;
    uint64_t order;
    uint64_t nslices, nflows, ninstants;
} chrome;

/* ------------------------------------------------------------------ output */

static void sep(chrome *C)
{
    fputs(C->first ? "\n" : ",\n", C->out);
    C->first = false;
}

static void qstr(FILE *f, const char *s)
{
    hpa_json_quote(f, s, strlen(s));
}

/* Whole microseconds of a corrected time: rounding down, the same for every time, keeps
 * the order of begins and ends. */
static uint64_t us_of(uint64_t ns)
{
    return ns / 1000;
}

static void ts_text(FILE *f, const char *key, uint64_t ns)
{
    fprintf(f, "\"%s\":%" PRIu64, key, us_of(ns));
}

/* Corrected time of local t of process i, in ns from the origin (0 if before it). */
static uint64_t corr(const chrome *C, size_t i, uint64_t t)
{
    const proc_info *pi = &C->pi[i];
    int64_t off = 0;
    if (pi->has0 && pi->has1 && pi->l1 > pi->l0) {
        double f = ((double)t - (double)pi->l0) / (double)(pi->l1 - pi->l0);
        off = pi->o0 + (int64_t)(f * (double)(pi->o1 - pi->o0));
    } else if (pi->has0) {
        off = pi->o0;
    }
    int64_t g = (int64_t)t + off - (int64_t)C->origin;
    return g > 0 ? (uint64_t)g : 0;
}

static bool in_window(const chrome *C, uint64_t b, uint64_t e)
{
    return (C->tmin < 0 || (int64_t)e >= C->tmin) && (C->tmax < 0 || (int64_t)b <= C->tmax);
}

static size_t proc_index(const chrome *C, const hpa_process *pr)
{
    return (size_t)(pr - C->p->procs);
}

/* A complete slice of the thread being replayed; name and cat must outlive the thread's
 * replay (static strings, the process's function names); args holds the members of "args"
 * (JSON text) or is NULL. Written by slices_flush. */
static void slice(chrome *C, const hpa_process *pr, const hpa_thread *t, const char *name,
                  const char *cat, uint64_t b, uint64_t e, const char *args)
{
    (void)t;
    size_t i = proc_index(C, pr);
    uint64_t cb = corr(C, i, b), ce = corr(C, i, e > b ? e : b);
    if (!in_window(C, cb, ce))
        return;
    if (C->nxs == C->capxs) {
        size_t cap = C->capxs ? 2 * C->capxs : 256;
        xslice *v = realloc(C->xs, sizeof(*v) * cap);
        if (!v) {
            C->err = HPC_E_NOMEM;
            return;
        }
        C->xs = v;
        C->capxs = cap;
    }
    char *a = args ? strdup(args) : NULL;
    if (args && !a) {
        C->err = HPC_E_NOMEM;
        return;
    }
    C->xs[C->nxs] = (xslice){us_of(cb), us_of(ce), name, cat, a, C->nxs};
    C->nxs++;
}

/* Outer slices first: by begin, the longer first, then as recorded. */
static int xslice_cmp(const void *pa, const void *pb)
{
    const xslice *a = pa, *b = pb;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    if (a->e != b->e)
        return a->e > b->e ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Write the thread's slices nested (see the top of the file) and forget them. */
static void slices_flush(chrome *C, const hpa_process *pr, const hpa_thread *t)
{
    if (C->nxs)
        qsort(C->xs, C->nxs, sizeof(*C->xs), xslice_cmp);
    uint64_t *open = C->nxs ? malloc(sizeof(uint64_t) * C->nxs) : NULL; /* ends of open slices */
    size_t depth = 0;
    for (size_t k = 0; k < C->nxs; k++) {
        xslice *x = &C->xs[k];
        while (depth && open[depth - 1] <= x->b && !(open[depth - 1] == x->b && x->e == x->b))
            depth--;
        uint64_t clipped = 0;
        if (depth && x->e > open[depth - 1]) {
            clipped = x->e - open[depth - 1];
            x->e = open[depth - 1];
        }
        if (open)
            open[depth++] = x->e;
        sep(C);
        fputs("{\"name\":", C->out);
        qstr(C->out, x->name);
        fprintf(C->out,
                ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64
                ",\"pid\":%zu,\"tid\":%u,\"args\":{%s",
                x->cat, x->b, x->e - x->b, proc_index(C, pr), t->seq, x->args ? x->args : "");
        if (clipped)
            fprintf(C->out, "%s\"clipped_us\":%" PRIu64, x->args && x->args[0] ? "," : "", clipped);
        fputs("}}", C->out);
        free(x->args);
        C->nslices++;
    }
    free(open);
    C->nxs = 0;
}

/* ------------------------------------------------------------------ definitions */

/* True if the loaded processes ran on more than one host. */
static bool several_hosts(const hpa_profile *p)
{
    const hpc_proc *first = NULL;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpc_proc *q = p->procs[i].proc;
        if (!p->procs[i].map || !q->has_begin)
            continue;
        if (!first)
            first = q;
        else if (first->begin.host.n != q->begin.host.n ||
                 memcmp(first->begin.host.p, q->begin.host.p, q->begin.host.n) != 0)
            return true;
    }
    return false;
}

static int proc_defs(chrome *C, size_t i, bool correct)
{
    proc_info *pi = &C->pi[i];
    const hpc_proc *p = C->p->procs[i].proc;
    size_t it = 0;
    for (const hpc_record *r; correct && (r = hpc_proc_next_of(p, HPC_K_clock_offset, &it));) {
        const hpc_rec_clock_offset *o = &r->u.clock_offset;
        if (o->phase == 0) {
            pi->has0 = true, pi->l0 = o->local_ns, pi->o0 = o->offset_ns;
        } else if (o->phase == 1) {
            pi->has1 = true, pi->l1 = o->local_ns, pi->o1 = o->offset_ns;
        }
    }
    it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_mpi_fn, &it));) {
        size_t id = r->u.mpi_fn.id;
        if (id >= 100000)
            continue;
        if (id >= pi->nfn) {
            char **v = realloc(pi->fn_names, sizeof(*v) * (id + 1));
            if (!v)
                return HPC_E_NOMEM;
            memset(v + pi->nfn, 0, sizeof(*v) * (id + 1 - pi->nfn));
            pi->fn_names = v;
            pi->nfn = id + 1;
        }
        char name[128];
        hpc_str_copy(name, sizeof(name), r->u.mpi_fn.name);
        free(pi->fn_names[id]);
        pi->fn_names[id] = strdup(name);
    }
    it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_mpi_comm, &it));) {
        const hpc_rec_mpi_comm *c = &r->u.mpi_comm;
        uint64_t *v = realloc(pi->comm_keys, sizeof(*v) * (pi->ncomm + 1));
        if (!v)
            return HPC_E_NOMEM;
        pi->comm_keys = v;
        v[pi->ncomm] = c->gid_root << 32 | (c->gid_seq & 0xffffffffu);
        if (hpa_u64map_put(&pi->comm_gid, c->id, (uint32_t)pi->ncomm++))
            return HPC_E_NOMEM;
    }
    return 0;
}

static uint64_t comm_key(const chrome *C, size_t i, uint64_t comm)
{
    uint64_t k;
    if (hpa_u64map_get(&C->pi[i].comm_gid, comm, &k))
        return C->pi[i].comm_keys[k];
    return UINT64_MAX - comm; /* unknown: only matches itself */
}

static void metadata(chrome *C)
{
    const hpa_profile *p = C->p;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        if (!pr->map)
            continue;
        char name[512];
        if (pr->proc->rank >= 0)
            snprintf(name, sizeof(name), "rank %d", pr->proc->rank);
        else
            snprintf(name, sizeof(name), "process %s", pr->proc->name);
        if (p->nexps > 1) {
            size_t n = strlen(name);
            snprintf(name + n, sizeof(name) - n, " (%s)", p->exps[pr->exp]->path);
        }
        sep(C);
        fprintf(C->out,
                "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%zu,\"args\":{\"name\":", i);
        qstr(C->out, name);
        fputs("}}", C->out);
        sep(C);
        fprintf(C->out,
                "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%zu,\"args\":{\"sort_"
                "index\":%zu}}",
                i, i);
        for (uint32_t t = 0; t < pr->nthreads; t++) {
            const hpa_thread *th = &pr->threads[t];
            const char *role = th->seq == 0 ? "main" : "";
            for (uint32_t k = 0; pr->omp && k < pr->omp->nthreads; k++)
                if (pr->omp->threads[k].seq == th->seq &&
                    pr->omp->threads[k].type == HPA_OMP_THREAD_WORKER)
                    role = "OpenMP worker";
            snprintf(name, sizeof(name), "thread %u%s%s (tid %" PRIu64 ")", th->seq,
                     role[0] ? " " : "", role, th->tid);
            sep(C);
            fprintf(
                C->out,
                "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%zu,\"tid\":%u,\"args\":{\"name\":",
                i, th->seq);
            qstr(C->out, name);
            fputs("}}", C->out);
            sep(C);
            fprintf(C->out,
                    "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":%zu,\"tid\":%u,\"args\":{"
                    "\"sort_index\":%u}}",
                    i, th->seq, th->seq);
        }
    }
}

/* ------------------------------------------------------------------ stacks */

static uint32_t sf_of(chrome *C, uint32_t parent, uint32_t func)
{
    uint64_t key = (uint64_t)parent << 32 | func, id;
    if (hpa_u64map_get(&C->sf_map, key, &id))
        return id;
    if (C->nsf + 1 >= C->sf_cap) {
        uint32_t cap = C->sf_cap ? 2 * C->sf_cap : 1024;
        uint32_t *a = realloc(C->sf_parent, sizeof(*a) * cap);
        if (a)
            C->sf_parent = a;
        uint32_t *b = realloc(C->sf_func, sizeof(*b) * cap);
        if (b)
            C->sf_func = b;
        if (!a || !b)
            return 0;
        C->sf_cap = cap;
    }
    id = ++C->nsf;
    C->sf_parent[id] = parent;
    C->sf_func[id] = func;
    if (hpa_u64map_put(&C->sf_map, key, id))
        return 0;
    return id;
}

static void stack_path(void *arg, const hpa_path_ctx *ctx, const hpa_frame *f, unsigned n,
                       const uint64_t *vals)
{
    chrome *C = arg;
    (void)vals;
    uint32_t id = 0;
    for (unsigned i = 0; i < n && !C->err; i++)
        if (!(id = sf_of(C, id, f[i].func)))
            C->err = HPC_E_NOMEM;
    size_t pi = proc_index(C, ctx->proc);
    size_t ti = (size_t)(ctx->thread - ctx->proc->threads);
    size_t bi = (size_t)(ctx->bucket - ctx->thread->buckets);
    C->bucket_sf[pi][ti][bi] = id;
}

static int stacks(chrome *C)
{
    hpa_profile *p = C->p;
    C->bucket_sf = calloc(p->nprocs + 1, sizeof(*C->bucket_sf));
    if (!C->bucket_sf)
        return HPC_E_NOMEM;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        C->bucket_sf[i] = calloc(pr->nthreads + 1, sizeof(**C->bucket_sf));
        if (!C->bucket_sf[i])
            return HPC_E_NOMEM;
        for (uint32_t t = 0; t < pr->nthreads; t++)
            if (!(C->bucket_sf[i][t] = calloc(pr->threads[t].nbuckets + 1, sizeof(uint32_t))))
                return HPC_E_NOMEM;
    }
    int rc = hpa_profile_paths(p, C->ctx->opts.view, stack_path, C);
    return rc ? rc : C->err;
}

static void write_stack_frames(chrome *C)
{
    fputs("\"stackFrames\":{", C->out);
    for (uint32_t id = 1; id <= C->nsf; id++) {
        const hpa_func *fn = hpa_symtab_func(C->p->syms, C->sf_func[id]);
        fprintf(C->out, "%s\n\"%u\":{\"name\":", id > 1 ? "," : "", id);
        qstr(C->out, fn->name);
        fputs(",\"category\":", C->out);
        qstr(C->out, fn->module[0] ? fn->module : "-");
        if (C->sf_parent[id])
            fprintf(C->out, ",\"parent\":\"%u\"", C->sf_parent[id]);
        fputc('}', C->out);
    }
    fputs("}", C->out);
}

/* ------------------------------------------------------------------ samples */

static void sample_entry(chrome *C, size_t pi, uint32_t tid, uint64_t ts_us, uint32_t sf,
                         uint64_t weight_us, uint32_t cpu)
{
    fprintf(C->samples, "%s\n{\"pid\":%zu,\"tid\":%u,\"ts\":%" PRIu64 ",\"cpu\":%u,",
            C->first_sample ? "" : ",", pi, tid, ts_us, cpu);
    C->first_sample = false;
    if (sf)
        fprintf(C->samples, "\"name\":\"cpu\",\"sf\":\"%u\",\"weight\":%" PRIu64 "}", sf,
                weight_us);
    else
        fputs("\"name\":\"off-CPU\",\"weight\":0}", C->samples);
}

static void sample(void *arg, const hpa_path_ctx *ctx, uint64_t time, uint64_t cpu_ns, uint32_t cpu)
{
    chrome *C = arg;
    C->sample_ns += cpu_ns;
    if (C->seen++ % C->stride)
        return;
    size_t pi = proc_index(C, ctx->proc);
    size_t ti = (size_t)(ctx->thread - ctx->proc->threads);
    size_t bi = (size_t)(ctx->bucket - ctx->thread->buckets);
    uint32_t sf = C->bucket_sf[pi][ti][bi];
    if (!sf) /* no stack: a frame of its own, so its time is not taken for off-CPU */
        sf = sf_of(C, 0, HPA_FUNC_NOSTACK);
    /* the CPU time it stands for, ending at its time; never before the previous sample */
    uint64_t end = us_of(corr(C, pi, time)), w = (C->sample_ns + 500) / 1000;
    uint64_t start = end > w ? end - w : 0;
    if (C->any_sample && start < C->last_sample_us)
        start = C->last_sample_us;
    sample_entry(C, pi, ctx->thread->seq, start, sf, end - start, cpu);
    sample_entry(C, pi, ctx->thread->seq, end, 0, 0, cpu);
    C->last_sample_us = end;
    C->any_sample = true;
    C->sample_ns = 0;
    C->ninstants++;
}

/* ------------------------------------------------------------------ MPI */

static void add_msg(chrome *C, msgs *m, const msg *x)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        msg *v = realloc(m->v, sizeof(*v) * cap);
        if (!v) {
            C->err = HPC_E_NOMEM;
            return;
        }
        m->v = v;
        m->cap = cap;
    }
    m->v[m->n++] = *x;
}

/* t moved strictly inside the call's slice, so viewers bind the arrow to that slice. */
static uint64_t inside_call(const open_call *oc, uint64_t t)
{
    uint64_t b = oc->c.time_enter, e = oc->c.time_leave;
    if (e <= b + 2)
        return t;
    return t <= b ? b + 1 : t >= e ? e - 1 : t;
}

static void p2p(chrome *C, const hpa_process *pr, const hpa_thread *t, const hpc_rec_mpi_p2p *r)
{
    size_t i = proc_index(C, pr);
    open_call *oc = &C->call;
    bool send = r->op == HPC_P2P_SEND || r->op == HPC_P2P_ISEND;
    bool recv = r->op == HPC_P2P_RECV || r->op == HPC_P2P_IRECV_COMPLETE;
    if (r->peer < 0 || r->peer_world < 0 || (!send && !recv))
        return;
    if (send)
        oc->bytes_sent += r->bytes;
    else
        oc->bytes_recv += r->bytes;
    oc->peer = r->peer_world;
    oc->tag = r->tag;
    msg m = {.src = send ? pr->proc->rank : r->peer_world,
             .dst = send ? r->peer_world : pr->proc->rank,
             .tag = r->tag,
             .comm = comm_key(C, i, r->comm),
             .ts_ns = corr(C, i, inside_call(oc, r->time)),
             .pid = (uint32_t)i,
             .tid = t->seq,
             .bytes = r->bytes,
             .order = C->order++};
    add_msg(C, send ? &C->sends : &C->recvs, &m);
}

static void flush_call(chrome *C, const hpa_process *pr, const hpa_thread *t)
{
    open_call *oc = &C->call;
    if (!oc->open)
        return;
    oc->open = false;
    const proc_info *pi = &C->pi[proc_index(C, pr)];
    const char *name =
        oc->c.fn < pi->nfn && pi->fn_names[oc->c.fn] ? pi->fn_names[oc->c.fn] : "MPI call";
    char args[256];
    int n = snprintf(args, sizeof(args), "\"bytes_sent\":%" PRIu64 ",\"bytes_received\":%" PRIu64,
                     oc->bytes_sent, oc->bytes_recv);
    if (oc->peer >= 0 && n > 0 && (size_t)n < sizeof(args))
        snprintf(args + n, sizeof(args) - (size_t)n, ",\"peer\":%" PRId64 ",\"tag\":%" PRId64,
                 oc->peer, oc->tag);
    slice(C, pr, t, name, "MPI", oc->c.time_enter, oc->c.time_leave, args);
}

/* ------------------------------------------------------------------ OpenMP */

static void begin_put(chrome *C, const hpa_omp_item *it)
{
    if (C->nbegins == C->begins_cap) {
        size_t cap = C->begins_cap ? 2 * C->begins_cap : 64;
        begin *v = realloc(C->begins, sizeof(*v) * cap);
        if (!v) {
            C->err = HPC_E_NOMEM;
            return;
        }
        C->begins = v;
        C->begins_cap = cap;
    }
    C->begins[C->nbegins] =
        (begin){it->begin, it->team, it->fork.codeptr, it->fork.outlined, it->fork.psource};
    if (hpa_u64map_put(&C->begins_map, it->region, (uint32_t)C->nbegins++))
        C->err = HPC_E_NOMEM;
}

static const begin *begin_get(chrome *C, uint64_t region)
{
    uint64_t k;
    if (!hpa_u64map_get(&C->begins_map, region, &k))
        return NULL;
    return &C->begins[k];
}

/* "omp for", "omp implicit barrier", "omp_set_lock" (the model's name of construct c),
 * or with " wait" its wait: made once, kept for the run (slices keep the pointer). */
static const char *omp_name(unsigned c, bool wait)
{
    static char names[HPA_OC_COUNT][2][64];
    c = c < HPA_OC_COUNT ? c : HPA_OC_NONE;
    char *n = names[c][wait];
    if (!n[0]) {
        hpa_omp_construct_name(c, HPA_LANG_UNKNOWN, n, sizeof(names[c][wait]) - 8);
        if (wait)
            strcat(n, " wait");
    }
    return n;
}

/* The region's slice on its encountering thread, from fork to join. */
static void parallel_slice(chrome *C, const hpa_process *pr, const hpa_thread *t,
                           const hpa_omp_item *it)
{
    const begin *b = begin_get(C, it->region);
    if (!b)
        return;
    char args[1400], where[1200] = "";
    if (b->codeptr || b->outlined || b->psource) { /* where the pragma is (the model's site) */
        hpa_loc loc = hpa_omp_site(C->p->syms, pr->map, b->outlined, b->codeptr, b->psource);
        const hpa_line *l = hpa_symtab_line(C->p->syms, loc.line);
        const char *file = strrchr(l->file, '/');
        snprintf(where, sizeof(where), "%s%s%s:%u", hpa_symtab_func(C->p->syms, loc.func)->name,
                 l->lineno ? " " : "", l->lineno ? (file ? file + 1 : l->file) : "", l->lineno);
    }
    int n = snprintf(args, sizeof(args),
                     "\"region\":%" PRIu64 ",\"team_size\":%" PRIu64 ",\"location\":", it->region,
                     b->team);
    FILE *mem = fmemopen(args + n, sizeof(args) - (size_t)n, "w");
    if (mem) {
        hpa_json_quote(mem, where, strlen(where));
        fclose(mem);
    }
    slice(C, pr, t, omp_name(HPA_OC_PARALLEL, false), "OpenMP", b->time, it->end, args);
}

/* One item of the thread's OpenMP timeline as a slice. */
static void omp_item(void *arg, const hpa_omp_item *it)
{
    chrome *C = arg;
    const hpa_process *pr = C->tl_pr;
    const hpa_thread *t = C->tl_t;
    char args[128];
    switch (it->kind) {
    case HPA_OMP_IT_FORK:
        begin_put(C, it);
        return;
    case HPA_OMP_IT_JOIN:
        parallel_slice(C, pr, t, it);
        return;
    case HPA_OMP_IT_OPEN:
        return;
    case HPA_OMP_IT_CLOSE:
        if (it->construct == HPA_OC_PARALLEL) {
            snprintf(args, sizeof(args), "\"region\":%" PRIu64 ",\"thread_num\":%u", it->region,
                     it->thread_num);
            slice(C, pr, t, "omp implicit task", "OpenMP", it->begin, it->end, args);
        } else {
            snprintf(args, sizeof(args), "\"task\":%" PRIu64, it->id);
            slice(C, pr, t, omp_name(it->construct, false), "OpenMP", it->begin, it->end, args);
        }
        return;
    default:
        break;
    }
    const char *name = omp_name(it->construct, false);
    switch (it->construct) {
    case HPA_OC_LOCK:
    case HPA_OC_NEST_LOCK:
    case HPA_OC_ATOMIC:
    case HPA_OC_CRITICAL:
    case HPA_OC_ORDERED: /* the wait: until the thread got it */
        snprintf(args, sizeof(args), "\"wait_id\":%" PRIu64, it->id);
        name = omp_name(it->construct, true);
        if (it->acquired > it->begin)
            slice(C, pr, t, name, "OpenMP", it->begin, it->acquired, args);
        return;
    case HPA_OC_LOOP:
    case HPA_OC_SECTIONS:
    case HPA_OC_SINGLE:
    case HPA_OC_WORKSHARE:
    case HPA_OC_DISTRIBUTE:
    case HPA_OC_TASKLOOP:
    case HPA_OC_SCOPE:
        snprintf(args, sizeof(args), "\"count\":%" PRIu64, it->count);
        slice(C, pr, t, name, "OpenMP", it->begin, it->end, args);
        return;
    case HPA_OC_MASKED:
        slice(C, pr, t, name, "OpenMP", it->begin, it->end, NULL);
        return;
    default: /* barriers, taskwait, taskgroup, reduction */
        snprintf(args, sizeof(args), "\"region\":%" PRIu64, it->region);
        slice(C, pr, t, name, "OpenMP", it->begin, it->end, args);
        return;
    }
}

/* The thread's timeline: started at its first record, ended after its last. */
static void timeline_of(chrome *C, const hpa_process *pr, const hpa_thread *t)
{
    if (C->tl_open)
        return;
    hpa_omp_timeline_init(&C->tl, omp_item, C);
    C->tl_pr = pr, C->tl_t = t, C->tl_open = true;
}

static void timeline_end(chrome *C)
{
    if (!C->tl_open)
        return;
    hpa_omp_timeline_end(&C->tl);
    C->omp_repaired += C->tl.repaired;
    C->omp_closed += C->tl.closed_at_end;
    if (C->tl.max_shift_ns > C->omp_shift)
        C->omp_shift = C->tl.max_shift_ns;
    C->tl_open = false;
}

static void record(void *arg, const hpa_process *pr, const hpa_thread *t, const hpc_record *rec)
{
    chrome *C = arg;
    if (!rec) { /* the thread's stream ended */
        flush_call(C, pr, t);
        timeline_end(C); /* its held OpenMP items are slices too */
        slices_flush(C, pr, t);
        hpa_u64map_free(&C->begins_map);
        C->nbegins = 0;
        C->any_sample = false;
        C->sample_ns = 0;
        return;
    }
    timeline_of(C, pr, t);
    switch (rec->kind) {
    case HPC_K_mpi_call:
        flush_call(C, pr, t);
        hpa_omp_timeline_feed(&C->tl, rec); /* the clocks rule: OpenMP events before it */
        C->call = (open_call){.open = true, .c = rec->u.mpi_call, .peer = -1};
        return;
    case HPC_K_mpi_p2p:
        if (C->call.open)
            p2p(C, pr, t, &rec->u.mpi_p2p);
        return;
    case HPC_K_mpi_coll:
        if (C->call.open) {
            C->call.bytes_sent += rec->u.mpi_coll.bytes_sent;
            C->call.bytes_recv += rec->u.mpi_coll.bytes_recv;
        }
        return;
    default:
        flush_call(C, pr, t);
        hpa_omp_timeline_feed(&C->tl, rec);
    }
}

/* ------------------------------------------------------------------ flows */

static int by_channel(const void *a, const void *b)
{
    const msg *x = a, *y = b;
#define CMP(f)                                                                                     \
    if (x->f != y->f)                                                                              \
        return x->f < y->f ? -1 : 1;
    CMP(src)
    CMP(dst)
    CMP(comm)
    CMP(tag)
    CMP(ts_ns)
    CMP(order)
#undef CMP
    return 0;
}

static int same_channel(const msg *x, const msg *y)
{
    return x->src == y->src && x->dst == y->dst && x->comm == y->comm && x->tag == y->tag;
}

static void flow(chrome *C, const msg *m, const char *ph, uint64_t id)
{
    sep(C);
    fprintf(C->out, "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"%s\",\"id\":%" PRIu64 ",",
            ph, id);
    ts_text(C->out, "ts", m->ts_ns);
    fprintf(C->out,
            ",\"pid\":%u,\"tid\":%u%s,\"args\":{\"bytes\":%" PRIu64 ",\"tag\":%" PRId64 "}}",
            m->pid, m->tid, ph[0] == 'f' ? ",\"bp\":\"e\"" : "", m->bytes, m->tag);
}

/* Pair the i-th send of each (source, destination, communicator, tag) with the i-th
 * completed receive of it. */
static void flows(chrome *C)
{
    msgs *s = &C->sends, *r = &C->recvs;
    if (s->n)
        qsort(s->v, s->n, sizeof(*s->v), by_channel);
    if (r->n)
        qsort(r->v, r->n, sizeof(*r->v), by_channel);
    size_t i = 0, j = 0;
    while (i < s->n && j < r->n) {
        int c = by_channel(&s->v[i], &r->v[j]);
        if (same_channel(&s->v[i], &r->v[j])) {
            if (in_window(C, s->v[i].ts_ns, r->v[j].ts_ns)) {
                flow(C, &s->v[i], "s", C->nflows + 1);
                flow(C, &r->v[j], "f", C->nflows + 1);
                C->nflows++;
            }
            i++, j++;
        } else if (c < 0) {
            i++;
        } else {
            j++;
        }
    }
}

/* ------------------------------------------------------------------ main */

static void origin_and_window(chrome *C)
{
    const hpa_profile *p = C->p;
    C->origin = UINT64_MAX;
    for (size_t i = 0; i < p->nprocs; i++) {
        if (!p->procs[i].map)
            continue;
        uint64_t save = C->origin;
        C->origin = 0;
        uint64_t g = corr(C, i, p->procs[i].t0);
        C->origin = save;
        if (g < C->origin)
            C->origin = g;
    }
    if (C->origin == UINT64_MAX)
        C->origin = 0;
    const hpa_filter *f = &p->filter;
    C->tmin = C->tmax = -1;
    if (f->has_time) { /* the window is per process start; the trace's origin is near them */
        C->tmin = (int64_t)f->t_lo_ns;
        C->tmax = f->t_hi_ns == UINT64_MAX ? -1 : (int64_t)f->t_hi_ns;
    }
}

/* Heap tracing (-H): each process's bytes in use as a counter track ("heap in use", the
 * most within each interval of model/heap.h's timeline, at the interval's start). */
static void heap_counters(chrome *C)
{
    const hpa_profile *p = C->p;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpm_heap *h = p->procs[i].heap;
        if (!p->procs[i].map || !h || !h->traced)
            continue;
        for (unsigned k = 0; k < HPM_HEAP_POINTS; k++) {
            uint64_t t = h->t0 + (h->t1 - h->t0) * k / HPM_HEAP_POINTS, ct = corr(C, i, t);
            if (!in_window(C, ct, ct))
                continue;
            sep(C);
            fprintf(C->out, "{\"name\":\"heap in use\",\"cat\":\"heap\",\"ph\":\"C\",\"pid\":%zu,",
                    i);
            ts_text(C->out, "ts", ct);
            fprintf(C->out, ",\"args\":{\"bytes\":%" PRIu64 "}}", h->point_max[k]);
        }
    }
}

static void chrome_free(chrome *C)
{
    const hpa_profile *p = C->p;
    for (size_t i = 0; C->pi && i < p->nprocs; i++) {
        for (size_t k = 0; k < C->pi[i].nfn; k++)
            free(C->pi[i].fn_names[k]);
        free(C->pi[i].fn_names);
        free(C->pi[i].comm_keys);
        hpa_u64map_free(&C->pi[i].comm_gid);
    }
    free(C->pi);
    for (size_t i = 0; C->bucket_sf && i < p->nprocs; i++) {
        for (uint32_t t = 0; C->bucket_sf[i] && t < p->procs[i].nthreads; t++)
            free(C->bucket_sf[i][t]);
        free(C->bucket_sf[i]);
    }
    free(C->bucket_sf);
    hpa_u64map_free(&C->sf_map);
    free(C->sf_parent);
    free(C->sf_func);
    hpa_u64map_free(&C->begins_map);
    free(C->begins);
    for (size_t k = 0; k < C->nxs; k++)
        free(C->xs[k].args);
    free(C->xs);
    if (C->samples)
        fclose(C->samples);
    free(C->samples_buf);
    free(C->sends.v);
    free(C->recvs.v);
}

int hpa_export_chrome(hpa_ctx *ctx, FILE *out)
{
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    chrome C = {.ctx = ctx, .p = p, .out = out, .first = true, .first_sample = true};
    C.pi = calloc(p->nprocs + 1, sizeof(*C.pi));
    int rc = C.pi ? 0 : HPC_E_NOMEM;
    bool correct = several_hosts(p);
    for (size_t i = 0; rc == 0 && i < p->nprocs; i++)
        rc = proc_defs(&C, i, correct);
    if (rc == 0)
        rc = stacks(&C);
    if (rc) {
        fprintf(stderr, "hpanalyze: export chrome: %s\n", hpc_strerror(rc));
        chrome_free(&C);
        return HPA_EXIT_DATA;
    }
    origin_and_window(&C);
    uint64_t total[HPA_MAX_METRICS];
    hpa_profile_total(p, total);
    uint64_t nsamples = total[p->metrics.samples];
    C.stride =
        nsamples > MAX_SAMPLE_EVENTS ? (nsamples + MAX_SAMPLE_EVENTS - 1) / MAX_SAMPLE_EVENTS : 1;
    C.samples = open_memstream(&C.samples_buf, &C.samples_len);
    if (!C.samples) {
        fprintf(stderr, "hpanalyze: export chrome: %s\n", hpc_strerror(HPC_E_NOMEM));
        chrome_free(&C);
        return HPA_EXIT_DATA;
    }
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
    metadata(&C);
    rc = hpa_profile_replay(p, sample, record, &C);
    if (rc == 0 && C.err == 0)
        flows(&C);
    if (rc == 0 && C.err == 0)
        heap_counters(&C);
    fputs("\n],\n\"samples\":[", out);
    if (fflush(C.samples) == 0 && C.samples_len)
        fwrite(C.samples_buf, 1, C.samples_len, out);
    fputs("\n],\n", out);
    write_stack_frames(&C);
    fprintf(out, ",\n\"otherData\":{\"generator\":\"hpanalyze %s\",\"view\":", HPC_VERSION);
    qstr(out, ctx->opts.view ? ctx->opts.view->name : "machine");
    fprintf(out, ",\"samples_per_event\":%" PRIu64 ",\"experiments\":[", C.stride);
    for (unsigned e = 0; e < p->nexps; e++) {
        if (e)
            fputc(',', out);
        qstr(out, p->exps[e]->path);
    }
    fputs("]}}\n", out);
    if (C.omp_repaired)
        fprintf(stderr,
                "hpanalyze: export chrome: %" PRIu64 " OpenMP events moved by up to %" PRIu64
                " ns to nest with their thread's MPI calls (the MPI wrapper's and the OpenMP "
                "tool's clocks differ slightly)\n",
                C.omp_repaired, C.omp_shift);
    if (C.omp_closed)
        fprintf(stderr,
                "hpanalyze: export chrome: %" PRIu64
                " OpenMP tasks without an end closed at their thread's last event\n",
                C.omp_closed);
    if (C.stride > 1)
        fprintf(stderr,
                "hpanalyze: export chrome: %" PRIu64 " samples: every %" PRIu64
                "th of each thread is shown\n",
                nsamples, C.stride);
    rc = rc ? rc : C.err;
    chrome_free(&C);
    if (rc) {
        fprintf(stderr, "hpanalyze: export chrome: %s\n", hpc_strerror(rc));
        return HPA_EXIT_DATA;
    }
    return HPA_EXIT_OK;
}
