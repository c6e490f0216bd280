/*
 * sort.c - parsing sort keys and sorting report rows.
 */
#include "sort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hpa_sortkey_parse(const hpa_metrics *ms, const char *text, hpa_sortkey *k)
{
    memset(k, 0, sizeof(*k));
    k->kind = 'e';
    if (!text && ms->nsel) { /* er_print: the first selected metric */
        k->metric = ms->sel[0].metric;
        k->kind = ms->sel[0].kinds & HPA_KIND_E ? 'e' : 'i';
        return 0;
    }
    if (!text) {
        for (unsigned i = 0; i < ms->n; i++)
            if (ms->m[i].visible) {
                k->metric = i;
                return 0;
            }
        return 0;
    }
    if (strcmp(text, "name") == 0) {
        k->by_name = true;
        return 0;
    }
    char key[128];
    snprintf(key, sizeof(key), "%s", text);
    const char *m = key;
    if (strncmp(key, "excl_", 5) == 0 || strncmp(key, "e.", 2) == 0) {
        m = key + (key[1] == '.' ? 2 : 5);
    } else if (strncmp(key, "incl_", 5) == 0 || strncmp(key, "i.", 2) == 0) {
        k->kind = 'i';
        m = key + (key[1] == '.' ? 2 : 5);
    }
    if (*m == '%') /* er_print's e.%cpu: the percentage is a display choice */
        m++;
    size_t n = strlen(m);
    if (n > 2 && strcmp(m + n - 2, "_s") == 0)
        key[(m - key) + n - 2] = 0;
    int idx = hpa_metrics_lookup(ms, m);
    if (idx < 0)
        return -1;
    k->metric = (unsigned)idx;
    return 0;
}

void hpa_sortkey_title(const hpa_metrics *ms, const hpa_sortkey *k, char *buf, size_t cap)
{
    if (k->by_name) {
        snprintf(buf, cap, "Name");
        return;
    }
    const hpa_metric *m = &ms->m[k->metric];
    snprintf(buf, cap, "%s %s%s", k->kind == 'e' ? "Exclusive" : "Inclusive", m->title,
             m->time ? " Time" : "");
}

typedef struct sort_ctx {
    const hpa_sortkey *k;
    const uint64_t *vals;
    unsigned nm;
    const char *(*name)(const void *, uint32_t);
    const void *arg;
} sort_ctx;

static int cmp_ids(const void *a, const void *b, void *arg)
{
    const sort_ctx *s = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (!s->k->by_name) {
        uint64_t vx = s->vals[(size_t)x * s->nm + s->k->metric];
        uint64_t vy = s->vals[(size_t)y * s->nm + s->k->metric];
        if (vx != vy)
            return vx > vy ? -1 : 1;
    }
    int c = strcmp(s->name(s->arg, x), s->name(s->arg, y));
    return c ? c : (x > y) - (x < y);
}

void hpa_sort_ids(uint32_t *ids, size_t n, const hpa_sortkey *k, const uint64_t *excl,
                  const uint64_t *incl, unsigned nm, const char *(*name)(const void *, uint32_t),
                  const void *arg)
{
    sort_ctx s = {.k = k, .vals = k->kind == 'i' ? incl : excl, .nm = nm, .name = name, .arg = arg};
    qsort_r(ids, n, sizeof(*ids), cmp_ids, &s);
}
