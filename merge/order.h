/*
 * order.h - put one location's events in time order with bounded memory.
 *
 * A thread stream is written in the order things *end*: an MPI call is one record
 * written at MPI's return, an OpenMP barrier or loop one record at its end, while the
 * samples taken inside them were written earlier. So an Enter can be earlier than
 * events before it in the stream, by as much as the construct lasted (an OpenMP loop
 * may span the whole run). Sorting a whole location in memory would make memory grow
 * with the trace; instead the generator runs twice over the stream:
 *
 *   pass 1: an event whose time is below the maximum time kept so far (M) is "early"
 *           and goes to a side list; every other event raises M. Kept events are
 *           therefore already in order. The side list is sorted; when it outgrows its
 *           memory budget, sorted runs are spilled to an unlinked temporary file.
 *   pass 2: the same generator makes the same events and the same decisions; kept
 *           events are merged with the sorted side list (and runs) by (time, order).
 *
 * Early events are few (an Enter per construct that contains a sample or another
 * construct), so pass 2 merges a short list. Memory: the side budget plus one small
 * read buffer per spilled run. Runs are kept in levels, one unlinked temporary file
 * each: when a level holds 32 runs they are merged into one run of the next level and
 * the level's file is emptied (an external merge sort), so memory stays bounded, the
 * work grows as n log n and the disk used stays about twice the early events.
 *
 * Ties at equal timestamps are broken by generation order, which is the stream order.
 */
#ifndef MG_ORDER_H
#define MG_ORDER_H

#include <stdio.h>

#include "merge.h"

typedef void (*mg_ev_sink)(void *ctx, const mg_ev *ev);

#define MG_ORDER_LEVELS 8 /* 32^8 runs of the budget: more than any trace */

typedef struct mg_spillrun {
    unsigned level;  /* in files[level] */
    uint64_t off, n; /* in that file, events */
    uint64_t next;   /* events consumed */
    mg_ev *buf;
    size_t bpos, blen;
} mg_spillrun;

typedef struct mg_order {
    int pass;
    uint64_t max_kept;
    /* side list (in memory) */
    mg_ev *side;
    size_t nside, capside, budget;
    size_t spos;           /* pass 2: next unread in side */
    const mg_ev *head;     /* pass 2: cached earliest side event */
    mg_spillrun *head_run; /* its run, NULL for the in-memory list */
    bool head_valid;
    /* spilled runs: level L holds runs of about budget * 32^L events, in files[L] */
    FILE *files[MG_ORDER_LEVELS];
    uint64_t file_end[MG_ORDER_LEVELS];
    mg_spillrun *runs;
    size_t nruns, capruns;
    /* pass 2 output */
    mg_ev_sink out;
    void *out_ctx;
    /* statistics */
    uint64_t nearly, nkept, ncompactions;
    const char *err; /* spill I/O error, or NULL */
} mg_order;

/* Start ordering a location. budget = side events kept in memory before spilling
 * (0 = default, 64 Ki events). */
void mg_order_init(mg_order *o, size_t budget);
/* Pass 1 sink. */
void mg_order_pass1(void *o, const mg_ev *ev);
/* Between the passes: sort what is left; out receives pass 2's ordered events.
 * Returns 0, or -1 if the spill file failed (o->err says why). */
int mg_order_mid(mg_order *o, mg_ev_sink out, void *out_ctx);
/* Pass 2 sink. */
void mg_order_pass2(void *o, const mg_ev *ev);
/* Emit what is left of the side list and free everything. Returns 0 or -1 (o->err). */
int mg_order_finish(mg_order *o);
/* Free without emitting (after an error). */
void mg_order_free(mg_order *o);

#endif
