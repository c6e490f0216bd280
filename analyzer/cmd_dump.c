/*
 * cmd_dump.c - `dump`: every record of every file of the experiments, in file order,
 * printed generically from the schema (hpc_schema_kind), so new record kinds need no
 * change here:
 *
 *     == prog.1.hpc/main/t0.hpe (thread stream 0)
 *     @256 thread_begin time=123456789 seq=0 tid=4242 parent_seq=-1 ...
 *     @290 cct_node id=1 parent=0 pc=0x401136
 *
 * Unknown kinds print their id and length. CSV: file,offset,kind,fields ("k=v k=v").
 * JSON: {"report":"dump","records":[{"file","offset","kind", field: value ...}]}.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report_util.h"

typedef struct dumper {
    hpa_ctx *ctx;
    hpa_json j;
    char fields[65536];
} dumper;

/* Field values as text: integers, T as ns, strings escaped, bytes as hex. */
static size_t field_text(char *out, size_t cap, const hpc_field_desc *fd, const hpc_record *rec)
{
    const char *base = (const char *)&rec->u;
    switch (fd->type) {
    case 'U':
    case 'T': {
        uint64_t v;
        memcpy(&v, base + fd->offset, sizeof(v));
        bool addr = strcmp(fd->name, "pc") == 0 || strcmp(fd->name, "base") == 0 ||
                    strcmp(fd->name, "bias") == 0 || strcmp(fd->name, "codeptr") == 0 ||
                    strcmp(fd->name, "callsite") == 0 || strcmp(fd->name, "start_routine") == 0;
        return (size_t)snprintf(out, cap, addr ? "0x%" PRIx64 : "%" PRIu64, v);
    }
    case 'S': {
        int64_t v;
        memcpy(&v, base + fd->offset, sizeof(v));
        return (size_t)snprintf(out, cap, "%" PRId64, v);
    }
    case 's': {
        hpc_str s;
        memcpy(&s, base + fd->offset, sizeof(s));
        size_t n = 0;
        if (n < cap)
            out[n++] = '"';
        for (uint32_t i = 0; i < s.n && n + 5 < cap; i++) {
            unsigned char c = (unsigned char)s.p[i];
            if (c == '"' || c == '\\')
                n += (size_t)snprintf(out + n, cap - n, "\\%c", c);
            else if (c < 0x20 || c == 0x7f)
                n += (size_t)snprintf(out + n, cap - n, "\\x%02x", c);
            else
                out[n++] = (char)c;
        }
        if (n + 1 < cap)
            out[n++] = '"';
        out[n < cap ? n : cap - 1] = 0;
        return n;
    }
    default: {
        hpc_str s;
        memcpy(&s, base + fd->offset, sizeof(s));
        size_t n = 0;
        for (uint32_t i = 0; i < s.n && n + 3 < cap; i++)
            n += (size_t)snprintf(out + n, cap - n, "%02x", (unsigned char)s.p[i]);
        if (n == 0 && cap)
            out[0] = 0;
        return n;
    }
    }
}

static void json_field(hpa_json *j, const hpc_field_desc *fd, const hpc_record *rec)
{
    const char *base = (const char *)&rec->u;
    hpa_json_key(j, fd->name);
    if (fd->type == 'U' || fd->type == 'T') {
        uint64_t v;
        memcpy(&v, base + fd->offset, sizeof(v));
        hpa_json_u64(j, v);
    } else if (fd->type == 'S') {
        int64_t v;
        memcpy(&v, base + fd->offset, sizeof(v));
        hpa_json_i64(j, v);
    } else if (fd->type == 's') {
        hpc_str s;
        memcpy(&s, base + fd->offset, sizeof(s));
        hpa_json_strn(j, s.p, s.n);
    } else {
        char hex[4096];
        field_text(hex, sizeof(hex), fd, rec);
        hpa_json_str(j, hex);
    }
}

static void dump_record(dumper *d, const char *file, const hpc_record *rec)
{
    FILE *f = d->ctx->out;
    const hpc_kind_desc *kd = hpc_schema_kind(rec->kind);
    char kind[64];
    if (kd)
        snprintf(kind, sizeof(kind), "%s", kd->name);
    else
        snprintf(kind, sizeof(kind), "unknown_%u", rec->kind);
    if (d->ctx->opts.format == HPA_JSON) {
        hpa_json_begin_obj(&d->j);
        hpa_json_kstr(&d->j, "file", file);
        hpa_json_ku64(&d->j, "offset", rec->offset);
        hpa_json_kstr(&d->j, "kind", kind);
        if (kd)
            for (unsigned i = 0; i < kd->nfields; i++)
                json_field(&d->j, &kd->fields[i], rec);
        else
            hpa_json_ku64(&d->j, "length", rec->raw.n);
        hpa_json_end_obj(&d->j);
        return;
    }
    size_t n = 0, cap = sizeof(d->fields);
    d->fields[0] = 0;
    if (!kd)
        n += (size_t)snprintf(d->fields, cap, "length=%u", rec->raw.n);
    for (unsigned i = 0; kd && i < kd->nfields && n + 2 < cap; i++) {
        n += (size_t)snprintf(d->fields + n, cap - n, "%s%s=", i ? " " : "", kd->fields[i].name);
        if (n < cap)
            n += field_text(d->fields + n, cap - n, &kd->fields[i], rec);
    }
    if (d->ctx->opts.format == HPA_CSV) {
        hpa_csv_field(f, file, ',');
        fprintf(f, "%" PRIu64 ",%s,", rec->offset, kind);
        hpa_csv_field(f, d->fields, '\n');
    } else {
        fprintf(f, "@%" PRIu64 " %s %s\n", rec->offset, kind, d->fields);
    }
}

static void file_heading(dumper *d, const char *path, const char *what)
{
    if (d->ctx->opts.format == HPA_TEXT)
        fprintf(d->ctx->out, "== %s (%s)\n", path, what);
}

/* Every record of one stream file; a file that cannot be opened is reported by the reader. */
static void dump_stream(dumper *d, const char *path, const hpc_reader *schema, const char *what)
{
    hpc_reader *r;
    if (hpc_reader_open(&r, path, schema, d->ctx->diag) < 0)
        return;
    file_heading(d, path, what);
    hpc_record rec;
    while (hpc_reader_next(r, &rec) == 1)
        dump_record(d, path, &rec);
    hpc_reader_close(r);
}

static void dump_process(dumper *d, const hpc_proc *p)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", p->dir, HPC_PROCESS_FILE);
    file_heading(d, path, "process stream and launcher records");
    for (size_t i = 0; i < p->nrecords; i++)
        dump_record(d, path, &p->records[i]);
    for (size_t t = 0; t < p->nthreads; t++) {
        char what[64];
        snprintf(what, sizeof(what), "thread stream %u", p->threads[t].seq);
        dump_stream(d, p->threads[t].path, p->schema, what);
    }
}

int cmd_dump(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    static dumper d; /* large buffer; one dump at a time */
    memset(&d, 0, sizeof(d));
    d.ctx = ctx;
    if (ctx->opts.format == HPA_CSV) {
        fputs("file,offset,kind,fields\n", ctx->out);
    } else if (ctx->opts.format == HPA_JSON) {
        hpa_json_init(&d.j, ctx->out);
        hpa_json_begin_obj(&d.j);
        hpa_json_kstr(&d.j, "report", "dump");
        hpa_json_key(&d.j, "records");
        hpa_json_begin_arr(&d.j);
    }
    const hpa_profile *prof = ctx->prof;
    for (unsigned i = 0; i < prof->nexps; i++) {
        const hpc_exp *e = prof->exps[i];
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", e->path, HPC_JOB_FILE);
        if (e->has_job)
            dump_stream(&d, path, NULL, "job stream");
        for (size_t k = 0; k < e->nprocs; k++)
            dump_process(&d, &e->procs[k]);
    }
    if (ctx->opts.format == HPA_JSON) {
        hpa_json_end_arr(&d.j);
        hpa_json_end_obj(&d.j);
    }
    return HPA_EXIT_OK;
}
