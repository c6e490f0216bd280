/*
 * cmd_source.c - `source FILE|FUNC`: a source file with the metrics of each line, hot lines
 * marked "##" and each function's start marked, as er_print annotates source:
 *
 *     Source file: /src/phases.c
 *
 *        Excl. Total   Incl. Total    Name
 *        CPU           CPU
 *         sec.      %   sec.      %
 *                                     <Function: kernel_x>
 *        0.002   0.23  0.002   0.23   28. {
 *     ## 0.258  29.97  0.258  29.97   30.     for (long i = 0; i < n; i++) s = ...
 *                                     31.     sink += s;
 *
 * FUNC: the file holding most of the function's samples; FILE: a path or the end of one
 * ("phases.c"), matched against the files DWARF names. A line's values sum every function's
 * samples on it; a line that calls carries its callees' time as inclusive time. Lines
 * without samples have no values. "##" marks lines whose first column reaches 75% of the
 * largest line's (er_print's default threshold). <Function: f> stands before f's first line
 * with samples. When the file cannot be read, the lines with samples are listed without
 * their text.
 *
 * CSV: line,text,excl_*,incl_* (every line). JSON: {"report":"source","file","functions":
 * [{name, line}],"lines":[{line, text, excl_*, incl_*}]}.
 */
#include <stdlib.h>
#include <string.h>

#include "report_util.h"
#include "srcfile.h"

typedef struct annotated {
    const char *file;
    uint32_t maxline;
    uint64_t *excl, *incl; /* (maxline + 1) * nm */
    uint32_t *first_of;    /* function id -> its first line with samples here, 0 = none */
    uint32_t *marks;       /* functions with a first line here, by that line */
    uint32_t nmarks;
} annotated;

/* Functions by their first line in the file (arg: the annotated file), then by id. */
static int by_first_line(const void *a, const void *b, void *arg)
{
    const annotated *A = arg;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t lx = A->first_of[x], ly = A->first_of[y];
    return lx != ly ? (lx > ly) - (lx < ly) : (x > y) - (x < y);
}

static bool file_matches(const char *file, const char *arg)
{
    size_t n = strlen(file), a = strlen(arg);
    if (strcmp(file, arg) == 0)
        return true;
    return a < n && file[n - a - 1] == '/' && strcmp(file + n - a, arg) == 0;
}

/* The DWARF file name arg stands for: a function's file, or a file name. NULL if none. */
static const char *resolve(hpa_ctx *ctx, const hpa_callgraph *g, const char *arg)
{
    const hpa_profile *p = ctx->prof;
    uint32_t *ids = malloc(sizeof(*ids) * (g->nfuncs + 1));
    if (!ids)
        return NULL;
    size_t n = hpa_match_funcs(g, p->syms, arg, ids);
    const char *file = NULL;
    if (n > 0) {
        file = hpa_func_source_file(p, g, ids[0], p->metrics.cpu);
        if (strcmp(file, "(unknown)") == 0)
            file = NULL;
    }
    free(ids);
    if (n > 0)
        return file;
    for (uint32_t l = 1; l < g->nlines; l++) {
        const hpa_line *ln = hpa_symtab_line(p->syms, l);
        if (ln->lineno && file_matches(ln->file, arg))
            return ln->file;
    }
    return NULL;
}

static int annotate(annotated *A, const hpa_profile *p, const hpa_callgraph *g)
{
    unsigned nm = g->nm;
    for (uint32_t l = 1; l < g->nlines; l++) {
        const hpa_line *ln = hpa_symtab_line(p->syms, l);
        if (ln->file == A->file && ln->lineno > A->maxline)
            A->maxline = ln->lineno;
    }
    A->excl = calloc((size_t)(A->maxline + 1) * nm, sizeof(uint64_t));
    A->incl = calloc((size_t)(A->maxline + 1) * nm, sizeof(uint64_t));
    A->first_of = calloc(g->nfuncs + 1, sizeof(uint32_t));
    if (!A->excl || !A->incl || !A->first_of)
        return -1;
    for (uint32_t l = 1; l < g->nlines; l++) {
        const hpa_line *ln = hpa_symtab_line(p->syms, l);
        /* file names are interned: equal names are one pointer */
        if (ln->file != A->file || !ln->lineno || !hpa_any(g->line_incl + (size_t)l * nm, nm))
            continue;
        for (unsigned k = 0; k < nm; k++) {
            A->excl[(size_t)ln->lineno * nm + k] += g->line_excl[(size_t)l * nm + k];
            A->incl[(size_t)ln->lineno * nm + k] += g->line_incl[(size_t)l * nm + k];
        }
        if (!A->first_of[ln->func] || ln->lineno < A->first_of[ln->func])
            A->first_of[ln->func] = ln->lineno;
    }
    A->marks = malloc(sizeof(*A->marks) * (g->nfuncs + 1));
    if (!A->marks)
        return -1;
    for (uint32_t fn = 0; fn < g->nfuncs; fn++)
        if (A->first_of[fn])
            A->marks[A->nmarks++] = fn;
    qsort_r(A->marks, A->nmarks, sizeof(*A->marks), by_first_line, A);
    return 0;
}

static void annotated_free(annotated *A)
{
    free(A->excl);
    free(A->incl);
    free(A->first_of);
    free(A->marks);
}

static void text(hpa_ctx *ctx, const hpa_callgraph *g, const annotated *A, const hpa_srcfile *sf)
{
    const hpa_profile *p = ctx->prof;
    unsigned nm = g->nm;
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "ei", true, hpa_cg_incl(g, HPA_FUNC_TOTAL));
    for (uint32_t l = 1; l <= A->maxline; l++)
        hpa_cols_fit(&c, A->excl + (size_t)l * nm, A->incl + (size_t)l * nm, NULL);
    unsigned w = 0;
    for (unsigned k = 0; k < c.n; k++)
        w += hpa_cols_cell_width(&c, k) + 2;
    unsigned m0 = c.n ? c.c[0].metric : 0;
    const uint64_t *col0 = c.n && c.c[0].kind == 'i' ? A->incl : A->excl;
    uint64_t max = 0;
    for (uint32_t l = 1; l <= A->maxline; l++)
        if (col0[(size_t)l * nm + m0] > max)
            max = col0[(size_t)l * nm + m0];
    fprintf(f, "Source file: %s\n", A->file);
    if (!sf->n)
        fprintf(f, "(the file cannot be read: lines with samples only)\n");
    fputc('\n', f);
    hpa_cols_text_header_prefixed(&c, f, "   ");
    size_t last = sf->n > A->maxline ? sf->n : A->maxline;
    uint32_t mk = 0;
    for (uint32_t l = 1; l <= last; l++) {
        const uint64_t *e = l <= A->maxline ? A->excl + (size_t)l * nm : NULL;
        const uint64_t *in = l <= A->maxline ? A->incl + (size_t)l * nm : NULL;
        bool data = in && hpa_any(in, nm);
        for (; mk < A->nmarks && A->first_of[A->marks[mk]] == l; mk++)
            fprintf(f, "   %*s <Function: %s>\n", (int)w, "",
                    hpa_symtab_func(p->syms, A->marks[mk])->name);
        const char *t = hpa_srcfile_line(sf, l);
        if (!data && !t)
            continue;
        uint64_t v = data ? col0[(size_t)l * nm + m0] : 0;
        fputs(max && v && 4 * v >= 3 * max ? "## " : "   ", f);
        if (data)
            hpa_cols_text_row(&c, f, e, in, NULL);
        else
            fprintf(f, "%*s", (int)w, "");
        fprintf(f, " %u. %s\n", l, t ? t : "");
    }
}

static void flat(hpa_ctx *ctx, const hpa_callgraph *g, const annotated *A, const hpa_srcfile *sf)
{
    const hpa_profile *p = ctx->prof;
    unsigned nm = g->nm;
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "ei", false, hpa_cg_incl(g, HPA_FUNC_TOTAL));
    hpa_json j;
    uint64_t zero[HPA_MAX_METRICS] = {0};
    if (ctx->opts.format == HPA_CSV) {
        fputs("line,text", f);
        hpa_cols_csv_header(&c, f);
        fputc('\n', f);
    } else {
        hpa_json_init(&j, f);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", "source");
        hpa_json_kstr(&j, "file", A->file);
        hpa_json_key(&j, "readable");
        hpa_json_bool(&j, sf->n > 0);
        hpa_json_key(&j, "functions");
        hpa_json_begin_arr(&j);
        for (uint32_t k = 0; k < A->nmarks; k++) {
            hpa_json_begin_obj(&j);
            hpa_json_kstr(&j, "name", hpa_symtab_func(p->syms, A->marks[k])->name);
            hpa_json_ku64(&j, "line", A->first_of[A->marks[k]]);
            hpa_json_end_obj(&j);
        }
        hpa_json_end_arr(&j);
        hpa_json_key(&j, "lines");
        hpa_json_begin_arr(&j);
    }
    size_t last = sf->n > A->maxline ? sf->n : A->maxline;
    for (uint32_t l = 1; l <= last; l++) {
        const uint64_t *e = l <= A->maxline ? A->excl + (size_t)l * nm : zero;
        const uint64_t *in = l <= A->maxline ? A->incl + (size_t)l * nm : zero;
        const char *t = hpa_srcfile_line(sf, l);
        if (!t && !hpa_any(in, nm))
            continue;
        if (ctx->opts.format == HPA_CSV) {
            fprintf(f, "%u,", l);
            hpa_csv_field(f, t ? t : "", 0);
            hpa_cols_csv_row(&c, f, e, in, NULL);
            fputc('\n', f);
        } else {
            hpa_json_begin_obj(&j);
            hpa_json_ku64(&j, "line", l);
            hpa_json_kstr(&j, "text", t ? t : "");
            hpa_cols_json(&c, &j, e, in, NULL);
            hpa_json_end_obj(&j);
        }
    }
    if (ctx->opts.format == HPA_JSON) {
        hpa_json_end_arr(&j);
        hpa_json_end_obj(&j);
    }
}

int cmd_source(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    const hpa_callgraph *g = hpa_ctx_callgraph(ctx);
    if (!g)
        return HPA_EXIT_DATA;
    annotated A = {.file = resolve(ctx, g, argv[0])};
    if (!A.file)
        return hpa_usage_error("source",
                               "'%s' is neither a function with line numbers nor a source file "
                               "with samples (see `functions` and `lines`)",
                               argv[0]);
    if (annotate(&A, ctx->prof, g)) {
        annotated_free(&A);
        fprintf(stderr, "hpanalyze: source: out of memory\n");
        return HPA_EXIT_DATA;
    }
    hpa_srcfile sf;
    if (hpa_srcfile_read_archived(&sf, ctx->prof->exps, ctx->prof->nexps, A.file))
        fprintf(stderr, "hpanalyze: source: cannot read %s; showing the lines with samples only\n",
                A.file);
    if (ctx->opts.format == HPA_TEXT)
        text(ctx, g, &A, &sf);
    else
        flat(ctx, g, &A, &sf);
    hpa_srcfile_free(&sf);
    annotated_free(&A);
    return HPA_EXIT_OK;
}
