/*
 * filter.c - sample filters: integer range sets and the per-sample predicate.
 */
#include "filter.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hpa_ranges_parse(hpa_ranges *r, const char *text)
{
    memset(r, 0, sizeof(*r));
    const char *p = text;
    while (*p) {
        char *end;
        errno = 0;
        long long lo = strtoll(p, &end, 10), hi = lo;
        if (end == p || errno)
            return -1;
        p = end;
        if (*p == '-') {
            p++;
            hi = strtoll(p, &end, 10);
            if (end == p || errno || hi < lo)
                return -1;
            p = end;
        }
        if (r->n >= sizeof(r->r) / sizeof(r->r[0]))
            return -1;
        r->r[r->n].lo = lo;
        r->r[r->n].hi = hi;
        r->n++;
        if (*p == ',')
            p++;
        else if (*p)
            return -1;
    }
    return r->n ? 0 : -1;
}

bool hpa_ranges_has(const hpa_ranges *r, int64_t v)
{
    if (r->n == 0)
        return true;
    for (unsigned i = 0; i < r->n; i++)
        if (v >= r->r[i].lo && v <= r->r[i].hi)
            return true;
    return false;
}

static int parse_seconds(const char *s, const char *end, uint64_t *ns)
{
    char buf[64];
    size_t n = (size_t)(end - s);
    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    char *e;
    double v = strtod(buf, &e);
    if (*e || v < 0)
        return -1;
    *ns = (uint64_t)(v * 1e9);
    return 0;
}

int hpa_filter_set_time(hpa_filter *f, const char *text)
{
    const char *dash = strchr(text, '-');
    if (!dash)
        return -1;
    f->t_lo_ns = 0;
    f->t_hi_ns = UINT64_MAX;
    if (dash > text && parse_seconds(text, dash, &f->t_lo_ns))
        return -1;
    if (dash[1] && parse_seconds(dash + 1, dash + strlen(dash), &f->t_hi_ns))
        return -1;
    if (f->t_hi_ns < f->t_lo_ns)
        return -1;
    f->has_time = true;
    f->active = true;
    return 0;
}

bool hpa_filter_process(const hpa_filter *f, int rank)
{
    return f->ranks.n == 0 || hpa_ranges_has(&f->ranks, rank);
}

bool hpa_filter_thread(const hpa_filter *f, uint32_t seq)
{
    return hpa_ranges_has(&f->threads, seq);
}

bool hpa_filter_sample(const hpa_filter *f, const hpa_sample_ctx *s)
{
    if (f->has_time && (s->rel_time_ns < f->t_lo_ns || s->rel_time_ns >= f->t_hi_ns))
        return false;
    return hpa_ranges_has(&f->cpus, s->cpu);
}

static bool is_range(const char *s, size_t n)
{
    size_t dashes = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '-')
            dashes++;
        else if (s[i] < '0' || s[i] > '9')
            return false;
    }
    return n > 0 && dashes <= 1 && s[0] != '-' && s[n - 1] != '-';
}

int hpa_filter_set_samples(hpa_filter *f, const char *text)
{
    char nums[512] = "";
    size_t nlen = 0;
    f->nlabels = 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, ",");
        if (n == 0)
            return -1;
        if (is_range(p, n)) {
            if (nlen + n + 2 > sizeof(nums))
                return -1;
            nlen += (size_t)snprintf(nums + nlen, sizeof(nums) - nlen, "%s%.*s", nlen ? "," : "",
                                     (int)n, p);
        } else {
            if (f->nlabels == sizeof(f->labels) / sizeof(f->labels[0]) || n >= sizeof(f->labels[0]))
                return -1;
            snprintf(f->labels[f->nlabels++], sizeof(f->labels[0]), "%.*s", (int)n, p);
        }
        p += n;
        if (*p == ',')
            p++;
    }
    memset(&f->samples, 0, sizeof(f->samples));
    if (nlen && hpa_ranges_parse(&f->samples, nums))
        return -1;
    if (!nlen && !f->nlabels)
        return -1;
    f->has_samples = true;
    f->active = true;
    return 0;
}

bool hpa_filter_period(const hpa_filter *f, uint32_t period, const char *label)
{
    if (!f->has_samples)
        return true;
    if (f->samples.n && hpa_ranges_has(&f->samples, period))
        return true;
    for (unsigned i = 0; i < f->nlabels; i++)
        if (label && strcmp(label, f->labels[i]) == 0)
            return true;
    return false;
}
