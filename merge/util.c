/*
 * util.c - checked allocation, hash map, interned strings, byte buffers (see util.h).
 */
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void out_of_memory(size_t n)
{
    fprintf(stderr, "hpmerge: out of memory (asked for %zu bytes)\n", n);
    exit(2);
}

void *mg_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *mg_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        out_of_memory(n * size);
    return p;
}

void *mg_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

char *mg_xstrdup(const char *s)
{
    return mg_xstrndup(s, strlen(s));
}

char *mg_xstrndup(const char *s, size_t n)
{
    char *d = mg_xmalloc(n + 1);
    if (n)
        memcpy(d, s, n);
    d[n] = 0;
    return d;
}

char *mg_strdup_n(const char *p, size_t n)
{
    return mg_xstrndup(p ? p : "", p ? n : 0);
}

char *mg_xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        out_of_memory(strlen(fmt));
    va_end(ap);
    return s;
}

void mg_grow(void **arr, size_t *cap, size_t need, size_t esz)
{
    if (need <= *cap)
        return;
    size_t c = *cap ? *cap : 8;
    while (c < need)
        c *= 2;
    *arr = mg_xrealloc(*arr, c * esz);
    *cap = c;
}

/* ------------------------------------------------------------------ map */

uint64_t mg_hash64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

uint64_t mg_hash_bytes(const void *p, size_t n, uint64_t seed)
{
    const uint8_t *b = p;
    uint64_t h = 0xcbf29ce484222325ULL ^ seed;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return mg_hash64(h);
}

static size_t map_find(const mg_map *m, uint64_t key)
{
    size_t mask = m->cap - 1;
    size_t i = mg_hash64(key) & mask;
    while (m->keys[i] != key && m->keys[i] != MG_MAP_EMPTY)
        i = (i + 1) & mask;
    return i;
}

bool mg_map_get(const mg_map *m, uint64_t key, uint64_t *val)
{
    if (!m->cap)
        return false;
    size_t i = map_find(m, key);
    if (m->keys[i] == MG_MAP_EMPTY)
        return false;
    if (val)
        *val = m->vals[i];
    return true;
}

static void map_resize(mg_map *m, size_t cap)
{
    mg_map n = {mg_xmalloc(cap * sizeof(uint64_t)), mg_xmalloc(cap * sizeof(uint64_t)), cap, m->n};
    memset(n.keys, 0xff, cap * sizeof(uint64_t));
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i] != MG_MAP_EMPTY) {
            size_t j = map_find(&n, m->keys[i]);
            n.keys[j] = m->keys[i];
            n.vals[j] = m->vals[i];
        }
    free(m->keys);
    free(m->vals);
    *m = n;
}

uint64_t *mg_map_slot(mg_map *m, uint64_t key, uint64_t init)
{
    if (2 * (m->n + 1) > m->cap)
        map_resize(m, m->cap ? 2 * m->cap : 64);
    size_t i = map_find(m, key);
    if (m->keys[i] == MG_MAP_EMPTY) {
        m->keys[i] = key;
        m->vals[i] = init;
        m->n++;
    }
    return &m->vals[i];
}

void mg_map_put(mg_map *m, uint64_t key, uint64_t val)
{
    *mg_map_slot(m, key, val) = val;
}

bool mg_map_del(mg_map *m, uint64_t key)
{
    if (!m->cap)
        return false;
    size_t mask = m->cap - 1, i = map_find(m, key);
    if (m->keys[i] == MG_MAP_EMPTY)
        return false;
    /* backward-shift deletion: move later entries of the probe run into the hole */
    for (size_t j = (i + 1) & mask; m->keys[j] != MG_MAP_EMPTY; j = (j + 1) & mask) {
        size_t home = mg_hash64(m->keys[j]) & mask;
        bool movable = i <= j ? (home <= i || home > j) : (home <= i && home > j);
        if (movable) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->keys[i] = MG_MAP_EMPTY;
    m->n--;
    return true;
}

void mg_map_clear(mg_map *m)
{
    if (m->cap)
        memset(m->keys, 0xff, m->cap * sizeof(uint64_t));
    m->n = 0;
}

void mg_map_free(mg_map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof(*m));
}

/* --------------------------------------------------------------- strtab */

static void strtab_rehash(mg_strtab *t, size_t nslots)
{
    free(t->slots);
    t->slots = mg_xcalloc(nslots, sizeof(uint32_t));
    t->nslots = nslots;
    for (size_t id = 0; id < t->n; id++) {
        size_t i = mg_hash_bytes(t->strs[id], t->lens[id], 0) & (nslots - 1);
        while (t->slots[i])
            i = (i + 1) & (nslots - 1);
        t->slots[i] = (uint32_t)id + 1;
    }
}

uint32_t mg_strtab_intern(mg_strtab *t, const char *s, size_t len)
{
    if (2 * (t->n + 1) > t->nslots)
        strtab_rehash(t, t->nslots ? 2 * t->nslots : 256);
    size_t i = mg_hash_bytes(s, len, 0) & (t->nslots - 1);
    for (; t->slots[i]; i = (i + 1) & (t->nslots - 1)) {
        uint32_t id = t->slots[i] - 1;
        if (t->lens[id] == len && memcmp(t->strs[id], s, len) == 0)
            return id;
    }
    if (t->n == t->cap) {
        size_t cap = t->cap;
        mg_grow((void **)&t->strs, &cap, t->n + 1, sizeof(char *));
        t->lens = mg_xrealloc(t->lens, cap * sizeof(uint32_t));
        t->cap = cap;
    }
    t->strs[t->n] = mg_xstrndup(s, len);
    t->lens[t->n] = (uint32_t)len;
    t->slots[i] = (uint32_t)t->n + 1;
    return (uint32_t)t->n++;
}

void mg_strtab_free(mg_strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->strs[i]);
    free(t->strs);
    free(t->lens);
    free(t->slots);
    memset(t, 0, sizeof(*t));
}

/* --------------------------------------------------------------- buffer */

void mg_buf_put(mg_buf *b, const void *p, size_t n)
{
    if (n == 0)
        return;
    if (b->n + n > b->cap) {
        size_t c = b->cap ? b->cap : 256;
        while (c < b->n + n)
            c *= 2;
        b->p = mg_xrealloc(b->p, c);
        b->cap = c;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

void mg_buf_u64(mg_buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        uint8_t c = v & 0x7f;
        v >>= 7;
        tmp[n++] = c | (v ? 0x80 : 0);
    } while (v);
    mg_buf_put(b, tmp, n);
}

void mg_buf_s64(mg_buf *b, int64_t v)
{
    mg_buf_u64(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void mg_buf_f64(mg_buf *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    mg_buf_put(b, &u, 8);
}

void mg_buf_str(mg_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    mg_buf_u64(b, n);
    mg_buf_put(b, s, n);
}

uint64_t mg_buf_get_u64(mg_buf *b)
{
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (b->pos >= b->n) {
            b->bad = true;
            return 0;
        }
        uint8_t c = b->p[b->pos++];
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    b->bad = true;
    return v;
}

int64_t mg_buf_get_s64(mg_buf *b)
{
    uint64_t u = mg_buf_get_u64(b);
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

double mg_buf_get_f64(mg_buf *b)
{
    double v = 0;
    if (b->pos + 8 > b->n) {
        b->bad = true;
        return 0;
    }
    memcpy(&v, b->p + b->pos, 8);
    b->pos += 8;
    return v;
}

char *mg_buf_get_str(mg_buf *b)
{
    uint64_t n = mg_buf_get_u64(b);
    if (b->bad || n > b->n - b->pos) {
        b->bad = true;
        return mg_xstrdup("");
    }
    char *s = mg_xstrndup((const char *)b->p + b->pos, n);
    b->pos += n;
    return s;
}

size_t mg_buf_get_count(mg_buf *b)
{
    uint64_t n = mg_buf_get_u64(b);
    if (b->bad || n > b->n - b->pos) {
        b->bad = true;
        return 0;
    }
    return (size_t)n;
}

void mg_buf_free(mg_buf *b)
{
    free(b->p);
    memset(b, 0, sizeof(*b));
}

/* --------------------------------------------------------------- misc */

/* Length of the valid UTF-8 sequence at p (1-4), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *p)
{
    unsigned c = p[0];
    size_t n = c < 0x80             ? 1
               : (c & 0xe0) == 0xc0 ? 2
               : (c & 0xf0) == 0xe0 ? 3
               : (c & 0xf8) == 0xf0 ? 4
                                    : 0;
    if (n == 0 || (n == 2 && c < 0xc2) || (n == 4 && c > 0xf4))
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    if (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
        return 0; /* overlong, or a surrogate */
    if (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
        return 0;
    return n;
}

char *mg_utf8_clean(const char *s)
{
    size_t len = strlen(s);
    char *d = mg_xmalloc(len + 1);
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    while (*p) {
        size_t n = utf8_len(p);
        if (n == 0) {
            d[o++] = '?';
            p++;
            continue;
        }
        memcpy(d + o, p, n);
        o += n;
        p += n;
    }
    d[o] = 0;
    return d;
}

void mg_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
    if (n > 1)
        qsort(base, n, size, cmp);
}

double mg_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

long mg_rss_anon_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return 0;
    char line[256];
    long kb = 0;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "RssAnon: %ld", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

double mg_cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
           (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

long mg_maxrss_kb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}
