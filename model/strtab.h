/*
 * strtab.h - interned strings: each distinct byte string is stored once and gets a dense
 * id 0, 1, 2 ... in order of first intern. The one string table of both analysis tools
 * (function keys, file and module names in symbols.c; hpmerge's OTF2 string and
 * definition keys).
 *
 * Strings are hashed only when interned (per distinct PC symbolized, per definition),
 * never per sample. Linear probing over ids (hash.h), load factor at most 1/2. A zeroed
 * hpa_strtab is empty. Not thread-safe.
 */
#ifndef HPA_STRTAB_H
#define HPA_STRTAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct hpa_strtab {
    char **strs; /* id -> string (NUL-terminated; may contain inner NULs up to len) */
    size_t *lens;
    uint32_t n, cap;
    uint32_t *slots; /* id + 1, 0 = empty */
    uint32_t nslots;
} hpa_strtab;

/* Id of the len bytes at s, adding a copy when new. Returns the id, or UINT32_MAX when out
 * of memory (the table unchanged). */
uint32_t hpa_strtab_intern(hpa_strtab *t, const char *s, size_t len);
/* The same for a NUL-terminated string. */
static inline uint32_t hpa_strtab_cstr(hpa_strtab *t, const char *s)
{
    return hpa_strtab_intern(t, s, strlen(s));
}
/* The string of id (< t->n). */
static inline const char *hpa_strtab_get(const hpa_strtab *t, uint32_t id)
{
    return t->strs[id];
}
/* Free every string; the table is empty (zeroed) after. */
void hpa_strtab_free(hpa_strtab *t);

#endif
