/*
 * strtab.h - interned strings: each distinct string is stored once and gets a dense id.
 *
 * Used for function keys, file names and module names: strings are hashed only when a
 * distinct PC is symbolized (thousands of times per analysis), never per sample.
 */
#ifndef HPA_STRTAB_H
#define HPA_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct hpa_strtab {
    char **strs; /* id -> string (NUL-terminated; may contain inner NULs up to len) */
    size_t *lens;
    uint32_t n, cap;
    uint32_t *slots; /* id + 1, 0 = empty */
    uint32_t nslots;
} hpa_strtab;

/* Id of the len bytes at s, adding them if new. Returns the id, or UINT32_MAX when out
 * of memory. */
uint32_t hpa_strtab_intern(hpa_strtab *t, const char *s, size_t len);
static inline const char *hpa_strtab_get(const hpa_strtab *t, uint32_t id)
{
    return t->strs[id];
}
void hpa_strtab_free(hpa_strtab *t);

#endif
