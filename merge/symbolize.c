/*
 * symbolize.c - TEMPORARY stand-in for the shared resolver (see symbolize.h): names code
 * "module+0xOFFSET" from the recorded load map, without reading object files. It is
 * replaced by the analyzer's resolver (analyzer/symbols.c) once that is on main.
 */
#include "symbolize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

struct mg_syms {
    mg_strtab names;
    mg_strtab modules;
    uint32_t *func_module; /* func id -> module string id */
    size_t nfm, capfm;
};

typedef struct symmod {
    uint64_t base, size, bias;
    char *base_name;
} symmod;

struct mg_symproc {
    mg_syms *s;
    symmod *mods;
    size_t nmods, cap;
    mg_map cache; /* pc -> func id */
};

mg_syms *mg_syms_open(hpc_diag *d)
{
    (void)d;
    mg_syms *s = mg_xcalloc(1, sizeof(*s));
    mg_strtab_cstr(&s->names, "<none>");
    mg_strtab_cstr(&s->modules, "");
    uint32_t *m = MG_PUSH(s->func_module, s->nfm, s->capfm);
    *m = 0;
    return s;
}

void mg_syms_close(mg_syms *s)
{
    if (!s)
        return;
    mg_strtab_free(&s->names);
    mg_strtab_free(&s->modules);
    free(s->func_module);
    free(s);
}

mg_symproc *mg_symproc_open(mg_syms *s, const hpc_proc *p)
{
    mg_symproc *m = mg_xcalloc(1, sizeof(*m));
    m->s = s;
    size_t i = 0;
    const hpc_record *r;
    while (p && (r = hpc_proc_next_of(p, HPC_K_module_load, &i))) {
        const hpc_rec_module_load *ml = &r->u.module_load;
        symmod *sm = MG_PUSH(m->mods, m->nmods, m->cap);
        char *path = mg_strdup_n(ml->path.p, ml->path.n);
        const char *slash = strrchr(path, '/');
        sm->base_name = mg_xstrdup(slash ? slash + 1 : path);
        free(path);
        sm->base = ml->base;
        sm->size = ml->size;
        sm->bias = ml->bias;
    }
    return m;
}

void mg_symproc_close(mg_symproc *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nmods; i++)
        free(m->mods[i].base_name);
    free(m->mods);
    mg_map_free(&m->cache);
    free(m);
}

static uint32_t intern_func(mg_syms *s, const char *name, const char *module)
{
    uint32_t id = mg_strtab_cstr(&s->names, name);
    if (id == s->nfm) {
        uint32_t *m = MG_PUSH(s->func_module, s->nfm, s->capfm);
        *m = mg_strtab_cstr(&s->modules, module);
    }
    return id;
}

mg_symloc mg_symproc_resolve(mg_symproc *m, uint64_t pc)
{
    uint64_t id;
    if (mg_map_get(&m->cache, pc, &id))
        return (mg_symloc){ (uint32_t)id, (uint32_t)id };
    char name[512];
    const char *module = "";
    snprintf(name, sizeof(name), "<Unknown>");
    for (size_t i = m->nmods; i-- > 0;) {
        symmod *sm = &m->mods[i];
        if (pc >= sm->base && pc - sm->base < sm->size) {
            snprintf(name, sizeof(name), "%s+0x%llx", sm->base_name,
                     (unsigned long long)(pc - sm->bias));
            module = sm->base_name;
            break;
        }
    }
    uint32_t f = intern_func(m->s, name, module);
    mg_map_put(&m->cache, pc, f);
    return (mg_symloc){ f, f };
}

const char *mg_syms_func_name(mg_syms *s, uint32_t func)
{
    return func < s->names.n ? mg_strtab_get(&s->names, func) : "<Unknown>";
}

const char *mg_syms_func_module(mg_syms *s, uint32_t func)
{
    return func < s->nfm ? mg_strtab_get(&s->modules, s->func_module[func]) : "";
}

const char *mg_syms_line_file(mg_syms *s, uint32_t line, uint32_t *lineno)
{
    (void)s;
    (void)line;
    *lineno = 0;
    return "";
}
