/*
 * cmd_io.c - `ioactivity` and `iodetail [FILE]`: the traced I/O (-i) per file and per
 * handle, as gprofng's -ioactivity and -iodetail, with Darshan's characterization of
 * each file beside it. The numbers are model/io_stats.c's (hpmerge's summary shares
 * them).
 *
 * ioactivity: one row per file (sorted by total I/O time): gprofng's Read, Write, Other
 * I/O and I/O Error time, bytes and counts; then, beyond gprofng, the bandwidth of its
 * reads and writes (bytes over their time), the share of its transfers that were
 * sequential and consecutive, the processes that used it ("rank 2", or "shared by 4"),
 * and the slowest of them (most I/O time on it). Text adds two tables: access sizes per
 * file (reads/writes per Darshan bin) and each process's part of each file. JSON has all
 * of it per file (keys stable: path, read_time_s, read_bytes, read_count, write_...,
 * other_time_s, other_count, error_time_s, error_count, bandwidth_bytes_per_s,
 * read_sequential, read_consecutive, read_placed, write_..., sizes {read:[], write:[]},
 * size_bins [], processes [{process, rank, read_bytes, write_bytes, time_s, ...}],
 * shared, slowest); CSV the first table's columns.
 *
 * iodetail [FILE]: one row per handle (an open, dup, fopen, or a descriptor first met),
 * of every file or of the files whose path is FILE or ends with "/FILE", with the call
 * stack of the call that made it (text: "opened at", JSON: opened_at, leaf first).
 *
 * iocallstack: gprofng's -iocallstack: the I/O per distinct call stack (the I/O function
 * its leaf), merged across threads and processes, by I/O time: the totals, then each
 * stack's classes and frames. JSON: stacks [{number, <class>_time_s, _bytes, _count ...,
 * stack: [{function, offset, file, line}] leaf first}]; CSV: number, the classes, stack
 * (root first, ';'-separated).
 *
 * All three take the report's --ranks, --threads, --time and --samples (by each call's
 * start; a call has no CPU: --cpus keeps none).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "heap_sites.h"
#include "io_stats.h"
#include "output.h"
#include "periods.h"

static const char *const class_key[HPA_IO_NCLASS] = {"read", "write", "other", "error"};

/* "rank 3", or the process's sub-experiment name. */
static void proc_label(const hpa_profile *p, uint32_t proc, char *buf, size_t cap)
{
    const hpc_proc *pr = p->procs[proc].proc;
    if (pr->rank >= 0)
        snprintf(buf, cap, "rank %d", pr->rank);
    else
        snprintf(buf, cap, "%s", pr->name);
}

typedef struct keeper {
    const hpa_ctx *ctx;
    hpa_periods *periods; /* per process, with --samples */
} keeper;

/* The report's --threads, --time, --samples and --cpus, as the I/O metrics of functions
 * take them (a call is kept by its start; it has no CPU: --cpus leaves every call out). */
static bool keep_call(void *arg, uint32_t proc, uint32_t thread, uint64_t time)
{
    const keeper *k = arg;
    const hpa_profile *p = k->ctx->prof;
    const hpa_filter *f = &k->ctx->opts.filter;
    if (!f->active)
        return true;
    if (f->cpus.n || !hpa_filter_thread(f, thread))
        return false;
    if (k->periods && !hpa_periods_keep(&k->periods[proc], time))
        return false;
    uint64_t t0 = p->procs[proc].t0, rel = time >= t0 ? time - t0 : 0;
    return !f->has_time || (rel >= f->t_lo_ns && rel < f->t_hi_ns);
}

static int load(hpa_ctx *ctx, hpa_io *io)
{
    const hpa_profile *p = ctx->prof;
    const hpa_filter *f = &ctx->opts.filter;
    const hpc_proc **procs = calloc(p->nprocs + 1, sizeof *procs);
    bool *skip = calloc(p->nprocs + 1, sizeof *skip);
    keeper k = {.ctx = ctx};
    if (f->active && f->has_samples)
        k.periods = calloc(p->nprocs + 1, sizeof *k.periods);
    int rc = procs && skip && (k.periods || !(f->active && f->has_samples)) ? 0 : HPC_E_NOMEM;
    for (size_t i = 0; rc == 0 && i < p->nprocs; i++) {
        procs[i] = p->procs[i].proc;
        skip[i] = !hpa_filter_process(f, procs[i]->rank);
        if (k.periods && !skip[i])
            rc = hpa_periods_open(&k.periods[i], procs[i], f);
    }
    if (rc == 0)
        rc = hpa_io_load(io, procs, skip, (uint32_t)p->nprocs, keep_call, &k, p->diag);
    for (size_t i = 0; k.periods && i < p->nprocs; i++)
        hpa_periods_free(&k.periods[i]);
    free(k.periods);
    free(procs);
    free(skip);
    if (rc)
        fprintf(stderr, "hpanalyze: I/O records: %s\n", hpc_strerror(rc));
    return rc ? HPA_EXIT_DATA : 0;
}

/* ------------------------------------------------------------ per file */

/* The process that spent the most I/O time on f (index into f->shares). */
static uint32_t slowest(const hpa_io_file *f)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < f->nshares; i++)
        if (hpa_io_ns(&f->shares[i].s) > hpa_io_ns(&f->shares[best].s))
            best = i;
    return best;
}

static double share_of(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void users(const hpa_profile *p, const hpa_io_file *f, char *buf, size_t cap)
{
    if (f->nshares == 1)
        proc_label(p, f->shares[0].proc, buf, cap);
    else
        snprintf(buf, cap, "shared by %" PRIu32, f->nshares);
}

static void text_files(hpa_ctx *ctx, const hpa_io *io, const uint32_t *v, uint32_t n)
{
    FILE *o = ctx->out;
    const hpa_profile *p = ctx->prof;
    fprintf(o, "I/O activity per file\n\n");
    fprintf(o,
            "%-9s %-13s %-7s %-9s %-13s %-7s %-9s %-7s %-9s %-7s %-10s %-6s %-6s %-14s %-14s "
            "%s\n",
            "Read", "Read", "Read", "Write", "Write", "Write", "Other", "Other", "I/O Err.", "I/O",
            "Bandwidth", "Seq.", "Consec", "Processes", "Slowest", "Name");
    fprintf(o, "%-9s %-13s %-7s %-9s %-13s %-7s %-9s %-7s %-9s %-7s %-10s %-6s %-6s %-14s %-14s\n",
            "Time sec.", "Bytes", "Count", "Time sec.", "Bytes", "Count", "Time sec.", "Count",
            "Time sec.", "Errors", "MB/s", "%", "%", "", "");
    for (uint32_t k = 0; k < n; k++) {
        const hpa_io_file *f = &io->files[v[k]];
        const hpa_io_sum *s = &f->s;
        uint64_t placed = f->p.placed[0] + f->p.placed[1];
        char who[64], slow[64];
        users(p, f, who, sizeof who);
        proc_label(p, f->shares[slowest(f)].proc, slow, sizeof slow);
        fprintf(o,
                "%-9.3f %-13" PRIu64 " %-7" PRIu64 " %-9.3f %-13" PRIu64 " %-7" PRIu64
                " %-9.3f %-7" PRIu64 " %-9.3f %-7" PRIu64 " %-10.1f %-6.1f %-6.1f %-14s %-14s %s\n",
                (double)s->ns[HPA_IO_READ] * 1e-9, s->bytes[HPA_IO_READ], s->count[HPA_IO_READ],
                (double)s->ns[HPA_IO_WRITE] * 1e-9, s->bytes[HPA_IO_WRITE], s->count[HPA_IO_WRITE],
                (double)s->ns[HPA_IO_OTHER] * 1e-9, s->count[HPA_IO_OTHER],
                (double)s->ns[HPA_IO_ERROR] * 1e-9, s->count[HPA_IO_ERROR],
                hpa_io_bandwidth(s) / 1e6, share_of(f->p.seq[0] + f->p.seq[1], placed),
                share_of(f->p.consec[0] + f->p.consec[1], placed), who, f->nshares > 1 ? slow : "",
                hpa_strtab_get(&io->paths, f->path));
    }
    fprintf(o, "\nAccess sizes (reads/writes per size in bytes)\n\n");
    for (unsigned b = 0; b < HPA_IO_NSIZES; b++)
        fprintf(o, "%-11s ", hpa_io_size_labels[b]);
    fprintf(o, "Name\n");
    for (uint32_t k = 0; k < n; k++) {
        const hpa_io_file *f = &io->files[v[k]];
        if (!f->s.count[HPA_IO_READ] && !f->s.count[HPA_IO_WRITE])
            continue;
        for (unsigned b = 0; b < HPA_IO_NSIZES; b++) {
            char cell[32];
            snprintf(cell, sizeof cell, "%" PRIu64 "/%" PRIu64, f->p.sizes[0][b], f->p.sizes[1][b]);
            fprintf(o, "%-11s ", cell);
        }
        fprintf(o, "%s\n", hpa_strtab_get(&io->paths, f->path));
    }
    fprintf(o, "\nPer process\n\n%-14s %-13s %-13s %-9s %-10s %s\n", "Process", "Read Bytes",
            "Write Bytes", "Time sec.", "MB/s", "Name");
    for (uint32_t k = 0; k < n; k++) {
        const hpa_io_file *f = &io->files[v[k]];
        for (uint32_t i = 0; i < f->nshares; i++) {
            const hpa_io_sum *s = &f->shares[i].s;
            char who[64];
            proc_label(p, f->shares[i].proc, who, sizeof who);
            fprintf(o, "%-14s %-13" PRIu64 " %-13" PRIu64 " %-9.3f %-10.1f %s\n", who,
                    s->bytes[HPA_IO_READ], s->bytes[HPA_IO_WRITE], (double)hpa_io_ns(s) * 1e-9,
                    hpa_io_bandwidth(s) / 1e6, hpa_strtab_get(&io->paths, f->path));
        }
    }
}

static void json_sum(hpa_json *j, const hpa_io_sum *s)
{
    char key[64];
    for (unsigned c = 0; c < HPA_IO_NCLASS; c++) {
        snprintf(key, sizeof key, "%s_time_s", class_key[c]);
        hpa_json_kdouble(j, key, (double)s->ns[c] * 1e-9);
        if (c == HPA_IO_READ || c == HPA_IO_WRITE) {
            snprintf(key, sizeof key, "%s_bytes", class_key[c]);
            hpa_json_ku64(j, key, s->bytes[c]);
        }
        snprintf(key, sizeof key, "%s_count", class_key[c]);
        hpa_json_ku64(j, key, s->count[c]);
    }
    hpa_json_kdouble(j, "bandwidth_bytes_per_s", hpa_io_bandwidth(s));
}

static void json_pattern(hpa_json *j, const hpa_io_pattern *pt)
{
    char key[64];
    for (unsigned d = 0; d < 2; d++) {
        snprintf(key, sizeof key, "%s_placed", class_key[d]);
        hpa_json_ku64(j, key, pt->placed[d]);
        snprintf(key, sizeof key, "%s_sequential", class_key[d]);
        hpa_json_ku64(j, key, pt->seq[d]);
        snprintf(key, sizeof key, "%s_consecutive", class_key[d]);
        hpa_json_ku64(j, key, pt->consec[d]);
    }
    hpa_json_key(j, "sizes");
    hpa_json_begin_obj(j);
    for (unsigned d = 0; d < 2; d++) {
        hpa_json_key(j, class_key[d]);
        hpa_json_begin_arr(j);
        for (unsigned b = 0; b < HPA_IO_NSIZES; b++)
            hpa_json_u64(j, pt->sizes[d][b]);
        hpa_json_end_arr(j);
    }
    hpa_json_end_obj(j);
}

/* "stack": [{function, offset, file, line}], leaf first. */
static void json_frames(hpa_json *j, const char *key, const hpa_symtab *st, const hpa_heap_frame *f,
                        unsigned n)
{
    hpa_json_key(j, key);
    hpa_json_begin_arr(j);
    for (unsigned k = 0; k < n; k++) {
        const hpa_func *fn = hpa_symtab_func(st, f[k].func);
        const hpa_line *ln = f[k].line ? hpa_symtab_line(st, f[k].line) : NULL;
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "function", fn ? fn->name : "?");
        hpa_json_ku64(j, "offset", f[k].offset);
        hpa_json_kstr(j, "file", ln ? ln->file : "");
        hpa_json_ku64(j, "line", ln ? ln->lineno : 0);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
}

static void json_proc(hpa_json *j, const hpa_profile *p, uint32_t proc)
{
    hpa_json_kstr(j, "process", p->procs[proc].proc->name);
    hpa_json_ki64(j, "rank", p->procs[proc].proc->rank);
}

static void json_files(hpa_ctx *ctx, const hpa_io *io, const uint32_t *v, uint32_t n)
{
    const hpa_profile *p = ctx->prof;
    hpa_json j;
    hpa_json_init(&j, ctx->out);
    hpa_json_begin_obj(&j);
    hpa_json_kstr(&j, "report", "ioactivity");
    hpa_json_key(&j, "size_bins");
    hpa_json_begin_arr(&j);
    for (unsigned b = 0; b < HPA_IO_NSIZES; b++)
        hpa_json_str(&j, hpa_io_size_labels[b]);
    hpa_json_end_arr(&j);
    hpa_json_ku64(&j, "unknown_handles", io->unknown);
    hpa_json_key(&j, "files");
    hpa_json_begin_arr(&j);
    for (uint32_t k = 0; k < n; k++) {
        const hpa_io_file *f = &io->files[v[k]];
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "path", hpa_strtab_get(&io->paths, f->path));
        json_sum(&j, &f->s);
        json_pattern(&j, &f->p);
        hpa_json_ku64(&j, "handles", f->nhandles);
        hpa_json_key(&j, "shared");
        hpa_json_bool(&j, f->nshares > 1);
        hpa_json_key(&j, "slowest");
        hpa_json_begin_obj(&j);
        json_proc(&j, p, f->shares[slowest(f)].proc);
        hpa_json_end_obj(&j);
        hpa_json_key(&j, "processes");
        hpa_json_begin_arr(&j);
        for (uint32_t i = 0; i < f->nshares; i++) {
            hpa_json_begin_obj(&j);
            json_proc(&j, p, f->shares[i].proc);
            json_sum(&j, &f->shares[i].s);
            hpa_json_kdouble(&j, "time_s", (double)hpa_io_ns(&f->shares[i].s) * 1e-9);
            hpa_json_end_obj(&j);
        }
        hpa_json_end_arr(&j);
        hpa_json_end_obj(&j);
    }
    hpa_json_end_arr(&j);
    hpa_json_end_obj(&j);
    fputc('\n', ctx->out);
}

static void csv_files(hpa_ctx *ctx, const hpa_io *io, const uint32_t *v, uint32_t n)
{
    FILE *o = ctx->out;
    fprintf(o, "read_time_s,read_bytes,read_count,write_time_s,write_bytes,write_count,"
               "other_time_s,other_count,error_time_s,error_count,bandwidth_bytes_per_s,"
               "read_sequential,read_consecutive,read_placed,write_sequential,"
               "write_consecutive,write_placed,processes,shared,path\n");
    for (uint32_t k = 0; k < n; k++) {
        const hpa_io_file *f = &io->files[v[k]];
        const hpa_io_sum *s = &f->s;
        for (unsigned c = 0; c < HPA_IO_NCLASS; c++) {
            hpa_csv_double(o, (double)s->ns[c] * 1e-9, ',');
            if (c == HPA_IO_READ || c == HPA_IO_WRITE)
                hpa_csv_u64(o, s->bytes[c], ',');
            hpa_csv_u64(o, s->count[c], ',');
        }
        hpa_csv_double(o, hpa_io_bandwidth(s), ',');
        for (unsigned d = 0; d < 2; d++) {
            hpa_csv_u64(o, f->p.seq[d], ',');
            hpa_csv_u64(o, f->p.consec[d], ',');
            hpa_csv_u64(o, f->p.placed[d], ',');
        }
        hpa_csv_u64(o, f->nshares, ',');
        hpa_csv_u64(o, f->nshares > 1, ',');
        hpa_csv_field(o, hpa_strtab_get(&io->paths, f->path), '\n');
    }
}

int cmd_ioactivity(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc, (void)argv;
    hpa_io io;
    int rc = load(ctx, &io);
    if (rc)
        return rc;
    uint32_t n;
    uint32_t *v = hpa_io_files_by_time(&io, &n);
    if (!v) {
        hpa_io_free(&io);
        return HPA_EXIT_DATA;
    }
    if (ctx->opts.format == HPA_JSON)
        json_files(ctx, &io, v, n);
    else if (ctx->opts.format == HPA_CSV)
        csv_files(ctx, &io, v, n);
    else
        text_files(ctx, &io, v, n);
    free(v);
    hpa_io_free(&io);
    return 0;
}

/* ------------------------------------------------------------ per call stack */

/* The I/O metrics in enum hpa_io_what order (sites' v[]), and which are counts and times. */
static const char *const io_metric_keys[HPA_IO_WHAT_COUNT_] = {
    "ioreadtime", "ioreadbytes", "ioreadcnt",  "iowritetime", "iowritebytes",
    "iowritecnt", "ioothertime", "ioothercnt", "ioerrortime", "ioerrorcnt"};
#define IO_COUNTS                                                                                  \
    ((1u << HPA_IO_READ_COUNT) | (1u << HPA_IO_WRITE_COUNT) | (1u << HPA_IO_OTHER_COUNT) |         \
     (1u << HPA_IO_ERROR_COUNT))
#define IO_TIMES                                                                                   \
    ((1u << HPA_IO_READ_TIME) | (1u << HPA_IO_WRITE_TIME) | (1u << HPA_IO_OTHER_TIME) |            \
     (1u << HPA_IO_ERROR_TIME))

/* A site's values as one hpa_io_sum. */
static hpa_io_sum site_sum(const uint64_t *v)
{
    hpa_io_sum s = {0};
    s.ns[HPA_IO_READ] = v[HPA_IO_READ_TIME];
    s.bytes[HPA_IO_READ] = v[HPA_IO_READ_BYTES];
    s.count[HPA_IO_READ] = v[HPA_IO_READ_COUNT];
    s.ns[HPA_IO_WRITE] = v[HPA_IO_WRITE_TIME];
    s.bytes[HPA_IO_WRITE] = v[HPA_IO_WRITE_BYTES];
    s.count[HPA_IO_WRITE] = v[HPA_IO_WRITE_COUNT];
    s.ns[HPA_IO_OTHER] = v[HPA_IO_OTHER_TIME];
    s.count[HPA_IO_OTHER] = v[HPA_IO_OTHER_COUNT];
    s.ns[HPA_IO_ERROR] = v[HPA_IO_ERROR_TIME];
    s.count[HPA_IO_ERROR] = v[HPA_IO_ERROR_COUNT];
    return s;
}

/* gprofng's lines: "Read Time=0.189464 (secs.)  Read Bytes=104857600  Read Count=100";
 * classes without calls left out unless all. */
static void text_classes(FILE *o, const hpa_io_sum *s, bool all)
{
    static const char *const title[HPA_IO_NCLASS] = {"Read", "Write", "Other I/O", "I/O Error"};
    static const char *const count[HPA_IO_NCLASS] = {"Read", "Write", "Other I/O", "I/O Error"};
    for (unsigned c = 0; c < HPA_IO_NCLASS; c++) {
        if (!all && !s->count[c])
            continue;
        fprintf(o, "%s Time=%.6f (secs.)", title[c], (double)s->ns[c] * 1e-9);
        if (c == HPA_IO_READ || c == HPA_IO_WRITE)
            fprintf(o, "  %s Bytes=%" PRIu64, title[c], s->bytes[c]);
        fprintf(o, "  %s Count=%" PRIu64 "\n", count[c], s->count[c]);
    }
}

int cmd_iocallstack(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc, (void)argv;
    if (!hpa_ctx_profile(ctx))
        return HPA_EXIT_DATA;
    hpa_sites_spec spec = {.nv = HPA_IO_WHAT_COUNT_, .count_mask = IO_COUNTS, .key_mask = IO_TIMES};
    for (unsigned k = 0; k < HPA_IO_WHAT_COUNT_; k++) {
        int m = hpa_metrics_find(&ctx->prof->metrics, io_metric_keys[k]);
        if (m < 0) {
            fprintf(stderr, "hpanalyze: iocallstack: no I/O tracing data in the experiment "
                            "(record with hpcollect -i on)\n");
            return HPA_EXIT_DATA;
        }
        spec.m[k] = (unsigned)m;
    }
    hpa_heap_sites s;
    int rc = hpa_sites_build(ctx, &spec, &s);
    if (rc) {
        fprintf(stderr, "hpanalyze: iocallstack: %s\n", hpc_strerror(rc));
        return HPA_EXIT_DATA;
    }
    uint64_t total[HPA_SITE_NV] = {0};
    for (size_t i = 0; i < s.n; i++)
        for (unsigned k = 0; k < HPA_IO_WHAT_COUNT_; k++)
            total[k] += s.s[i].v[k];
    const hpa_symtab *st = ctx->prof->syms;
    FILE *o = ctx->out;
    size_t n = ctx->opts.limit && ctx->opts.limit < s.n ? ctx->opts.limit : s.n;
    char buf[1024];
    hpa_io_sum sum = site_sum(total);
    if (ctx->opts.format == HPA_TEXT) {
        fprintf(o, "<Total>\n");
        text_classes(o, &sum, true);
        for (size_t i = 0; i < n; i++) {
            const hpa_heap_site *site = &s.s[i];
            hpa_io_sum ss = site_sum(site->v);
            fprintf(o, "\nStack %zu\n", i + 1);
            text_classes(o, &ss, false);
            for (unsigned k = 0; k < site->n; k++) {
                hpa_site_frame_text(st, &s.pool[site->first + k], buf, sizeof buf);
                fprintf(o, "  %s\n", buf);
            }
        }
    } else if (ctx->opts.format == HPA_CSV) {
        fprintf(o, "number,read_time_s,read_bytes,read_count,write_time_s,write_bytes,"
                   "write_count,other_time_s,other_count,error_time_s,error_count,stack\n");
        for (size_t i = 0; i < n; i++) {
            const hpa_heap_site *site = &s.s[i];
            fprintf(o, "%zu,", i + 1);
            for (unsigned k = 0; k < HPA_IO_WHAT_COUNT_; k++) {
                if ((IO_TIMES >> k) & 1)
                    hpa_csv_double(o, (double)site->v[k] * 1e-9, ',');
                else
                    hpa_csv_u64(o, site->v[k], ',');
            }
            size_t len = 0;
            buf[0] = 0;
            for (unsigned k = site->n; k-- > 0 && len < sizeof buf;) {
                const hpa_func *fn = hpa_symtab_func(st, s.pool[site->first + k].func);
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
                                        k + 1 < site->n ? ";" : "", fn ? fn->name : "?");
            }
            hpa_csv_field(o, buf, '\n');
        }
    } else {
        hpa_json j;
        hpa_json_init(&j, o);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", "iocallstack");
        hpa_json_key(&j, "total");
        hpa_json_begin_obj(&j);
        json_sum(&j, &sum);
        hpa_json_end_obj(&j);
        hpa_json_key(&j, "stacks");
        hpa_json_begin_arr(&j);
        for (size_t i = 0; i < n; i++) {
            const hpa_heap_site *site = &s.s[i];
            hpa_io_sum ss = site_sum(site->v);
            hpa_json_begin_obj(&j);
            hpa_json_ku64(&j, "number", i + 1);
            json_sum(&j, &ss);
            json_frames(&j, "stack", st, s.pool + site->first, site->n);
            hpa_json_end_obj(&j);
        }
        hpa_json_end_arr(&j);
        hpa_json_end_obj(&j);
        fputc('\n', o);
    }
    hpa_heap_sites_free(&s);
    return 0;
}

/* ------------------------------------------------------------ per handle */

static bool path_matches(const char *path, const char *want)
{
    if (!want)
        return true;
    size_t n = strlen(path), w = strlen(want);
    return !strcmp(path, want) || (n > w && path[n - w - 1] == '/' && !strcmp(path + n - w, want));
}

static const char *paradigm_name(unsigned p)
{
    return p == HPC_IO_ISOC ? "ISO C" : p == HPC_IO_MPIIO ? "MPI-IO" : "POSIX";
}

/* The stack of the call that made handle h (leaf first, offsets unknown) into f. */
static unsigned opened_at(const hpa_profile *p, const hpa_io_handle *h, hpa_heap_frame *f,
                          unsigned cap)
{
    hpa_frame raw[64];
    unsigned n =
        hpa_profile_stack(p, h->proc, h->open_thread, h->open_node, raw, cap < 64 ? cap : 64);
    for (unsigned k = 0; k < n; k++)
        f[k] = (hpa_heap_frame){.func = raw[k].func, .line = raw[k].line};
    return n;
}

int cmd_iodetail(hpa_ctx *ctx, int argc, char **argv)
{
    const char *want = argc > 0 ? argv[0] : NULL;
    if (!hpa_ctx_profile(ctx)) /* the opening stacks are the profile's */
        return HPA_EXIT_DATA;
    hpa_io io;
    int rc = load(ctx, &io);
    if (rc)
        return rc;
    const hpa_profile *p = ctx->prof;
    FILE *o = ctx->out;
    hpa_json j;
    if (ctx->opts.format == HPA_JSON)
        hpa_json_begin_report_list(&j, o, "iodetail", "handles");
    else if (ctx->opts.format == HPA_CSV)
        fprintf(o, "process,rank,handle,parent,fd,paradigm,found,read_time_s,read_bytes,"
                   "read_count,write_time_s,write_bytes,write_count,other_time_s,other_count,"
                   "error_time_s,error_count,read_sequential,write_sequential,path\n");
    else
        fprintf(o,
                "I/O per handle%s%s\n\n%-14s %-7s %-5s %-7s %-9s %-13s %-7s %-9s %-13s %-7s "
                "%-7s %-7s %s\n",
                want ? " of " : "", want ? want : "", "Process", "Handle", "FD", "API", "Read sec.",
                "Read Bytes", "Reads", "Write sec", "Write Bytes", "Writes", "Other", "Errors",
                "Name");
    for (uint32_t i = 0; i < io.nhandles; i++) {
        const hpa_io_handle *h = &io.handles[i];
        const char *path = hpa_strtab_get(&io.paths, io.files[h->file].path);
        if (!path_matches(path, want))
            continue;
        const hpa_io_sum *s = &h->s;
        hpa_heap_frame at[32];
        unsigned nat = opened_at(p, h, at, 32);
        char who[64];
        proc_label(p, h->proc, who, sizeof who);
        if (ctx->opts.format == HPA_JSON) {
            hpa_json_begin_obj(&j);
            json_proc(&j, p, h->proc);
            hpa_json_ku64(&j, "handle", h->id);
            hpa_json_ku64(&j, "parent", h->parent);
            hpa_json_ki64(&j, "fd", h->fd);
            hpa_json_kstr(&j, "paradigm", paradigm_name(h->paradigm));
            hpa_json_key(&j, "found");
            hpa_json_bool(&j, h->flags & HPC_IO_HANDLE_FOUND);
            hpa_json_kstr(&j, "path", path);
            json_sum(&j, s);
            json_pattern(&j, &h->p);
            /* when it was used: its first call's start, its last call's end */
            uint64_t t0 = p->procs[h->proc].t0;
            hpa_json_kdouble(&j, "first_s", h->first > t0 ? (double)(h->first - t0) * 1e-9 : 0);
            hpa_json_kdouble(&j, "last_s", h->last > t0 ? (double)(h->last - t0) * 1e-9 : 0);
            json_frames(&j, "opened_at", p->syms, at, nat);
            hpa_json_end_obj(&j);
        } else if (ctx->opts.format == HPA_CSV) {
            hpa_csv_field(o, p->procs[h->proc].proc->name, ',');
            fprintf(o, "%d,%" PRIu64 ",%" PRIu64 ",%" PRId64 ",", p->procs[h->proc].proc->rank,
                    h->id, h->parent, h->fd);
            hpa_csv_field(o, paradigm_name(h->paradigm), ',');
            hpa_csv_u64(o, (h->flags & HPC_IO_HANDLE_FOUND) != 0, ',');
            for (unsigned c = 0; c < HPA_IO_NCLASS; c++) {
                hpa_csv_double(o, (double)s->ns[c] * 1e-9, ',');
                if (c == HPA_IO_READ || c == HPA_IO_WRITE)
                    hpa_csv_u64(o, s->bytes[c], ',');
                hpa_csv_u64(o, s->count[c], ',');
            }
            hpa_csv_u64(o, h->p.seq[0], ',');
            hpa_csv_u64(o, h->p.seq[1], ',');
            hpa_csv_field(o, path, '\n');
        } else {
            fprintf(o,
                    "%-14s %-7" PRIu64 " %-5" PRId64 " %-7s %-9.3f %-13" PRIu64 " %-7" PRIu64
                    " %-9.3f %-13" PRIu64 " %-7" PRIu64 " %-7" PRIu64 " %-7" PRIu64 " %s\n",
                    who, h->id, h->fd, paradigm_name(h->paradigm),
                    (double)s->ns[HPA_IO_READ] * 1e-9, s->bytes[HPA_IO_READ], s->count[HPA_IO_READ],
                    (double)s->ns[HPA_IO_WRITE] * 1e-9, s->bytes[HPA_IO_WRITE],
                    s->count[HPA_IO_WRITE], s->count[HPA_IO_OTHER], s->count[HPA_IO_ERROR], path);
            if (nat) {
                fprintf(o, "%-14s opened at ", "");
                for (unsigned k = 0; k < nat; k++) {
                    const hpa_func *fn = hpa_symtab_func(p->syms, at[k].func);
                    fprintf(o, "%s%s", k ? " < " : "", fn ? fn->name : "?");
                }
                fputc('\n', o);
            }
        }
    }
    if (ctx->opts.format == HPA_JSON)
        hpa_json_end_report_list(&j);
    hpa_io_free(&io);
    return 0;
}
