/*
 * sigsafe_write.c - hpc_write_<kind>() for every record kind of schema.def, generated
 * with X-macros: no field is listed by hand here.
 *
 * A record is encoded in place in the stream's current chunk:
 *
 *     [kind u8][payload length: varint, padded to the width reserved][payload]
 *
 * 1. bound = an upper limit of the payload (10 bytes per integer, 5 + n per string). It
 *    decides the width reserved for the length and whether the record fits in the chunk,
 *    so it is part of the format (a record moves to the next chunk by it): every writer
 *    computes it the same way.
 * 2. The payload is encoded right behind the reserved length, then the length is stored,
 *    the budget charged, and the kind byte stored last with release order: that store
 *    commits the record. A writer killed before it leaves kind 0 and the reader sees
 *    either the end of the chunk (length still 0) or a torn record.
 * 3. T fields are stored as zigzag deltas from the previous T value of the stream; the
 *    base restarts at 0 in every chunk so each chunk decodes on its own.
 *
 * Two ways to each record. The fast one, hpc_write_<name> itself, takes a record whose
 * strings are all empty (most records have none: samples, OpenMP events, I/O calls) and
 * that fits in the chunk: its bound is then a constant of the schema, so the width of
 * the length and the room needed are constants, a string is one zero byte, and nothing
 * in it calls a function with a value live across the call (no saved registers). Every
 * other record (a string to copy, no room, a stream not open, too big) goes the general
 * way, write_any_<name>, out of line.
 *
 * Cost of a sample_clock record: one bounds compare, seven varint stores (one to three
 * bytes a store each), two stores, two relaxed stat updates (no atomic read-modify-write
 * unless a size limit is set). Signal-safe: memory stores only, plus sigsafe_stream.c's
 * system calls on chunk change.
 */
#include <stdbool.h>
#include <string.h>

#include "codec.h"
#include "experiment.h"
#include "sigsafe_stream.h"

/* Width of the varint holding a payload length of at most `bound` bytes. */
#define LEN_WIDTH(bound) ((bound) < 128 ? 1u : (bound) < 16384 ? 2u : 3u)

static inline uint32_t str_n(hpc_str v)
{
    return v.p ? v.n : 0;
}

/* ---- field encoders: one per schema type */

/* An integer. In the fast way each owns HPC_VARINT_MAX bytes of the bound:
 * hpc_varint_put_wide may store past the varint in them (zeros, which the next field
 * overwrites or which stay as the chunk's zeros past the record). The general way may
 * have reserved a record by its exact size (tight_<name>, past HPC_MAX_RECORD): exact
 * stores there, as for a string's length (5 bytes of the bound). general is a constant. */
static inline __attribute__((always_inline)) uint8_t *enc_int(uint8_t *p, uint64_t v, bool general)
{
    return general ? hpc_varint_put(p, v) : hpc_varint_put_wide(p, v);
}

static inline __attribute__((always_inline)) uint8_t *enc_U(uint8_t *p, uint64_t *tb, uint64_t v,
                                                            bool general)
{
    (void)tb;
    return enc_int(p, v, general);
}

static inline __attribute__((always_inline)) uint8_t *enc_S(uint8_t *p, uint64_t *tb, int64_t v,
                                                            bool general)
{
    (void)tb;
    return enc_int(p, hpc_zigzag(v), general);
}

static inline __attribute__((always_inline)) uint8_t *enc_T(uint8_t *p, uint64_t *tb, uint64_t v,
                                                            bool general)
{
    p = enc_int(p, hpc_zigzag((int64_t)(v - *tb)), general);
    *tb = v;
    return p;
}

/* A string: one zero byte in the fast way (none has bytes there). */
static inline __attribute__((always_inline)) uint8_t *enc_STR(uint8_t *p, uint64_t *tb, hpc_str v,
                                                              bool general)
{
    (void)tb;
    if (!general) {
        *p = 0;
        return p + 1;
    }
    uint32_t n = str_n(v);
    p = hpc_varint_put(p, n);
    if (n)
        memcpy(p, v.p, n);
    return p + n;
}

#define enc_BYTES enc_STR

/* ---- sizes: the bound (strings' bytes apart), and the exact size with T fields counted at
 *      10 bytes (for a record whose bound passes HPC_MAX_RECORD) */

#define BOUND_U     HPC_VARINT_MAX
#define BOUND_S     HPC_VARINT_MAX
#define BOUND_T     HPC_VARINT_MAX
#define BOUND_STR   5
#define BOUND_BYTES BOUND_STR

#define STRN_U(v)     0
#define STRN_S(v)     0
#define STRN_T(v)     0
#define STRN_STR(v)   (size_t) str_n(v)
#define STRN_BYTES(v) STRN_STR(v)

#define TIGHT_U(v)     hpc_varint_len(v)
#define TIGHT_S(v)     hpc_varint_len(hpc_zigzag(v))
#define TIGHT_T(v)     HPC_VARINT_MAX
#define TIGHT_STR(v)   (hpc_varint_len(str_n(v)) + (size_t)str_n(v))
#define TIGHT_BYTES(v) TIGHT_STR(v)

/* BOUND0_<name>: the bound of a record whose strings are empty, a constant. */
#define HPC_FIELD(type, name)        +BOUND_##type
#define HPC_RECORD(name, id, fields) enum { BOUND0_##name = 0 fields };
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD

/* The bytes of a record's strings (0 for a kind without any: a constant). */
#define HPC_FIELD(type, name) +STRN_##type(r->name)
#define HPC_RECORD(name, id, fields)                                                               \
    static inline __attribute__((always_inline)) size_t strn_##name(const hpc_rec_##name *r)       \
    {                                                                                              \
        (void)r;                                                                                   \
        return 0 fields;                                                                           \
    }
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD

#define HPC_FIELD(type, name) +TIGHT_##type(r->name)
#define HPC_RECORD(name, id, fields)                                                               \
    static inline size_t tight_##name(const hpc_rec_##name *r)                                     \
    {                                                                                              \
        (void)r;                                                                                   \
        return 0 fields;                                                                           \
    }
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD

#define HPC_FIELD(type, name) p = enc_##type(p, tb, r->name, general);
#define HPC_RECORD(name, id, fields)                                                               \
    static inline __attribute__((always_inline))                                                   \
    uint8_t *encode_##name(uint8_t *p, uint64_t *tb, const hpc_rec_##name *r, bool general)        \
    {                                                                                              \
        (void)general;                                                                             \
        fields return p;                                                                           \
    }
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD

/* ---- the common frame */

/* The slow way to room for `need` bytes: the stream is closed, or the file must grow or
 * move to the next chunk. Out of line: the writers' fast path keeps its registers. */
static __attribute__((noinline)) int record_room(hpc_stream *s, size_t need)
{
    if (!s || !s->open)
        return HPC_E_CLOSED;
    return need > s->lim - s->pos ? hpc_stream_advance(s, need) : 0;
}

/* Is there room for `need` bytes at s->pos in the current chunk? A stream that is not open
 * has none (unmap_all: lim = pos), so one compare tests both. */
static inline __attribute__((always_inline)) bool record_fits(const hpc_stream *s, size_t need)
{
    return __builtin_expect(s && need <= s->lim - s->pos, 1);
}

/* Store the length and commit by storing the kind; count the record. */
static inline __attribute__((always_inline)) int record_store(hpc_stream *s, uint8_t *rec,
                                                              unsigned len_width, uint8_t *end,
                                                              unsigned kind, uint64_t tb)
{
    uint8_t *payload = rec + 1 + len_width;
    size_t total = (size_t)(end - rec);
    hpc_varint_put_padded(rec + 1, (uint64_t)(end - payload), len_width);
    __atomic_store_n(rec, (uint8_t)kind, __ATOMIC_RELEASE);
    s->pos += (uint32_t)total;
    s->time_base = tb;
    uint64_t *st = hpc_stream_stats(s);
    __atomic_store_n(st + HPC_STAT_RECORDS,
                     __atomic_load_n(st + HPC_STAT_RECORDS, __ATOMIC_RELAXED) + 1,
                     __ATOMIC_RELAXED);
    __atomic_store_n(st + HPC_STAT_BYTES,
                     __atomic_load_n(st + HPC_STAT_BYTES, __ATOMIC_RELAXED) + total,
                     __ATOMIC_RELAXED);
    return 0;
}

/* record_commit with a size limit: charge the budget first; a refused record is undone (a
 * later record must find zeros here). Out of line: only with -L. */
static __attribute__((noinline)) int record_commit_budget(hpc_stream *s, uint8_t *rec,
                                                          unsigned len_width, uint8_t *end,
                                                          unsigned kind, uint64_t tb)
{
    uint8_t *payload = rec + 1 + len_width;
    if (!hpc_budget_take(s->budget, (size_t)(end - rec))) {
        memset(payload, 0, (size_t)(end - payload));
        return HPC_E_LIMIT;
    }
    return record_store(s, rec, len_width, end, kind, tb);
}

/* Charge the budget (if any), store the length and commit by storing the kind. */
static inline __attribute__((always_inline)) int record_commit(hpc_stream *s, uint8_t *rec,
                                                               unsigned len_width, uint8_t *end,
                                                               unsigned kind, uint64_t tb)
{
    if (__builtin_expect(s->budget != NULL, 0))
        return record_commit_budget(s, rec, len_width, end, kind, tb);
    return record_store(s, rec, len_width, end, kind, tb);
}

/* ---- hpc_write_<name>() */

/* write_any_<name>: any record, out of line; hpc_write_<name>: the fast way (see the top). */
#define HPC_RECORD(name, id, fields)                                                               \
    static __attribute__((noinline)) int write_any_##name(hpc_stream *s, const hpc_rec_##name *r,  \
                                                          size_t strn)                             \
    {                                                                                              \
        size_t bound = BOUND0_##name + strn;                                                       \
        if (bound > HPC_MAX_RECORD) {                                                              \
            bound = tight_##name(r);                                                               \
            if (bound > HPC_MAX_RECORD)                                                            \
                return HPC_E_TOOBIG;                                                               \
        }                                                                                          \
        unsigned width = LEN_WIDTH(bound);                                                         \
        if (!record_fits(s, 1 + width + bound)) {                                                  \
            int err = record_room(s, 1 + width + bound);                                           \
            if (err)                                                                               \
                return err;                                                                        \
        }                                                                                          \
        uint8_t *rec = s->win + s->pos;                                                            \
        uint64_t tb = s->time_base;                                                                \
        uint8_t *end = encode_##name(rec + 1 + width, &tb, r, true);                               \
        return record_commit(s, rec, width, end, id, tb);                                          \
    }                                                                                              \
    int hpc_write_##name(hpc_stream *s, const hpc_rec_##name *r)                                   \
    {                                                                                              \
        size_t strn = strn_##name(r);                                                              \
        const unsigned width = LEN_WIDTH(BOUND0_##name);                                           \
        if (__builtin_expect(strn != 0, 0) || !record_fits(s, 1 + width + BOUND0_##name))          \
            return write_any_##name(s, r, strn);                                                   \
        uint8_t *rec = s->win + s->pos;                                                            \
        uint64_t tb = s->time_base;                                                                \
        uint8_t *end = encode_##name(rec + 1 + width, &tb, r, false);                              \
        return record_commit(s, rec, width, end, id, tb);                                          \
    }
#include "schema.def"
#undef HPC_RECORD
