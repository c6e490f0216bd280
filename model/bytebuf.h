/*
 * bytebuf.h - a growable byte buffer for serialization: integers as the experiment
 * format's varints (experiment/codec.h: LEB128, zigzag for signed), doubles as 8 bytes,
 * strings as length + bytes. hpmerge's ranks send their parts to rank 0 in these
 * (merge/part.c) and build definition keys with them (merge/defs.c).
 *
 * Writing appends at n, growing by doubling from 256 bytes; when memory runs out the
 * buffer sets `nomem` and ignores later writes, so a writer checks once at the end.
 * Reading goes from `pos` and sets `bad` when it would run past n or meets a malformed
 * varint, returning zeros from then on, so a decoder also checks once at the end. A
 * zeroed hpa_buf is empty. Not thread-safe.
 */
#ifndef HPA_BYTEBUF_H
#define HPA_BYTEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment.h"

typedef struct hpa_buf {
    uint8_t *p;
    size_t n, cap; /* bytes written, allocated */
    size_t pos;    /* reading: the next byte */
    bool bad;      /* reading: past the end, or malformed */
    bool nomem;    /* writing: out of memory; what came after was not written */
} hpa_buf;

void hpa_buf_put(hpa_buf *b, const void *p, size_t n);
void hpa_buf_u64(hpa_buf *b, uint64_t v);
void hpa_buf_s64(hpa_buf *b, int64_t v);
void hpa_buf_f64(hpa_buf *b, double v);
/* Length and bytes; NULL is stored as "". */
void hpa_buf_str(hpa_buf *b, const char *s);

uint64_t hpa_buf_get_u64(hpa_buf *b);
int64_t hpa_buf_get_s64(hpa_buf *b);
double hpa_buf_get_f64(hpa_buf *b);
/* The next string, pointing into the buffer (not NUL-terminated; valid until the buffer
 * changes); {NULL, 0} and `bad` set when malformed. */
hpc_str hpa_buf_get_str(hpa_buf *b);
/* The next element count, bounded by the bytes left (each element takes at least one),
 * so damaged input cannot ask for much: 0 and `bad` set when it exceeds them. */
size_t hpa_buf_get_count(hpa_buf *b);

/* Free the bytes; the buffer is empty (zeroed) after. */
void hpa_buf_free(hpa_buf *b);

#endif
