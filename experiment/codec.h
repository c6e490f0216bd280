/*
 * codec.h - the integer encodings of the experiment format, as inline helpers shared by
 * the writer (signal-safe: pure memory stores) and the reader (bounds-checked).
 *
 *   varint  LEB128: 7 bits per byte, low group first, high bit = "more follows";
 *           at most 10 bytes for 64 bits. Readers accept non-minimal encodings (the
 *           writer pads record lengths to the width it reserved).
 *   zigzag  signed -> unsigned so small magnitudes stay small: 0,-1,1,-2 -> 0,1,2,3.
 *
 * The one home of these encodings: experiment/ uses them for the format, model/bytebuf.c
 * for the buffers hpmerge's ranks exchange. Not part of the format's public API.
 */
#ifndef HPC_CODEC_H
#define HPC_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define HPC_VARINT_MAX 10 /* bytes of the longest 64-bit varint */

static inline uint64_t hpc_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

static inline int64_t hpc_unzigzag(uint64_t u)
{
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

/* Bytes the minimal varint of v takes (1..10). */
static inline unsigned hpc_varint_len(uint64_t v)
{
    unsigned n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Store v at p (room for HPC_VARINT_MAX bytes); returns the byte after it. Signal-safe. */
static inline uint8_t *hpc_varint_put(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Store v in exactly `width` bytes (padded with continuation bytes); v must fit in
 * 7*width bits. Signal-safe. */
static inline void hpc_varint_put_padded(uint8_t *p, uint64_t v, unsigned width)
{
    for (unsigned i = 0; i + 1 < width; i++) {
        p[i] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[width - 1] = (uint8_t)v;
}

/*
 * Read a varint from [p, end) into *v. Returns the byte after it, or NULL when the
 * varint runs past end or is longer than 64 bits. The one-byte case is kept first:
 * most fields of a sample are small.
 */
static inline const uint8_t *hpc_varint_get(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    if (p < end && *p < 0x80) {
        *v = *p;
        return p + 1;
    }
    uint64_t x = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (p >= end)
            return NULL;
        uint8_t b = *p++;
        if (shift == 63 && b > 1)
            return NULL; /* more than 64 bits */
        x |= (uint64_t)(b & 0x7f) << shift;
        if (b < 0x80) {
            *v = x;
            return p;
        }
    }
    return NULL;
}

#endif /* HPC_CODEC_H */
