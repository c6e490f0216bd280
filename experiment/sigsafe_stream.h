/*
 * sigsafe_stream.h - what the record writers (sigsafe_write.c) share with the stream
 * code (sigsafe_stream.c). Private to experiment/. Everything here is signal-safe.
 */
#ifndef HPC_SIGSAFE_STREAM_H
#define HPC_SIGSAFE_STREAM_H

#include "experiment.h"
#include "header_layout.h"

/*
 * Make room for `need` bytes at s->pos (called when need > s->lim - s->pos): grow the
 * file within the current chunk if the record fits there, else move to a fresh chunk
 * (map it, unmap the old one; the time base restarts at 0). The file is reopened by
 * path when the stream keeps no fd. Returns 0, HPC_E_TOOBIG (need exceeds a whole
 * chunk) or HPC_E_IO (errno kept; the stream stays as it was). Signal-safe.
 */
int hpc_stream_advance(hpc_stream *s, size_t need);

/* The live stats array in the header mapping. */
static inline uint64_t *hpc_stream_stats(hpc_stream *s)
{
    return (uint64_t *)(void *)(s->header + HPC_HDR_STATS);
}

/* Add to a stat only this stream's single writer updates (records, bytes, remaps):
 * plain relaxed load and store, no locked instruction on the hot path. */
static inline void hpc_stream_stat_bump(hpc_stream *s, enum hpc_stat st, uint64_t n)
{
    uint64_t *p = hpc_stream_stats(s) + st;
    __atomic_store_n(p, __atomic_load_n(p, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

/* Charge n bytes to a budget, refusing (and setting `exceeded`) when the limit would be
 * passed. Lock-free; signal-safe. Returns 1 if charged. */
static inline int hpc_budget_take(hpc_budget *b, uint64_t n)
{
    uint64_t limit = __atomic_load_n(&b->limit, __ATOMIC_RELAXED);
    if (!limit)
        return 1;
    uint64_t used = __atomic_load_n(&b->used, __ATOMIC_RELAXED);
    do {
        if (used + n > limit || used + n < used) {
            __atomic_store_n(&b->exceeded, 1, __ATOMIC_RELAXED);
            return 0;
        }
    } while (!__atomic_compare_exchange_n(&b->used, &used, used + n, 1, __ATOMIC_RELAXED,
                                          __ATOMIC_RELAXED));
    return 1;
}

#endif /* HPC_SIGSAFE_STREAM_H */
