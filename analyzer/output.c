/*
 * output.c - JSON writer, CSV quoting and er_print-style metric columns.
 *
 * Text tables look like gprofng's:
 *
 *     Excl. Total   Incl. Total    Name
 *     CPU           CPU
 *      sec.      %   sec.      %
 *     1.234 100.00  1.234 100.00   <Total>
 *     0.      0.    1.234 100.00   main
 */
#include "output.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ JSON */

void hpa_json_init(hpa_json *j, FILE *f)
{
    memset(j, 0, sizeof(*j));
    j->f = f;
    j->first[0] = true;
}

static void sep(hpa_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (!j->first[j->depth])
        fputc(',', j->f);
    j->first[j->depth] = false;
    if (j->depth > 0) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
}

static void open_(hpa_json *j, char c)
{
    sep(j);
    fputc(c, j->f);
    if (j->depth < 63)
        j->depth++;
    j->first[j->depth] = true;
}

static void close_(hpa_json *j, char c)
{
    bool empty = j->first[j->depth];
    if (j->depth > 0)
        j->depth--;
    if (!empty) {
        fputc('\n', j->f);
        for (int i = 0; i < j->depth; i++)
            fputs("  ", j->f);
    }
    fputc(c, j->f);
    if (j->depth == 0)
        fputc('\n', j->f);
}

FILE *hpa_json_raw(hpa_json *j)
{
    sep(j);
    return j->f;
}

void hpa_json_begin_obj(hpa_json *j)
{
    open_(j, '{');
}
void hpa_json_end_obj(hpa_json *j)
{
    close_(j, '}');
}
void hpa_json_begin_arr(hpa_json *j)
{
    open_(j, '[');
}
void hpa_json_end_arr(hpa_json *j)
{
    close_(j, ']');
}

void hpa_json_quote(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", f);
        else if (c == '\t')
            fputs("\\t", f);
        else if (c < 0x20 || c == 0x7f)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f); /* UTF-8 passes through; invalid bytes are the file's */
    }
    fputc('"', f);
}

void hpa_json_strn(hpa_json *j, const char *s, size_t n)
{
    sep(j);
    hpa_json_quote(j->f, s, n);
}

void hpa_json_str(hpa_json *j, const char *s)
{
    hpa_json_strn(j, s ? s : "", s ? strlen(s) : 0);
}

void hpa_json_key(hpa_json *j, const char *key)
{
    hpa_json_str(j, key);
    fputc(':', j->f);
    j->after_key = true;
}

void hpa_json_u64(hpa_json *j, uint64_t v)
{
    sep(j);
    fprintf(j->f, "%" PRIu64, v);
}

void hpa_json_i64(hpa_json *j, int64_t v)
{
    sep(j);
    fprintf(j->f, "%" PRId64, v);
}

void hpa_json_double(hpa_json *j, double v)
{
    sep(j);
    if (isfinite(v))
        fprintf(j->f, "%.12g", v); /* ns exact up to 1000 s */
    else
        fputs("null", j->f);
}

void hpa_json_bool(hpa_json *j, bool v)
{
    sep(j);
    fputs(v ? "true" : "false", j->f);
}

void hpa_json_null(hpa_json *j)
{
    sep(j);
    fputs("null", j->f);
}

void hpa_json_kstr(hpa_json *j, const char *key, const char *s)
{
    hpa_json_key(j, key);
    hpa_json_str(j, s);
}
void hpa_json_ku64(hpa_json *j, const char *key, uint64_t v)
{
    hpa_json_key(j, key);
    hpa_json_u64(j, v);
}
void hpa_json_ki64(hpa_json *j, const char *key, int64_t v)
{
    hpa_json_key(j, key);
    hpa_json_i64(j, v);
}
void hpa_json_kdouble(hpa_json *j, const char *key, double v)
{
    hpa_json_key(j, key);
    hpa_json_double(j, v);
}

void hpa_json_begin_report_list(hpa_json *j, FILE *f, const char *report, const char *key)
{
    hpa_json_init(j, f);
    hpa_json_begin_obj(j);
    hpa_json_kstr(j, "report", report);
    hpa_json_key(j, key);
    hpa_json_begin_arr(j);
}

void hpa_json_end_report_list(hpa_json *j)
{
    hpa_json_end_arr(j);
    hpa_json_end_obj(j);
}

/* ------------------------------------------------------------------ CSV */

void hpa_csv_field(FILE *f, const char *s, char sep_)
{
    if (strpbrk(s, ",\"\n\r")) {
        fputc('"', f);
        for (; *s; s++) {
            if (*s == '"')
                fputc('"', f);
            fputc(*s, f);
        }
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    if (sep_)
        fputc(sep_, f);
}

void hpa_csv_double(FILE *f, double v, char sep_)
{
    fprintf(f, "%.12g%c", v, sep_);
}

void hpa_csv_u64(FILE *f, uint64_t v, char sep_)
{
    fprintf(f, "%" PRIu64 "%c", v, sep_);
}

/* ------------------------------------------------------------------ columns */

static unsigned kind_bit(char kind)
{
    return kind == 'e' ? HPA_KIND_E : kind == 'i' ? HPA_KIND_I : HPA_KIND_A;
}

static bool has_col(const hpa_cols *c, unsigned m, char kind)
{
    for (unsigned k = 0; k < c->n; k++)
        if (c->c[k].metric == m && c->c[k].kind == kind)
            return true;
    return false;
}

static void add_col(hpa_cols *c, unsigned m, char kind, bool pct)
{
    if (c->n < HPA_MAX_COLS && !has_col(c, m, kind)) {
        c->c[c->n] = (hpa_col){.metric = m, .kind = kind, .pct = pct};
        c->width[c->n] = 5;
        c->n++;
    }
}

void hpa_cols_init(hpa_cols *c, const hpa_metrics *ms, const char *kinds, bool visible_only,
                   const uint64_t *ref)
{
    memset(c, 0, sizeof(*c));
    c->ms = ms;
    c->ref = ref;
    for (unsigned s = 0; s < ms->nsel; s++) {
        const hpa_metric_sel *e = &ms->sel[s];
        for (const char *k = kinds; *k; k++)
            if ((e->kinds & kind_bit(*k)) || (*k == 'a' && e->kinds))
                add_col(c, e->metric, *k, e->pct);
    }
    for (unsigned m = 0; m < ms->n && ms->nsel == 0; m++) {
        if (visible_only && !ms->m[m].visible)
            continue;
        for (const char *k = kinds; *k; k++)
            add_col(c, m, *k, true);
    }
}

static const uint64_t *pick(char kind, const uint64_t *e, const uint64_t *i, const uint64_t *a)
{
    return kind == 'e' ? e : kind == 'i' ? i : a;
}

/* er_print prints zero as "0." with the decimal point aligned with the other rows', and
 * other values with 3 decimals (time) or as integers (counts). */
static void fmt_value(const hpa_metric *m, uint64_t raw, char *buf, size_t cap)
{
    if (raw == 0)
        snprintf(buf, cap, m->time ? "0.   " : "0");
    else if (m->time)
        snprintf(buf, cap, "%.3f", (double)raw * m->scale);
    else
        snprintf(buf, cap, "%.0f", (double)raw * m->scale);
}

static void fmt_pct(uint64_t raw, uint64_t ref, char *buf, size_t cap)
{
    if (raw == 0 || ref == 0)
        snprintf(buf, cap, "0.  ");
    else
        snprintf(buf, cap, "%.2f", 100.0 * (double)raw / (double)ref);
}

void hpa_cols_fit(hpa_cols *c, const uint64_t *e, const uint64_t *i, const uint64_t *a)
{
    char buf[64];
    for (unsigned k = 0; k < c->n; k++) {
        const uint64_t *v = pick(c->c[k].kind, e, i, a);
        if (!v)
            continue;
        fmt_value(&c->ms->m[c->c[k].metric], v[c->c[k].metric], buf, sizeof(buf));
        if (strlen(buf) > c->width[k])
            c->width[k] = (unsigned)strlen(buf);
    }
}

static const char *kind_word(char kind)
{
    return kind == 'e' ? "Excl." : kind == 'i' ? "Incl." : "Attr.";
}

/* The two title lines of column k: "Excl. Total" / "CPU" (er_print splits the title at
 * its last space). */
static void col_titles(const hpa_cols *c, unsigned k, char *l0, char *l1, size_t cap)
{
    const hpa_metric *m = &c->ms->m[c->c[k].metric];
    const char *sp = strrchr(m->title, ' ');
    if (sp)
        snprintf(l0, cap, "%s %.*s", kind_word(c->c[k].kind), (int)(sp - m->title), m->title);
    else
        snprintf(l0, cap, "%s %s", kind_word(c->c[k].kind), m->title);
    snprintf(l1, cap, "%s", sp ? sp + 1 : "");
}

/* Width of column k's cell: the value (and percentage), or its titles if wider. */
unsigned hpa_cols_cell_width(const hpa_cols *c, unsigned k)
{
    char l0[256], l1[256];
    col_titles(c, k, l0, l1, sizeof(l0));
    unsigned w = c->width[k] + (c->c[k].pct ? 7 : 0); /* value, space, 6 for the percentage */
    if (strlen(l0) > w)
        w = (unsigned)strlen(l0);
    if (strlen(l1) > w)
        w = (unsigned)strlen(l1);
    return w;
}

void hpa_cols_text_header(const hpa_cols *c, FILE *f)
{
    hpa_cols_text_header_prefixed(c, f, "");
}

void hpa_cols_text_header_prefixed(const hpa_cols *c, FILE *f, const char *prefix)
{
    for (int line = 0; line < 3; line++) {
        char text[HPA_MAX_COLS * 80] = "";
        size_t len = 0;
        for (unsigned k = 0; k < c->n; k++) {
            const hpa_metric *m = &c->ms->m[c->c[k].metric];
            unsigned w = hpa_cols_cell_width(c, k);
            char cell[256], l0[256], l1[256];
            col_titles(c, k, l0, l1, sizeof(l0));
            const char *unit = m->unit[0] ? m->unit : "#";
            if (line == 0)
                snprintf(cell, sizeof(cell), "%s", l0);
            else if (line == 1)
                snprintf(cell, sizeof(cell), "%s", l1);
            else if (c->c[k].pct)
                snprintf(cell, sizeof(cell), "%*s %6s", (int)w - 7, unit, "%");
            else
                snprintf(cell, sizeof(cell), "%*s", (int)w, unit);
            if (len < sizeof(text))
                len += (size_t)snprintf(text + len, sizeof(text) - len, "%-*s  ", (int)w, cell);
        }
        if (line == 0) {
            fprintf(f, "%s%s Name\n", prefix, text);
        } else {
            len = strlen(text);
            while (len > 0 && text[len - 1] == ' ')
                text[--len] = 0;
            fprintf(f, "%s%s\n", prefix, text);
        }
    }
}

void hpa_cols_text_row(const hpa_cols *c, FILE *f, const uint64_t *e, const uint64_t *i,
                       const uint64_t *a)
{
    char v[64], p[64];
    for (unsigned k = 0; k < c->n; k++) {
        unsigned m = c->c[k].metric;
        const uint64_t *vals = pick(c->c[k].kind, e, i, a);
        uint64_t raw = vals ? vals[m] : 0;
        unsigned w = hpa_cols_cell_width(c, k);
        fmt_value(&c->ms->m[m], raw, v, sizeof(v));
        if (c->c[k].pct) {
            fmt_pct(raw, c->ref ? c->ref[m] : 0, p, sizeof(p));
            fprintf(f, "%*s %6s  ", (int)w - 7, v, p);
        } else {
            fprintf(f, "%*s  ", (int)w, v);
        }
    }
}

void hpa_col_key(const hpa_cols *c, unsigned k, char *buf, size_t cap)
{
    const hpa_metric *m = &c->ms->m[c->c[k].metric];
    const char *kind = c->c[k].kind == 'e' ? "excl" : c->c[k].kind == 'i' ? "incl" : "attr";
    snprintf(buf, cap, "%s_%s%s", kind, m->key, m->time ? "_s" : "");
}

void hpa_cols_csv_header(const hpa_cols *c, FILE *f)
{
    char key[128];
    for (unsigned k = 0; k < c->n; k++) {
        hpa_col_key(c, k, key, sizeof(key));
        fprintf(f, ",%s", key);
        /* the percentage key drops the unit suffix: excl_cpu_pct */
        size_t n = strlen(key);
        if (n > 2 && strcmp(key + n - 2, "_s") == 0)
            key[n - 2] = 0;
        fprintf(f, ",%s_pct", key);
    }
}

static double pct(const hpa_cols *c, unsigned m, uint64_t raw)
{
    return c->ref && c->ref[m] ? 100.0 * (double)raw / (double)c->ref[m] : 0.0;
}

void hpa_cols_csv_row(const hpa_cols *c, FILE *f, const uint64_t *e, const uint64_t *i,
                      const uint64_t *a)
{
    for (unsigned k = 0; k < c->n; k++) {
        unsigned m = c->c[k].metric;
        const uint64_t *vals = pick(c->c[k].kind, e, i, a);
        uint64_t raw = vals ? vals[m] : 0;
        fprintf(f, ",%.12g,%.12g", hpa_metric_value(c->ms, m, raw), pct(c, m, raw));
    }
}

void hpa_cols_json(const hpa_cols *c, hpa_json *j, const uint64_t *e, const uint64_t *i,
                   const uint64_t *a)
{
    char key[128];
    for (unsigned k = 0; k < c->n; k++) {
        unsigned m = c->c[k].metric;
        const uint64_t *vals = pick(c->c[k].kind, e, i, a);
        uint64_t raw = vals ? vals[m] : 0;
        hpa_col_key(c, k, key, sizeof(key));
        hpa_json_kdouble(j, key, hpa_metric_value(c->ms, m, raw));
        size_t n = strlen(key);
        if (n > 2 && strcmp(key + n - 2, "_s") == 0)
            key[n - 2] = 0;
        strcat(key, "_pct");
        hpa_json_kdouble(j, key, pct(c, m, raw));
    }
}
