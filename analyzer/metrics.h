/*
 * metrics.h - what a sample contributes to: the metric set of an analysis.
 *
 * A metric is one column of numbers (CPU time, sample count, a counter's events, MPI
 * time ...). Each sample adds its value to every metric whose source and state predicate
 * match it, into a per-(thread, CCT node, state) vector of uint64 sums (profile.h). Reports
 * then sum those vectors over functions, lines or call paths, and print each metric as
 * exclusive and inclusive values.
 *
 * Adding a metric (issues 3-5): append an hpa_metric with hpa_metrics_add(): a state
 * predicate selects samples (e.g. MPI bit set, an OpenMP wait state), a counter index
 * selects counter samples. Nothing else in the pipeline changes.
 */
#ifndef HPA_METRICS_H
#define HPA_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#define HPA_MAX_METRICS 32

enum hpa_metric_source {
    HPA_SRC_CLOCK_TIME = 1,  /* sample_clock: adds cpu_ns */
    HPA_SRC_CLOCK_COUNT = 2, /* sample_clock: adds 1 */
    HPA_SRC_COUNTER = 3,     /* sample_counter of counter `counter`: adds value */
};

typedef struct hpa_metric {
    const char *key;   /* JSON/CSV stem: "cpu" -> excl_cpu_s, incl_cpu_s */
    const char *title; /* text header: "Total CPU" */
    const char *unit;  /* text unit line: "sec." or "" (counts) */
    enum hpa_metric_source source;
    unsigned counter;    /* HPA_SRC_COUNTER: the counter's global index */
    uint32_t state_mask; /* sample counts if (state & mask) == value */
    uint32_t state_value;
    uint32_t omp_states; /* non-zero: the sample also needs bit HPC_STATE_OMP(state) set here
                          * (a set of OpenMP states: OpenMP Work, OpenMP Wait) */
    double scale;        /* raw sum * scale = shown value (1e-9 for ns -> s) */
    bool time;           /* shown in seconds; JSON keys get "_s" */
    bool visible;        /* shown in text reports by default */
} hpa_metric;

typedef struct hpa_metrics {
    unsigned n;
    hpa_metric m[HPA_MAX_METRICS];
    unsigned cpu;     /* index of the CPU time metric */
    unsigned samples; /* index of the sample count metric */
} hpa_metrics;

/* Fill ms with the base metrics: CPU time (visible) and clock sample count. */
void hpa_metrics_init(hpa_metrics *ms);

/* Append a metric; returns its index, or -1 when the set is full. The strings are not
 * copied: they must outlive ms. */
int hpa_metrics_add(hpa_metrics *ms, const hpa_metric *m);

/* Index of the metric named key ("cpu", "samples", ...), or -1. */
int hpa_metrics_find(const hpa_metrics *ms, const char *key);

/* True if a sample with these state bits counts for metric m. */
static inline bool hpa_metric_counts(const hpa_metric *m, uint32_t state)
{
    if ((state & m->state_mask) != m->state_value)
        return false;
    return m->omp_states == 0 || (m->omp_states >> ((state >> 1) & 0xf) & 1); /* HPC_STATE_OMP */
}

/* The shown value of a raw sum of metric i. */
static inline double hpa_metric_value(const hpa_metrics *ms, unsigned i, uint64_t raw)
{
    return (double)raw * ms->m[i].scale;
}

#endif
