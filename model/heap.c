/*
 * heap.c - a process's heap from its heap_alloc and heap_free records (heap.h): one read
 * of each thread stream, one sort of the events, one pass in time order.
 */
#include "heap.h"

#include <stddef.h>
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
    uint64_t size;  /* munmap, mremap: the range's length, 0 for free */
    uint64_t remap; /* mremap: the block its call made, UINT64_MAX: none */
    uint32_t thread;
    uint8_t fn; /* enum hpc_heap_fn */
} hfree;

typedef struct reading {
    hpm_heap *h;
    size_t cap, ncap, nfree, fcap;
    event *ev;
    size_t nev;
    hfree *frees;
} reading;

/* The first of n sorted elements (each `size` bytes from base) whose uint64_t key at
 * offset `off` is not below key: the one binary search of the sorted arrays here. */
static size_t first_not_below(const void *base, size_t n, size_t size, size_t off, uint64_t key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint64_t k;
        memcpy(&k, (const char *)base + mid * size + off, sizeof k);
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

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

static int add_free(reading *R, uint64_t time, const hfree *f)
{
    if (grow((void **)&R->frees, &R->fcap, R->nfree + 1, sizeof *R->frees))
        return HPC_E_NOMEM;
    R->frees[R->nfree] = *f;
    return add_event(R, time, R->nfree++, false);
}

static bool is_mapping(unsigned fn)
{
    return fn == HPC_HEAP_MMAP || fn == HPC_HEAP_MREMAP;
}

/* An allocation; remap: the free of its mremap's old range (index), SIZE_MAX: none. */
static int add_alloc(reading *R, const hpc_rec_heap_alloc *a, uint32_t thread, size_t remap)
{
    hpm_heap *h = R->h;
    if (a->old && !is_mapping((unsigned)a->fn)) { /* realloc: the old block first */
        hfree f = {.addr = a->old, .remap = UINT64_MAX, .thread = thread, .fn = HPC_HEAP_FREE};
        if (add_free(R, a->time, &f))
            return HPC_E_NOMEM;
    }
    if (grow((void **)&h->blocks, &R->cap, h->nblocks + 1, sizeof *h->blocks))
        return HPC_E_NOMEM;
    if (remap != SIZE_MAX && R->frees[remap].addr == a->old)
        R->frees[remap].remap = h->nblocks;
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
    size_t remap = SIZE_MAX; /* an mremap's free, which its allocation follows */
    while (rc == 0 && hpc_reader_next(r, &rec) == 1) {
        if (rec.kind == HPC_K_heap_alloc) {
            rc = add_alloc(R, &rec.u.heap_alloc, i,
                           rec.u.heap_alloc.fn == HPC_HEAP_MREMAP ? remap : SIZE_MAX);
            remap = SIZE_MAX;
        } else if (rec.kind == HPC_K_heap_free) {
            const hpc_rec_heap_free *x = &rec.u.heap_free;
            hfree f = {x->addr, x->size, UINT64_MAX, i, (uint8_t)x->fn};
            remap = x->fn == HPC_HEAP_MREMAP ? R->nfree : SIZE_MAX;
            rc = add_free(R, x->time, &f);
        }
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
/* A part of a live mapping: [start, end) of the bytes its block asked for. */
typedef struct piece {
    uint64_t start, end, block;
} piece;

/* Bytes a cut took from a mapping that kept some: at pos in the order. */
typedef struct trim {
    uint64_t pos, block, bytes;
} trim;

/* The pass in time order (replay). */
typedef struct pass {
    hpm_heap *h;
    reading *R;
    samples *S;
    uint64_t page;   /* munmap and mremap cut whole pages */
    hpa_u64map live; /* addr -> block: the malloc family's live blocks */
    piece *pieces;   /* live mappings' parts, by start (few: a sorted array) */
    size_t npieces, cappieces;
    hpa_u64map held; /* mapping block -> bytes it still holds */
    trim *trims;
    size_t ntrims, captrims;
    size_t *last;         /* per thread: 1 + its latest block */
    uint64_t *end_pos;    /* per block: where in the order it ended */
    uint64_t in_use, pos; /* pos: the event being replayed */
    int rc;
} pass;

/* Block b stops being in use at time: freed by thread `thread`, or (unseen) its memory
 * given again. */
static void end_block(pass *X, uint64_t b, uint64_t time, uint32_t thread, bool unseen)
{
    hpm_heap *h = X->h;
    hpm_heap_block *blk = &h->blocks[b];
    blk->flags |= HPM_HEAP_FREED;
    blk->free_time = time;
    X->end_pos[b] = X->pos;
    if (unseen) {
        blk->flags |= HPM_HEAP_UNSEEN;
        h->unseen_frees++;
    } else if (blk->thread == thread && X->last[thread] == b + 1) {
        blk->flags |= HPM_HEAP_TEMPORARY;
        h->temporary++;
        h->temporary_bytes += blk->size;
    }
}

/* The first piece that ends after addr. */
static size_t piece_after(const pass *X, uint64_t addr)
{
    return first_not_below(X->pieces, X->npieces, sizeof *X->pieces, offsetof(piece, end),
                           addr + 1);
}

/* The part of block b (heap.h: parts is by block), NULL if it has none. */
static hpm_heap_part *part_of(const hpm_heap *h, size_t b)
{
    size_t i =
        first_not_below(h->parts, h->nparts, sizeof *h->parts, offsetof(hpm_heap_part, block), b);
    return i < h->nparts && h->parts[i].block == b ? &h->parts[i] : NULL;
}

static void piece_insert(pass *X, size_t at, piece p)
{
    if (hpa_grow((void **)&X->pieces, &X->cappieces, X->npieces + 1, sizeof p, 64)) {
        X->rc = HPC_E_NOMEM;
        return;
    }
    memmove(&X->pieces[at + 1], &X->pieces[at], (X->npieces - at) * sizeof p);
    X->pieces[at] = p;
    X->npieces++;
}

/* Block b lost `bytes` of its mapping at time: ended when it holds nothing more. */
static void mapping_lost(pass *X, uint64_t b, uint64_t bytes, uint64_t time, uint32_t thread,
                         bool unseen)
{
    uint64_t *held = hpa_u64map_slot(&X->held, b, 0);
    if (!held) {
        X->rc = HPC_E_NOMEM;
        return;
    }
    *held -= bytes;
    X->in_use -= bytes;
    if (*held == 0) {
        hpa_u64map_del(&X->held, b);
        end_block(X, b, time, thread, unseen);
        return;
    }
    X->h->blocks[b].flags |= HPM_HEAP_PARTIAL;
    if (hpa_grow((void **)&X->trims, &X->captrims, X->ntrims + 1, sizeof *X->trims, 64))
        X->rc = HPC_E_NOMEM;
    else
        X->trims[X->ntrims++] = (trim){X->pos, b, bytes};
}

/* [start, end) is no longer mapped: the mappings' parts in it go (munmap, mremap's old
 * range, or unseen: a new mapping over them). Returns the bytes that went. */
static uint64_t unmap_range(pass *X, uint64_t start, uint64_t end, uint64_t time, uint32_t thread,
                            bool unseen)
{
    uint64_t gone = 0;
    for (size_t i = piece_after(X, start); i < X->npieces && X->pieces[i].start < end;) {
        piece p = X->pieces[i];
        uint64_t lo = p.start > start ? p.start : start, hi = p.end < end ? p.end : end;
        if (p.start < lo && hi < p.end) { /* a hole: the piece splits in two */
            X->pieces[i].end = lo;
            piece_insert(X, i + 1, (piece){hi, p.end, p.block});
            i += 2;
        } else if (p.start < lo) { /* its tail */
            X->pieces[i++].end = lo;
        } else if (hi < p.end) { /* its head */
            X->pieces[i++].start = hi;
        } else { /* all of it */
            memmove(&X->pieces[i], &X->pieces[i + 1], (X->npieces - i - 1) * sizeof p);
            X->npieces--;
        }
        gone += hi - lo;
        mapping_lost(X, p.block, hi - lo, time, thread, unseen);
    }
    return gone;
}

static uint64_t page_end(const pass *X, uint64_t addr, uint64_t len)
{
    uint64_t n = (len + X->page - 1) / X->page * X->page;
    return n < UINT64_MAX - addr ? addr + n : UINT64_MAX;
}

static void replay_alloc(pass *X, uint64_t b, uint64_t time)
{
    hpm_heap *h = X->h;
    hpm_heap_block *blk = &h->blocks[b];
    uint64_t old;
    if (is_mapping(blk->fn)) {
        unmap_range(X, blk->addr, page_end(X, blk->addr, blk->size), time, blk->thread, true);
        uint64_t *held = hpa_u64map_slot(&X->held, b, 0);
        if (!held) {
            X->rc = HPC_E_NOMEM;
            return;
        }
        *held = blk->size;
        piece_insert(X, piece_after(X, blk->addr), (piece){blk->addr, blk->addr + blk->size, b});
    } else {
        if (hpa_u64map_get(&X->live, blk->addr, &old)) { /* freed where we could not see */
            X->in_use -= h->blocks[old].size;
            end_block(X, old, time, blk->thread, true);
        }
        if (hpa_u64map_put(&X->live, blk->addr, b))
            X->rc = HPC_E_NOMEM;
    }
    X->in_use += blk->size;
    X->last[blk->thread] = b + 1;
}

static void replay_free(pass *X, const hfree *f, uint64_t time)
{
    hpm_heap *h = X->h;
    uint64_t b;
    h->frees++;
    if (f->fn == HPC_HEAP_MUNMAP || f->fn == HPC_HEAP_MREMAP) {
        if (!unmap_range(X, f->addr, page_end(X, f->addr, f->size), time, f->thread, false)) {
            h->unmatched_frees++;       /* a file mapping, or one from before tracing */
            if (f->remap != UINT64_MAX) /* then what mremap made of it is no block either */
                h->blocks[f->remap].flags |= HPM_HEAP_UNTRACED;
        }
    } else if (!hpa_u64map_get(&X->live, f->addr, &b)) {
        h->unmatched_frees++;
    } else {
        hpa_u64map_del(&X->live, f->addr);
        X->in_use -= h->blocks[b].size;
        end_block(X, b, time, f->thread, false);
    }
}

/* The blocks held at the peak (allocated at or before it, ended after it), and what the
 * partly unmapped mappings held at the end and at the peak (parts). */
static int peak_and_parts(pass *X, uint64_t peak_pos)
{
    hpm_heap *h = X->h;
    for (size_t k = 0; k <= peak_pos; k++) {
        const event *e = &X->R->ev[k];
        if (e->is_alloc && X->end_pos[e->index] > peak_pos &&
            !(h->blocks[e->index].flags & HPM_HEAP_UNTRACED)) {
            h->blocks[e->index].flags |= HPM_HEAP_AT_PEAK;
            h->peak_blocks++;
        }
    }
    size_t n = 0;
    for (size_t b = 0; b < h->nblocks; b++)
        n += (h->blocks[b].flags & HPM_HEAP_PARTIAL) != 0;
    if (n == 0)
        return 0;
    h->parts = calloc(n, sizeof *h->parts);
    if (!h->parts)
        return HPC_E_NOMEM;
    for (size_t b = 0; b < h->nblocks; b++) {
        const hpm_heap_block *blk = &h->blocks[b];
        if (!(blk->flags & HPM_HEAP_PARTIAL))
            continue;
        uint64_t held = 0;
        hpa_u64map_get(&X->held, b, &held);
        h->parts[h->nparts++] =
            (hpm_heap_part){b, held, blk->flags & HPM_HEAP_AT_PEAK ? blk->size : 0};
    }
    for (size_t t = 0; t < X->ntrims; t++) { /* parts: by block, as the blocks are */
        const trim *tr = &X->trims[t];
        if (tr->pos <= peak_pos && (h->blocks[tr->block].flags & HPM_HEAP_AT_PEAK))
            part_of(h, tr->block)->peak_bytes -= tr->bytes;
    }
    return 0;
}

/* The timeline's intervals before p hold what was in use at their start. */
static void intervals_until(pass *X, unsigned *cur, unsigned p)
{
    hpm_heap *h = X->h;
    for (; *cur < p; (*cur)++)
        if (X->in_use > h->point_max[*cur + 1]) {
            h->point_max[*cur + 1] = X->in_use;
            h->point_time[*cur + 1] = interval_start(h, *cur + 1);
        }
}

static int replay(hpm_heap *h, reading *R, samples *S, uint64_t page)
{
    pass X = {.h = h, .R = R, .S = S, .page = page ? page : 4096};
    X.last = calloc(h->nthreads ? h->nthreads : 1, sizeof *X.last);
    X.end_pos = malloc(sizeof *X.end_pos * (h->nblocks ? h->nblocks : 1));
    if (!X.last || !X.end_pos) {
        free(X.last);
        free(X.end_pos);
        return HPC_E_NOMEM;
    }
    for (size_t b = 0; b < h->nblocks; b++)
        X.end_pos[b] = UINT64_MAX;
    uint64_t peak_pos = UINT64_MAX;
    unsigned cur = 0; /* the timeline's interval of the previous event */
    for (X.pos = 0; X.pos < R->nev && X.rc == 0; X.pos++) {
        const event *e = &R->ev[X.pos];
        samples_until(S, e->time, X.in_use);
        unsigned p = point_of(h, e->time);
        intervals_until(&X, &cur, p);
        if (!e->is_alloc)
            replay_free(&X, &R->frees[e->index], e->time);
        else if (!(h->blocks[e->index].flags & HPM_HEAP_UNTRACED))
            replay_alloc(&X, e->index, e->time);
        if (X.in_use > h->peak_bytes) {
            h->peak_bytes = X.in_use;
            h->peak_time = e->time;
            peak_pos = X.pos;
        }
        if (X.in_use > h->point_max[p]) {
            h->point_max[p] = X.in_use;
            h->point_time[p] = e->time;
        }
    }
    intervals_until(&X, &cur, HPM_HEAP_POINTS - 1); /* intervals after the last event's */
    samples_until(S, UINT64_MAX, X.in_use);
    h->end_bytes = X.in_use;
    if (X.rc == 0 && peak_pos != UINT64_MAX)
        X.rc = peak_and_parts(&X, peak_pos);
    hpa_u64map_free(&X.live);
    hpa_u64map_free(&X.held);
    free(X.pieces);
    free(X.trims);
    free(X.last);
    free(X.end_pos);
    return X.rc;
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
        rc = replay(h, &R, &S, proc->has_begin ? proc->begin.page_size : 0);
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
        if (blk->flags & HPM_HEAP_UNTRACED)
            continue;
        h->allocs++;
        h->bytes += blk->size;
        if (!(blk->flags & HPM_HEAP_FREED)) {
            h->leaks++;
            h->leaked_bytes += hpm_heap_block_end_bytes(h, blk);
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
    free(h->parts);
    memset(h, 0, sizeof *h);
}

uint64_t hpm_heap_in_use_at(const hpm_heap *h, uint64_t t)
{
    size_t lo = first_not_below(h->points, h->npoints, sizeof *h->points,
                                offsetof(hpm_heap_point, time), t);
    for (; lo < h->npoints && h->points[lo].time == t; lo++)
        if (h->points[lo].kind == HPM_HEAP_PT_SAMPLE)
            return h->points[lo].bytes;
    uint64_t sum = 0;
    for (size_t b = 0; b < h->nblocks; b++) {
        const hpm_heap_block *blk = &h->blocks[b];
        if (blk->time <= t && (!(blk->flags & HPM_HEAP_FREED) || blk->free_time > t) &&
            !(blk->flags & HPM_HEAP_UNTRACED))
            sum += blk->size;
    }
    return sum;
}

uint64_t hpm_heap_block_end_bytes(const hpm_heap *h, const hpm_heap_block *blk)
{
    if (blk->flags & (HPM_HEAP_FREED | HPM_HEAP_UNTRACED))
        return 0;
    const hpm_heap_part *part =
        blk->flags & HPM_HEAP_PARTIAL ? part_of(h, (size_t)(blk - h->blocks)) : NULL;
    return part ? part->end_bytes : blk->size;
}

uint64_t hpm_heap_block_peak_bytes(const hpm_heap *h, const hpm_heap_block *blk)
{
    if (!(blk->flags & HPM_HEAP_AT_PEAK))
        return 0;
    const hpm_heap_part *part =
        blk->flags & HPM_HEAP_PARTIAL ? part_of(h, (size_t)(blk - h->blocks)) : NULL;
    return part ? part->peak_bytes : blk->size;
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
        [HPC_HEAP_MREMAP] = "mremap",
    };
    return fn < sizeof names / sizeof names[0] && names[fn] ? names[fn] : "?";
}
