/*
 * heap.h - a process's heap as heap tracing (-H) recorded it: every block the program got,
 * matched with the free that gave it back (if any), across all the process's threads, in
 * time order. What both tools report from it: allocations and bytes, leaks (blocks not
 * freed when the process ended), the peak of bytes in use and the blocks held at that
 * moment, temporary allocations, and bytes in use over time.
 *
 * Order. A free's record carries the time before the real free ran, an allocation's
 * block the time after the real call returned (collector/heap.c), so sorting the events
 * by time, frees before allocations at equal times, gives an order in which an address
 * is never given twice without a free between.
 *
 * Matching. A free (free, realloc's old block) frees the live block at its address; one
 * without a block (a block from before tracing started, from the collector's own
 * bootstrap arena) is counted in `unmatched_frees`. An allocation at the address of a
 * live block means the program freed that block unseen (outside -t, in a thread not
 * followed): it is counted in `unseen_frees` and ends there.
 *
 * Mappings (mmap, mremap) are page ranges: a munmap, or mremap's old range, takes away
 * the bytes of the traced mappings it covers (whole pages, as the kernel unmaps them), so
 * one can lose its head, its tail or a hole in the middle and keep the rest
 * (HPM_HEAP_PARTIAL): it ends when nothing of it is left, and its leaked bytes and bytes
 * at the peak are what it held then (hpm_heap_block_end_bytes, _peak_bytes). mremap is
 * realloc's way: the old range goes, the result is a new block of the new size at the
 * mremap's caller; an mremap of a range no traced mapping covers (a file mapping, one from
 * before tracing) is no block (HPM_HEAP_UNTRACED). A munmap that covers no traced
 * mapping (a file mapping's) is counted in `unmatched_frees`; a new mapping over a traced
 * one takes its pages unseen.
 *
 * Temporary: a block freed by the thread that allocated it, with no other allocation of
 * that thread in between (heaptrack's definition).
 *
 * In use over time, as point values (`points`): each interval of the timeline's most
 * bytes at the moment it was first reached (an interval without events: what was in use
 * at its start), the bytes in use at each of the process's sample points (sample_point
 * records: what `overview` shows), and the bytes in use after the last event; in time
 * order. The one list of "heap in use" values every output takes: the Chrome export's
 * counter track, hpmerge's OTF2 metric, overview (through hpm_heap_in_use_at).
 *
 * Sizes: blocks are kept in memory, about 60 bytes each (10 M blocks: 600 MB).
 */
#ifndef HPM_HEAP_H
#define HPM_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment.h"

enum hpm_heap_flags {
    HPM_HEAP_FREED = 1,     /* freed (its free seen, or freed unseen) */
    HPM_HEAP_TEMPORARY = 2, /* freed right after (see above) */
    HPM_HEAP_AT_PEAK = 4,   /* held at the moment of the peak */
    HPM_HEAP_UNSEEN = 8,    /* its address was given again without a free seen */
    HPM_HEAP_PARTIAL = 16,  /* a mapping that lost part of its pages and kept some */
    HPM_HEAP_UNTRACED = 32, /* an mremap of no traced mapping: no block (counts nothing) */
};

/* What a partly unmapped block held at the end and at the peak. */
typedef struct hpm_heap_part {
    uint64_t block; /* index into blocks */
    uint64_t end_bytes, peak_bytes;
} hpm_heap_part;

typedef struct hpm_heap_block {
    uint64_t time;      /* when it existed from (the call's end) */
    uint64_t free_time; /* when it was freed (the free's start), 0 = never */
    uint64_t addr, size;
    uint32_t thread; /* index into hpc_proc.threads of the allocating thread */
    uint32_t node;   /* its calling context in that thread's stream */
    uint8_t fn;      /* enum hpc_heap_fn */
    uint8_t flags;   /* enum hpm_heap_flags */
} hpm_heap_block;

#define HPM_HEAP_POINTS 20 /* intervals of the in-use timeline */

enum hpm_heap_point_kind {
    HPM_HEAP_PT_MAX,    /* an interval's most bytes, at the moment first reached */
    HPM_HEAP_PT_SAMPLE, /* a sample point of the process */
    HPM_HEAP_PT_END,    /* after the last event */
};

/* Bytes in use at a moment (after every event at or before it). */
typedef struct hpm_heap_point {
    uint64_t time, bytes;
    uint8_t kind; /* enum hpm_heap_point_kind */
} hpm_heap_point;

typedef struct hpm_heap {
    bool traced; /* the process recorded with -H on */
    bool ended;  /* it ended normally: leaks are what its end left; else its last record */
    size_t nblocks;
    hpm_heap_block *blocks; /* thread by thread, each thread's in its stream's order */
    size_t *first;          /* nthreads + 1: thread i's blocks are [first[i], first[i+1]) */
    size_t nthreads;
    uint64_t allocs, bytes;               /* every block */
    uint64_t leaks, leaked_bytes;         /* not freed at the end */
    uint64_t frees, unmatched_frees;      /* frees seen; those of no known block */
    uint64_t unseen_frees;                /* blocks whose address was given again */
    uint64_t temporary, temporary_bytes;  /* freed right after */
    uint64_t peak_bytes, peak_time;       /* most bytes in use, first reached at peak_time */
    uint64_t peak_blocks;                 /* blocks held then */
    uint64_t end_bytes;                   /* bytes in use after the last event */
    uint64_t t0, t1;                      /* the timeline's span: process start, last event */
    uint64_t point_max[HPM_HEAP_POINTS];  /* most bytes in use within each interval */
    uint64_t point_time[HPM_HEAP_POINTS]; /* when each interval's most was first reached */
    hpm_heap_point *points;               /* in use over time (above), in time order */
    size_t npoints;
    hpm_heap_part *parts; /* the HPM_HEAP_PARTIAL blocks, by block (few) */
    size_t nparts;
} hpm_heap;

/*
 * Read the heap records of every thread stream of proc (damage is left to whoever reads
 * the streams for samples: nothing is reported here) and match them. h is zeroed first;
 * a process recorded without -H gives traced = false and nothing else.
 * Returns 0 or HPC_E_NOMEM (h then holds nothing to free).
 */
int hpm_heap_read(hpm_heap *h, const hpc_proc *proc);

void hpm_heap_free(hpm_heap *h);

/* Bytes in use at time t (blocks that existed then and were not freed yet): a sample
 * point's from `points`, any other time's O(blocks) (a mapping partly unmapped by then
 * counts whole there). */
uint64_t hpm_heap_in_use_at(const hpm_heap *h, uint64_t t);

/* Bytes block blk of h still held at the end (its leaked bytes; 0 if it ended), and when
 * the process had its peak (0 if it held nothing then): its size, or what a partial unmap
 * left of it. */
uint64_t hpm_heap_block_end_bytes(const hpm_heap *h, const hpm_heap_block *blk);
uint64_t hpm_heap_block_peak_bytes(const hpm_heap *h, const hpm_heap_block *blk);

/* A process's heap in numbers, as hpmerge's summary (summary.json "heap_<key>") and
 * `hpanalyze mpi` (per rank) show them: allocs, bytes, frees, leaks, leaked_bytes,
 * peak_bytes, temporary, end_bytes. */
#define HPM_HEAP_NSUMMARY 8
extern const char *const hpm_heap_summary_keys[HPM_HEAP_NSUMMARY];
void hpm_heap_summary(const hpm_heap *h, uint64_t v[HPM_HEAP_NSUMMARY]);

/* The name of an hpc_heap_fn ("malloc", "mmap" ...), "?" when unknown. */
const char *hpm_heap_fn_name(unsigned fn);

#endif
