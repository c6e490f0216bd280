/*
 * u64map.h - open-addressing hash map from a 64-bit key to a 64-bit value: the one hash
 * map of both analysis tools (hpanalyze's sample buckets, PC caches, call graph edges;
 * hpmerge's definitions, regions, requests in flight).
 *
 * Keys are integers, never strings (strtab.h interns strings first), so a lookup is a
 * multiply or two and a probe or two. Linear probing, load factor at most 1/2, the table
 * doubles when full, starting at 64 slots; deletion shifts the rest of a probe run back,
 * so there are no tombstones and lookups stay short under many puts and deletes (MPI
 * requests). Key HPA_U64MAP_EMPTY (UINT64_MAX) is reserved: it marks empty slots.
 *
 * A zeroed hpa_u64map is an empty map. Out of memory: hpa_u64map_put returns -1 and
 * hpa_u64map_slot NULL, the map unchanged. Not thread-safe.
 */
#ifndef HPA_U64MAP_H
#define HPA_U64MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hash.h"

#define HPA_U64MAP_EMPTY UINT64_MAX

typedef struct hpa_u64map {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap; /* power of two, 0 before the first insert */
    size_t n;   /* keys present */
} hpa_u64map;

/* Index of k's slot, or of the empty slot where it would go. cap must be > 0. */
static inline size_t hpa_u64map_find(const hpa_u64map *m, uint64_t k)
{
    size_t mask = m->cap - 1, i = hpa_hash64(k) & mask;
    while (m->keys[i] != k && m->keys[i] != HPA_U64MAP_EMPTY)
        i = (i + 1) & mask;
    return i;
}

/* True and *v (v may be NULL) when k is present. */
static inline bool hpa_u64map_get(const hpa_u64map *m, uint64_t k, uint64_t *v)
{
    if (m->cap == 0)
        return false;
    size_t i = hpa_u64map_find(m, k);
    if (m->keys[i] == HPA_U64MAP_EMPTY)
        return false;
    if (v)
        *v = m->vals[i];
    return true;
}

/* Pointer to k's value, inserting k with value init when absent; valid until the next
 * insertion. NULL when out of memory. */
uint64_t *hpa_u64map_slot(hpa_u64map *m, uint64_t k, uint64_t init);
/* Insert or replace. Returns 0, or -1 when out of memory. */
int hpa_u64map_put(hpa_u64map *m, uint64_t k, uint64_t v);
/* Remove k; true if it was there. */
bool hpa_u64map_del(hpa_u64map *m, uint64_t k);
/* Remove every key, keeping the table. */
void hpa_u64map_clear(hpa_u64map *m);
/* Free the table; the map is empty (zeroed) after. */
void hpa_u64map_free(hpa_u64map *m);

#endif
