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

/* Bytes the minimal varint of v takes (1..10): ceil(bits / 7) from the count of leading
 * zeros, without a loop ((bits * 9 + 64) / 64 equals it for every bits in 1..64). */
static inline unsigned hpc_varint_len(uint64_t v)
{
    unsigned bits = 64 - (unsigned)__builtin_clzll(v | 1);
    return (bits * 9 + 64) >> 6;
}

/* Store v at p, a byte at a time: hpc_varint_put's way for values of three bytes and more. */
static inline uint8_t *hpc_varint_put_long(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Store v at p (room for HPC_VARINT_MAX bytes); returns the byte after it. One and two
 * bytes without a loop: most fields are small. Signal-safe. */
static inline __attribute__((always_inline)) uint8_t *hpc_varint_put(uint8_t *p, uint64_t v)
{
    if (__builtin_expect(v < 0x80, 1)) {
        *p = (uint8_t)v;
        return p + 1;
    }
    if (v < 0x4000) {
        p[0] = (uint8_t)(v | 0x80);
        p[1] = (uint8_t)(v >> 7);
        return p + 2;
    }
    return hpc_varint_put_long(p, v);
}

/*
 * The same for a writer that owns HPC_VARINT_MAX bytes at p and may store zeros past the
 * varint in them (the record writer: what lies past a record in its chunk is zero, and
 * the next field overwrites them). Up to three bytes are stored one by one as
 * hpc_varint_put does; a varint of 4 to 8 bytes (an address, an absolute time) is made in
 * a register, its seven-bit groups spread to bytes in three steps of halving, and stored
 * at once (on a little-endian machine) instead of a loop of a byte at a time.
 * Signal-safe.
 */
static inline __attribute__((always_inline)) uint8_t *hpc_varint_put_wide(uint8_t *p, uint64_t v)
{
    if (__builtin_expect(v < 0x80, 1)) {
        *p = (uint8_t)v;
        return p + 1;
    }
    if (__builtin_expect(v < 0x4000, 1)) {
        p[0] = (uint8_t)(v | 0x80);
        p[1] = (uint8_t)(v >> 7);
        return p + 2;
    }
    if (v < 0x200000) {
        p[0] = (uint8_t)(v | 0x80);
        p[1] = (uint8_t)(v >> 7 | 0x80);
        p[2] = (uint8_t)(v >> 14);
        return p + 3;
    }
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (__builtin_expect(v < (1ull << 56), 1)) {
        uint64_t x = (v & 0xfffffffull) | (v & 0xfffffff0000000ull) << 4;
        x = (x & 0x00003fff00003fffull) | (x & 0x0fffc0000fffc000ull) << 2;
        x = (x & 0x007f007f007f007full) | (x & 0x3f803f803f803f80ull) << 1;
        unsigned len = hpc_varint_len(v);
        x |= 0x8080808080808080ull & ((1ull << (8 * (len - 1))) - 1);
        __builtin_memcpy(p, &x, 8);
        return p + len;
    }
#endif
    return hpc_varint_put_long(p, v);
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
