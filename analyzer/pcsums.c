/*
 * pcsums.c - metric sums per (function, file address) over the profile's paths.
 */
#include "pcsums.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct pc_pass {
    hpa_pcsums *s;
    uint32_t only_func;
    int err;
} pc_pass;

static void add(uint64_t *dst, const uint64_t *v, unsigned nm)
{
    for (unsigned k = 0; k < nm; k++)
        dst[k] += v[k];
}

/* Row of (func, addr), creating it; UINT32_MAX when out of memory. */
static uint32_t row_of(hpa_pcsums *s, uint32_t func, bool has_addr, uint64_t addr)
{
    struct {
        uint32_t func, has_addr;
        uint64_t addr;
    } key = {func, has_addr, addr};
    uint32_t before = s->keys.n;
    uint32_t id = hpa_strtab_intern(&s->keys, (const char *)&key, sizeof(key));
    if (id == UINT32_MAX || id < before)
        return id;
    if (id >= s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 256;
        hpa_pcrow *r = realloc(s->rows, sizeof(*r) * cap);
        if (r)
            s->rows = r;
        uint64_t *e = realloc(s->excl, sizeof(*e) * cap * s->nm);
        if (e)
            s->excl = e;
        uint64_t *in = realloc(s->incl, sizeof(*in) * cap * s->nm);
        if (in)
            s->incl = in;
        uint32_t *st = realloc(s->stamp, sizeof(*st) * cap);
        if (st)
            s->stamp = st;
        if (!r || !e || !in || !st)
            return UINT32_MAX;
        s->cap = cap;
    }
    s->rows[id] = (hpa_pcrow){.func = func, .has_addr = has_addr, .addr = addr};
    memset(s->excl + (size_t)id * s->nm, 0, sizeof(uint64_t) * s->nm);
    memset(s->incl + (size_t)id * s->nm, 0, sizeof(uint64_t) * s->nm);
    s->stamp[id] = 0;
    s->n = id + 1;
    return id;
}

static void pc_path(void *arg, const hpa_path_ctx *ctx, const hpa_frame *f, unsigned n,
                    const uint64_t *vals)
{
    pc_pass *P = arg;
    hpa_pcsums *s = P->s;
    uint32_t pass = ++s->pass;
    add(s->total, vals, s->nm);
    for (unsigned i = 0; i < n && !P->err; i++) {
        if (!f[i].pc || (P->only_func != UINT32_MAX && f[i].func != P->only_func))
            continue;
        uint64_t addr = f[i].pc;
        bool has = hpa_modmap_file_addr(ctx->proc->map, f[i].pc, &addr);
        uint32_t r = row_of(s, f[i].func, has, addr);
        if (r == UINT32_MAX) {
            P->err = HPC_E_NOMEM;
            return;
        }
        if (i + 1 < n)
            s->rows[r].caller = true;
        else
            add(s->excl + (size_t)r * s->nm, vals, s->nm);
        if (s->stamp[r] != pass) {
            s->stamp[r] = pass;
            add(s->incl + (size_t)r * s->nm, vals, s->nm);
        }
    }
}

int hpa_pcsums_build(hpa_pcsums *s, const hpa_profile *p, const struct hpa_view *view,
                     uint32_t only_func)
{
    memset(s, 0, sizeof(*s));
    s->nm = p->metrics.n;
    s->total = calloc(s->nm, sizeof(uint64_t));
    pc_pass P = {.s = s, .only_func = only_func};
    if (!s->total)
        P.err = HPC_E_NOMEM;
    if (!P.err) {
        int rc = hpa_profile_paths(p, view, pc_path, &P);
        if (rc)
            P.err = rc;
    }
    if (P.err)
        hpa_pcsums_free(s);
    return P.err;
}

void hpa_pcsums_free(hpa_pcsums *s)
{
    free(s->rows);
    free(s->excl);
    free(s->incl);
    free(s->total);
    free(s->stamp);
    hpa_strtab_free(&s->keys);
    memset(s, 0, sizeof(*s));
}

void hpa_pcrow_name(const hpa_pcsums *s, const hpa_symtab *st, uint32_t row, char *buf, size_t cap)
{
    const hpa_pcrow *r = &s->rows[row];
    const hpa_func *fn = hpa_symtab_func(st, r->func);
    uint64_t shown = r->addr + (r->caller ? 1 : 0);
    if (r->has_addr && fn->module[0] && shown >= fn->start)
        snprintf(buf, cap, "%s + 0x%08" PRIX64, fn->name, shown - fn->start);
    else
        snprintf(buf, cap, "%s @0x%" PRIx64, fn->name, shown);
}
