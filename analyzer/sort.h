/*
 * sort.h - row order for reports: --sort METRIC|name.
 *
 * Accepted keys: "name"; a metric key ("cpu", "samples", a counter name) meaning its
 * exclusive sum; "excl_KEY" / "incl_KEY" (an optional "_s" suffix is ignored); er_print's
 * "e.KEY" / "i.KEY" / "e.%KEY" and its metric names (totalcpu). Ties sort by name, so output is
 * stable.
 */
#ifndef HPA_SORT_H
#define HPA_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"

typedef struct hpa_sortkey {
    bool by_name;
    char kind; /* 'e' or 'i' */
    unsigned metric;
} hpa_sortkey;

/* Parse text (NULL = the first selected metric, else exclusive of the first visible one).
 * Returns 0 or -1. */
int hpa_sortkey_parse(const hpa_metrics *ms, const char *text, hpa_sortkey *k);

/* Text for the report title: "Exclusive Total CPU Time", "Name". */
void hpa_sortkey_title(const hpa_metrics *ms, const hpa_sortkey *k, char *buf, size_t cap);

/* Sort ids by k over excl/incl rows of nm values each (indexed by id); names by name(). */
void hpa_sort_ids(uint32_t *ids, size_t n, const hpa_sortkey *k, const uint64_t *excl,
                  const uint64_t *incl, unsigned nm, const char *(*name)(const void *, uint32_t),
                  const void *arg);

#endif
