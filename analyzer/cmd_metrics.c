/*
 * cmd_metrics.c - `metrics [LIST]`: with LIST, select the metric columns of the reports
 * that follow (er_print syntax, metrics.h: e.%cpu:i.page-faults); either way print the
 * selection, the sort metric and every metric the experiments have:
 *
 *     Current metrics: e.%cpu:i.%cpu:name
 *     Current Sort Metric: Exclusive Total CPU Time ( e.cpu )
 *     Available metrics:
 *       [X] Total CPU (cpu), sec.: total 1.160   flavors e i a
 *       [ ] Samples (samples): total 1160        flavors e i a
 *
 * CSV: key,title,unit,selected,total. JSON: {"report":"metrics","current":..., "sort":...,
 * "sort_key":..., "metrics":[{key, title, unit, time, selected, total}]}.
 */
#include <stdlib.h>
#include <string.h>

#include "report_util.h"

static void total_text(const hpa_metric *m, uint64_t raw, char *buf, size_t cap)
{
    if (m->time)
        snprintf(buf, cap, "%.3f", (double)raw * m->scale);
    else
        snprintf(buf, cap, "%.0f", (double)raw * m->scale);
}

int cmd_metrics(hpa_ctx *ctx, int argc, char **argv)
{
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    hpa_metrics *ms = &p->metrics;
    char err[400];
    if (argc > 0 && hpa_metrics_select(ms, argv[0], err, sizeof(err)))
        return hpa_usage_error("metrics", "%s", err);
    hpa_sortkey k;
    if (hpa_ctx_sortkey(ctx, "metrics", &k))
        return HPA_EXIT_USAGE;
    uint64_t total[HPA_MAX_METRICS];
    hpa_profile_total(p, total);
    char cur[1024], title[128], key[160];
    hpa_metrics_sel_text(ms, cur, sizeof(cur));
    hpa_sortkey_title(ms, &k, title, sizeof(title));
    if (k.by_name)
        snprintf(key, sizeof(key), "name");
    else
        snprintf(key, sizeof(key), "%c.%s", k.kind, ms->m[k.metric].key);
    FILE *f = ctx->out;
    char tot[64];
    if (ctx->opts.format == HPA_TEXT) {
        fprintf(f, "Current metrics: %s\n", cur);
        fprintf(f, "Current Sort Metric: %s ( %s )\n", title, key);
        fprintf(f, "Available metrics:\n");
        for (unsigned m = 0; m < ms->n; m++) {
            total_text(&ms->m[m], total[m], tot, sizeof(tot));
            fprintf(f, "  [%c] %s (%s)%s%s: total %s   flavors e i a\n",
                    hpa_metrics_selected(ms, m) ? 'X' : ' ', ms->m[m].title, ms->m[m].key,
                    ms->m[m].unit[0] ? ", " : "", ms->m[m].unit, tot);
        }
    } else if (ctx->opts.format == HPA_CSV) {
        fputs("key,title,unit,selected,total\n", f);
        for (unsigned m = 0; m < ms->n; m++) {
            hpa_csv_field(f, ms->m[m].key, ',');
            hpa_csv_field(f, ms->m[m].title, ',');
            hpa_csv_field(f, ms->m[m].unit, ',');
            fprintf(f, "%d,", hpa_metrics_selected(ms, m));
            hpa_csv_double(f, hpa_metric_value(ms, m, total[m]), '\n');
        }
    } else {
        hpa_json j;
        hpa_json_init(&j, f);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", "metrics");
        hpa_json_kstr(&j, "current", cur);
        hpa_json_kstr(&j, "sort", title);
        hpa_json_kstr(&j, "sort_key", key);
        hpa_json_key(&j, "metrics");
        hpa_json_begin_arr(&j);
        for (unsigned m = 0; m < ms->n; m++) {
            hpa_json_begin_obj(&j);
            hpa_json_kstr(&j, "key", ms->m[m].key);
            hpa_json_kstr(&j, "title", ms->m[m].title);
            hpa_json_kstr(&j, "unit", ms->m[m].unit);
            hpa_json_key(&j, "time");
            hpa_json_bool(&j, ms->m[m].time);
            hpa_json_key(&j, "selected");
            hpa_json_bool(&j, hpa_metrics_selected(ms, m));
            hpa_json_kdouble(&j, "total", hpa_metric_value(ms, m, total[m]));
            hpa_json_end_obj(&j);
        }
        hpa_json_end_arr(&j);
        hpa_json_end_obj(&j);
    }
    return HPA_EXIT_OK;
}
