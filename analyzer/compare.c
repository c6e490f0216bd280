/*
 * compare.c - `functions` and `lines` for several experiments side by side (compare.h).
 *
 *     Functions sorted by metric: Exclusive Total CPU Time (compare: delta)
 *     #1 = a.hpc   #2 = b.hpc
 *
 *     Excl. Total CPU sec.   Incl. Total CPU sec.    Name
 *     #1     #2              #1     #2
 *     1.160  +1.160          1.160  +1.160           <Total>
 *     0.500  +0.500          0.500  +0.500           leaf_a
 *
 * Rows are sorted by the sort metric's largest value among the experiments (so what
 * appears only in a later experiment is not lost at the bottom), ties by name.
 *
 * CSV columns / JSON keys (stable): name, module (functions) or name, function, file,
 * line (lines); then for each metric column K (excl_cpu_s ...) and experiment N: eN_K,
 * and for N >= 2 in delta mode eN_<K without _s>_delta[_s], in ratio mode
 * eN_<K without _s>_ratio (null / empty when the baseline is 0).
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report_util.h"
#include "strtab.h"

typedef struct cmp_rows {
    unsigned nexp, nm, stride; /* stride = nexp * nm */
    uint32_t n, cap;
    uint32_t *rep;         /* a function or line id naming the row */
    uint64_t *excl, *incl; /* [row][exp][metric] */
    hpa_strtab keys;
} cmp_rows;

static void rows_free(cmp_rows *r)
{
    free(r->rep);
    free(r->excl);
    free(r->incl);
    hpa_strtab_free(&r->keys);
}

static uint32_t row_of(cmp_rows *r, const char *key, size_t len, uint32_t rep)
{
    uint32_t before = r->keys.n;
    uint32_t id = hpa_strtab_intern(&r->keys, key, len);
    if (id == UINT32_MAX || id < before)
        return id;
    if (id >= r->cap) {
        uint32_t cap = r->cap ? 2 * r->cap : 256;
        uint32_t *rp = realloc(r->rep, sizeof(*rp) * cap);
        if (rp)
            r->rep = rp;
        uint64_t *e = realloc(r->excl, sizeof(*e) * cap * r->stride);
        if (e)
            r->excl = e;
        uint64_t *in = realloc(r->incl, sizeof(*in) * cap * r->stride);
        if (in)
            r->incl = in;
        if (!rp || !e || !in)
            return UINT32_MAX;
        r->cap = cap;
    }
    r->rep[id] = rep;
    memset(r->excl + (size_t)id * r->stride, 0, sizeof(uint64_t) * r->stride);
    memset(r->incl + (size_t)id * r->stride, 0, sizeof(uint64_t) * r->stride);
    r->n = id + 1;
    return id;
}

/* The matching key of function or line id. */
static size_t key_of(const hpa_symtab *st, enum hpa_cmp_what what, uint32_t id, char *buf,
                     size_t cap)
{
    int n;
    if (what == HPA_CMP_FUNCTIONS) {
        const hpa_func *f = hpa_symtab_func(st, id);
        n = snprintf(buf, cap, "%s%c%s", f->module, 0, f->name);
    } else {
        const hpa_line *l = hpa_symtab_line(st, id);
        const hpa_func *f = hpa_symtab_func(st, l->func);
        n = snprintf(buf, cap, "%s%c%u%c%s%c%s", l->file, 0, l->lineno, 0, f->module, 0, f->name);
    }
    return n < 0 ? 0 : (size_t)n >= cap ? cap - 1 : (size_t)n;
}

static int build_rows(cmp_rows *r, const hpa_profile *p, const hpa_callgraph *gs,
                      enum hpa_cmp_what what)
{
    memset(r, 0, sizeof(*r));
    r->nexp = p->nexps;
    r->nm = p->metrics.n;
    r->stride = r->nexp * r->nm;
    char key[4096];
    for (unsigned e = 0; e < r->nexp; e++) {
        const hpa_callgraph *g = &gs[e];
        uint32_t nid = what == HPA_CMP_FUNCTIONS ? g->nfuncs : g->nlines;
        for (uint32_t id = 1; id < nid; id++) {
            const uint64_t *ex =
                what == HPA_CMP_FUNCTIONS ? hpa_cg_excl(g, id) : g->line_excl + (size_t)id * g->nm;
            const uint64_t *in =
                what == HPA_CMP_FUNCTIONS ? hpa_cg_incl(g, id) : g->line_incl + (size_t)id * g->nm;
            if (!hpa_any(in, g->nm))
                continue;
            uint32_t row = row_of(r, key, key_of(p->syms, what, id, key, sizeof(key)), id);
            if (row == UINT32_MAX)
                return -1;
            for (unsigned k = 0; k < r->nm; k++) {
                r->excl[(size_t)row * r->stride + e * r->nm + k] += ex[k];
                r->incl[(size_t)row * r->stride + e * r->nm + k] += in[k];
            }
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ cells */

typedef struct cmp_out {
    hpa_ctx *ctx;
    enum hpa_cmp_what what;
    enum hpa_compare mode;
    const cmp_rows *r;
    hpa_cols cols;
    unsigned nexp;
} cmp_out;

static const uint64_t *vals_of(const cmp_out *o, const uint64_t *tot_e, const uint64_t *tot_i,
                               uint32_t row, unsigned e, char kind)
{
    if (row == UINT32_MAX)
        return (kind == 'e' ? tot_e : tot_i) + (size_t)e * o->r->nm;
    const uint64_t *base = kind == 'e' ? o->r->excl : o->r->incl;
    return base + (size_t)row * o->r->stride + (size_t)e * o->r->nm;
}

/* Text of one cell: experiment e's value of column k (delta or ratio for e > 0). */
static void cell_text(const cmp_out *o, unsigned k, uint64_t base, uint64_t v, unsigned e,
                      char *buf, size_t cap)
{
    const hpa_metric *m = &o->cols.ms->m[o->cols.c[k].metric];
    const char *fmt = m->time ? "%.3f" : "%.0f";
    double x = (double)v * m->scale, b = (double)base * m->scale;
    if (e == 0 || o->mode == HPA_COMPARE_ON) {
        if (v == 0)
            snprintf(buf, cap, "0.");
        else
            snprintf(buf, cap, fmt, x);
    } else if (o->mode == HPA_COMPARE_DELTA) {
        if (v == base)
            snprintf(buf, cap, "0.");
        else
            snprintf(buf, cap, m->time ? "%+.3f" : "%+.0f", x - b);
    } else if (base == 0) {
        snprintf(buf, cap, v ? "new" : "0.");
    } else {
        snprintf(buf, cap, "x%.3f", x / b);
    }
}

/* Text of row `row`'s cell of column k, experiment e (see cell_text). */
static void row_cell(const cmp_out *o, const uint64_t *te, const uint64_t *ti, uint32_t row,
                     unsigned k, unsigned e, char *buf, size_t cap)
{
    const hpa_cols *c = &o->cols;
    unsigned m = c->c[k].metric;
    uint64_t base = vals_of(o, te, ti, row, 0, c->c[k].kind)[m];
    uint64_t v = vals_of(o, te, ti, row, e, c->c[k].kind)[m];
    cell_text(o, k, base, v, e, buf, cap);
}

static void row_name(const cmp_out *o, uint32_t row, char *buf, size_t cap)
{
    const hpa_symtab *st = o->ctx->prof->syms;
    if (row == UINT32_MAX)
        snprintf(buf, cap, "<Total>");
    else if (o->what == HPA_CMP_FUNCTIONS)
        snprintf(buf, cap, "%s", hpa_symtab_func(st, o->r->rep[row])->name);
    else
        hpa_line_name(st, o->r->rep[row], buf, cap);
}

static void text(cmp_out *o, const uint32_t *ids, size_t n, const uint64_t *te, const uint64_t *ti)
{
    FILE *f = o->ctx->out;
    const hpa_cols *c = &o->cols;
    unsigned ncell = c->n * o->nexp;
    unsigned *w = calloc(ncell ? ncell : 1, sizeof(*w));
    if (!w)
        return;
    char buf[128];
    for (unsigned k = 0; k < c->n; k++)
        for (unsigned e = 0; e < o->nexp; e++) {
            snprintf(buf, sizeof(buf), "#%u", e + 1);
            w[k * o->nexp + e] = (unsigned)strlen(buf);
        }
    for (size_t i = 0; i <= n; i++) {
        uint32_t row = i ? ids[i - 1] : UINT32_MAX;
        for (unsigned k = 0; k < c->n; k++)
            for (unsigned e = 0; e < o->nexp; e++) {
                row_cell(o, te, ti, row, k, e, buf, sizeof(buf));
                if (strlen(buf) > w[k * o->nexp + e])
                    w[k * o->nexp + e] = (unsigned)strlen(buf);
            }
    }
    /* line 0: the metric of each group; line 1: the experiments */
    char line0[4096] = "", line1[4096] = "";
    size_t l0 = 0, l1 = 0;
    for (unsigned k = 0; k < c->n; k++) {
        unsigned gw = 0;
        for (unsigned e = 0; e < o->nexp; e++)
            gw += w[k * o->nexp + e] + 2;
        const hpa_metric *m = &c->ms->m[c->c[k].metric];
        snprintf(buf, sizeof(buf), "%s %s%s%s", c->c[k].kind == 'e' ? "Excl." : "Incl.", m->title,
                 m->unit[0] ? " " : "", m->unit);
        if (strlen(buf) + 2 > gw) { /* widen the last cell of the group to fit the title */
            w[k * o->nexp + o->nexp - 1] += (unsigned)(strlen(buf) + 2 - gw);
            gw = (unsigned)strlen(buf) + 2;
        }
        if (l0 < sizeof(line0))
            l0 += (size_t)snprintf(line0 + l0, sizeof(line0) - l0, "%-*s", (int)gw, buf);
        for (unsigned e = 0; e < o->nexp; e++) {
            snprintf(buf, sizeof(buf), "#%u", e + 1);
            if (l1 < sizeof(line1))
                l1 += (size_t)snprintf(line1 + l1, sizeof(line1) - l1, "%*s  ",
                                       (int)w[k * o->nexp + e], buf);
        }
    }
    fprintf(f, "%s Name\n%s\n", line0, line1);
    for (size_t i = 0; i <= n; i++) {
        uint32_t row = i ? ids[i - 1] : UINT32_MAX;
        for (unsigned k = 0; k < c->n; k++)
            for (unsigned e = 0; e < o->nexp; e++) {
                row_cell(o, te, ti, row, k, e, buf, sizeof(buf));
                fprintf(f, "%*s  ", (int)w[k * o->nexp + e], buf);
            }
        char name[1200];
        row_name(o, row, name, sizeof(name));
        fprintf(f, " %s\n", name);
    }
    free(w);
}

/* Key stem of column k without the "_s" unit suffix, and whether it had one. */
static bool key_stem(const hpa_cols *c, unsigned k, char *buf, size_t cap)
{
    hpa_col_key(c, k, buf, cap);
    size_t n = strlen(buf);
    bool secs = n > 2 && strcmp(buf + n - 2, "_s") == 0;
    if (secs)
        buf[n - 2] = 0;
    return secs;
}

/* CSV header fields, or (j != NULL) the JSON members of one row. */
static void flat_cells(cmp_out *o, hpa_json *j, FILE *f, bool header, uint32_t row,
                       const uint64_t *te, const uint64_t *ti)
{
    const hpa_cols *c = &o->cols;
    for (unsigned k = 0; k < c->n; k++) {
        char stem[128], key[160];
        bool secs = key_stem(c, k, stem, sizeof(stem));
        unsigned m = c->c[k].metric;
        const hpa_metric *me = &c->ms->m[m];
        uint64_t base = header ? 0 : vals_of(o, te, ti, row, 0, c->c[k].kind)[m];
        for (unsigned e = 0; e < o->nexp; e++) {
            uint64_t v = header ? 0 : vals_of(o, te, ti, row, e, c->c[k].kind)[m];
            snprintf(key, sizeof(key), "e%u_%s%s", e + 1, stem, secs ? "_s" : "");
            double x = (double)v * me->scale, b = (double)base * me->scale;
            if (header)
                fprintf(f, ",%s", key);
            else if (j)
                hpa_json_kdouble(j, key, x);
            else
                fprintf(f, ",%.9g", x);
            if (e == 0 || o->mode == HPA_COMPARE_ON)
                continue;
            bool delta = o->mode == HPA_COMPARE_DELTA;
            snprintf(key, sizeof(key), "e%u_%s_%s%s", e + 1, stem, delta ? "delta" : "ratio",
                     delta && secs ? "_s" : "");
            double d = delta ? x - b : base ? x / b : NAN;
            if (header)
                fprintf(f, ",%s", key);
            else if (j)
                hpa_json_kdouble(j, key, d); /* NAN prints null */
            else if (isnan(d))
                fputc(',', f);
            else
                fprintf(f, ",%.9g", d);
        }
    }
}

static void name_fields(cmp_out *o, hpa_json *j, FILE *f, uint32_t row)
{
    const hpa_symtab *st = o->ctx->prof->syms;
    char name[1200];
    row_name(o, row, name, sizeof(name));
    uint32_t rep = row == UINT32_MAX ? 0 : o->r->rep[row];
    if (o->what == HPA_CMP_FUNCTIONS) {
        const hpa_func *fn = hpa_symtab_func(st, rep);
        if (j) {
            hpa_json_kstr(j, "name", name);
            hpa_json_kstr(j, "module", fn->module);
        } else {
            hpa_csv_field(f, name, ',');
            hpa_csv_field(f, fn->module, 0);
        }
        return;
    }
    const hpa_line *l = hpa_symtab_line(st, rep);
    const hpa_func *fn = hpa_symtab_func(st, l->func);
    if (j) {
        hpa_json_kstr(j, "name", name);
        hpa_json_kstr(j, "function", fn->name);
        hpa_json_kstr(j, "file", l->file);
        hpa_json_ku64(j, "line", l->lineno);
    } else {
        hpa_csv_field(f, name, ',');
        hpa_csv_field(f, fn->name, ',');
        hpa_csv_field(f, l->file, ',');
        fprintf(f, "%u", l->lineno);
    }
}

static const char *mode_name(enum hpa_compare m)
{
    return m == HPA_COMPARE_DELTA ? "delta" : m == HPA_COMPARE_RATIO ? "ratio" : "on";
}

static void flat(cmp_out *o, const uint32_t *ids, size_t n, const uint64_t *te, const uint64_t *ti)
{
    FILE *f = o->ctx->out;
    const hpa_profile *p = o->ctx->prof;
    hpa_json j;
    if (o->ctx->opts.format == HPA_CSV) {
        fputs(o->what == HPA_CMP_FUNCTIONS ? "name,module" : "name,function,file,line", f);
        flat_cells(o, NULL, f, true, 0, te, ti);
        fputc('\n', f);
    } else {
        hpa_json_init(&j, f);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", o->what == HPA_CMP_FUNCTIONS ? "functions" : "lines");
        hpa_json_kstr(&j, "compare", mode_name(o->mode));
        hpa_json_key(&j, "experiments");
        hpa_json_begin_arr(&j);
        for (unsigned e = 0; e < p->nexps; e++)
            hpa_json_str(&j, p->exps[e]->path);
        hpa_json_end_arr(&j);
        hpa_json_key(&j, o->what == HPA_CMP_FUNCTIONS ? "functions" : "lines");
        hpa_json_begin_arr(&j);
    }
    for (size_t i = 0; i <= n; i++) {
        uint32_t row = i ? ids[i - 1] : UINT32_MAX;
        if (o->ctx->opts.format == HPA_CSV) {
            name_fields(o, NULL, f, row);
            flat_cells(o, NULL, f, false, row, te, ti);
            fputc('\n', f);
        } else {
            hpa_json_begin_obj(&j);
            name_fields(o, &j, f, row);
            flat_cells(o, &j, f, false, row, te, ti);
            hpa_json_end_obj(&j);
        }
    }
    if (o->ctx->opts.format == HPA_JSON) {
        hpa_json_end_arr(&j);
        hpa_json_end_obj(&j);
    }
}

static const char *no_name(const void *arg, uint32_t id)
{
    const cmp_out *o = arg;
    static char buf[2][1200]; /* qsort_r compares two at a time */
    static int which;
    which ^= 1;
    row_name(o, id, buf[which], sizeof(buf[which]));
    return buf[which];
}

int hpa_compare_report(hpa_ctx *ctx, enum hpa_cmp_what what, const hpa_sortkey *k)
{
    const hpa_callgraph *gs = hpa_ctx_compare_graphs(ctx);
    if (!gs)
        return HPA_EXIT_DATA;
    const hpa_profile *p = ctx->prof;
    cmp_rows r;
    cmp_out o = {.ctx = ctx, .what = what, .mode = ctx->opts.compare, .r = &r, .nexp = p->nexps};
    unsigned nm = p->metrics.n;
    uint64_t *te = calloc((size_t)p->nexps * nm, sizeof(uint64_t));
    uint64_t *ti = calloc((size_t)p->nexps * nm, sizeof(uint64_t));
    int rc = build_rows(&r, p, gs, what);
    uint32_t *ids = malloc(sizeof(*ids) * (r.n + 1));
    uint64_t *sortv = calloc((size_t)r.n * nm + 1, sizeof(uint64_t));
    if (rc || !te || !ti || !ids || !sortv) {
        fprintf(stderr, "hpanalyze: compare: out of memory\n");
        rc = HPA_EXIT_DATA;
        goto out;
    }
    for (unsigned e = 0; e < p->nexps; e++) {
        memcpy(te + (size_t)e * nm, hpa_cg_excl(&gs[e], HPA_FUNC_TOTAL), sizeof(uint64_t) * nm);
        memcpy(ti + (size_t)e * nm, hpa_cg_incl(&gs[e], HPA_FUNC_TOTAL), sizeof(uint64_t) * nm);
    }
    for (uint32_t i = 0; i < r.n; i++) {
        ids[i] = i;
        const uint64_t *v = k->kind == 'i' ? r.incl : r.excl;
        for (unsigned e = 0; e < r.nexp; e++)
            for (unsigned m = 0; m < nm; m++) {
                uint64_t x = v[(size_t)i * r.stride + e * nm + m];
                if (x > sortv[(size_t)i * nm + m])
                    sortv[(size_t)i * nm + m] = x;
            }
    }
    hpa_sort_ids(ids, r.n, k, sortv, sortv, nm, no_name, &o);
    size_t n = r.n;
    if (ctx->opts.limit && n > ctx->opts.limit)
        n = ctx->opts.limit;
    hpa_cols_init(&o.cols, &p->metrics, "ei", ctx->opts.format == HPA_TEXT, NULL);
    if (ctx->opts.format == HPA_TEXT) {
        char title[128];
        hpa_sortkey_title(&p->metrics, k, title, sizeof(title));
        fprintf(ctx->out, "%s sorted by metric: %s (compare: %s)\n",
                what == HPA_CMP_FUNCTIONS ? "Functions" : "Lines", title, mode_name(o.mode));
        for (unsigned e = 0; e < p->nexps; e++)
            fprintf(ctx->out, "%s#%u = %s", e ? "   " : "", e + 1, p->exps[e]->path);
        fputs("\n\n", ctx->out);
        text(&o, ids, n, te, ti);
    } else {
        flat(&o, ids, n, te, ti);
    }
    rc = HPA_EXIT_OK;
out:
    free(te);
    free(ti);
    free(ids);
    free(sortv);
    rows_free(&r);
    return rc;
}
