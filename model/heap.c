/*
 * heap.c - a process's heap from its heap_alloc and heap_free records (heap.h): one read
 * of each thread stream, one sort of the events, one pass in time order.
 */
#include "heap.h"

#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "u64map.h"

/* One moment of the pass: a block begins, or a free. */
typedef struct event {
    uint64_t time;
    uint64_t index; /* block index, or free index */
    uint8_t is_alloc;
} event;

typedef struct hfree {
    uint64_t addr;
    uint32_t thread;
} hfree;

typedef struct reading {
    hpm_heap *h;
    size_t cap, ncap, nfree, fcap;
    event *ev;
    size_t nev;
    hfree *frees;
} reading;

/* blocks and events come by the thousand: start there */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return hpa_grow(p, cap, need, elem, 4096);
}

static int add_event(reading *R, uint64_t time, uint64_t index, bool is_alloc)
{
    if (grow((void **)&R->ev, &R->ncap, R->nev + 1, sizeof *R->ev))
        return HPC_E_NOMEM;
    R->ev[R->nev++] = (event){time, index, is_alloc};
    return 0;
}

static int add_free(reading *R, uint64_t time, uint64_t addr, uint32_t thread)
{
    if (grow((void **)&R->frees, &R->fcap, R->nfree + 1, sizeof *R->frees))
        return HPC_E_NOMEM;
    R->frees[R->nfree] = (hfree){addr, thread};
    return add_event(R, time, R->nfree++, false);
}

static int add_alloc(reading *R, const hpc_rec_heap_alloc *a, uint32_t thread)
{
    hpm_heap *h = R->h;
    if (a->old && add_free(R, a->time, a->old, thread)) /* realloc: the old block first */
        return HPC_E_NOMEM;
    if (grow((void **)&h->blocks, &R->cap, h->nblocks + 1, sizeof *h->blocks))
        return HPC_E_NOMEM;
    h->blocks[h->nblocks] = (hpm_heap_block){.time = a->time + a->duration,
                                             .addr = a->addr,
                                             .size = a->size,
                                             .thread = thread,
                                             .node = (uint32_t)a->node,
                                             .fn = (uint8_t)a->fn};
    return add_event(R, a->time + a->duration, h->nblocks++, true);
}

static int read_thread(reading *R, const hpc_proc *proc, uint32_t i)
{
    hpc_diag quiet = {.quiet = 1}; /* the sample reader reports damage */
    hpc_reader *r;
    if (hpc_thread_open(&r, proc, &proc->threads[i], &quiet) < 0)
        return 0;
    hpc_record rec;
    int rc = 0;
    while (rc == 0 && hpc_reader_next(r, &rec) == 1) {
        if (rec.kind == HPC_K_heap_alloc)
            rc = add_alloc(R, &rec.u.heap_alloc, i);
        else if (rec.kind == HPC_K_heap_free)
            rc = add_free(R, rec.u.heap_free.time, rec.u.heap_free.addr, i);
    }
    hpc_reader_close(r);
    return rc;
}

static int by_time(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    if (x->is_alloc != y->is_alloc)
        return x->is_alloc ? 1 : -1; /* frees first */
    return x->index < y->index ? -1 : x->index > y->index;
}

/* The interval of the timeline time falls in. */
static unsigned point_of(const hpm_heap *h, uint64_t time)
{
    if (time <= h->t0 || h->t1 <= h->t0)
        return 0;
    uint64_t k = (time - h->t0) * HPM_HEAP_POINTS / (h->t1 - h->t0 + 1);
    return k < HPM_HEAP_POINTS ? (unsigned)k : HPM_HEAP_POINTS - 1;
}

/* The first time point_of puts in interval k. */
static uint64_t interval_start(const hpm_heap *h, unsigned k)
{
    if (h->t1 <= h->t0)
        return h->t0;
    unsigned __int128 span = h->t1 - h->t0 + 1;
    return h->t0 + (uint64_t)((k * span + HPM_HEAP_POINTS - 1) / HPM_HEAP_POINTS);
}

/* The process's sample points' times (in use at each: heap.h), sorted. */
typedef struct samples {
    uint64_t *time, *bytes;
    size_t n, next; /* next: the first whose bytes the replay has not set yet */
} samples;

/* Sample points before time t hold what is in use now (every event at or before them
 * is counted: events come in time order). */
static void samples_until(samples *S, uint64_t t, uint64_t in_use)
{
    for (; S->next < S->n && S->time[S->next] < t; S->next++)
        S->bytes[S->next] = in_use;
}
/* Block b stops being in use at time (freed, or its address given again). */
static void end_block(hpm_heap_block *b, uint64_t time, uint64_t *in_use)
{
    b->flags |= HPM_HEAP_FREED;
    b->free_time = time;
    *in_use -= b->size;
}

/* The pass in time order. pos[b]: where block b's allocation and end are in the order
 * (for the blocks held at the peak). */
static int replay(hpm_heap *h, reading *R, samples *S)
{
    hpa_u64map live = {0};                                              /* addr -> block */
    size_t *last = calloc(h->nthreads ? h->nthreads : 1, sizeof *last); /* 1 + block */
    uint64_t *end_pos = malloc(sizeof *end_pos * (h->nblocks ? h->nblocks : 1));
    if (!last || !end_pos) {
        free(last);
        free(end_pos);
        return HPC_E_NOMEM;
    }
    for (size_t b = 0; b < h->nblocks; b++)
        end_pos[b] = UINT64_MAX;
    uint64_t in_use = 0, peak_pos = UINT64_MAX;
    unsigned cur = 0; /* the timeline's interval of the previous event */
    int rc = 0;
    for (size_t k = 0; k < R->nev && rc == 0; k++) {
        const event *e = &R->ev[k];
        samples_until(S, e->time, in_use);
        unsigned p = point_of(h, e->time);
        for (; cur < p; cur++) /* intervals hold what was in use at their start */
            if (in_use > h->point_max[cur + 1]) {
                h->point_max[cur + 1] = in_use;
                h->point_time[cur + 1] = interval_start(h, cur + 1);
            }
        uint64_t b;
        if (e->is_alloc) {
            hpm_heap_block *blk = &h->blocks[e->index];
            if (hpa_u64map_get(&live, blk->addr, &b)) { /* freed where we could not see */
                h->blocks[b].flags |= HPM_HEAP_UNSEEN;
                end_block(&h->blocks[b], e->time, &in_use);
                end_pos[b] = k;
                h->unseen_frees++;
            }
            if (hpa_u64map_put(&live, blk->addr, e->index))
                rc = HPC_E_NOMEM;
            in_use += blk->size;
            last[blk->thread] = e->index + 1;
            if (in_use > h->peak_bytes) {
                h->peak_bytes = in_use;
                h->peak_time = e->time;
                peak_pos = k;
            }
        } else {
            const hfree *f = &R->frees[e->index];
            h->frees++;
            if (!hpa_u64map_get(&live, f->addr, &b)) {
                h->unmatched_frees++;
                continue;
            }
            hpa_u64map_del(&live, f->addr);
            hpm_heap_block *blk = &h->blocks[b];
            end_block(blk, e->time, &in_use);
            end_pos[b] = k;
            if (blk->thread == f->thread && last[f->thread] == b + 1) {
                blk->flags |= HPM_HEAP_TEMPORARY;
                h->temporary++;
                h->temporary_bytes += blk->size;
            }
        }
        if (in_use > h->point_max[p]) {
            h->point_max[p] = in_use;
            h->point_time[p] = e->time;
        }
    }
    for (; cur + 1 < HPM_HEAP_POINTS; cur++) /* intervals after the last event's */
        if (in_use > h->point_max[cur + 1]) {
            h->point_max[cur + 1] = in_use;
            h->point_time[cur + 1] = interval_start(h, cur + 1);
        }
    samples_until(S, UINT64_MAX, in_use);
    h->end_bytes = in_use;
    /* the blocks held at the peak: allocated at or before it, ended after it */
    if (rc == 0 && peak_pos != UINT64_MAX) {
        for (size_t k = 0; k <= peak_pos; k++) {
            const event *e = &R->ev[k];
            if (e->is_alloc && end_pos[e->index] > peak_pos) {
                h->blocks[e->index].flags |= HPM_HEAP_AT_PEAK;
                h->peak_blocks++;
            }
        }
    }
    hpa_u64map_free(&live);
    free(last);
    free(end_pos);
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int samples_read(samples *S, const hpc_proc *proc)
{
    size_t it = 0, n = 0;
    while (hpc_proc_next_of(proc, HPC_K_sample_point, &it))
        n++;
    S->time = malloc(sizeof *S->time * (n ? n : 1));
    S->bytes = calloc(n ? n : 1, sizeof *S->bytes);
    if (!S->time || !S->bytes)
        return HPC_E_NOMEM;
    it = 0;
    for (const hpc_record *r; S->n < n && (r = hpc_proc_next_of(proc, HPC_K_sample_point, &it));)
        S->time[S->n++] = r->u.sample_point.time;
    qsort(S->time, S->n, sizeof *S->time, cmp_u64);
    return 0;
}

static int by_point_time(const void *a, const void *b)
{
    const hpm_heap_point *x = a, *y = b;
    if (x->time != y->time)
        return x->time < y->time ? -1 : 1;
    return (x->kind > y->kind) - (x->kind < y->kind);
}

/* The timeline's intervals, the sample points and the end as point values (heap.h). */
static int make_points(hpm_heap *h, const samples *S)
{
    h->points = malloc(sizeof *h->points * (HPM_HEAP_POINTS + S->n + 1));
    if (!h->points)
        return HPC_E_NOMEM;
    for (unsigned k = 0; k < HPM_HEAP_POINTS; k++)
        h->points[h->npoints++] =
            (hpm_heap_point){h->point_time[k], h->point_max[k], HPM_HEAP_PT_MAX};
    for (size_t j = 0; j < S->n; j++)
        h->points[h->npoints++] = (hpm_heap_point){S->time[j], S->bytes[j], HPM_HEAP_PT_SAMPLE};
    h->points[h->npoints++] = (hpm_heap_point){h->t1, h->end_bytes, HPM_HEAP_PT_END};
    qsort(h->points, h->npoints, sizeof *h->points, by_point_time);
    return 0;
}

int hpm_heap_read(hpm_heap *h, const hpc_proc *proc)
{
    memset(h, 0, sizeof *h);
    h->traced = proc->settings.heap_trace != 0;
    h->ended = !proc->ended_early;
    if (!h->traced)
        return 0;
    h->nthreads = proc->nthreads;
    h->first = calloc(proc->nthreads + 1, sizeof *h->first);
    if (!h->first)
        return HPC_E_NOMEM;
    reading R = {.h = h};
    samples S = {0};
    int rc = samples_read(&S, proc);
    for (uint32_t i = 0; i < proc->nthreads && rc == 0; i++) {
        h->first[i] = h->nblocks;
        rc = read_thread(&R, proc, i);
    }
    h->first[proc->nthreads] = h->nblocks;
    if (rc == 0) {
        qsort(R.ev, R.nev, sizeof *R.ev, by_time);
        h->t0 = proc->has_begin ? proc->begin.time : (R.nev ? R.ev[0].time : 0);
        h->t1 = R.nev ? R.ev[R.nev - 1].time : h->t0;
        if (R.nev && R.ev[0].time < h->t0)
            h->t0 = R.ev[0].time;
        for (unsigned k = 0; k < HPM_HEAP_POINTS; k++)
            h->point_time[k] = interval_start(h, k);
        rc = replay(h, &R, &S);
    }
    if (rc == 0)
        rc = make_points(h, &S);
    free(R.ev);
    free(R.frees);
    free(S.time);
    free(S.bytes);
    if (rc) {
        hpm_heap_free(h);
        return rc;
    }
    for (size_t b = 0; b < h->nblocks; b++) {
        const hpm_heap_block *blk = &h->blocks[b];
        h->allocs++;
        h->bytes += blk->size;
        if (!(blk->flags & HPM_HEAP_FREED)) {
            h->leaks++;
            h->leaked_bytes += blk->size;
        }
    }
    return 0;
}

void hpm_heap_free(hpm_heap *h)
{
    if (!h)
        return;
    free(h->blocks);
    free(h->first);
    free(h->points);
    memset(h, 0, sizeof *h);
}

uint64_t hpm_heap_in_use_at(const hpm_heap *h, uint64_t t)
{
    size_t lo = 0, hi = h->npoints; /* the first point at or after t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->points[mid].time < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < h->npoints && h->points[lo].time == t; lo++)
        if (h->points[lo].kind == HPM_HEAP_PT_SAMPLE)
            return h->points[lo].bytes;
    uint64_t sum = 0;
    for (size_t b = 0; b < h->nblocks; b++) {
        const hpm_heap_block *blk = &h->blocks[b];
        if (blk->time <= t && (!(blk->flags & HPM_HEAP_FREED) || blk->free_time > t))
            sum += blk->size;
    }
    return sum;
}

const char *const hpm_heap_summary_keys[HPM_HEAP_NSUMMARY] = {
    "allocs", "bytes", "frees", "leaks", "leaked_bytes", "peak_bytes", "temporary", "end_bytes",
};

void hpm_heap_summary(const hpm_heap *h, uint64_t v[HPM_HEAP_NSUMMARY])
{
    const uint64_t x[HPM_HEAP_NSUMMARY] = {h->allocs,    h->bytes,        h->frees,
                                           h->leaks,     h->leaked_bytes, h->peak_bytes,
                                           h->temporary, h->end_bytes};
    for (int i = 0; i < HPM_HEAP_NSUMMARY; i++)
        v[i] = x[i];
}

const char *hpm_heap_fn_name(unsigned fn)
{
    static const char *const names[] = {
        [HPC_HEAP_MALLOC] = "malloc",
        [HPC_HEAP_CALLOC] = "calloc",
        [HPC_HEAP_REALLOC] = "realloc",
        [HPC_HEAP_REALLOCARRAY] = "reallocarray",
        [HPC_HEAP_MEMALIGN] = "memalign",
        [HPC_HEAP_POSIX_MEMALIGN] = "posix_memalign",
        [HPC_HEAP_ALIGNED_ALLOC] = "aligned_alloc",
        [HPC_HEAP_VALLOC] = "valloc",
        [HPC_HEAP_PVALLOC] = "pvalloc",
        [HPC_HEAP_MMAP] = "mmap",
        [HPC_HEAP_FREE] = "free",
        [HPC_HEAP_MUNMAP] = "munmap",
    };
    return fn < sizeof names / sizeof names[0] && names[fn] ? names[fn] : "?";
}
