/*
 * sigsafe_write.c - hpc_write_<kind>() for every record kind of schema.def, generated
 * with X-macros: no field is listed by hand here.
 *
 * A record is encoded in place in the stream's current chunk:
 *
 *     [kind u8][payload length: varint, padded to the width reserved][payload]
 *
 * 1. bound = an upper limit of the payload (10 bytes per integer, 5 + n per string); for
 *    records without strings it is a compile-time constant below 128, so the length
 *    takes one byte and the chunk check is a single compare.
 * 2. The payload is encoded right behind the reserved length, then the length is stored,
 *    the budget charged, and the kind byte stored last with release order: that store
 *    commits the record. A writer killed before it leaves kind 0 and the reader sees
 *    either the end of the chunk (length still 0) or a torn record.
 * 3. T fields are stored as zigzag deltas from the previous T value of the stream; the
 *    base restarts at 0 in every chunk so each chunk decodes on its own.
 *
 * Cost of a sample_clock record: one bounds compare, seven varint stores, two stores,
 * two relaxed stat updates (no atomic read-modify-write unless a size limit is set).
 * Signal-safe: memory stores only, plus sigsafe_stream.c's system calls on chunk change.
 */
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

static inline uint8_t *enc_U(uint8_t *p, uint64_t *tb, uint64_t v)
{
    (void)tb;
    return hpc_varint_put(p, v);
}

static inline uint8_t *enc_S(uint8_t *p, uint64_t *tb, int64_t v)
{
    (void)tb;
    return hpc_varint_put(p, hpc_zigzag(v));
}

static inline uint8_t *enc_T(uint8_t *p, uint64_t *tb, uint64_t v)
{
    p = hpc_varint_put(p, hpc_zigzag((int64_t)(v - *tb)));
    *tb = v;
    return p;
}

static inline uint8_t *enc_STR(uint8_t *p, uint64_t *tb, hpc_str v)
{
    (void)tb;
    uint32_t n = str_n(v);
    p = hpc_varint_put(p, n);
    if (n)
        memcpy(p, v.p, n);
    return p + n;
}

#define enc_BYTES enc_STR

/* ---- sizes: quick upper bound, and exact size with T fields counted at 10 bytes */

#define BOUND_U(v)     HPC_VARINT_MAX
#define BOUND_S(v)     HPC_VARINT_MAX
#define BOUND_T(v)     HPC_VARINT_MAX
#define BOUND_STR(v)   (5 + (size_t)str_n(v))
#define BOUND_BYTES(v) BOUND_STR(v)

#define TIGHT_U(v)     hpc_varint_len(v)
#define TIGHT_S(v)     hpc_varint_len(hpc_zigzag(v))
#define TIGHT_T(v)     HPC_VARINT_MAX
#define TIGHT_STR(v)   (hpc_varint_len(str_n(v)) + (size_t)str_n(v))
#define TIGHT_BYTES(v) TIGHT_STR(v)

#define HPC_FIELD(type, name) +BOUND_##type(r->name)
#define HPC_RECORD(name, id, fields)                                                               \
    static inline size_t bound_##name(const hpc_rec_##name *r)                                     \
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

#define HPC_FIELD(type, name) p = enc_##type(p, tb, r->name);
#define HPC_RECORD(name, id, fields)                                                               \
    static inline uint8_t *encode_##name(uint8_t *p, uint64_t *tb, const hpc_rec_##name *r)        \
    {                                                                                              \
        fields return p;                                                                           \
    }
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD

/* ---- the common frame */

/* Make room for `need` bytes in the current chunk; *rec = where the record goes. */
static inline int record_begin(hpc_stream *s, size_t need, uint8_t **rec)
{
    if (__builtin_expect(!s || !s->open, 0))
        return HPC_E_CLOSED;
    if (__builtin_expect(need > s->lim - s->pos, 0)) {
        int err = hpc_stream_advance(s, need);
        if (err)
            return err;
    }
    *rec = s->win + s->pos;
    return 0;
}

/* Undo an encoded but uncommitted record: a later record must find zeros here. */
static inline void record_erase(uint8_t *from, uint8_t *to)
{
    while (from < to)
        *from++ = 0;
}

/* Store the length, charge the budget and commit by storing the kind. */
static inline int record_commit(hpc_stream *s, uint8_t *rec, unsigned len_width, uint8_t *end,
                                unsigned kind, uint64_t tb)
{
    uint8_t *payload = rec + 1 + len_width;
    size_t total = (size_t)(end - rec);
    if (s->budget && !hpc_budget_take(s->budget, total)) {
        record_erase(payload, end);
        return HPC_E_LIMIT;
    }
    hpc_varint_put_padded(rec + 1, (uint64_t)(end - payload), len_width);
    __atomic_store_n(rec, (uint8_t)kind, __ATOMIC_RELEASE);
    s->pos += (uint32_t)total;
    s->time_base = tb;
    hpc_stream_stat_bump(s, HPC_STAT_RECORDS, 1);
    hpc_stream_stat_bump(s, HPC_STAT_BYTES, total);
    return 0;
}

/* ---- hpc_write_<name>() */

#define HPC_RECORD(name, id, fields)                                                               \
    int hpc_write_##name(hpc_stream *s, const hpc_rec_##name *r)                                   \
    {                                                                                              \
        size_t bound = bound_##name(r);                                                            \
        if (bound > HPC_MAX_RECORD) {                                                              \
            bound = tight_##name(r);                                                               \
            if (bound > HPC_MAX_RECORD)                                                            \
                return HPC_E_TOOBIG;                                                               \
        }                                                                                          \
        unsigned width = LEN_WIDTH(bound);                                                         \
        uint8_t *rec;                                                                              \
        int err = record_begin(s, 1 + width + bound, &rec);                                        \
        if (err)                                                                                   \
            return err;                                                                            \
        uint64_t tb = s->time_base;                                                                \
        uint8_t *end = encode_##name(rec + 1 + width, &tb, r);                                     \
        return record_commit(s, rec, width, end, id, tb);                                          \
    }
#include "schema.def"
#undef HPC_RECORD
