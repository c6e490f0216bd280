/*
 * periods.h - a process's sample periods and which of them --samples keeps: its
 * sample_point records (the collector's "start" point first) p0 < p1 < ... cut its time
 * into periods; period k runs from p(k-1) to p(k) and is named by p(k)'s label
 * (filter.h, hpa_filter_period). The loader keeps samples by it, the record-based reports
 * (ioactivity, iodetail, iocallstack) their calls by their start.
 */
#ifndef HPA_PERIODS_H
#define HPA_PERIODS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment.h"
#include "filter.h"

typedef struct hpa_periods {
    uint64_t *points; /* sample_point times, in the order the process wrote them */
    size_t npoints;
    bool *keep; /* npoints + 1 entries: hpa_filter_period of each period (all false
                   without a filter) */
} hpa_periods;

/* The periods of process proc under filter f (NULL: none kept, not asked). Returns 0 or
 * HPC_E_NOMEM. */
int hpa_periods_open(hpa_periods *ps, const hpc_proc *proc, const hpa_filter *f);
void hpa_periods_free(hpa_periods *ps);

/* The period holding time: the number of sample points at or before it. */
uint32_t hpa_periods_of(const hpa_periods *ps, uint64_t time);
/* Does --samples keep what happened at time? */
static inline bool hpa_periods_keep(const hpa_periods *ps, uint64_t time)
{
    return ps->keep[hpa_periods_of(ps, time)];
}

#endif
