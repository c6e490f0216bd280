/*
 * cmd_export.c - `export KIND [-o FILE]`: write a picture or a file for another tool.
 *
 *     hpanalyze run.hpc export flamegraph -o out.svg
 *     hpanalyze run.hpc export folded > out.folded
 *     hpanalyze run.hpc export chrome -o trace.json
 *     hpanalyze run.hpc export html -o report.html
 *
 * Every export follows the view, the filters and the sort metric (the measured metric),
 * or the metric `--metric KEY` names (a flame graph of Other Wait: `export flamegraph
 * --metric other_wait`; er_print's names work too: `--metric other`).
 * With -o the file is written beside its final name and renamed into place, so a reader
 * never sees half a file; the command then prints one line saying what it wrote (a JSON
 * or CSV row under --format). Without -o the export goes to standard output, which is
 * refused when other commands print there too under --format json (the array would not
 * be JSON any more).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export.h"
#include "report_util.h"

static const struct exporter {
    const char *kind;
    hpa_export_fn fn;
    const char *what;
} exporters[] = {
    {"flamegraph", hpa_export_flamegraph, "flame graph (SVG)"},
    {"folded", hpa_export_folded, "folded stacks"},
    {"chrome", hpa_export_chrome, "Chrome trace (JSON)"},
    {"html", hpa_export_html, "HTML report"},
};

static const struct exporter *find(const char *kind)
{
    for (size_t i = 0; i < sizeof(exporters) / sizeof(exporters[0]); i++)
        if (strcmp(exporters[i].kind, kind) == 0)
            return &exporters[i];
    return NULL;
}

static void report(hpa_ctx *ctx, const struct exporter *e, const char *file, long bytes)
{
    FILE *f = ctx->out;
    if (ctx->opts.format == HPA_TEXT) {
        fprintf(f, "Wrote %s to %s (%ld bytes)\n", e->what, file, bytes);
    } else if (ctx->opts.format == HPA_CSV) {
        fputs("kind,file,bytes\n", f);
        hpa_csv_field(f, e->kind, ',');
        hpa_csv_field(f, file, ',');
        fprintf(f, "%ld\n", bytes);
    } else {
        hpa_json j;
        hpa_json_init(&j, f);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", "export");
        hpa_json_kstr(&j, "kind", e->kind);
        hpa_json_kstr(&j, "file", file);
        hpa_json_ki64(&j, "bytes", bytes);
        hpa_json_end_obj(&j);
    }
}

static int to_file(hpa_ctx *ctx, const struct exporter *e, const char *file)
{
    size_t n = strlen(file) + 32;
    char *tmp = malloc(n);
    if (!tmp)
        return HPA_EXIT_DATA;
    snprintf(tmp, n, "%s.tmp%ld", file, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "hpanalyze: export: cannot write %s: %s\n", tmp, strerror(errno));
        free(tmp);
        return HPA_EXIT_DATA;
    }
    int rc = e->fn(ctx, f);
    long bytes = ftell(f);
    if (fflush(f) != 0 || ferror(f)) {
        fprintf(stderr, "hpanalyze: export: writing %s: %s\n", tmp, strerror(errno));
        rc = rc ? rc : HPA_EXIT_DATA;
    }
    if (fclose(f) != 0 && rc == 0) {
        fprintf(stderr, "hpanalyze: export: writing %s: %s\n", tmp, strerror(errno));
        rc = HPA_EXIT_DATA;
    }
    if (rc == 0 && rename(tmp, file) != 0) {
        fprintf(stderr, "hpanalyze: export: cannot rename %s to %s: %s\n", tmp, file,
                strerror(errno));
        rc = HPA_EXIT_DATA;
    }
    if (rc)
        unlink(tmp);
    else
        report(ctx, e, file, bytes);
    free(tmp);
    return rc;
}

int cmd_export(hpa_ctx *ctx, int argc, char **argv)
{
    const struct exporter *e = find(argv[0]);
    if (!e)
        return hpa_usage_error("export", "unknown kind '%s' (flamegraph, folded, chrome, html)",
                               argv[0]);
    const char *file = NULL, *metric = NULL;
    for (int i = 1; i < argc; i++) {
        if ((strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) && i + 1 < argc)
            file = argv[++i];
        else if (strcmp(argv[i], "--metric") == 0 && i + 1 < argc)
            metric = argv[++i];
        else
            return hpa_usage_error(
                "export", "unexpected argument '%s' (export KIND [-o FILE] [--metric KEY])",
                argv[i]);
    }
    ctx->export_metric = -1;
    if (metric) {
        hpa_profile *p = hpa_ctx_profile(ctx);
        if (!p)
            return HPA_EXIT_DATA;
        ctx->export_metric = hpa_metrics_lookup(&p->metrics, metric);
        if (ctx->export_metric < 0)
            return hpa_usage_error("export", "--metric %s: no such metric (`metrics` lists them)",
                                   metric);
    }
    if (!file)
        file = ctx->opts.output;
    int rc;
    if (file && strcmp(file, "-") != 0) {
        rc = to_file(ctx, e, file);
        ctx->export_metric = -1;
        return rc;
    }
    if (ctx->shared_stdout && ctx->opts.format == HPA_JSON)
        return hpa_usage_error("export",
                               "%s to standard output would break the JSON array of "
                               "the other commands' results: give -o FILE",
                               e->kind);
    rc = e->fn(ctx, ctx->out);
    ctx->export_metric = -1; /* for this export only */
    return rc;
}

unsigned hpa_export_metric(hpa_ctx *ctx)
{
    if (ctx->export_metric >= 0)
        return (unsigned)ctx->export_metric;
    hpa_sortkey k;
    if (hpa_sortkey_parse(&ctx->prof->metrics, ctx->opts.sort, &k) || k.by_name)
        return ctx->prof->metrics.cpu;
    return k.metric;
}

void hpa_xml_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&#39;", f);
            break;
        default:
            if ((unsigned char)*s >= 0x20 || *s == '\t')
                fputc(*s, f);
        }
    }
}
