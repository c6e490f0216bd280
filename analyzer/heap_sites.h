/*
 * heap_sites.h - heap tracing's distinct call stacks (er_print's `leaks` and `allocs`, and
 * the stacks `heap` shows at the peak): every call stack with a non-zero count of a heap
 * metric, in the selected view, merged across threads and processes by their frames
 * (function and offset, as er_print prints them), largest bytes first.
 */
#ifndef HPA_HEAP_SITES_H
#define HPA_HEAP_SITES_H

#include <stddef.h>
#include <stdint.h>

#include "commands.h"

typedef struct hpa_heap_frame {
    uint32_t func, line;
    uint64_t offset; /* the return address's offset in func, 0 when unknown */
} hpa_heap_frame;

#define HPA_SITE_NV 12 /* metrics a site carries (sites_spec) */

typedef struct hpa_heap_site {
    size_t first; /* its frames: pool[first .. first + n), leaf first */
    unsigned n;
    uint64_t count, bytes;   /* heap: instances, bytes; by a spec: its sums (below) */
    uint64_t v[HPA_SITE_NV]; /* by a spec: the value of each of its metrics */
} hpa_heap_site;

typedef struct hpa_heap_sites {
    size_t n;
    hpa_heap_site *s;
    hpa_heap_frame *pool;
    size_t npool;
    uint64_t count, bytes; /* totals */
} hpa_heap_sites;

/* Sites of the loaded profile by metrics count_m and bytes_m (indices into the metric
 * set). Returns 0 or HPC_E_NOMEM (out then holds nothing to free). */
int hpa_heap_sites_build(hpa_ctx *ctx, unsigned count_m, unsigned bytes_m, hpa_heap_sites *out);

/* Sites by several metrics (I/O call stacks): site.v[k] is metric m[k]'s value (k < nv);
 * a stack is a site when the metrics of count_mask (bits of k) sum to more than 0 (count:
 * that sum); sites are sorted by the sum of key_mask's (bytes: that sum), then count. */
typedef struct hpa_sites_spec {
    unsigned nv, m[HPA_SITE_NV];
    uint32_t count_mask, key_mask;
} hpa_sites_spec;
int hpa_sites_build(hpa_ctx *ctx, const hpa_sites_spec *spec, hpa_heap_sites *out);

/* One frame as er_print prints it: "leak_x + 0x0000001F  (heap_known.c:47)". */
void hpa_site_frame_text(const hpa_symtab *st, const hpa_heap_frame *f, char *buf, size_t cap);
void hpa_heap_sites_free(hpa_heap_sites *s);

/* The names er_print's layout uses for one kind of site. */
typedef struct hpa_heap_words {
    const char *report;   /* JSON "report", CSV and usage: "leaks" */
    const char *what;     /* "Leaks": Summary Results: Distinct Leaks = ... */
    const char *one;      /* "Leak": Leak #1, ... */
    const char *bytes;    /* "Bytes Leaked" */
    const char *json_key; /* the JSON list: "leaks" */
} hpa_heap_words;

/* Print the sites as er_print's -leaks/-allocs do (text), or as rows (CSV: number,
 * instances, bytes, stack root first ';'-separated) or JSON; at most --limit sites. */
void hpa_heap_sites_print(hpa_ctx *ctx, const hpa_heap_sites *s, const hpa_heap_words *w);

/* The metric named key, or print "hpanalyze: REPORT: no heap tracing data (record with
 * hpcollect -H on)" and return -1. */
int hpa_heap_metric(hpa_ctx *ctx, const char *report, const char *key);

/* Notes after a report: processes whose heap was read up to a last record (not ended). */
void hpa_heap_notes(hpa_ctx *ctx);

#endif
