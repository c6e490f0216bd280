/*
 * filter.h - which samples an analysis keeps (issue 7: --ranks --threads --cpus --time
 * --samples). Filters run per sample before aggregation, so every report sees the same
 * filtered data; whole processes and threads are skipped before their streams are read.
 *
 * An empty filter (nothing set) keeps everything and costs one branch per thread.
 */
#ifndef HPA_FILTER_H
#define HPA_FILTER_H

#include <stdbool.h>
#include <stdint.h>

/* A set of integer ranges "0,2,5-7". */
typedef struct hpa_ranges {
    unsigned n;
    struct {
        int64_t lo, hi;
    } r[64];
} hpa_ranges;

typedef struct hpa_filter {
    bool active;        /* any of the below set */
    hpa_ranges ranks;   /* n == 0: all */
    hpa_ranges threads; /* thread seq numbers */
    hpa_ranges cpus;
    bool has_time;
    uint64_t t_lo_ns, t_hi_ns; /* relative to the process start */
    hpa_ranges samples;        /* sample periods by number (see hpa_filter_period) */
    bool has_samples;          /* --samples given: numbers and/or labels */
    unsigned nlabels;          /* sample periods by label: labels[i] */
    char labels[16][128];
} hpa_filter;

/* What a filter may look at for one sample. */
typedef struct hpa_sample_ctx {
    uint64_t rel_time_ns; /* since the process began */
    uint32_t cpu;
    uint32_t state;
} hpa_sample_ctx;

/* Parse "0,2,5-7" into r. Returns 0, or -1 (bad syntax, too many ranges). */
int hpa_ranges_parse(hpa_ranges *r, const char *text);
bool hpa_ranges_has(const hpa_ranges *r, int64_t v);

/* Parse --time "START-END" in seconds (either side may be empty). Returns 0 or -1. */
int hpa_filter_set_time(hpa_filter *f, const char *text);

/*
 * Parse --samples: a comma-separated list of period numbers, ranges "3-5" and labels
 * (words that are not numbers: the label of the sample point that ends the period).
 * Returns 0 or -1.
 */
int hpa_filter_set_samples(hpa_filter *f, const char *text);

/*
 * Keep the samples of sample period `period` whose closing sample point has `label`?
 * Periods, as er_print numbers samples: a process's sample points (sample_point records,
 * the collector's "start" point first) p0 < p1 < ... cut its time into periods; period k
 * (k >= 1) runs from p(k-1) to p(k) and is named by p(k)'s label; period 0 lies before
 * p0 and the one after the last point has no label.
 */
bool hpa_filter_period(const hpa_filter *f, uint32_t period, const char *label);

/* Keep a process with this MPI rank (-1 = not an MPI process)? */
bool hpa_filter_process(const hpa_filter *f, int rank);
/* Keep a thread with this sequence number? */
bool hpa_filter_thread(const hpa_filter *f, uint32_t seq);
/* Keep one sample (time, cpu)? Only called when f->active; sample periods are checked by
 * the loader, which knows the process's sample points (hpa_filter_period). */
bool hpa_filter_sample(const hpa_filter *f, const hpa_sample_ctx *s);

#endif
