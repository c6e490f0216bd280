/*
 * export_folded.c - `export folded`: one line per distinct call stack, outermost frame
 * first, frames separated by ';', then a space and the stack's exclusive value:
 *
 *     main;phase_a;kernel_x 172000
 *     main;phase_b;kernel_y 86000
 *
 * The format of Brendan Gregg's stackcollapse scripts, read by flamegraph.pl, inferno
 * and speedscope. Values are the export metric (export.h): times in microseconds, counts
 * as counted; stacks are merged in the selected view (identical stacks of several threads
 * or processes are one line). A ';' inside a name would split it: it becomes ':'.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

#define MAX_DEPTH 4096 /* bounds the recursion on damaged data (collector: 512) */

typedef struct folded {
    FILE *out;
    const hpa_calltree *t;
    const hpa_profile *p;
    unsigned metric;
    uint32_t *stack;
} folded;

static void put_name(FILE *f, const char *s)
{
    for (; *s; s++)
        fputc(*s == ';' ? ':' : *s == '\n' ? ' ' : *s, f);
}

static void node(folded *F, uint32_t n, unsigned depth)
{
    const hpa_metric *m = &F->p->metrics.m[F->metric];
    F->stack[depth] = n;
    uint64_t raw = F->t->excl[(size_t)n * F->t->nm + F->metric];
    double v = (double)raw * m->scale * (m->time ? 1e6 : 1);
    if (n && raw && llround(v) > 0) {
        for (unsigned d = 1; d <= depth; d++) {
            if (d > 1)
                fputc(';', F->out);
            put_name(F->out, hpa_symtab_func(F->p->syms, F->t->nodes[F->stack[d]].func)->name);
        }
        fprintf(F->out, " %lld\n", llround(v));
    }
    if (depth + 1 >= MAX_DEPTH)
        return;
    for (uint32_t c = F->t->nodes[n].first_child; c; c = F->t->nodes[c].next_sibling)
        node(F, c, depth + 1);
}

int hpa_export_folded(hpa_ctx *ctx, FILE *out)
{
    hpa_profile *p = hpa_ctx_profile(ctx);
    if (!p)
        return HPA_EXIT_DATA;
    hpa_calltree t;
    if (hpa_calltree_build(&t, p, ctx->opts.view) < 0) {
        fprintf(stderr, "hpanalyze: export folded: out of memory\n");
        return HPA_EXIT_DATA;
    }
    folded F = {.out = out, .t = &t, .p = p, .metric = hpa_export_metric(ctx)};
    F.stack = malloc(sizeof(*F.stack) * MAX_DEPTH);
    if (F.stack)
        node(&F, 0, 0);
    free(F.stack);
    hpa_calltree_free(&t);
    return F.stack ? HPA_EXIT_OK : HPA_EXIT_DATA;
}
