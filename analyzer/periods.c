/*
 * periods.c - a process's sample periods and which --samples keeps (periods.h).
 */
#include "periods.h"

#include <stdlib.h>

int hpa_periods_open(hpa_periods *ps, const hpc_proc *proc, const hpa_filter *f)
{
    size_t it = 0, n = 0;
    ps->npoints = 0;
    while (hpc_proc_next_of(proc, HPC_K_sample_point, &it))
        n++;
    ps->points = calloc(n ? n : 1, sizeof(*ps->points));
    ps->keep = calloc(n + 1, sizeof(*ps->keep));
    if (!ps->points || !ps->keep) {
        hpa_periods_free(ps);
        return HPC_E_NOMEM;
    }
    it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(proc, HPC_K_sample_point, &it));) {
        char label[256];
        hpc_str_copy(label, sizeof(label), r->u.sample_point.label);
        if (f)
            ps->keep[ps->npoints] = hpa_filter_period(f, (uint32_t)ps->npoints, label);
        ps->points[ps->npoints++] = r->u.sample_point.time;
    }
    if (f)
        ps->keep[n] = hpa_filter_period(f, (uint32_t)n, NULL);
    return 0;
}

void hpa_periods_free(hpa_periods *ps)
{
    free(ps->points);
    free(ps->keep);
    ps->points = NULL;
    ps->keep = NULL;
    ps->npoints = 0;
}

uint32_t hpa_periods_of(const hpa_periods *ps, uint64_t time)
{
    size_t lo = 0, hi = ps->npoints;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ps->points[mid] <= time)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}
