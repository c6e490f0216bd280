/*
 * symbolize.c - hpmerge's view of the shared symbol resolver (model/symbols.h):
 * hpmerge names functions exactly as hpanalyze does, from the same code (ELF symbol
 * tables and DWARF lines through elfutils, archived copies, build-id checks).
 */
#include "symbolize.h"

#include <stdlib.h>

#include "omp_model.h"
#include "symbols.h"
#include "util.h"

_Static_assert(MG_SYM_UNKNOWN == HPA_FUNC_UNKNOWN, "unknown function ids agree");

struct mg_syms {
    hpa_symtab *st;
};

struct mg_symproc {
    hpa_symtab *st;
    hpa_modmap *map;
};

mg_syms *mg_syms_open(hpc_diag *d)
{
    mg_syms *s = mg_xcalloc(1, sizeof(*s));
    s->st = hpa_symtab_open(d);
    if (!s->st) {
        fprintf(stderr, "hpmerge: out of memory (symbol table)\n");
        exit(2);
    }
    return s;
}

void mg_syms_close(mg_syms *s)
{
    if (!s)
        return;
    hpa_symtab_close(s->st);
    free(s);
}

mg_symproc *mg_symproc_open(mg_syms *s, const hpc_proc *p)
{
    mg_symproc *m = mg_xcalloc(1, sizeof(*m));
    m->st = s->st;
    if (p)
        m->map = hpa_modmap_open(s->st, p);
    return m;
}

void mg_symproc_close(mg_symproc *m)
{
    if (!m)
        return;
    hpa_modmap_close(m->map);
    free(m);
}

mg_symloc mg_symproc_resolve(mg_symproc *m, uint64_t pc)
{
    if (!m->map)
        return (mg_symloc){HPA_FUNC_UNKNOWN, 0};
    hpa_loc l = hpa_modmap_resolve(m->map, pc);
    return (mg_symloc){l.func, l.line};
}

mg_symloc mg_symproc_omp_site(mg_symproc *m, uint64_t outlined, uint64_t codeptr, uint64_t psource)
{
    if (!m->map)
        return (mg_symloc){HPA_FUNC_UNKNOWN, 0};
    hpa_loc l = hpa_omp_site(m->st, m->map, outlined, codeptr, psource);
    return (mg_symloc){l.func, l.line};
}

mg_symloc mg_symproc_func_entry(mg_symproc *m, uint64_t pc)
{
    mg_symloc at = mg_symproc_resolve(m, pc);
    const hpa_func *f = at.func < hpa_symtab_nfuncs(m->st) ? hpa_symtab_func(m->st, at.func) : NULL;
    uint64_t addr;
    if (!m->map || !f || !f->start || !hpa_modmap_file_addr(m->map, pc, &addr) || addr < f->start)
        return (mg_symloc){at.func, 0};
    mg_symloc entry = mg_symproc_resolve(m, pc - (addr - f->start));
    return entry.func == at.func ? entry : (mg_symloc){at.func, 0};
}

const char *mg_syms_func_name(mg_syms *s, uint32_t func)
{
    const hpa_func *f = func < hpa_symtab_nfuncs(s->st) ? hpa_symtab_func(s->st, func) : NULL;
    return f && f->name ? f->name : "<Unknown>";
}

const char *mg_syms_func_module(mg_syms *s, uint32_t func)
{
    const hpa_func *f = func < hpa_symtab_nfuncs(s->st) ? hpa_symtab_func(s->st, func) : NULL;
    return f && f->module ? f->module : "";
}

bool mg_syms_mpi_hides(mg_syms *s, hpa_mpi_leaf *st, uint32_t prev, uint32_t func)
{
    uint32_t n = hpa_symtab_nfuncs(s->st);
    if (!func || func >= n)
        return st->inside;
    return hpa_mpi_leaf_hides(st, prev && prev < n ? hpa_symtab_func(s->st, prev) : NULL,
                              hpa_symtab_func(s->st, func));
}

const char *mg_syms_omp_name(mg_syms *s, unsigned c, uint32_t func, char *buf, size_t cap)
{
    enum hpa_lang lang = func ? hpa_symtab_func_lang(s->st, func) : HPA_LANG_UNKNOWN;
    return hpa_omp_construct_name(c, lang, buf, cap);
}

uint32_t mg_syms_func_line(mg_syms *s, uint32_t func)
{
    return hpa_symtab_func_line(s->st, func);
}

const char *mg_syms_line_file(mg_syms *s, uint32_t line, uint32_t *lineno)
{
    const hpa_line *l =
        line && line < hpa_symtab_nlines(s->st) ? hpa_symtab_line(s->st, line) : NULL;
    *lineno = l ? l->lineno : 0;
    return l && l->file ? l->file : "";
}
