/*
 * util.c - checked allocation, the model's containers checked, helpers (see util.h).
 */
#include "util.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

_Noreturn void mg_out_of_memory(size_t n)
{
    fprintf(stderr, "hpmerge: out of memory (asked for %zu bytes)\n", n);
    exit(2);
}

void *mg_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        mg_out_of_memory(n);
    return p;
}

void *mg_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        mg_out_of_memory(n * size);
    return p;
}

void *mg_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        mg_out_of_memory(n);
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
        mg_out_of_memory(strlen(fmt));
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

/* ------------------------------------------------------------- containers */

static void *ok(void *p)
{
    if (!p)
        mg_out_of_memory(0);
    return p;
}

uint64_t *mg_xslot(hpa_u64map *m, uint64_t key, uint64_t init)
{
    return ok(hpa_u64map_slot(m, key, init));
}

void mg_xput(hpa_u64map *m, uint64_t key, uint64_t val)
{
    *mg_xslot(m, key, val) = val;
}

uint32_t mg_xintern(hpa_strtab *t, const void *s, size_t len)
{
    uint32_t id = hpa_strtab_intern(t, s, len);
    if (id == UINT32_MAX)
        mg_out_of_memory(len);
    return id;
}

uint32_t mg_xcstr(hpa_strtab *t, const char *s)
{
    return mg_xintern(t, s, strlen(s));
}

void mg_xbuf(const hpa_buf *b)
{
    if (b->nomem)
        mg_out_of_memory(b->cap);
}

char *mg_xbuf_str(hpa_buf *b)
{
    hpc_str s = hpa_buf_get_str(b);
    return mg_strdup_n(s.p, s.n);
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
