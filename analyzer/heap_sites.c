/*
 * heap_sites.c - distinct call stacks of heap metrics (heap_sites.h): one pass over the
 * profile's paths, frames copied leaf first into one pool, then sorted by frames to merge
 * equal stacks and by bytes to print.
 *
 * Text, as er_print's -leaks:
 *
 *     Summary Results: Distinct Leaks = 2, Total Instances = 8, Total Bytes Leaked = 7900
 *
 *     Leak #1, Instances = 7, Bytes Leaked = 7000
 *       leak_x + 0x0000001F  (heap_known.c:47)
 *       main + 0x000000C1  (heap_known.c:170)
 */
#include "heap_sites.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "heap.h"

typedef struct building {
    hpa_heap_sites *out;
    size_t cap, pcap;
    const hpa_sites_spec *spec;
    int rc;
} building;

static uint64_t masked_sum(const uint64_t *v, uint32_t mask)
{
    uint64_t sum = 0;
    for (unsigned k = 0; k < HPA_SITE_NV; k++)
        if (mask & (1u << k))
            sum += v[k];
    return sum;
}

/* a site table starts small */
static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    return hpa_grow(p, cap, need, elem, 256);
}

/* The offset er_print shows: the return address's (pc + 1 for a caller frame) in the
 * function, from the object file's addresses. */
static uint64_t frame_offset(const hpa_path_ctx *ctx, const hpa_frame *f)
{
    uint64_t addr;
    if (!f->pc || !ctx->proc->map || !hpa_modmap_file_addr(ctx->proc->map, f->pc, &addr))
        return 0;
    const hpa_func *fn = hpa_symtab_func(ctx->prof->syms, f->func);
    return fn && fn->start && addr + 1 >= fn->start ? addr + 1 - fn->start : 0;
}

static void add_path(void *arg, const hpa_path_ctx *ctx, const hpa_frame *frames, unsigned n,
                     const uint64_t *vals)
{
    building *B = arg;
    hpa_heap_sites *s = B->out;
    const hpa_sites_spec *spec = B->spec;
    uint64_t v[HPA_SITE_NV] = {0};
    for (unsigned k = 0; k < spec->nv && k < HPA_SITE_NV; k++)
        v[k] = vals[spec->m[k]];
    uint64_t count = masked_sum(v, spec->count_mask);
    if (B->rc || !count)
        return;
    if (grow((void **)&s->s, &B->cap, s->n + 1, sizeof *s->s) ||
        grow((void **)&s->pool, &B->pcap, s->npool + n, sizeof *s->pool)) {
        B->rc = HPC_E_NOMEM;
        return;
    }
    hpa_heap_site *site = &s->s[s->n++];
    *site = (hpa_heap_site){
        .first = s->npool, .n = n, .count = count, .bytes = masked_sum(v, spec->key_mask)};
    memcpy(site->v, v, sizeof v);
    for (unsigned i = 0; i < n; i++) {
        const hpa_frame *f = &frames[n - 1 - i];
        s->pool[s->npool++] = (hpa_heap_frame){f->func, f->line, frame_offset(ctx, f)};
    }
    s->count += site->count;
    s->bytes += site->bytes;
}

static const hpa_heap_frame *sort_pool; /* qsort has no argument */

static int by_frames(const void *a, const void *b)
{
    const hpa_heap_site *x = a, *y = b;
    for (unsigned i = 0; i < x->n && i < y->n; i++) {
        const hpa_heap_frame *f = &sort_pool[x->first + i], *g = &sort_pool[y->first + i];
        if (f->func != g->func)
            return f->func < g->func ? -1 : 1;
        if (f->offset != g->offset)
            return f->offset < g->offset ? -1 : 1;
    }
    return (x->n > y->n) - (x->n < y->n);
}

static int by_bytes(const void *a, const void *b)
{
    const hpa_heap_site *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return by_frames(a, b);
}

int hpa_heap_sites_build(hpa_ctx *ctx, unsigned count_m, unsigned bytes_m, hpa_heap_sites *out)
{
    hpa_sites_spec spec = {.nv = 2, .m = {count_m, bytes_m}, .count_mask = 1, .key_mask = 2};
    return hpa_sites_build(ctx, &spec, out);
}

int hpa_sites_build(hpa_ctx *ctx, const hpa_sites_spec *spec, hpa_heap_sites *out)
{
    memset(out, 0, sizeof *out);
    building B = {.out = out, .spec = spec};
    int rc = hpa_profile_paths(ctx->prof, ctx->opts.view, add_path, &B);
    if (rc == 0)
        rc = B.rc;
    if (rc) {
        hpa_heap_sites_free(out);
        return rc;
    }
    sort_pool = out->pool;
    qsort(out->s, out->n, sizeof *out->s, by_frames);
    size_t k = 0; /* merge equal stacks */
    for (size_t i = 0; i < out->n; i++) {
        if (k > 0 && by_frames(&out->s[k - 1], &out->s[i]) == 0) {
            out->s[k - 1].count += out->s[i].count;
            out->s[k - 1].bytes += out->s[i].bytes;
            for (unsigned v = 0; v < HPA_SITE_NV; v++)
                out->s[k - 1].v[v] += out->s[i].v[v];
        } else {
            out->s[k++] = out->s[i];
        }
    }
    out->n = k;
    qsort(out->s, out->n, sizeof *out->s, by_bytes);
    return 0;
}

void hpa_heap_sites_free(hpa_heap_sites *s)
{
    free(s->s);
    free(s->pool);
    memset(s, 0, sizeof *s);
}

void hpa_site_frame_text(const hpa_symtab *st, const hpa_heap_frame *f, char *buf, size_t cap)
{
    const hpa_func *fn = hpa_symtab_func(st, f->func);
    const hpa_line *ln = f->line ? hpa_symtab_line(st, f->line) : NULL;
    int len = snprintf(buf, cap, "%s + 0x%08" PRIX64, fn ? fn->name : "?", f->offset);
    if (ln && ln->lineno && len >= 0 && (size_t)len < cap) {
        const char *base = strrchr(ln->file, '/') ? strrchr(ln->file, '/') + 1 : ln->file;
        snprintf(buf + len, cap - (size_t)len, "  (%s:%" PRIu32 ")", base, ln->lineno);
    }
}

void hpa_heap_sites_print(hpa_ctx *ctx, const hpa_heap_sites *s, const hpa_heap_words *w)
{
    const hpa_symtab *st = ctx->prof->syms;
    FILE *f = ctx->out;
    size_t n = ctx->opts.limit && ctx->opts.limit < s->n ? ctx->opts.limit : s->n;
    char buf[1024];
    if (ctx->opts.format == HPA_TEXT) {
        fprintf(f,
                "Summary Results: Distinct %s = %zu, Total Instances = %" PRIu64
                ", Total %s = %" PRIu64 "\n\n",
                w->what, s->n, s->count, w->bytes, s->bytes);
        for (size_t i = 0; i < n; i++) {
            const hpa_heap_site *site = &s->s[i];
            fprintf(f, "%s #%zu, Instances = %" PRIu64 ", %s = %" PRIu64 "\n", w->one, i + 1,
                    site->count, w->bytes, site->bytes);
            for (unsigned k = 0; k < site->n; k++) {
                hpa_site_frame_text(st, &s->pool[site->first + k], buf, sizeof buf);
                fprintf(f, "  %s\n", buf);
            }
            fputc('\n', f);
        }
    } else if (ctx->opts.format == HPA_CSV) {
        fprintf(f, "%s,instances,bytes,stack\n", w->one);
        for (size_t i = 0; i < n; i++) {
            const hpa_heap_site *site = &s->s[i];
            fprintf(f, "%zu,%" PRIu64 ",%" PRIu64 ",", i + 1, site->count, site->bytes);
            size_t len = 0;
            buf[0] = 0;
            for (unsigned k = site->n; k-- > 0 && len < sizeof buf;) {
                const hpa_func *fn = hpa_symtab_func(st, s->pool[site->first + k].func);
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
                                        k + 1 < site->n ? ";" : "", fn ? fn->name : "?");
            }
            hpa_csv_field(f, buf, '\n');
        }
    } else {
        hpa_json j;
        hpa_json_init(&j, f);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", w->report);
        hpa_json_ku64(&j, "distinct", s->n);
        hpa_json_ku64(&j, "instances", s->count);
        hpa_json_ku64(&j, "bytes", s->bytes);
        hpa_json_key(&j, w->json_key);
        hpa_json_begin_arr(&j);
        for (size_t i = 0; i < n; i++) {
            const hpa_heap_site *site = &s->s[i];
            hpa_json_begin_obj(&j);
            hpa_json_ku64(&j, "number", i + 1);
            hpa_json_ku64(&j, "instances", site->count);
            hpa_json_ku64(&j, "bytes", site->bytes);
            hpa_json_key(&j, "stack"); /* leaf first */
            hpa_json_begin_arr(&j);
            for (unsigned k = 0; k < site->n; k++) {
                const hpa_heap_frame *fr = &s->pool[site->first + k];
                const hpa_func *fn = hpa_symtab_func(st, fr->func);
                const hpa_line *ln = fr->line ? hpa_symtab_line(st, fr->line) : NULL;
                hpa_json_begin_obj(&j);
                hpa_json_kstr(&j, "function", fn ? fn->name : "?");
                hpa_json_ku64(&j, "offset", fr->offset);
                hpa_json_kstr(&j, "file", ln ? ln->file : "");
                hpa_json_ku64(&j, "line", ln ? ln->lineno : 0);
                hpa_json_end_obj(&j);
            }
            hpa_json_end_arr(&j);
            hpa_json_end_obj(&j);
        }
        hpa_json_end_arr(&j);
        hpa_json_end_obj(&j);
        fputc('\n', f);
    }
}

int hpa_heap_metric(hpa_ctx *ctx, const char *report, const char *key)
{
    int m = hpa_metrics_find(&ctx->prof->metrics, key);
    if (m < 0)
        fprintf(stderr,
                "hpanalyze: %s: no heap tracing data in the experiment (record with "
                "hpcollect -H on)\n",
                report);
    return m;
}

void hpa_heap_notes(hpa_ctx *ctx)
{
    if (ctx->opts.format != HPA_TEXT)
        return;
    const hpa_profile *p = ctx->prof;
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        if (pr->heap && pr->heap->traced && !pr->heap->ended)
            fprintf(ctx->out,
                    "Note: process %s did not end normally: its leaks are the blocks not "
                    "freed at its last record\n",
                    pr->proc->name);
    }
}
