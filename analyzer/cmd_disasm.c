/*
 * cmd_disasm.c - `disasm FUNC`: the function's instructions (objdump, disasm.h) with the
 * metrics of the program counters in each, the source lines interleaved, hot
 * instructions marked "##" as er_print marks them:
 *
 *     Source file: /src/phases.c
 *     Object file: /build/phases
 *     Load Object: /build/phases
 *
 *        Excl. Total   Incl. Total    Name
 *        CPU           CPU
 *         sec.      %   sec.      %
 *                                     <Function: kernel_x>
 *                                     30.     for (long i = 0; i < n; i++) s = ...
 *        0.      0.    0.      0.     [30]     11a9:  pxor   %xmm0,%xmm0
 *     ## 0.212  24.62  0.212  24.62   [30]     11bd:  mulsd  %xmm2,%xmm0
 *
 * A caller frame's pc is its return address minus one, inside the call instruction, so the
 * call carries the inclusive time of what it called. "##" marks instructions whose value
 * of the first column reaches 75% of the listing's largest (er_print's default threshold).
 * Percentages are of the whole profile. Time the view attributes to FUNC at addresses
 * outside its code (OpenMP bodies folded into it) is reported after the listing.
 *
 * CSV: address,offset,file,line,text,excl_*,incl_*. JSON: {"report":"disasm","function",
 * "object_file","load_object","start","size","instructions":[{address, offset, file, line,
 * text, excl_*, incl_*}],"outside":{excl_*, incl_*}}.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "disasm.h"
#include "pcsums.h"
#include "report_util.h"
#include "srcfile.h"

typedef struct listing {
    hpa_disasm d;
    uint64_t *excl, *incl; /* per instruction, nm each */
    uint64_t out_excl[HPA_MAX_METRICS], out_incl[HPA_MAX_METRICS];
    bool outside;
} listing;

/* Sum the pcs of the function into its instructions. */
static int attribute(listing *L, const hpa_pcsums *s, unsigned nm, uint64_t start, uint64_t end)
{
    L->excl = calloc(L->d.n * nm + 1, sizeof(uint64_t));
    L->incl = calloc(L->d.n * nm + 1, sizeof(uint64_t));
    if (!L->excl || !L->incl)
        return -1;
    for (uint32_t r = 0; r < s->n; r++) {
        const hpa_pcrow *row = &s->rows[r];
        long i = row->has_addr && row->addr >= start && row->addr < end
                     ? hpa_disasm_find(&L->d, row->addr)
                     : -1;
        uint64_t *e = i >= 0 ? L->excl + (size_t)i * nm : L->out_excl;
        uint64_t *in = i >= 0 ? L->incl + (size_t)i * nm : L->out_incl;
        if (i < 0 && hpa_any(s->incl + (size_t)r * nm, nm))
            L->outside = true;
        for (unsigned k = 0; k < nm; k++) {
            e[k] += s->excl[(size_t)r * nm + k];
            in[k] += s->incl[(size_t)r * nm + k];
        }
    }
    return 0;
}

static void listing_free(listing *L)
{
    hpa_disasm_free(&L->d);
    free(L->excl);
    free(L->incl);
}

static void text(hpa_ctx *ctx, const hpa_func *fn, listing *L, const uint64_t *total)
{
    const hpa_profile *p = ctx->prof;
    unsigned nm = p->metrics.n;
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "ei", true, total);
    for (size_t i = 0; i < L->d.n; i++)
        hpa_cols_fit(&c, L->excl + i * nm, L->incl + i * nm, NULL);
    const char *src = L->d.nfiles ? L->d.v[0].file : "";
    for (size_t i = 0; i < L->d.n && !src[0]; i++)
        src = L->d.v[i].file;
    fprintf(f, "Source file: %s\nObject file: %s\nLoad Object: %s\n\n", src[0] ? src : "(unknown)",
            fn->file, fn->module_path);
    /* hot threshold on the first column */
    uint64_t max = 0;
    unsigned m0 = c.n ? c.c[0].metric : 0;
    const uint64_t *col0 = c.n && c.c[0].kind == 'i' ? L->incl : L->excl;
    for (size_t i = 0; i < L->d.n; i++)
        if (col0[i * nm + m0] > max)
            max = col0[i * nm + m0];
    unsigned w = 0;
    for (unsigned k = 0; k < c.n; k++)
        w += hpa_cols_cell_width(&c, k) + 2;
    hpa_cols_text_header_prefixed(&c, f, "   ");
    fprintf(f, "   %*s <Function: %s>\n", (int)w, "", fn->name);
    hpa_srcfile sf = {0};
    const char *sf_name = NULL;
    uint32_t last_line = 0;
    for (size_t i = 0; i < L->d.n; i++) {
        const hpa_insn *in = &L->d.v[i];
        if (in->line && in->file[0] && (in->line != last_line || in->file != sf_name)) {
            if (in->file != sf_name) {
                hpa_srcfile_free(&sf);
                /* unreadable: no source text */
                hpa_srcfile_read_archived(&sf, ctx->prof->exps, ctx->prof->nexps, in->file);
                sf_name = in->file;
            }
            const char *t = hpa_srcfile_line(&sf, in->line);
            if (t)
                fprintf(f, "   %*s %u. %s\n", (int)w, "", in->line, t);
            last_line = in->line;
        }
        uint64_t v = col0[i * nm + m0];
        fputs(max && v && 4 * v >= 3 * max ? "## " : "   ", f);
        hpa_cols_text_row(&c, f, L->excl + i * nm, L->incl + i * nm, NULL);
        char lno[16] = "?";
        if (in->line)
            snprintf(lno, sizeof(lno), "%u", in->line);
        fprintf(f, " [%s] %8" PRIx64 ":  %s\n", lno, in->addr, in->text);
    }
    hpa_srcfile_free(&sf);
    if (L->outside) {
        fprintf(f, "\n   ");
        hpa_cols_text_row(&c, f, L->out_excl, L->out_incl, NULL);
        fprintf(f, " <%s: code outside its address range, attributed to it by the view>\n",
                fn->name);
    }
}

static void flat(hpa_ctx *ctx, const hpa_func *fn, listing *L, const uint64_t *total)
{
    const hpa_profile *p = ctx->prof;
    unsigned nm = p->metrics.n;
    FILE *f = ctx->out;
    hpa_cols c;
    hpa_cols_init(&c, &p->metrics, "ei", false, total);
    hpa_json j;
    if (ctx->opts.format == HPA_CSV) {
        fputs("address,offset,file,line,text", f);
        hpa_cols_csv_header(&c, f);
        fputc('\n', f);
    } else {
        char a[32];
        snprintf(a, sizeof(a), "0x%" PRIx64, fn->start);
        hpa_json_init(&j, f);
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "report", "disasm");
        hpa_json_kstr(&j, "function", fn->name);
        hpa_json_kstr(&j, "object_file", fn->file);
        hpa_json_kstr(&j, "load_object", fn->module_path);
        hpa_json_kstr(&j, "start", a);
        hpa_json_ku64(&j, "size", fn->size);
        hpa_json_key(&j, "instructions");
        hpa_json_begin_arr(&j);
    }
    for (size_t i = 0; i < L->d.n; i++) {
        const hpa_insn *in = &L->d.v[i];
        char a[32];
        snprintf(a, sizeof(a), "0x%" PRIx64, in->addr);
        uint64_t off = in->addr - fn->start;
        if (ctx->opts.format == HPA_CSV) {
            fprintf(f, "%s,%" PRIu64 ",", a, off);
            hpa_csv_field(f, in->file, ',');
            fprintf(f, "%u,", in->line);
            hpa_csv_field(f, in->text, 0);
            hpa_cols_csv_row(&c, f, L->excl + i * nm, L->incl + i * nm, NULL);
            fputc('\n', f);
        } else {
            hpa_json_begin_obj(&j);
            hpa_json_kstr(&j, "address", a);
            hpa_json_ku64(&j, "offset", off);
            hpa_json_kstr(&j, "file", in->file);
            hpa_json_ku64(&j, "line", in->line);
            hpa_json_kstr(&j, "text", in->text);
            hpa_cols_json(&c, &j, L->excl + i * nm, L->incl + i * nm, NULL);
            hpa_json_end_obj(&j);
        }
    }
    if (ctx->opts.format == HPA_JSON) {
        hpa_json_end_arr(&j);
        hpa_json_key(&j, "outside");
        hpa_json_begin_obj(&j);
        hpa_cols_json(&c, &j, L->out_excl, L->out_incl, NULL);
        hpa_json_end_obj(&j);
        hpa_json_end_obj(&j);
    }
}

/* The function's code range; without a known size, up to the last sampled pc. */
static void code_range(const hpa_func *fn, const hpa_pcsums *s, uint64_t *start, uint64_t *end)
{
    *start = fn->start;
    *end = fn->start + fn->size;
    if (fn->size)
        return;
    for (uint32_t r = 0; r < s->n; r++)
        if (s->rows[r].has_addr && s->rows[r].addr >= *end)
            *end = s->rows[r].addr + 16;
}

int cmd_disasm(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    const hpa_callgraph *g = hpa_ctx_callgraph(ctx);
    if (!g)
        return HPA_EXIT_DATA;
    const hpa_profile *p = ctx->prof;
    uint32_t *ids = malloc(sizeof(*ids) * (g->nfuncs + 1));
    if (!ids)
        return HPA_EXIT_DATA;
    size_t n = hpa_match_funcs(g, p->syms, argv[0], ids);
    uint32_t func = n ? ids[0] : 0;
    free(ids);
    const hpa_func *fn = hpa_symtab_func(p->syms, func);
    if (n == 0)
        return hpa_usage_error("disasm",
                               "no function '%s' with samples in the profile (see "
                               "`functions`)",
                               argv[0]);
    if (!fn->module[0] || !fn->file[0])
        return hpa_usage_error("disasm", "'%s' has no code to disassemble (a pseudo function)",
                               fn->name);
    if (n > 1)
        fprintf(stderr, "hpanalyze: disasm: %zu functions are named '%s'; showing the one in %s\n",
                n, argv[0], fn->module);
    hpa_pcsums s;
    if (hpa_pcsums_build(&s, p, ctx->opts.view, func)) {
        fprintf(stderr, "hpanalyze: disasm: out of memory\n");
        return HPA_EXIT_DATA;
    }
    uint64_t start, end;
    code_range(fn, &s, &start, &end);
    listing L = {0};
    char err[512];
    int rc = HPA_EXIT_OK;
    if (hpa_disasm_read(&L.d, fn->file, start, end, err, sizeof(err))) {
        fprintf(stderr, "hpanalyze: disasm: %s\n", err);
        rc = HPA_EXIT_DATA;
    } else if (attribute(&L, &s, p->metrics.n, start, end)) {
        fprintf(stderr, "hpanalyze: disasm: out of memory\n");
        rc = HPA_EXIT_DATA;
    } else if (ctx->opts.format == HPA_TEXT) {
        text(ctx, fn, &L, s.total);
    } else {
        flat(ctx, fn, &L, s.total);
    }
    listing_free(&L);
    hpa_pcsums_free(&s);
    return rc;
}
