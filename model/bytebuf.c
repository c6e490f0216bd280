/*
 * bytebuf.c - the byte buffer (bytebuf.h), its integers encoded by experiment/codec.h.
 */
#include "bytebuf.h"

#include <stdlib.h>
#include <string.h>

#include "codec.h"

/* Room for n more bytes; false (and nomem) when there is none. */
static bool reserve(hpa_buf *b, size_t n)
{
    if (b->nomem)
        return false;
    if (n <= b->cap - b->n)
        return true;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->n < n)
        cap *= 2;
    uint8_t *p = realloc(b->p, cap);
    if (!p) {
        b->nomem = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void hpa_buf_put(hpa_buf *b, const void *p, size_t n)
{
    if (n == 0 || !reserve(b, n))
        return;
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

void hpa_buf_u64(hpa_buf *b, uint64_t v)
{
    if (reserve(b, HPC_VARINT_MAX))
        b->n = (size_t)(hpc_varint_put(b->p + b->n, v) - b->p);
}

void hpa_buf_s64(hpa_buf *b, int64_t v)
{
    hpa_buf_u64(b, hpc_zigzag(v));
}

void hpa_buf_f64(hpa_buf *b, double v)
{
    hpa_buf_put(b, &v, sizeof v);
}

void hpa_buf_str(hpa_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    hpa_buf_u64(b, n);
    hpa_buf_put(b, s, n);
}

uint64_t hpa_buf_get_u64(hpa_buf *b)
{
    uint64_t v = 0;
    const uint8_t *next =
        b->bad || b->pos >= b->n ? NULL : hpc_varint_get(b->p + b->pos, b->p + b->n, &v);
    if (!next) {
        b->bad = true;
        return 0;
    }
    b->pos = (size_t)(next - b->p);
    return v;
}

int64_t hpa_buf_get_s64(hpa_buf *b)
{
    return hpc_unzigzag(hpa_buf_get_u64(b));
}

double hpa_buf_get_f64(hpa_buf *b)
{
    double v = 0;
    if (b->bad || b->n - b->pos < sizeof v) {
        b->bad = true;
        return 0;
    }
    memcpy(&v, b->p + b->pos, sizeof v);
    b->pos += sizeof v;
    return v;
}

hpc_str hpa_buf_get_str(hpa_buf *b)
{
    size_t n = hpa_buf_get_count(b);
    if (b->bad || n > UINT32_MAX) {
        b->bad = true;
        return (hpc_str){0};
    }
    hpc_str s = {(const char *)b->p + b->pos, (uint32_t)n};
    b->pos += n;
    return s;
}

size_t hpa_buf_get_count(hpa_buf *b)
{
    uint64_t n = hpa_buf_get_u64(b);
    if (b->bad || n > b->n - b->pos) {
        b->bad = true;
        return 0;
    }
    return (size_t)n;
}

void hpa_buf_free(hpa_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}
