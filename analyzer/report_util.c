/*
 * report_util.c - shared row selection for the function reports.
 */
#include "report_util.h"

#include <stdlib.h>
#include <string.h>

const char *hpa_func_name_cb(const void *symtab, uint32_t id)
{
    return hpa_symtab_func(symtab, id)->name;
}

int hpa_ctx_sortkey(hpa_ctx *ctx, const char *cmd, hpa_sortkey *k)
{
    if (hpa_sortkey_parse(&ctx->prof->metrics, ctx->opts.sort, k) == 0)
        return 0;
    return hpa_usage_error(cmd,
                           "bad value '%s' for --sort (expected name, a metric such as "
                           "cpu or samples, or excl_/incl_ before one)",
                           ctx->opts.sort);
}

uint32_t *hpa_sorted_funcs(hpa_ctx *ctx, const hpa_callgraph *g, const hpa_sortkey *k, size_t *n)
{
    uint32_t *ids = malloc(sizeof(*ids) * (g->nfuncs + 1));
    if (!ids)
        return NULL;
    *n = 0;
    for (uint32_t f = 1; f < g->nfuncs; f++)
        if (hpa_any(hpa_cg_incl(g, f), g->nm))
            ids[(*n)++] = f;
    hpa_sort_ids(ids, *n, k, g->excl, g->incl, g->nm, hpa_func_name_cb, ctx->prof->syms);
    if (ctx->opts.limit && *n > ctx->opts.limit)
        *n = ctx->opts.limit;
    return ids;
}

/* Functions named name: exact matches, else matches without the parameter list. */
size_t hpa_match_funcs(const hpa_callgraph *g, const hpa_symtab *st, const char *name,
                       uint32_t *out)
{
    size_t n = 0;
    for (int pass = 0; pass < 2 && n == 0; pass++)
        for (uint32_t f = 0; f < g->nfuncs; f++) {
            if (!hpa_any(hpa_cg_incl(g, f), g->nm) && f != HPA_FUNC_TOTAL)
                continue;
            const char *fn = hpa_symtab_func(st, f)->name;
            size_t len = pass ? strcspn(fn, "(") : strlen(fn);
            if (strlen(name) == len && strncmp(fn, name, len) == 0)
                out[n++] = f;
        }
    return n;
}

const char *hpa_func_source_file(const hpa_profile *p, const hpa_callgraph *g, uint32_t f,
                                 unsigned m)
{
    const char *best = NULL;
    uint64_t best_v = 0;
    for (uint32_t l = 1; l < g->nlines; l++) {
        const hpa_line *ln = hpa_symtab_line(p->syms, l);
        uint64_t v = g->line_incl[(size_t)l * g->nm + m];
        if (ln->func == f && ln->lineno && (!best || v > best_v)) {
            best = ln->file;
            best_v = v;
        }
    }
    return best ? best : "(unknown)";
}

void hpa_func_hot_lines(const hpa_profile *p, const hpa_callgraph *g, unsigned m, uint32_t *hot)
{
    memset(hot, 0, sizeof(*hot) * g->nfuncs);
    for (uint32_t l = 1; l < g->nlines; l++) {
        const hpa_line *ln = hpa_symtab_line(p->syms, l);
        if (!ln->lineno || ln->func >= g->nfuncs)
            continue;
        uint32_t *h = &hot[ln->func];
        if (!*h || g->line_incl[(size_t)l * g->nm + m] > g->line_incl[(size_t)*h * g->nm + m])
            *h = l;
    }
}

void hpa_line_name(const hpa_symtab *st, uint32_t id, char *buf, size_t cap)
{
    const hpa_line *l = hpa_symtab_line(st, id);
    const hpa_func *fn = hpa_symtab_func(st, l->func);
    if (id == 0)
        snprintf(buf, cap, "<Total>");
    else if (l->lineno == 0)
        snprintf(buf, cap, "<Function: %s, instructions without line numbers>", fn->name);
    else {
        const char *slash = strrchr(l->file, '/');
        snprintf(buf, cap, "%s, line %u in \"%s\"", fn->name, l->lineno,
                 slash ? slash + 1 : l->file);
    }
}

void hpa_loc_text(const hpa_symtab *st, hpa_loc loc, char *buf, size_t cap)
{
    const hpa_line *l = loc.line ? hpa_symtab_line(st, loc.line) : NULL;
    const char *file = l && l->file ? strrchr(l->file, '/') : NULL;
    file = file ? file + 1 : l && l->file ? l->file : "";
    if (!loc.func)
        snprintf(buf, cap, "<Unknown>");
    else if (l && l->lineno)
        snprintf(buf, cap, "%s %s:%u", hpa_symtab_func(st, loc.func)->name, file, l->lineno);
    else
        snprintf(buf, cap, "%s", hpa_symtab_func(st, loc.func)->name);
}

/* Whether pc is in the collector's own libraries (its interposers and their helpers). */
static bool ours(const hpa_profile *p, hpa_modmap *map, uint64_t pc)
{
    hpa_loc loc = hpa_modmap_resolve(map, pc);
    return loc.func && hpa_symtab_func(p->syms, loc.func)->collector;
}

hpa_loc hpa_call_site(const hpa_profile *p, const hpa_process *pr, const hpa_thread *t,
                      uint64_t node, bool in_callee)
{
    if (node == 0 || node >= t->nnodes)
        return (hpa_loc){0};
    uint32_t n = (uint32_t)node;
    const char *leaf = in_callee ? hpa_modmap_module_of(pr->map, t->pc[n]) : NULL;
    for (uint32_t k = n, steps = 0; k && k < t->nnodes && steps < 256; k = t->parent[k], steps++) {
        const char *mod = hpa_modmap_module_of(pr->map, t->pc[k]);
        bool callee = in_callee && (!leaf || !mod || strcmp(mod, leaf) == 0);
        if (!callee && !ours(p, pr->map, t->pc[k])) {
            n = k;
            break;
        }
    }
    return hpa_modmap_resolve(pr->map, t->pc[n]);
}

const char *hpa_sync_kind_name(unsigned kind)
{
    static const char *const names[] = {
        [HPC_SYNC_MUTEX] = "mutex",
        [HPC_SYNC_RWLOCK_RD] = "rwlock (read)",
        [HPC_SYNC_RWLOCK_WR] = "rwlock (write)",
        [HPC_SYNC_COND] = "condition variable",
        [HPC_SYNC_BARRIER] = "barrier",
        [HPC_SYNC_JOIN] = "thread join",
        [HPC_SYNC_SEM] = "semaphore",
        [HPC_SYNC_SPIN] = "spin lock",
        [HPC_SYNC_OMP_LOCK] = "OpenMP lock",
        [HPC_SYNC_OMP_CRITICAL] = "OpenMP critical",
        [HPC_SYNC_OMP_ORDERED] = "OpenMP ordered",
        [HPC_SYNC_OMP_ATOMIC] = "OpenMP atomic",
        [HPC_SYNC_OMP_BARRIER] = "OpenMP barrier",
    };
    return kind < HPC_SYNC_KIND_COUNT_ && names[kind] ? names[kind] : "unknown";
}

/* Calls fn for every loss of every process in the profile (a filter may leave some out). */
static void each_loss(const hpa_profile *p, void (*fn)(void *, const hpc_proc *, const hpc_loss *),
                      void *arg)
{
    for (size_t i = 0; i < p->nprocs; i++) {
        const hpa_process *pr = &p->procs[i];
        if (!pr->map) /* left out by a filter */
            continue;
        hpc_loss l[16];
        size_t n = hpc_proc_losses(pr->proc, l, 16);
        for (size_t k = 0; k < n && k < 16; k++)
            fn(arg, pr->proc, &l[k]);
    }
}

static void loss_line(void *arg, const hpc_proc *proc, const hpc_loss *l)
{
    char text[256];
    fprintf(arg, "Note: %s: %s\n", proc->name, hpc_loss_text(l, text, sizeof(text)));
}

void hpa_losses_text(FILE *f, const hpa_profile *p)
{
    each_loss(p, loss_line, f);
}

static void loss_obj(void *arg, const hpc_proc *proc, const hpc_loss *l)
{
    hpa_json *j = arg;
    hpa_json_begin_obj(j);
    hpa_json_kstr(j, "process", proc->name);
    hpa_json_kstr(j, "what", l->what);
    hpa_json_kstr(j, "stat", hpc_stat_name(l->stat));
    hpa_json_ku64(j, "count", l->count);
    if (l->after_ns)
        hpa_json_kdouble(j, "after_s", (double)l->after_ns * 1e-9);
    hpa_json_end_obj(j);
}

void hpa_losses_json(hpa_json *j, const hpa_profile *p)
{
    hpa_json_key(j, "not_recorded");
    hpa_json_begin_arr(j);
    each_loss(p, loss_obj, j);
    hpa_json_end_arr(j);
}
