/*
 * order.c - two-pass time ordering of one location's events (see order.h).
 */
#include "order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_BUF  512 /* events read at a time from a spilled run */
#define MAX_RUNS 32  /* runs of a level merged into one of the next level */

static inline bool ev_before(const mg_ev *a, const mg_ev *b)
{
    return a->t < b->t || (a->t == b->t && a->ord < b->ord);
}

static int ev_cmp(const void *pa, const void *pb)
{
    const mg_ev *a = pa, *b = pb;
    if (ev_before(a, b))
        return -1;
    return ev_before(b, a) ? 1 : 0;
}

void mg_order_init(mg_order *o, size_t budget)
{
    memset(o, 0, sizeof(*o));
    o->pass = 1;
    o->budget = budget ? budget : 64 * 1024;
}

static int io_fail(mg_order *o)
{
    if (!o->err)
        o->err = strerror(errno ? errno : EIO);
    return -1;
}

static FILE *level_file(mg_order *o, unsigned level)
{
    if (!o->files[level]) {
        o->files[level] = tmpfile();
        if (!o->files[level])
            io_fail(o);
    }
    return o->files[level];
}

/* Append n events to the end of level's file as a new run. */
static int add_run(mg_order *o, unsigned level, const mg_ev *ev, size_t n, bool new_run)
{
    FILE *f = level_file(o, level);
    if (!f)
        return -1;
    if (fseeko(f, (off_t)o->file_end[level], SEEK_SET) != 0 || fwrite(ev, sizeof(mg_ev), n, f) != n)
        return io_fail(o);
    if (new_run)
        *MG_PUSH(o->runs, o->nruns, o->capruns) =
            (mg_spillrun){.level = level, .off = o->file_end[level] / sizeof(mg_ev), .n = 0};
    o->runs[o->nruns - 1].n += n;
    o->file_end[level] += n * sizeof(mg_ev);
    return 0;
}

static const mg_ev *run_head(mg_order *o, mg_spillrun *r);

/* Merge the runs runs[first..] (all of one level) into one run of the next level, then
 * empty their file. */
static int merge_level(mg_order *o, size_t first)
{
    unsigned level = o->runs[first].level;
    if (level + 1 >= MG_ORDER_LEVELS) {
        o->err = "too many levels of temporary runs";
        return -1;
    }
    if (fflush(o->files[level]) != 0)
        return io_fail(o);
    size_t n = o->nruns - first;
    mg_spillrun *in = mg_xmalloc(n * sizeof(mg_spillrun));
    memcpy(in, o->runs + first, n * sizeof(mg_spillrun));
    o->nruns = first;
    for (size_t i = 0; i < n; i++)
        in[i].buf = mg_xmalloc(RUN_BUF * sizeof(mg_ev));
    mg_ev *obuf = mg_xmalloc(RUN_BUF * sizeof(mg_ev));
    size_t on = 0;
    bool started = false;
    for (;;) {
        mg_spillrun *best = NULL;
        const mg_ev *bh = NULL;
        for (size_t i = 0; i < n; i++) {
            const mg_ev *h = run_head(o, &in[i]);
            if (h && (!bh || ev_before(h, bh))) {
                bh = h;
                best = &in[i];
            }
        }
        if ((!best || on == RUN_BUF) && on) {
            if (add_run(o, level + 1, obuf, on, !started) != 0)
                break;
            started = true;
            on = 0;
        }
        if (!best || o->err)
            break;
        obuf[on++] = *bh;
        best->bpos++;
    }
    for (size_t i = 0; i < n; i++)
        free(in[i].buf);
    free(in);
    free(obuf);
    if (o->err)
        return -1;
    if (ftruncate(fileno(o->files[level]), 0) != 0)
        return io_fail(o);
    o->file_end[level] = 0;
    o->ncompactions++;
    return 0;
}

/* Sort the side list into a level-0 run; merge levels that are full. */
static int spill_run(mg_order *o)
{
    mg_sort(o->side, o->nside, sizeof(mg_ev), ev_cmp);
    if (add_run(o, 0, o->side, o->nside, true) != 0)
        return -1;
    o->nside = 0;
    /* runs are appended level by level, so a full level is the tail of the list */
    for (;;) {
        size_t k = o->nruns;
        unsigned level = o->runs[k - 1].level;
        while (k > 0 && o->runs[k - 1].level == level)
            k--;
        if (o->nruns - k < MAX_RUNS)
            return 0;
        if (merge_level(o, k) != 0)
            return -1;
    }
}

void mg_order_pass1(void *ctx, const mg_ev *ev)
{
    mg_order *o = ctx;
    if (ev->t >= o->max_kept) {
        o->max_kept = ev->t;
        o->nkept++;
        return;
    }
    o->nearly++;
    if (o->err)
        return;
    if (o->nside == o->budget && spill_run(o) != 0)
        return;
    *MG_PUSH(o->side, o->nside, o->capside) = *ev;
}

int mg_order_mid(mg_order *o, mg_ev_sink out, void *out_ctx)
{
    if (o->err)
        return -1;
    if (o->nruns && o->nside && spill_run(o) != 0)
        return -1;
    if (o->nruns) {
        for (unsigned l = 0; l < MG_ORDER_LEVELS; l++)
            if (o->files[l] && fflush(o->files[l]) != 0)
                return io_fail(o);
        for (size_t i = 0; i < o->nruns; i++)
            o->runs[i].buf = mg_xmalloc(RUN_BUF * sizeof(mg_ev));
    } else {
        mg_sort(o->side, o->nside, sizeof(mg_ev), ev_cmp);
    }
    o->pass = 2;
    o->max_kept = 0;
    o->spos = 0;
    o->head_valid = false;
    o->out = out;
    o->out_ctx = out_ctx;
    return 0;
}

/* The head of run r, reading its next block when needed; NULL when exhausted. */
static const mg_ev *run_head(mg_order *o, mg_spillrun *r)
{
    if (r->bpos < r->blen)
        return &r->buf[r->bpos];
    if (r->next == r->n || o->err)
        return NULL;
    size_t want = r->n - r->next < RUN_BUF ? (size_t)(r->n - r->next) : RUN_BUF;
    off_t at = (off_t)((r->off + r->next) * sizeof(mg_ev));
    ssize_t got = pread(fileno(o->files[r->level]), r->buf, want * sizeof(mg_ev), at);
    if (got != (ssize_t)(want * sizeof(mg_ev))) {
        o->err = got < 0 ? strerror(errno) : "temporary file truncated";
        return NULL;
    }
    r->next += want;
    r->bpos = 0;
    r->blen = want;
    return &r->buf[0];
}

/* The earliest side event, or NULL; cached until it is popped, so a main event costs
 * one comparison. Runs are few (< MAX_RUNS per level): a scan per pop beats a heap. */
static const mg_ev *side_head(mg_order *o)
{
    if (o->head_valid)
        return o->head;
    o->head_valid = true;
    o->head_run = NULL;
    if (!o->nruns) {
        o->head = o->spos < o->nside ? &o->side[o->spos] : NULL;
        return o->head;
    }
    const mg_ev *best = NULL;
    for (size_t i = 0; i < o->nruns; i++) {
        const mg_ev *h = run_head(o, &o->runs[i]);
        if (h && (!best || ev_before(h, best))) {
            best = h;
            o->head_run = &o->runs[i];
        }
    }
    o->head = best;
    return best;
}

static void side_pop(mg_order *o)
{
    if (o->head_run)
        o->head_run->bpos++;
    else
        o->spos++;
    o->head_valid = false;
}

/* Emit side events that come before ev (all of them when ev is NULL). */
static void emit_side_until(mg_order *o, const mg_ev *ev)
{
    const mg_ev *h;
    while ((h = side_head(o)) && (!ev || ev_before(h, ev))) {
        mg_ev copy = *h;
        side_pop(o);
        o->out(o->out_ctx, &copy);
    }
}

void mg_order_pass2(void *ctx, const mg_ev *ev)
{
    mg_order *o = ctx;
    if (ev->t < o->max_kept)
        return; /* early: it comes from the side list */
    o->max_kept = ev->t;
    emit_side_until(o, ev);
    o->out(o->out_ctx, ev);
}

int mg_order_finish(mg_order *o)
{
    if (o->pass == 2)
        emit_side_until(o, NULL);
    int rc = o->err ? -1 : 0;
    const char *err = o->err;
    mg_order_free(o);
    o->err = err;
    return rc;
}

void mg_order_free(mg_order *o)
{
    for (size_t i = 0; i < o->nruns; i++)
        free(o->runs[i].buf);
    free(o->runs);
    free(o->side);
    for (unsigned l = 0; l < MG_ORDER_LEVELS; l++)
        if (o->files[l])
            fclose(o->files[l]);
    uint64_t nearly = o->nearly, nkept = o->nkept, ncompactions = o->ncompactions;
    memset(o, 0, sizeof(*o));
    o->nearly = nearly;
    o->nkept = nkept;
    o->ncompactions = ncompactions;
}
