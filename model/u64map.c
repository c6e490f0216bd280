/*
 * u64map.c - growth, insertion and deletion of the integer hash map (u64map.h).
 */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

static int grow(hpa_u64map *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    hpa_u64map n = {malloc(sizeof(uint64_t) * cap), malloc(sizeof(uint64_t) * cap), cap, m->n};
    if (!n.keys || !n.vals) {
        free(n.keys);
        free(n.vals);
        return -1;
    }
    memset(n.keys, 0xff, sizeof(uint64_t) * cap);
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i] != HPA_U64MAP_EMPTY) {
            size_t j = hpa_u64map_find(&n, m->keys[i]);
            n.keys[j] = m->keys[i];
            n.vals[j] = m->vals[i];
        }
    free(m->keys);
    free(m->vals);
    *m = n;
    return 0;
}

uint64_t *hpa_u64map_slot(hpa_u64map *m, uint64_t k, uint64_t init)
{
    if (m->cap) {
        size_t i = hpa_u64map_find(m, k);
        if (m->keys[i] == k)
            return &m->vals[i];
    }
    if (2 * (m->n + 1) > m->cap && grow(m))
        return NULL;
    size_t i = hpa_u64map_find(m, k);
    m->keys[i] = k;
    m->vals[i] = init;
    m->n++;
    return &m->vals[i];
}

int hpa_u64map_put(hpa_u64map *m, uint64_t k, uint64_t v)
{
    uint64_t *slot = hpa_u64map_slot(m, k, v);
    if (!slot)
        return -1;
    *slot = v;
    return 0;
}

bool hpa_u64map_del(hpa_u64map *m, uint64_t k)
{
    if (!m->cap)
        return false;
    size_t mask = m->cap - 1, i = hpa_u64map_find(m, k);
    if (m->keys[i] == HPA_U64MAP_EMPTY)
        return false;
    /* backward-shift deletion: move later entries of the probe run into the hole */
    for (size_t j = (i + 1) & mask; m->keys[j] != HPA_U64MAP_EMPTY; j = (j + 1) & mask) {
        size_t home = hpa_hash64(m->keys[j]) & mask;
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->keys[i] = HPA_U64MAP_EMPTY;
    m->n--;
    return true;
}

void hpa_u64map_clear(hpa_u64map *m)
{
    if (m->cap)
        memset(m->keys, 0xff, sizeof(uint64_t) * m->cap);
    m->n = 0;
}

void hpa_u64map_free(hpa_u64map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}
