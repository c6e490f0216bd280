/*
 * output.h - the three output forms every report has: er_print-like text, CSV, JSON.
 *
 * Text: metric columns as er_print prints them (value and percentage per column, "0."
 * for zero, widths from the data), then the name. CSV: one header line of keys, then
 * rows. JSON: one object per report, written with the small streaming writer below.
 * CSV columns and JSON keys are a stable interface; they name metrics as
 *   <excl|incl|attr>_<metric>[_s]     the value (_s: seconds)
 *   <excl|incl|attr>_<metric>_pct     its percentage of the reference (total)
 */
#ifndef HPA_OUTPUT_H
#define HPA_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "metrics.h"

enum hpa_format { HPA_TEXT = 0, HPA_CSV = 1, HPA_JSON = 2 };

/* ------------------------------------------------------------------ JSON */

typedef struct hpa_json {
    FILE *f;
    int depth;
    bool first[64]; /* per nesting level: no comma needed yet */
    bool after_key;
} hpa_json;

void hpa_json_init(hpa_json *j, FILE *f);
void hpa_json_begin_obj(hpa_json *j);
void hpa_json_end_obj(hpa_json *j);
void hpa_json_begin_arr(hpa_json *j);
void hpa_json_end_arr(hpa_json *j);
void hpa_json_key(hpa_json *j, const char *key);
void hpa_json_str(hpa_json *j, const char *s);
void hpa_json_strn(hpa_json *j, const char *s, size_t n);
/* A quoted, escaped JSON string with nothing around it. */
void hpa_json_quote(FILE *f, const char *s, size_t n);
void hpa_json_u64(hpa_json *j, uint64_t v);
void hpa_json_i64(hpa_json *j, int64_t v);
void hpa_json_double(hpa_json *j, double v);
void hpa_json_bool(hpa_json *j, bool v);
void hpa_json_null(hpa_json *j);
/* A value the caller writes itself (a compact array of numbers, a document another
 * writer made): the separator is written, the value goes to the returned stream. */
FILE *hpa_json_raw(hpa_json *j);
/* key + value shorthands */
void hpa_json_kstr(hpa_json *j, const char *key, const char *s);
void hpa_json_ku64(hpa_json *j, const char *key, uint64_t v);
void hpa_json_ki64(hpa_json *j, const char *key, int64_t v);
void hpa_json_kdouble(hpa_json *j, const char *key, double v);
/* A report that is one list, {"report": REPORT, KEY: [...]}: begin starts the writer on f
 * and opens the list for its elements; end closes the list and the report. */
void hpa_json_begin_report_list(hpa_json *j, FILE *f, const char *report, const char *key);
void hpa_json_end_report_list(hpa_json *j);

/* ------------------------------------------------------------------ CSV */

/* Write one field (quoted when needed) followed by sep (',' or '\n'; 0 = nothing). */
void hpa_csv_field(FILE *f, const char *s, char sep);
void hpa_csv_double(FILE *f, double v, char sep);
void hpa_csv_u64(FILE *f, uint64_t v, char sep);

/* ------------------------------------------------------------------ metric columns */

/* One metric column of a report: which metric, and which sum (e, i or a). */
typedef struct hpa_col {
    unsigned metric;
    char kind; /* 'e' exclusive, 'i' inclusive, 'a' attributed */
    bool pct;  /* text: a percentage column follows the value */
} hpa_col;

#define HPA_MAX_COLS (2 * HPA_MAX_METRICS)

typedef struct hpa_cols {
    const hpa_metrics *ms;
    unsigned n;
    hpa_col c[HPA_MAX_COLS];
    unsigned width[HPA_MAX_COLS]; /* text: value field widths */
    const uint64_t *ref;          /* percentages relative to these sums (ms->n) */
} hpa_cols;

/* Columns of kinds (e.g. "ei") for each metric in ms (visible ones only if visible_only),
 * or, when ms has a `metrics` selection (ms->nsel), for the selected metrics in the
 * selection's order: a column (metric, kind) is there if its entry asks for that kind; an
 * attributed column ('a') also for an entry asking for e or i, as er_print does. */
void hpa_cols_init(hpa_cols *c, const hpa_metrics *ms, const char *kinds, bool visible_only,
                   const uint64_t *ref);
/* Widen text columns to fit a row whose sums by kind are given (NULL for absent kinds). */
void hpa_cols_fit(hpa_cols *c, const uint64_t *e, const uint64_t *i, const uint64_t *a);
/* Text width of column k's cell (value, percentage, or its title when wider). */
unsigned hpa_cols_cell_width(const hpa_cols *c, unsigned k);
/* The three header lines of er_print's text tables, ending with "Name". */
void hpa_cols_text_header(const hpa_cols *c, FILE *f);
/* The same with prefix before each line (listings that mark rows with "## "). */
void hpa_cols_text_header_prefixed(const hpa_cols *c, FILE *f, const char *prefix);
/* The metric cells of one text row (the caller prints the name after). */
void hpa_cols_text_row(const hpa_cols *c, FILE *f, const uint64_t *e, const uint64_t *i,
                       const uint64_t *a);
/* CSV header fields for the columns, each preceded by ','. */
void hpa_cols_csv_header(const hpa_cols *c, FILE *f);
void hpa_cols_csv_row(const hpa_cols *c, FILE *f, const uint64_t *e, const uint64_t *i,
                      const uint64_t *a);
/* JSON key/value pairs for every column. */
void hpa_cols_json(const hpa_cols *c, hpa_json *j, const uint64_t *e, const uint64_t *i,
                   const uint64_t *a);

/* "excl_cpu_s" style key of column k (without the _pct suffix). */
void hpa_col_key(const hpa_cols *c, unsigned k, char *buf, size_t cap);

#endif
