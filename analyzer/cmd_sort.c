/*
 * cmd_sort.c - `sort KEY`: the sort key of the reports that follow, as er_print's sort
 * command sets it (same keys as --sort: name, cpu, e.%cpu, i.cpu, incl_cpu ...):
 *
 *     Current Sort Metric: Inclusive Total CPU Time ( i.cpu )
 *
 * JSON: {"report":"sort","sort":"Inclusive Total CPU Time","key":"i.cpu"}.
 */
#include <string.h>

#include "report_util.h"

int cmd_sort(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    hpa_profile *p = hpa_ctx_profile(ctx); /* counter and OpenMP metrics exist once loaded */
    if (!p)
        return HPA_EXIT_DATA;
    hpa_sortkey k;
    if (hpa_sortkey_parse(&p->metrics, argv[0], &k))
        return hpa_usage_error("sort",
                               "bad sort key '%s' (expected name, or a metric from `metrics` "
                               "such as e.cpu, i.cpu, samples)",
                               argv[0]);
    snprintf(ctx->sort_buf, sizeof(ctx->sort_buf), "%s", argv[0]);
    ctx->opts.sort = ctx->sort_buf;
    char title[128], key[160];
    hpa_sortkey_title(&p->metrics, &k, title, sizeof(title));
    if (k.by_name)
        snprintf(key, sizeof(key), "name");
    else
        snprintf(key, sizeof(key), "%c.%s", k.kind, p->metrics.m[k.metric].key);
    if (ctx->opts.format == HPA_TEXT) {
        fprintf(ctx->out, "Current Sort Metric: %s ( %s )\n", title, key);
    } else if (ctx->opts.format == HPA_CSV) {
        fprintf(ctx->out, "sort,key\n");
        hpa_csv_field(ctx->out, title, ',');
        hpa_csv_field(ctx->out, key, '\n');
    } else {
        hpa_json j;
        hpa_json_init(&j, ctx->out);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", "sort");
        hpa_json_kstr(&j, "sort", title);
        hpa_json_kstr(&j, "key", key);
        hpa_json_end_obj(&j);
    }
    return HPA_EXIT_OK;
}
