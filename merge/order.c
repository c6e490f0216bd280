/*
 * order.c - two-pass time ordering of one location's events (see order.h).
 */
#include "order.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define RUN_BUF  512 /* events read at a time from a spilled run */
#define MAX_RUNS 32  /* more runs are merged into one (memory: MAX_RUNS read buffers) */

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

static int spill_run(mg_order *o)
{
    if (!o->spill) {
        o->spill = tmpfile();
        if (!o->spill) {
            o->err = strerror(errno);
            return -1;
        }
    }
    mg_sort(o->side, o->nside, sizeof(mg_ev), ev_cmp);
    if (fseeko(o->spill, (off_t)o->spill_off, SEEK_SET) != 0 ||
        fwrite(o->side, sizeof(mg_ev), o->nside, o->spill) != o->nside) {
        o->err = strerror(errno ? errno : EIO);
        return -1;
    }
    mg_spillrun *r = MG_PUSH(o->runs, o->nruns, o->capruns);
    *r = (mg_spillrun){.off = o->spill_off, .n = o->nside};
    o->spill_off += o->nside * sizeof(mg_ev);
    o->nside = 0;
    return 0;
}

static const mg_ev *run_head(mg_order *o, mg_spillrun *r);

/* Merge all runs into one, in a new temporary file that replaces the old one. */
static int compact_runs(mg_order *o)
{
    if (fflush(o->spill) != 0) {
        o->err = strerror(errno);
        return -1;
    }
    FILE *out = tmpfile();
    if (!out) {
        o->err = strerror(errno);
        return -1;
    }
    mg_ev *obuf = mg_xmalloc(RUN_BUF * sizeof(mg_ev));
    size_t on = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < o->nruns; i++)
        o->runs[i].buf = mg_xmalloc(RUN_BUF * sizeof(mg_ev));
    for (;;) {
        mg_spillrun *best = NULL;
        const mg_ev *bh = NULL;
        for (size_t i = 0; i < o->nruns; i++) {
            const mg_ev *h = run_head(o, &o->runs[i]);
            if (h && (!bh || ev_before(h, bh))) {
                bh = h;
                best = &o->runs[i];
            }
        }
        if (!best || on == RUN_BUF) {
            if (on && fwrite(obuf, sizeof(mg_ev), on, out) != on && !o->err)
                o->err = strerror(errno ? errno : EIO);
            total += on;
            on = 0;
        }
        if (!best || o->err)
            break;
        obuf[on++] = *bh;
        best->bpos++;
    }
    for (size_t i = 0; i < o->nruns; i++)
        free(o->runs[i].buf);
    free(obuf);
    if (o->err) {
        fclose(out);
        return -1;
    }
    fclose(o->spill);
    o->spill = out;
    o->runs[0] = (mg_spillrun){.off = 0, .n = total};
    o->nruns = 1;
    o->spill_off = total * sizeof(mg_ev);
    o->ncompactions++;
    return 0;
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
    if (o->nside == o->budget &&
        (spill_run(o) != 0 || (o->nruns == MAX_RUNS && compact_runs(o) != 0)))
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
        if (fflush(o->spill) != 0) {
            o->err = strerror(errno);
            return -1;
        }
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
    off_t at = (off_t)(r->off + r->next * sizeof(mg_ev));
    ssize_t got = pread(fileno(o->spill), r->buf, want * sizeof(mg_ev), at);
    if (got != (ssize_t)(want * sizeof(mg_ev))) {
        o->err = got < 0 ? strerror(errno) : "temporary file truncated";
        return NULL;
    }
    r->next += want;
    r->bpos = 0;
    r->blen = want;
    return &r->buf[0];
}

/* The earliest side event, or NULL. Runs are few: a linear scan beats a heap here. */
/* The earliest side event, or NULL; cached until it is popped, so a main event costs
 * one comparison. Runs are few (<= MAX_RUNS): a scan per pop beats a heap here. */
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
    if (o->spill)
        fclose(o->spill);
    uint64_t nearly = o->nearly, nkept = o->nkept;
    memset(o, 0, sizeof(*o));
    o->nearly = nearly;
    o->nkept = nkept;
}
