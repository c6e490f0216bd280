/*
 * metrics.c - the base metric set (CPU time and clock samples) and its lookups.
 */
#include "metrics.h"

#include <string.h>

void hpa_metrics_init(hpa_metrics *ms)
{
    memset(ms, 0, sizeof(*ms));
    hpa_metric cpu = {.key = "cpu",
                      .title = "Total CPU",
                      .unit = "sec.",
                      .source = HPA_SRC_CLOCK_TIME,
                      .scale = 1e-9,
                      .time = true,
                      .visible = true};
    hpa_metric samples = {.key = "samples",
                          .title = "Samples",
                          .unit = "",
                          .source = HPA_SRC_CLOCK_COUNT,
                          .scale = 1,
                          .visible = false};
    ms->cpu = (unsigned)hpa_metrics_add(ms, &cpu);
    ms->samples = (unsigned)hpa_metrics_add(ms, &samples);
}

int hpa_metrics_add(hpa_metrics *ms, const hpa_metric *m)
{
    if (ms->n >= HPA_MAX_METRICS)
        return -1;
    ms->m[ms->n] = *m;
    return (int)ms->n++;
}

int hpa_metrics_find(const hpa_metrics *ms, const char *key)
{
    for (unsigned i = 0; i < ms->n; i++)
        if (strcmp(ms->m[i].key, key) == 0)
            return (int)i;
    return -1;
}
