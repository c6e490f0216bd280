/*
 * clockfix.c - clock correction: each rank's CLOCK_MONOTONIC to rank 0's.
 *
 * The MPI wrappers measure this rank's offset to rank 0 at MPI_Init (phase 0) and at
 * MPI_Finalize (phase 1) with a minimum-round-trip ping-pong: global = local + offset.
 * Between (and beyond) the two, the offset is interpolated linearly, which models a
 * constant drift. With only one measurement the offset is constant; with none (rank 0,
 * non-MPI processes) the clock is used as is.
 */
#include <stdlib.h>

#include "merge.h"

void mg_clock_init(mg_clock *c, const hpc_proc *p, hpc_diag *d_)
{
    *c = (mg_clock){0};
    if (!p)
        return;
    bool have[2] = {false, false};
    uint64_t l[2] = {0, 0}, rtt[2] = {0, 0};
    int64_t o[2] = {0, 0};
    size_t i = 0;
    const hpc_record *r;
    while ((r = hpc_proc_next_of(p, HPC_K_clock_offset, &i))) {
        unsigned ph = r->u.clock_offset.phase;
        if (ph > 1) {
            HPC_CORRUPT(d_, p->dir, r->offset, "clock_offset phase %u unknown; ignored", ph);
            continue;
        }
        have[ph] = true; /* a later measurement of the same phase wins */
        l[ph] = r->u.clock_offset.local_ns;
        o[ph] = r->u.clock_offset.offset_ns;
        rtt[ph] = r->u.clock_offset.rtt_ns;
    }
    if (have[0] && have[1] && l[1] > l[0]) {
        int64_t d = o[1] - o[0];
        uint64_t noise = rtt[0] + rtt[1]; /* each measurement is good to rtt/2 */
        double slope = (double)d / (double)(l[1] - l[0]);
        if ((uint64_t)(d < 0 ? -d : d) <= noise) {
            /* the two agree within their error: no drift to model (short runs) */
            *c = (mg_clock){1, l[0], l[0], o[0] + d / 2, o[0] + d / 2, 0};
        } else if (slope > 1e-3 || slope < -1e-3) {
            /* beyond 1000 ppm it is not a clock drifting but a broken measurement */
            hpc_diag_report(d_, HPC_WARNING, p->dir, HPC_NO_OFFSET, __FILE__, __LINE__,
                            "clock drift %.0f ppm between MPI_Init and MPI_Finalize is "
                            "implausible; using the MPI_Init offset only",
                            slope * 1e6);
            *c = (mg_clock){1, l[0], l[0], o[0], o[0], 0};
        } else {
            *c =
                (mg_clock){2,    l[0], l[1],
                           o[0], o[1], (__int128)d * ((__int128)1 << 62) / (__int128)(l[1] - l[0])};
        }
    } else if (have[0] || have[1]) {
        int ph = have[0] ? 0 : 1;
        *c = (mg_clock){1, l[ph], l[ph], o[ph], o[ph], 0};
    }
}

uint64_t mg_clock_apply(const mg_clock *c, uint64_t t)
{
    if (c->nphases == 0)
        return t;
    int64_t off = c->o0;
    if (c->nphases == 2)
        off += (int64_t)(((__int128)(int64_t)(t - c->l0) * c->slope) >> 62);
    if (off < 0 && (uint64_t)(-off) > t)
        return 0;
    return t + (uint64_t)off;
}
