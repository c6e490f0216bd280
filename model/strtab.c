/*
 * strtab.c - string interning with linear probing (strtab.h).
 */
#include "strtab.h"

#include <stdlib.h>

#include "hash.h"

static uint32_t hash_of(const char *s, size_t len)
{
    return (uint32_t)hpa_hash_bytes(s, len, 0);
}

static int rehash(hpa_strtab *t)
{
    uint32_t nslots = t->nslots ? t->nslots * 2 : 256;
    uint32_t *slots = calloc(nslots, sizeof(*slots));
    if (!slots)
        return -1;
    for (uint32_t id = 0; id < t->n; id++) {
        uint32_t i = hash_of(t->strs[id], t->lens[id]) & (nslots - 1);
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return 0;
}

uint32_t hpa_strtab_intern(hpa_strtab *t, const char *s, size_t len)
{
    if ((t->n + 1) * 2 > t->nslots && rehash(t))
        return UINT32_MAX;
    uint32_t i = hash_of(s, len) & (t->nslots - 1);
    for (; t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
        uint32_t id = t->slots[i] - 1;
        if (t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
            return id;
    }
    if (t->n == t->cap) {
        uint32_t cap = t->cap ? t->cap * 2 : 256;
        char **strs = realloc(t->strs, sizeof(*strs) * cap);
        if (!strs)
            return UINT32_MAX;
        t->strs = strs;
        size_t *lens = realloc(t->lens, sizeof(*lens) * cap);
        if (!lens)
            return UINT32_MAX;
        t->lens = lens;
        t->cap = cap;
    }
    char *copy = malloc(len + 1);
    if (!copy)
        return UINT32_MAX;
    memcpy(copy, s, len);
    copy[len] = 0;
    t->strs[t->n] = copy;
    t->lens[t->n] = len;
    t->slots[i] = t->n + 1;
    return t->n++;
}

void hpa_strtab_free(hpa_strtab *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->lens);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}
