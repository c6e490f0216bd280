/*
 * util.h - small containers hpmerge is built from: checked allocation, an integer hash
 * map, interned strings and a byte buffer with varint encoding (for the per-rank parts
 * that a parallel merge gathers).
 *
 * hpmerge is a batch tool: when memory runs out there is nothing useful left to do, so
 * mg_xmalloc and friends print "hpmerge: out of memory" and exit(2) instead of
 * returning NULL. That keeps every caller free of allocation error paths; it is not a
 * crash (no signal, temporary outputs are removed by the exit handler).
 *
 * Not thread-safe; hpmerge is single-threaded (parallelism is MPI ranks).
 */
#ifndef MG_UTIL_H
#define MG_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ------------------------------------------------------------- allocation */

void *mg_xmalloc(size_t n);
void *mg_xcalloc(size_t n, size_t size);
void *mg_xrealloc(void *p, size_t n);
char *mg_xstrdup(const char *s);
char *mg_xstrndup(const char *s, size_t n);
/* printf into a fresh string. */
char *mg_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr (element size esz) so that index `need - 1` fits; *cap is updated. */
void mg_grow(void **arr, size_t *cap, size_t need, size_t esz);
#define MG_PUSH(arr, n, cap)                                                                       \
    (mg_grow((void **)&(arr), &(cap), (n) + 1, sizeof(*(arr))), &(arr)[(n)++])

/* ------------------------------------------------------ u64 -> u64 hash map */

/* Open addressing, load factor <= 1/2, doubles when full. Key UINT64_MAX is reserved. */
typedef struct mg_map {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap; /* power of two, 0 before the first put */
    size_t n;
} mg_map;

#define MG_MAP_EMPTY UINT64_MAX

bool mg_map_get(const mg_map *m, uint64_t key, uint64_t *val);
void mg_map_put(mg_map *m, uint64_t key, uint64_t val);
/* Pointer to the value of key, inserting `init` if absent. Valid until the next put. */
uint64_t *mg_map_slot(mg_map *m, uint64_t key, uint64_t init);
/* Remove key; true if it was there. */
bool mg_map_del(mg_map *m, uint64_t key);
void mg_map_clear(mg_map *m);
void mg_map_free(mg_map *m);
/* 64-bit mixing hash (also for combining keys). */
uint64_t mg_hash64(uint64_t x);
uint64_t mg_hash_bytes(const void *p, size_t n, uint64_t seed);

/* ------------------------------------------------------------ interned strings */

/* Each distinct byte string gets a dense id 0, 1, 2 ... in order of first intern. */
typedef struct mg_strtab {
    char **strs; /* NUL-terminated copies */
    uint32_t *lens;
    size_t n, cap;
    uint32_t *slots; /* id + 1, 0 = empty */
    size_t nslots;
} mg_strtab;

uint32_t mg_strtab_intern(mg_strtab *t, const char *s, size_t len);
static inline uint32_t mg_strtab_cstr(mg_strtab *t, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return mg_strtab_intern(t, s, n);
}
static inline const char *mg_strtab_get(const mg_strtab *t, uint32_t id)
{
    return t->strs[id];
}
void mg_strtab_free(mg_strtab *t);

/* --------------------------------------------------------------- byte buffer */

/* A growable byte buffer for serialization; reading uses `pos` and sets `bad` on
 * overrun, so decoders check once at the end. */
typedef struct mg_buf {
    uint8_t *p;
    size_t n, cap;
    size_t pos;
    bool bad;
} mg_buf;

void mg_buf_put(mg_buf *b, const void *p, size_t n);
void mg_buf_u64(mg_buf *b, uint64_t v); /* LEB128 */
void mg_buf_s64(mg_buf *b, int64_t v);  /* zigzag */
void mg_buf_f64(mg_buf *b, double v);
void mg_buf_str(mg_buf *b, const char *s); /* NULL is stored as "" */
uint64_t mg_buf_get_u64(mg_buf *b);
int64_t mg_buf_get_s64(mg_buf *b);
double mg_buf_get_f64(mg_buf *b);
/* A fresh copy of the next string. */
char *mg_buf_get_str(mg_buf *b);
/* The next element count, bounded by the bytes left (each element takes at least one),
 * so damaged input cannot ask for much; 0 and `bad` set when it exceeds them. */
size_t mg_buf_get_count(mg_buf *b);
void mg_buf_free(mg_buf *b);

/* --------------------------------------------------------------- misc */

/* A fresh copy of s that is valid UTF-8: each byte of an invalid or truncated sequence
 * becomes '?'. Damaged experiments must not make the archive or the JSON unreadable. */
char *mg_utf8_clean(const char *s);

/* qsort that accepts an empty (NULL) array. */
void mg_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* CLOCK_MONOTONIC in seconds, for progress and statistics. */
double mg_now(void);
/* Peak resident set size of this process in KiB (getrusage). */
long mg_maxrss_kb(void);
/* Current anonymous resident memory in KiB (/proc/self/status RssAnon; 0 if unknown):
 * the heap, without the mapped input files that the page cache may drop at will. */
long mg_rss_anon_kb(void);
/* CPU time (user + system) of this process in seconds. */
double mg_cpu_seconds(void);
/* Copy an hpc_str-like (p, n) into a fresh NUL-terminated string. */
char *mg_strdup_n(const char *p, size_t n);

#endif
