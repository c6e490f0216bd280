/*
 * u64map.c - growth and insertion for the integer hash map (u64map.h).
 */
#include "u64map.h"

#include <string.h>

static void insert_slot(uint64_t *keys, uint32_t *vals, uint32_t cap, uint64_t k, uint32_t v)
{
    uint32_t i = hpa_u64map_hash(k, cap);
    while (keys[i] != HPA_U64MAP_EMPTY && keys[i] != k)
        i = (i + 1) & (cap - 1);
    keys[i] = k;
    vals[i] = v;
}

static int grow(hpa_u64map *m)
{
    uint32_t cap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = malloc(sizeof(*keys) * cap);
    uint32_t *vals = malloc(sizeof(*vals) * cap);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    memset(keys, 0xff, sizeof(*keys) * cap);
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->keys[i] != HPA_U64MAP_EMPTY)
            insert_slot(keys, vals, cap, m->keys[i], m->vals[i]);
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = cap;
    return 0;
}

int hpa_u64map_put(hpa_u64map *m, uint64_t k, uint32_t v)
{
    uint32_t old;
    if (hpa_u64map_get(m, k, &old)) {
        insert_slot(m->keys, m->vals, m->cap, k, v);
        return 0;
    }
    if ((m->n + 1) * 2 > m->cap && grow(m))
        return -1;
    insert_slot(m->keys, m->vals, m->cap, k, v);
    m->n++;
    return 0;
}

void hpa_u64map_free(hpa_u64map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}
