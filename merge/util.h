/*
 * util.h - what hpmerge is built from besides the model: checked allocation, model/'s
 * containers under the same policy, and small helpers (UTF-8 cleaning, clocks, memory).
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

#include "bytebuf.h"
#include "strtab.h"
#include "u64map.h"

/* ------------------------------------------------------------- allocation */

/* What the mg_x helpers do when an allocation of n bytes fails (for memory a model/
 * function allocated and returned NULL for). */
_Noreturn void mg_out_of_memory(size_t n);
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

/* ------------------------------------------- the model's containers, checked */

/* hpmerge's hash map, string table and byte buffer are model/'s (u64map.h, strtab.h,
 * bytebuf.h), which report running out of memory to their caller. These apply hpmerge's
 * policy (above) to the operations that allocate; lookups, deletions and reads are
 * called directly. */
uint64_t *mg_xslot(hpa_u64map *m, uint64_t key, uint64_t init); /* hpa_u64map_slot */
void mg_xput(hpa_u64map *m, uint64_t key, uint64_t val);        /* hpa_u64map_put */
uint32_t mg_xintern(hpa_strtab *t, const void *s, size_t len);  /* hpa_strtab_intern */
uint32_t mg_xcstr(hpa_strtab *t, const char *s);                /* hpa_strtab_cstr */
/* Exit if writing b ran out of memory; call once after the last write. */
void mg_xbuf(const hpa_buf *b);
/* The next string of b as a fresh NUL-terminated copy ("" when malformed). */
char *mg_xbuf_str(hpa_buf *b);

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
