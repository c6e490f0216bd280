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
 *     says k;
 *   - heap tracing (-H): a counter track "heap in use" per process (bytes in use at
 *     model/heap.h's points: each twentieth of the heap timeline's most, where it was
 *     reached, the sample points, the end).
 *
 * Slice names are stable (the function, "omp parallel", "omp implicit task" ...): instance
 * ids (region, task, wait id) and sizes are args. Times are whole microseconds, every time
 * of a process rounded down the same way, so a slice that lies inside another in
 * nanoseconds does so in microseconds too (ts + dur exact, no staircase in viewers). The
 * slices of a thread are written nested: a slice that begins inside another but would end
 * after it is cut at the other's end and says so in args.clipped_us (the time cut off).
 *
 * The slices, messages, times and filters are the timeline's (timeline.h: its MPI and
 * OpenMP layers, and whatever layers tracers add, each layer a category): timestamps are
 * microseconds from the earliest process start, on rank 0's clock. Filters apply: left-out
 * ranks and threads have no tracks, samples outside --time/--cpus/--samples are not shown,
 * and trace slices that end before or start after a --time window are left out. A slice's
 * numbers are its args, with its call site or location ("main heat.c:132").
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "heap.h"
#include "report_util.h"
#include "timeline.h"
#include "u64map.h"
#include "view.h"

#define MAX_SAMPLE_EVENTS 200000

typedef struct chrome {
    hpa_ctx *ctx;
    hpa_profile *p;
    hpa_timeline *tl;
    FILE *out;
    bool first;
    /* stack frames: (parent, func) -> id, ids from 1 */
    hpa_u64map sf_map;
    uint32_t nsf, sf_cap;
    uint32_t *sf_parent, *sf_func;
    uint32_t ***bucket_sf; /* [process][thread][bucket] */
    int err;
    /* samples */
    uint64_t stride, seen;
    uint64_t sample_ns;      /* CPU time of the samples skipped (stride) since the last kept */
    uint64_t last_sample_us; /* the thread's latest sample time written */
    const hpa_thread *sample_thread;
    FILE *samples; /* the "samples" array's text (open_memstream) */
    char *samples_buf;
    size_t samples_len;
    bool first_sample;
    uint64_t nflows;
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

/* Whole microseconds of a time from the origin: rounding down, the same for every time,
 * keeps the order of begins and ends. */
static uint64_t us_of(uint64_t ns)
{
    return ns / 1000;
}

static size_t proc_index(const chrome *C, const hpa_process *pr)
{
    return (size_t)(pr - C->p->procs);
}

/* One slice's args: its numbers, where it is, what nesting cut off. */
static void slice_args(chrome *C, const hpa_tl_slice *x)
{
    bool any = false;
    for (unsigned k = 0; x->keys && k < HPA_TL_NV && x->keys[k]; k++) {
        fprintf(C->out, "%s\"%s\":%" PRId64, any ? "," : "", x->keys[k], x->v[k]);
        any = true;
    }
    if (x->site_key) {
        char where[1200];
        hpa_loc_text(C->p->syms, x->site, where, sizeof where);
        fprintf(C->out, "%s\"%s\":", any ? "," : "", x->site_key);
        qstr(C->out, where);
        any = true;
    }
    if (x->note_key && x->note) {
        fprintf(C->out, "%s\"%s\":", any ? "," : "", x->note_key);
        qstr(C->out, x->note);
        any = true;
    }
    if (x->clipped)
        fprintf(C->out, "%s\"clipped_us\":%" PRIu64, any ? "," : "", x->clipped);
}

/* A thread's slices, in whole microseconds, nested (see the top of the file). */
static void thread_slices(void *arg, const hpa_process *pr, const hpa_thread *t, hpa_tl_slice *s,
                          size_t n)
{
    chrome *C = arg;
    C->sample_ns = 0; /* the next thread's samples start afresh */
    for (size_t k = 0; k < n; k++)
        s[k].b = us_of(s[k].b), s[k].e = us_of(s[k].e);
    int rc = hpa_tl_nest(s, n);
    if (rc) {
        C->err = rc;
        return;
    }
    for (size_t k = 0; k < n; k++) {
        const hpa_tl_slice *x = &s[k];
        sep(C);
        fputs("{\"name\":", C->out);
        qstr(C->out, x->name);
        fprintf(C->out,
                ",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%" PRIu64 ",\"dur\":%" PRIu64
                ",\"pid\":%zu,\"tid\":%u,\"args\":{",
                hpa_tl_layers[x->layer]->title, x->b, x->e - x->b, proc_index(C, pr), t->seq);
        slice_args(C, x);
        fputs("}}", C->out);
    }
}

/* ------------------------------------------------------------------ definitions */

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
            const char *role = hpa_timeline_thread_role(pr, th);
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
    uint64_t end = us_of(hpa_timeline_time(C->tl, ctx->proc, time));
    uint64_t w = (C->sample_ns + 500) / 1000, start = end > w ? end - w : 0;
    if (C->sample_thread == ctx->thread && start < C->last_sample_us)
        start = C->last_sample_us;
    sample_entry(C, pi, ctx->thread->seq, start, sf, end - start, cpu);
    sample_entry(C, pi, ctx->thread->seq, end, 0, 0, cpu);
    C->last_sample_us = end;
    C->sample_thread = ctx->thread;
    C->sample_ns = 0;
}

/* ------------------------------------------------------------------ flows */

static void flow_end(chrome *C, const hpa_process *pr, uint32_t seq, uint64_t ns, uint64_t bytes,
                     int64_t tag, bool start)
{
    sep(C);
    fprintf(C->out,
            "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"%s\",\"id\":%" PRIu64
            ",\"ts\":%" PRIu64 ",\"pid\":%zu,\"tid\":%u%s,\"args\":{\"bytes\":%" PRIu64
            ",\"tag\":%" PRId64 "}}",
            start ? "s" : "f", C->nflows + 1, us_of(ns), proc_index(C, pr), seq,
            start ? "" : ",\"bp\":\"e\"", bytes, tag);
}

static void message(void *arg, const hpa_tl_msg *m)
{
    chrome *C = arg;
    flow_end(C, m->from_pr, m->from_seq, m->send_ns, m->bytes, m->tag, true);
    flow_end(C, m->to_pr, m->to_seq, m->recv_ns, m->bytes, m->tag, false);
    C->nflows++;
}

/* ------------------------------------------------------------------ main */

/* Heap tracing (-H): each process's bytes in use as a counter track ("heap in use":
 * model/heap.h's points, each at its own time). */
static void heap_counters(chrome *C)
{
    const hpa_profile *p = C->p;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        const hpm_heap *h = pr->heap;
        if (!pr->map || !h || !h->traced)
            continue;
        for (size_t k = 0; k < h->npoints; k++) {
            uint64_t ct = hpa_timeline_time(C->tl, pr, h->points[k].time);
            if (!hpa_timeline_in_window(C->tl, ct, ct))
                continue;
            sep(C);
            fprintf(C->out,
                    "{\"name\":\"heap in use\",\"cat\":\"heap\",\"ph\":\"C\",\"pid\":%zu,"
                    "\"ts\":%" PRIu64 ",\"args\":{\"bytes\":%" PRIu64 "}}",
                    i, us_of(ct), h->points[k].bytes);
        }
    }
}

static void chrome_free(chrome *C)
{
    const hpa_profile *p = C->p;
    for (size_t i = 0; C->bucket_sf && i < p->nprocs; i++) {
        for (uint32_t t = 0; C->bucket_sf[i] && t < p->procs[i].nthreads; t++)
            free(C->bucket_sf[i][t]);
        free(C->bucket_sf[i]);
    }
    free(C->bucket_sf);
    hpa_u64map_free(&C->sf_map);
    free(C->sf_parent);
    free(C->sf_func);
    if (C->samples)
        fclose(C->samples);
    free(C->samples_buf);
    hpa_timeline_close(C->tl);
}

static void say_repairs(const hpa_tl_stats *st, uint64_t nsamples, uint64_t stride)
{
    if (st->omp_repaired)
        fprintf(stderr,
                "hpanalyze: export chrome: %" PRIu64 " OpenMP events moved by up to %" PRIu64
                " ns to nest with their thread's MPI calls (the MPI wrapper's and the OpenMP "
                "tool's clocks differ slightly)\n",
                st->omp_repaired, st->omp_shift_ns);
    if (st->omp_closed)
        fprintf(stderr,
                "hpanalyze: export chrome: %" PRIu64 " OpenMP tasks or parallel regions without an "
                "end closed at their thread's last event\n",
                st->omp_closed);
    if (stride > 1)
        fprintf(stderr,
                "hpanalyze: export chrome: %" PRIu64 " samples: every %" PRIu64
                "th of each thread is shown\n",
                nsamples, stride);
}

int hpa_export_chrome(hpa_ctx *ctx, FILE *out)
{
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    chrome C = {.ctx = ctx, .p = p, .out = out, .first = true, .first_sample = true};
    int rc = hpa_timeline_open(&C.tl, p);
    if (rc == 0)
        rc = stacks(&C);
    if (rc == 0 && !(C.samples = open_memstream(&C.samples_buf, &C.samples_len)))
        rc = HPC_E_NOMEM;
    if (rc) {
        fprintf(stderr, "hpanalyze: export chrome: %s\n", hpc_strerror(rc));
        chrome_free(&C);
        return HPA_EXIT_DATA;
    }
    uint64_t total[HPA_MAX_METRICS];
    hpa_profile_total(p, total);
    uint64_t nsamples = total[p->metrics.samples];
    C.stride =
        nsamples > MAX_SAMPLE_EVENTS ? (nsamples + MAX_SAMPLE_EVENTS - 1) / MAX_SAMPLE_EVENTS : 1;
    fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", out);
    metadata(&C);
    hpa_tl_sink sink = {.arg = &C, .thread = thread_slices, .message = message, .sample = sample};
    rc = hpa_timeline_walk(C.tl, &sink);
    if (rc == 0)
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
    say_repairs(hpa_timeline_stats(C.tl), nsamples, C.stride);
    rc = rc ? rc : C.err;
    chrome_free(&C);
    if (rc) {
        fprintf(stderr, "hpanalyze: export chrome: %s\n", hpc_strerror(rc));
        return HPA_EXIT_DATA;
    }
    return HPA_EXIT_OK;
}
