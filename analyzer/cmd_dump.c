/*
 * cmd_dump.c - `dump`: every record of every file of the experiments, in file order,
 * printed by the experiment library's generic printer (hpc_record_print), so new record
 * kinds need no change here:
 *
 *     == prog.1.hpc/main/t0.hpe (thread stream 0)
 *     thread_begin @256 time=123456789 seq=0 tid=4242 parent_seq=-1 ...
 *     cct_node @290 id=1 parent=0 pc=4198710
 *
 * CSV: file,record (the printer's text line).
 * JSON: {"report":"dump","records":[{"file":..., "record":"cct_node","offset":290, ...}]}.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_util.h"

typedef struct dumper {
    hpa_ctx *ctx;
    bool first;
    int err;
} dumper;

static void dump_record(dumper *d, const char *file, const hpc_record *rec,
                        const hpc_reader *schema)
{
    FILE *f = d->ctx->out;
    if (d->ctx->opts.format == HPA_JSON) {
        fputs(d->first ? "\n  {\"file\":" : ",\n  {\"file\":", f);
        hpa_json_quote(f, file, strlen(file));
        fputc(',', f);
        d->err |= hpc_record_print(f, rec, schema, HPC_PRINT_JSON);
        fputc('}', f);
    } else if (d->ctx->opts.format == HPA_CSV) {
        char *line = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&line, &len);
        if (!m) {
            d->err = -1;
            return;
        }
        hpc_record_print(m, rec, schema, HPC_PRINT_TEXT);
        fclose(m);
        hpa_csv_field(f, file, ',');
        hpa_csv_field(f, line ? line : "", '\n');
        free(line);
    } else {
        d->err |= hpc_record_print(f, rec, schema, HPC_PRINT_TEXT);
        fputc('\n', f);
    }
    d->first = false;
}

static void file_heading(dumper *d, const char *path, const char *what)
{
    if (d->ctx->opts.format == HPA_TEXT)
        fprintf(d->ctx->out, "== %s (%s)\n", path, what);
}

/* Every record of one stream file; a file that cannot be opened is reported by the reader. */
static void dump_stream(dumper *d, const char *path, const hpc_reader *schema, uint64_t offset,
                        const char *what)
{
    hpc_reader *r;
    if (hpc_reader_open_life(&r, path, schema, d->ctx->diag, offset) < 0)
        return;
    file_heading(d, path, what);
    hpc_record rec;
    while (hpc_reader_next(r, &rec) == 1)
        dump_record(d, path, &rec, r);
    hpc_reader_close(r);
}

static void dump_process(dumper *d, hpc_proc *p)
{
    /* opened slim (hpa_profile_open): every record whole, and the schema, while it is
     * dumped; damage was reported at open */
    bool slim = p->lean;
    if (slim && hpc_proc_load(p, &(hpc_diag){.quiet = 1}) < 0)
        slim = false; /* unreadable now: what was kept is dumped */
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", p->dir, HPC_PROCESS_FILE);
    file_heading(d, path, "process stream, then launcher records");
    for (size_t i = 0; i < p->nrecords; i++)
        dump_record(d, path, &p->records[i], p->schema);
    for (size_t t = 0; t < p->nthreads; t++) {
        const hpc_thread_file *tf = &p->threads[t];
        char what[96];
        if (tf->offset)
            snprintf(what, sizeof(what), "thread %u, from offset %llu", tf->seq,
                     (unsigned long long)tf->offset);
        else
            snprintf(what, sizeof(what), "thread stream %u", tf->seq);
        dump_stream(d, tf->path, p->schema, tf->offset, what);
    }
    if (slim)
        hpc_proc_unload(p);
}

int cmd_dump(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    dumper d = {.ctx = ctx, .first = true};
    if (ctx->opts.format == HPA_CSV)
        fputs("file,record\n", ctx->out);
    else if (ctx->opts.format == HPA_JSON)
        fputs("{\"report\":\"dump\",\"records\":[", ctx->out);
    const hpa_profile *prof = ctx->prof;
    for (unsigned i = 0; i < prof->nexps; i++) {
        hpc_exp *e = prof->exps[i];
        char path[4096];
        snprintf(path, sizeof(path), "%s/%s", e->path, HPC_JOB_FILE);
        if (e->has_job)
            dump_stream(&d, path, NULL, 0, "job stream");
        for (size_t k = 0; k < e->nprocs; k++)
            dump_process(&d, &e->procs[k]);
    }
    if (ctx->opts.format == HPA_JSON)
        fputs("\n]}\n", ctx->out);
    return d.err ? HPA_EXIT_DATA : HPA_EXIT_OK;
}
