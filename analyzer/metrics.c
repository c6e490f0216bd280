/*
 * metrics.c - the base metric set (CPU time and clock samples) and its lookups.
 */
#include "metrics.h"

#include <stdio.h>
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

/* er_print's names for our metrics. */
static const struct {
    const char *alias, *key;
} aliases[] = {
    {"totalcpu", "cpu"},
    {"ompwork", "omp_work"},
    {"ompwait", "omp_wait"},
    {"mpi", "mpi_cpu"},
    {"sync", "sync_wait"}, /* gprofng's Sync Wait Time and Sync Wait Count */
    {"syncn", "sync_count"},
    {"heapalloccnt", "heap_allocs"},
    {"heapallocbytes", "heap_bytes"},
    {"heapleakcnt", "heap_leaks"},
    {"heapleakbytes", "heap_leaked_bytes"},
};

int hpa_metrics_lookup(const hpa_metrics *ms, const char *name)
{
    int m = hpa_metrics_find(ms, name);
    for (size_t i = 0; m < 0 && i < sizeof(aliases) / sizeof(aliases[0]); i++)
        if (strcmp(name, aliases[i].alias) == 0)
            m = hpa_metrics_find(ms, aliases[i].key);
    return m;
}

/* Parse one entry "ei.%cpu" into e. Returns 0, 1 for "name", or -1. */
static int parse_entry(const hpa_metrics *ms, const char *tok, size_t len, hpa_metric_sel *e)
{
    char buf[160];
    if (len == 0 || len >= sizeof(buf))
        return -1;
    memcpy(buf, tok, len);
    buf[len] = 0;
    if (strcmp(buf, "name") == 0)
        return 1;
    const char *name = buf;
    char *dot = strchr(buf, '.');
    e->kinds = 0;
    if (dot) {
        for (const char *k = buf; k < dot; k++) {
            unsigned bit = *k == 'e'   ? HPA_KIND_E
                           : *k == 'i' ? HPA_KIND_I
                           : *k == 'a' ? HPA_KIND_A
                                       : 0;
            if (!bit)
                return -1;
            e->kinds |= bit;
        }
        name = dot + 1;
    }
    if (!e->kinds)
        e->kinds = HPA_KIND_E | HPA_KIND_I;
    e->pct = !dot || *name == '%';
    if (*name == '%')
        name++;
    int m = hpa_metrics_lookup(ms, name);
    if (m < 0)
        return -1;
    e->metric = (unsigned)m;
    return 0;
}

int hpa_metrics_select(hpa_metrics *ms, const char *spec, char *err, size_t cap)
{
    if (strcmp(spec, "default") == 0) {
        ms->nsel = 0;
        return 0;
    }
    hpa_metric_sel sel[2 * HPA_MAX_METRICS];
    unsigned n = 0;
    for (const char *p = spec; *p;) {
        size_t len = strcspn(p, ":");
        hpa_metric_sel e;
        int rc = parse_entry(ms, p, len, &e);
        if (rc < 0 || (rc == 0 && n == sizeof(sel) / sizeof(sel[0]))) {
            snprintf(err, cap,
                     "bad metric '%.*s' (expected FLAVORS.[%%]NAME with flavors e, i, a "
                     "and a name from `metrics`, e.g. e.%%cpu:i.cpu)",
                     (int)len, p);
            return -1;
        }
        if (rc == 0)
            sel[n++] = e;
        p += len;
        if (*p == ':')
            p++;
    }
    if (n == 0) {
        snprintf(err, cap, "no metric in '%s'", spec);
        return -1;
    }
    memcpy(ms->sel, sel, sizeof(sel[0]) * n);
    ms->nsel = n;
    return 0;
}

void hpa_metrics_sel_text(const hpa_metrics *ms, char *buf, size_t cap)
{
    static const struct {
        unsigned bit;
        char c;
    } flavors[] = {{HPA_KIND_E, 'e'}, {HPA_KIND_I, 'i'}, {HPA_KIND_A, 'a'}};
    hpa_metric_sel def[HPA_MAX_METRICS];
    const hpa_metric_sel *sel = ms->sel;
    unsigned n = ms->nsel;
    if (n == 0) {
        sel = def;
        for (unsigned i = 0; i < ms->n; i++)
            if (ms->m[i].visible)
                def[n++] = (hpa_metric_sel){i, HPA_KIND_E | HPA_KIND_I, true};
    }
    size_t len = 0;
    buf[0] = 0;
    for (unsigned k = 0; k < n; k++)
        for (size_t f = 0; f < 3; f++)
            if ((sel[k].kinds & flavors[f].bit) && len < cap)
                len += (size_t)snprintf(buf + len, cap - len, "%c.%s%s:", flavors[f].c,
                                        sel[k].pct ? "%" : "", ms->m[sel[k].metric].key);
    if (len < cap)
        snprintf(buf + len, cap - len, "name");
}

bool hpa_metrics_selected(const hpa_metrics *ms, unsigned m)
{
    if (ms->nsel == 0)
        return ms->m[m].visible;
    for (unsigned i = 0; i < ms->nsel; i++)
        if (ms->sel[i].metric == m)
            return true;
    return false;
}
