/*
 * u64map.h - open-addressing hash map from a 64-bit key to a 32-bit value.
 *
 * The one hash map of the analyzer's hot paths: sample aggregation keys (CCT node, state)
 * and PC caches. Keys are integers, never strings, so a lookup is a multiply and a probe
 * or two. Load factor at most 1/2; the map grows by doubling. Key UINT64_MAX is reserved
 * (marks empty slots).
 */
#ifndef HPA_U64MAP_H
#define HPA_U64MAP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#define HPA_U64MAP_EMPTY UINT64_MAX

typedef struct hpa_u64map {
    uint64_t *keys;
    uint32_t *vals;
    uint32_t cap; /* power of two, 0 before the first insert */
    uint32_t n;
} hpa_u64map;

static inline uint32_t hpa_u64map_hash(uint64_t k, uint32_t cap)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return (uint32_t)k & (cap - 1);
}

/* Value of key k, or false when absent. */
static inline bool hpa_u64map_get(const hpa_u64map *m, uint64_t k, uint32_t *v)
{
    if (m->cap == 0)
        return false;
    for (uint32_t i = hpa_u64map_hash(k, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == k) {
            *v = m->vals[i];
            return true;
        }
        if (m->keys[i] == HPA_U64MAP_EMPTY)
            return false;
    }
}

/* Insert or replace. Returns 0, or -1 when out of memory (the map is unchanged). */
int hpa_u64map_put(hpa_u64map *m, uint64_t k, uint32_t v);
void hpa_u64map_free(hpa_u64map *m);

#endif
