/*
 * cmd_archive.c - `archive [MODE]`: copy each experiment's load objects (and sources)
 * into it, as hpcollect-archive and gprofng's gp-archive do (model/archive.h); MODE as
 * hpcollect -a, default what the experiment was collected with (ldobjects if off):
 *
 *     solver.1.hpc (-a ldobjects): archived 12 load objects and 0 source files (17.0 MB)
 *
 * What could not be archived (gone, rebuilt since the run) is reported on stderr.
 * CSV: experiment,mode,objects,sources,bytes,present,missing,changed,failed.
 * JSON: {"report":"archive","experiments":[{"path","mode","objects",...}]}.
 */
#include <string.h>

#include "archive.h"
#include "commands.h"

int cmd_archive(hpa_ctx *ctx, int argc, char **argv)
{
    int asked = -1;
    if (argc > 0 && ((asked = hpc_archive_mode_parse(argv[0])) <= 0))
        return hpa_usage_error(
            "archive", "bad mode '%s' (expected ldobjects|usedldobjects|src|usedsrc|on)", argv[0]);
    const hpa_profile *p = ctx->prof;
    hpa_json j;
    if (ctx->opts.format == HPA_CSV)
        fputs("experiment,mode,objects,sources,bytes,present,missing,changed,failed\n", ctx->out);
    else if (ctx->opts.format == HPA_JSON)
        hpa_json_begin_report_list(&j, ctx->out, "archive", "experiments");
    int rc = HPA_EXIT_OK;
    for (unsigned i = 0; i < p->nexps; i++) {
        hpc_exp *e = p->exps[i];
        unsigned mode = asked > 0 ? (unsigned)asked
                        : e->nprocs && e->procs[0].settings.archive
                            ? (unsigned)e->procs[0].settings.archive
                            : HPC_ARCHIVE_OBJECTS;
        hpa_archive_report r;
        if (hpa_archive_exp(e, NULL, mode, ctx->diag, &r) != 0)
            rc = HPA_EXIT_DATA;
        const char *name = hpc_archive_mode_name(mode);
        if (ctx->opts.format == HPA_TEXT) {
            char line[512];
            hpa_archive_summary(&r, line, sizeof(line));
            fprintf(ctx->out, "%s (-a %s): %s\n", e->path, name, line);
        } else if (ctx->opts.format == HPA_CSV) {
            hpa_csv_field(ctx->out, e->path, ',');
            fprintf(ctx->out, "%s,%u,%u,%llu,%u,%u,%u,%u\n", name, r.objects, r.sources,
                    (unsigned long long)r.bytes, r.present, r.missing, r.changed, r.failed);
        } else {
            hpa_json_begin_obj(&j);
            hpa_json_kstr(&j, "path", e->path);
            hpa_json_kstr(&j, "mode", name);
            hpa_json_ku64(&j, "objects", r.objects);
            hpa_json_ku64(&j, "sources", r.sources);
            hpa_json_ku64(&j, "bytes", r.bytes);
            hpa_json_ku64(&j, "present", r.present);
            hpa_json_ku64(&j, "missing", r.missing);
            hpa_json_ku64(&j, "changed", r.changed);
            hpa_json_ku64(&j, "failed", r.failed);
            hpa_json_end_obj(&j);
        }
    }
    if (ctx->opts.format == HPA_JSON)
        hpa_json_end_report_list(&j);
    return rc;
}
