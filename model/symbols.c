/*
 * symbols.c - PC -> function and source line with elfutils, per recorded load map.
 *
 * Four levels of caching keep this cheap:
 *   1. each object file is opened once (elf_entry, keyed by path and recorded build id)
 *      in its own Dwfl at its file addresses, shared by every process that mapped it;
 *   2. functions and lines are interned globally (strtab ids are the function and line
 *      ids), so equal functions of different processes are one row;
 *   3. each object file caches file address -> line id for every process that mapped
 *      it: the thousands of ranks of one binary ask libdw once per address, not once
 *      per rank (libdw's lookups were 60% of a 256-rank merge);
 *   4. each process caches PC -> line id (the line knows its function).
 */
#include "symbols.h"

#include <elfutils/libdw.h>
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"
#include "strtab.h"
#include "u64map.h"

/* From libstdc++ (cxxabi.h is C++ only). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

typedef struct elf_entry {
    char *path;     /* file opened */
    char *name;     /* basename of the recorded path, for display */
    char *recorded; /* recorded path */
    uint8_t build_id[64];
    size_t build_id_len;
    Dwfl *dwfl;
    Dwfl_Module *mod;   /* NULL: the file could not be read; PCs show as the module */
    hpa_u64map lines;   /* file address << 1 | collector's -> line id (level 3 above) */
    hpa_u64map inlined; /* file address -> strs id + 1 of hpa_modmap_inlined_at's name, 0:
                           none (the same for every process: an OpenMP construct's site) */
} elf_entry;

typedef struct module {
    uint64_t base, end, bias;
    uint64_t flags; /* HPC_MODULE_* */
    unsigned seq;   /* load order: the latest load wins where ranges overlap */
    elf_entry *elf;
} module;

struct hpa_symtab {
    hpc_diag *diag;
    hpa_strtab strs;  /* names, modules, files: stable pointers */
    hpa_strtab fkeys; /* function keys "module_path\0name" -> function id */
    hpa_func *funcs;
    uint32_t fcap;
    hpa_strtab lkeys; /* line keys {func, file id, lineno} -> line id */
    hpa_line *lines;
    uint32_t lcap;
    elf_entry **elves;
    size_t nelves;
};

struct hpa_modmap {
    hpa_symtab *st;
    module *mods;
    size_t nmods;
    hpa_u64map cache; /* pc -> line id */
};

static char *debuginfo_path;
static const Dwfl_Callbacks dwfl_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
    .debuginfo_path = &debuginfo_path,
};

static const char *str(hpa_symtab *st, const char *s)
{
    uint32_t id = hpa_strtab_intern(&st->strs, s, strlen(s));
    return id == UINT32_MAX ? "" : hpa_strtab_get(&st->strs, id);
}

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

/* ------------------------------------------------------------ functions, lines */

/* Intern a function; returns its id or HPA_FUNC_UNKNOWN when out of memory. */
static uint32_t intern_func(hpa_symtab *st, const char *module_path, const char *module,
                            const char *name, uint64_t start, uint64_t size, const char *file,
                            bool has_symbol, bool collector, bool exported)
{
    char key[4096];
    int n = snprintf(key, sizeof(key), "%s%c%s", module_path, 0, name);
    if (n < 0 || (size_t)n >= sizeof(key))
        n = sizeof(key) - 1;
    uint32_t before = st->fkeys.n;
    uint32_t id = hpa_strtab_intern(&st->fkeys, key, (size_t)n);
    if (id == UINT32_MAX)
        return HPA_FUNC_UNKNOWN;
    if (id < before)
        return id;
    if (id >= st->fcap) {
        uint32_t cap = st->fcap ? st->fcap * 2 : 256;
        hpa_func *f = realloc(st->funcs, sizeof(*f) * cap);
        if (!f)
            return HPA_FUNC_UNKNOWN; /* the key stays, harmless */
        st->funcs = f;
        st->fcap = cap;
    }
    st->funcs[id] = (hpa_func){.name = str(st, name),
                               .module = str(st, module),
                               .module_path = str(st, module_path),
                               .start = start,
                               .size = size,
                               .file = str(st, file),
                               .has_symbol = has_symbol,
                               .collector = collector,
                               .exported = exported,
                               .lang = -1};
    return id;
}

static uint32_t intern_line(hpa_symtab *st, uint32_t func, const char *file, uint32_t lineno)
{
    const char *f = str(st, file);
    struct {
        uint32_t func, lineno;
        const char *file;
    } key = {func, lineno, f};
    uint32_t before = st->lkeys.n;
    uint32_t id = hpa_strtab_intern(&st->lkeys, (const char *)&key, sizeof(key));
    if (id == UINT32_MAX)
        return 0;
    if (id < before)
        return id;
    if (id >= st->lcap) {
        uint32_t cap = st->lcap ? st->lcap * 2 : 1024;
        hpa_line *l = realloc(st->lines, sizeof(*l) * cap);
        if (!l)
            return 0;
        st->lines = l;
        st->lcap = cap;
    }
    st->lines[id] = (hpa_line){.func = func, .lineno = lineno, .file = f};
    return id;
}

uint32_t hpa_symtab_func_line(hpa_symtab *st, uint32_t func)
{
    return intern_line(st, func, "", 0);
}

uint32_t hpa_symtab_pseudo(hpa_symtab *st, const char *name)
{
    return intern_func(st, "", "", name, 0, 0, "", false, false, false);
}

uint32_t hpa_symtab_line_in(hpa_symtab *st, uint32_t func, uint32_t line)
{
    const hpa_line *l = line < st->lkeys.n ? &st->lines[line] : NULL;
    if (!l || l->lineno == 0)
        return hpa_symtab_func_line(st, func);
    return intern_line(st, func, l->file, l->lineno);
}

hpa_symtab *hpa_symtab_open(hpc_diag *diag)
{
    hpa_symtab *st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    st->diag = diag;
    /* Reserved ids, in enum order; line 0 is "<Total>, no line numbers". */
    static const char *const pseudo[] = {"<Total>", "<no stack>", "<Unknown>"};
    for (uint32_t i = 0; i < HPA_FUNC_FIRST; i++) {
        if (intern_func(st, "", "", pseudo[i], 0, 0, "", false, false, false) != i ||
            hpa_symtab_func_line(st, i) != i) {
            hpa_symtab_close(st);
            return NULL;
        }
    }
    return st;
}

static void elf_entry_free(elf_entry *e)
{
    if (!e)
        return;
    if (e->dwfl)
        dwfl_end(e->dwfl);
    hpa_u64map_free(&e->lines);
    hpa_u64map_free(&e->inlined);
    free(e->path);
    free(e->name);
    free(e->recorded);
    free(e);
}

void hpa_symtab_close(hpa_symtab *st)
{
    if (!st)
        return;
    for (size_t i = 0; i < st->nelves; i++)
        elf_entry_free(st->elves[i]);
    free(st->elves);
    hpa_strtab_free(&st->strs);
    hpa_strtab_free(&st->fkeys);
    hpa_strtab_free(&st->lkeys);
    free(st->funcs);
    free(st->lines);
    free(st);
}

uint32_t hpa_symtab_nfuncs(const hpa_symtab *st)
{
    return st->fkeys.n;
}

const hpa_func *hpa_symtab_func(const hpa_symtab *st, uint32_t id)
{
    return &st->funcs[id];
}

uint32_t hpa_symtab_nlines(const hpa_symtab *st)
{
    return st->lkeys.n;
}

const hpa_line *hpa_symtab_line(const hpa_symtab *st, uint32_t id)
{
    return &st->lines[id];
}

/* ------------------------------------------------------------------ ELF files */

static void warn(hpa_symtab *st, const char *file, const char *fmt, const char *a, const char *b)
{
    hpc_diag_report(st->diag, HPC_WARNING, file, HPC_NO_OFFSET, __FILE__, __LINE__, fmt, a, b);
}

/* Said of an object read from its recorded path: the archive (archive.h) had no copy. */
static const char *no_archive(const elf_entry *e)
{
    return strstr(e->path, "/" HPA_ARCHIVE_OBJECTS "/")
               ? ""
               : "; the experiment has no archived copy (hpcollect -a archives at the run, "
                 "hpcollect-archive EXP later, while the file is in place)";
}

static void hex(char *out, size_t cap, const uint8_t *b, size_t n)
{
    size_t i = 0;
    for (; i < n && 2 * i + 2 < cap; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
    out[2 * i] = 0;
}

static void check_build_id(hpa_symtab *st, elf_entry *e)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    if (e->build_id_len == 0)
        return;
    int n = dwfl_module_build_id(e->mod, &bits, &vaddr);
    if (n > 0 && (size_t)n == e->build_id_len && memcmp(bits, e->build_id, (size_t)n) == 0)
        return;
    char want[130], have[130] = "none";
    hex(want, sizeof(want), e->build_id, e->build_id_len);
    if (n > 0)
        hex(have, sizeof(have), bits, (size_t)n);
    char msg[300];
    snprintf(msg, sizeof(msg), "build id %s differs from the recorded %s", have, want);
    warn(st, e->path, "%s: the file changed since the experiment%s; symbols may be wrong", msg,
         no_archive(e));
}

static void open_elf(hpa_symtab *st, elf_entry *e)
{
    int fd = hpc_open_regular(e->path, NULL);
    if (fd < 0) {
        char why[400];
        snprintf(why, sizeof(why), "%s)%s",
                 fd == HPC_E_NOTREG ? "not a regular file" : strerror(errno), no_archive(e));
        warn(st, e->path, "cannot open object file (%s; its code is shown as %s", why, e->name);
        return;
    }
    e->dwfl = dwfl_begin(&dwfl_callbacks);
    if (!e->dwfl) {
        close(fd);
        return;
    }
    dwfl_report_begin(e->dwfl);
    /* At its file addresses: the process's bias is subtracted before lookups. fd is
     * consumed on success. */
    e->mod = dwfl_report_elf(e->dwfl, e->name, e->path, fd, 0, true);
    dwfl_report_end(e->dwfl, NULL, NULL);
    if (!e->mod) {
        close(fd);
        warn(st, e->path, "not a readable ELF object (%s); its code is shown as %s",
             dwfl_errmsg(-1), e->name);
        return;
    }
    check_build_id(st, e);
}

/* The cached entry for (path, build id), opening the file the first time. */
static elf_entry *get_elf(hpa_symtab *st, const char *path, const char *recorded, hpc_str bid)
{
    size_t bl = bid.n < sizeof(((elf_entry *)0)->build_id) ? bid.n : 0;
    for (size_t i = 0; i < st->nelves; i++) {
        elf_entry *e = st->elves[i];
        if (strcmp(e->path, path) == 0 && e->build_id_len == bl &&
            memcmp(e->build_id, bid.p, bl) == 0)
            return e;
    }
    elf_entry **v = realloc(st->elves, sizeof(*v) * (st->nelves + 1));
    if (!v)
        return NULL;
    st->elves = v;
    elf_entry *e = calloc(1, sizeof(*e));
    if (!e)
        return NULL;
    e->path = strdup(path);
    e->recorded = strdup(recorded);
    e->name = strdup(basename_of(recorded));
    if (!e->path || !e->recorded || !e->name) {
        elf_entry_free(e);
        return NULL;
    }
    memcpy(e->build_id, bid.p, bl);
    e->build_id_len = bl;
    st->elves[st->nelves++] = e;
    if (recorded[0] != '[' || strcmp(path, recorded) != 0) /* [heap], [anon]: no file */
        open_elf(st, e);
    return e;
}

/* ------------------------------------------------------------------ load maps */

static int add_module(hpa_modmap *m, const hpc_proc *p, const hpc_rec_module_load *r, unsigned seq)
{
    char recorded[4096], path[4096], job[4096];
    hpc_str_copy(recorded, sizeof(recorded), r->path);
    hpa_archive_job_dir(p, job, sizeof(job));
    if (r->archived.n > 0) { /* the vDSO, in the process's directory */
        char arch[1024];
        hpc_str_copy(arch, sizeof(arch), r->archived);
        snprintf(path, sizeof(path), "%s/%s", p->dir, arch);
    } else if (!hpa_archive_object(job, recorded, r->build_id, path, sizeof(path))) {
        snprintf(path, sizeof(path), "%s", recorded); /* not archived: the original */
    }
    if (r->size == 0 || r->base + r->size < r->base)
        return 0; /* nothing to map; a damaged range is ignored */
    elf_entry *e = get_elf(m->st, path, recorded, r->build_id);
    if (!e)
        return -1;
    module *v = realloc(m->mods, sizeof(*v) * (m->nmods + 1));
    if (!v)
        return -1;
    m->mods = v;
    m->mods[m->nmods++] = (module){.base = r->base,
                                   .end = r->base + r->size,
                                   .bias = r->bias,
                                   .flags = r->flags,
                                   .seq = seq,
                                   .elf = e};
    return 0;
}

hpa_modmap *hpa_modmap_open(hpa_symtab *st, const hpc_proc *p)
{
    hpa_modmap *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->st = st;
    size_t i = 0;
    unsigned seq = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_module_load, &i));)
        if (add_module(m, p, &r->u.module_load, seq++)) {
            hpa_modmap_close(m);
            return NULL;
        }
    return m;
}

void hpa_modmap_close(hpa_modmap *m)
{
    if (!m)
        return;
    free(m->mods);
    hpa_u64map_free(&m->cache);
    free(m);
}

static const module *find_module(const hpa_modmap *m, uint64_t pc)
{
    const module *best = NULL;
    for (size_t i = 0; i < m->nmods; i++) {
        const module *mod = &m->mods[i];
        if (pc >= mod->base && pc < mod->end && (!best || mod->seq > best->seq))
            best = mod;
    }
    return best;
}

bool hpa_modmap_file_addr(hpa_modmap *m, uint64_t pc, uint64_t *addr)
{
    const module *mod = find_module(m, pc);
    if (!mod)
        return false;
    *addr = pc - mod->bias;
    return true;
}

const char *hpa_modmap_module_of(hpa_modmap *m, uint64_t pc)
{
    const module *mod = find_module(m, pc);
    return mod ? mod->elf->name : NULL;
}

static bool is_code_symbol(const GElf_Sym *sym)
{
    int t = GELF_ST_TYPE(sym->st_info);
    return t == STT_FUNC || t == STT_GNU_IFUNC || (t == STT_NOTYPE && sym->st_size > 0);
}

/* Start of the function containing addr from the unwind tables, or addr; its size to *size
 * (0 if unknown). */
static uint64_t cfi_function_start(Dwfl_Module *mod, uint64_t addr, uint64_t *size)
{
    *size = 0;
    Dwarf_Addr bias = 0;
    Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
    if (!cfi)
        cfi = dwfl_module_dwarf_cfi(mod, &bias);
    Dwarf_Frame *frame = NULL;
    if (!cfi || dwarf_cfi_addrframe(cfi, addr - bias, &frame) != 0)
        return addr;
    Dwarf_Addr start = addr, end;
    bool signalp;
    dwarf_frame_info(frame, &start, &end, &signalp);
    free(frame);
    *size = end > start ? end - start : 0;
    return start + bias;
}

/* The symbol name without a version suffix ("memcpy@@GLIBC_2.14" -> "memcpy"). */
static const char *unversioned(const char *s, char *buf, size_t cap)
{
    const char *at = strchr(s, '@');
    if (!at || at == s)
        return s;
    snprintf(buf, cap, "%.*s", (int)(at - s), s);
    return buf;
}

static uint32_t resolve_func(hpa_symtab *st, const module *m, uint64_t addr)
{
    const elf_entry *e = m->elf;
    bool ours = (m->flags & HPC_MODULE_COLLECTOR) != 0;
    char name[1024];
    if (!e->mod) /* unreadable file: one row for the whole module */
        return intern_func(st, e->recorded, e->name, e->name, 0, 0, e->path, false, ours, false);
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *s = dwfl_module_addrinfo(e->mod, addr, &off, &sym, NULL, NULL, NULL);
    if (s && *s && is_code_symbol(&sym)) {
        s = unversioned(s, name, sizeof(name));
        char *dem = NULL;
        int status = -1;
        if (s[0] == '_' && s[1] == 'Z')
            dem = __cxa_demangle(s, NULL, NULL, &status);
        int bind = GELF_ST_BIND(sym.st_info), vis = GELF_ST_VISIBILITY(sym.st_other);
        bool exported = (bind == STB_GLOBAL || bind == STB_WEAK || bind == STB_GNU_UNIQUE) &&
                        (vis == STV_DEFAULT || vis == STV_PROTECTED);
        uint32_t id = intern_func(st, e->recorded, e->name, status == 0 && dem ? dem : s,
                                  addr - off, sym.st_size, e->path, true, ours, exported);
        free(dem);
        return id;
    }
    uint64_t size;
    uint64_t start = cfi_function_start(e->mod, addr, &size);
    snprintf(name, sizeof(name), "%s+0x%" PRIx64, e->name, start);
    return intern_func(st, e->recorded, e->name, name, start, size, e->path, false, ours, false);
}

/*
 * The compile unit whose address ranges hold addr, by walking the units. libdwfl finds
 * the unit through .debug_aranges, which clang does not emit (elfutils 0.188 has no
 * fallback), so without this clang-built code would have no line numbers.
 */
static Dwarf_Die *cu_by_ranges(Dwfl_Module *mod, uint64_t addr, Dwarf_Addr *bias)
{
    for (Dwarf_Die *cu = NULL; (cu = dwfl_module_nextcu(mod, cu, bias)) != NULL;) {
        Dwarf_Addr base, start, end;
        for (ptrdiff_t off = 0; (off = dwarf_ranges(cu, off, &base, &start, &end)) > 0;)
            if (addr - *bias >= start && addr - *bias < end)
                return cu;
    }
    return NULL;
}

/* Line of addr from the compile unit whose address ranges hold it (see cu_by_ranges). */
static const char *line_from_cu_ranges(Dwfl_Module *mod, uint64_t addr, int *lineno,
                                       const char **comp_dir)
{
    Dwarf_Addr bias;
    Dwarf_Die *cu = cu_by_ranges(mod, addr, &bias);
    Dwarf_Line *l = cu ? dwarf_getsrc_die(cu, addr - bias) : NULL;
    if (!l || dwarf_lineno(l, lineno) != 0)
        return NULL;
    Dwarf_Attribute attr;
    *comp_dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
    return dwarf_linesrc(l, NULL, NULL);
}

static enum hpa_lang lang_of(int dw_lang)
{
    switch (dw_lang) {
    case DW_LANG_C89:
    case DW_LANG_C:
    case DW_LANG_C99:
    case DW_LANG_C11:
    case 0x2c: /* DW_LANG_C17 (DWARF 6 draft; not in every dwarf.h) */
        return HPA_LANG_C;
    case DW_LANG_C_plus_plus:
    case DW_LANG_C_plus_plus_03:
    case DW_LANG_C_plus_plus_11:
    case DW_LANG_C_plus_plus_14:
        return HPA_LANG_CXX;
    case DW_LANG_Fortran77:
    case DW_LANG_Fortran90:
    case DW_LANG_Fortran95:
    case DW_LANG_Fortran03:
    case DW_LANG_Fortran08:
        return HPA_LANG_FORTRAN;
    default:
        return dw_lang < 0 ? HPA_LANG_UNKNOWN : HPA_LANG_OTHER;
    }
}

enum hpa_lang hpa_symtab_func_lang(hpa_symtab *st, uint32_t func)
{
    if (func >= st->fkeys.n)
        return HPA_LANG_UNKNOWN;
    hpa_func *f = &st->funcs[func];
    if (f->lang >= 0)
        return (enum hpa_lang)f->lang;
    f->lang = HPA_LANG_UNKNOWN;
    if (f->start == 0)
        return HPA_LANG_UNKNOWN;
    for (size_t i = 0; i < st->nelves; i++) {
        elf_entry *e = st->elves[i];
        if (!e->mod || strcmp(e->path, f->file) != 0)
            continue;
        Dwarf_Addr bias;
        Dwarf_Die *cu = dwfl_module_addrdie(e->mod, f->start, &bias);
        if (!cu)
            cu = cu_by_ranges(e->mod, f->start, &bias);
        if (cu)
            f->lang = (int8_t)lang_of(dwarf_srclang(cu));
        break;
    }
    return (enum hpa_lang)f->lang;
}

static uint32_t resolve_line(hpa_symtab *st, const elf_entry *e, uint32_t func, uint64_t addr)
{
    Dwfl_Line *l = e->mod ? dwfl_module_getsrc(e->mod, addr) : NULL;
    int lineno = 0;
    const char *file = l ? dwfl_lineinfo(l, NULL, &lineno, NULL, NULL, NULL) : NULL;
    const char *comp_dir = l ? dwfl_line_comp_dir(l) : NULL;
    if (!file && e->mod)
        file = line_from_cu_ranges(e->mod, addr, &lineno, &comp_dir);
    if (!file || lineno <= 0)
        return hpa_symtab_func_line(st, func);
    /* Relative names (DWARF 5 line tables) are relative to the unit's build directory:
     * `source` must find the file. */
    char path[4096];
    if (file[0] != '/' && comp_dir && comp_dir[0] == '/') {
        snprintf(path, sizeof(path), "%s/%s", comp_dir, file);
        file = path;
    }
    return intern_line(st, func, file, (uint32_t)lineno);
}

hpa_loc hpa_modmap_resolve(hpa_modmap *m, uint64_t pc)
{
    uint64_t line;
    if (!hpa_u64map_get(&m->cache, pc, &line)) {
        const module *mod = find_module(m, pc);
        if (!mod) {
            line = hpa_symtab_func_line(m->st, HPA_FUNC_UNKNOWN);
        } else {
            uint64_t addr = pc - mod->bias;
            /* the collector's objects are told apart (resolve_func: `ours`) */
            uint64_t key = addr << 1 | ((mod->flags & HPC_MODULE_COLLECTOR) != 0);
            if (!hpa_u64map_get(&mod->elf->lines, key, &line)) {
                uint32_t func = resolve_func(m->st, mod, addr);
                line = resolve_line(m->st, mod->elf, func, addr);
                if (key != HPA_U64MAP_EMPTY)
                    hpa_u64map_put(&mod->elf->lines, key, line); /* out of memory: uncached */
            }
        }
        if (pc != HPA_U64MAP_EMPTY)
            hpa_u64map_put(&m->cache, pc, line); /* out of memory: just uncached */
    }
    return (hpa_loc){.func = m->st->lines[line].func, .line = line};
}

uint32_t hpa_symtab_line_make(hpa_symtab *st, uint32_t func, const char *file, uint32_t lineno)
{
    if (lineno == 0 || !file)
        return hpa_symtab_func_line(st, func);
    return intern_line(st, func, file, lineno);
}

/* The compile unit holding file address addr of module e, or NULL. */
static Dwarf_Die *cu_of(const elf_entry *e, uint64_t addr, Dwarf_Addr *bias)
{
    if (!e->mod)
        return NULL;
    Dwarf_Die *cu = dwfl_module_addrdie(e->mod, addr, bias);
    return cu ? cu : cu_by_ranges(e->mod, addr, bias);
}

/* A DIE's source name: the demangled linkage name, else DW_AT_name (both through
 * DW_AT_abstract_origin / DW_AT_specification). */
static bool die_name(Dwarf_Die *die, char *buf, size_t cap)
{
    Dwarf_Attribute a;
    const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
    if (!link)
        link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (link && link[0] == '_' && link[1] == 'Z') {
        int status = -1;
        char *dem = __cxa_demangle(link, NULL, NULL, &status);
        if (status == 0 && dem) {
            snprintf(buf, cap, "%s", dem);
            free(dem);
            return true;
        }
        free(dem);
    }
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &a));
    if (!name)
        return false;
    snprintf(buf, cap, "%s", name);
    return true;
}

bool hpa_modmap_inlined_at(hpa_modmap *m, uint64_t pc, char *buf, size_t cap)
{
    const module *mod = find_module(m, pc);
    if (!mod || cap == 0)
        return false;
    uint64_t addr = pc - mod->bias, v;
    if (addr != HPA_U64MAP_EMPTY && hpa_u64map_get(&mod->elf->inlined, addr, &v)) {
        if (v)
            snprintf(buf, cap, "%s", hpa_strtab_get(&m->st->strs, (uint32_t)(v - 1)));
        return v != 0;
    }
    Dwarf_Addr bias;
    Dwarf_Die *cu = cu_of(mod->elf, addr, &bias);
    Dwarf_Die *scopes = NULL;
    int n = cu ? dwarf_getscopes(cu, addr - bias, &scopes) : 0;
    bool found = false;
    for (int i = 0; i < n && !found; i++)
        if (dwarf_tag(&scopes[i]) == DW_TAG_inlined_subroutine)
            found = die_name(&scopes[i], buf, cap);
    free(scopes);
    uint32_t id = found ? hpa_strtab_cstr(&m->st->strs, buf) : 0;
    if (addr != HPA_U64MAP_EMPTY && id != UINT32_MAX) /* out of memory: uncached */
        hpa_u64map_put(&mod->elf->inlined, addr, found ? (uint64_t)id + 1 : 0);
    return found;
}

bool hpa_modmap_first_line(hpa_modmap *m, uint64_t pc, char *file, size_t cap, uint32_t *lineno)
{
    const module *mod = find_module(m, pc);
    Dwarf_Addr bias;
    Dwarf_Die *cu = mod ? cu_of(mod->elf, pc - mod->bias, &bias) : NULL;
    Dwarf_Lines *lines;
    size_t n;
    if (!cu || dwarf_getsrclines(cu, &lines, &n) != 0)
        return false;
    Dwarf_Addr addr = pc - mod->bias - bias;
    for (size_t i = 0; i < n; i++) { /* rows are sorted by address: the first one at addr */
        Dwarf_Line *l = dwarf_onesrcline(lines, i);
        Dwarf_Addr a;
        int ln;
        if (!l || dwarf_lineaddr(l, &a) != 0 || a < addr)
            continue;
        if (a > addr || dwarf_lineno(l, &ln) != 0 || ln <= 0)
            return false;
        const char *src = dwarf_linesrc(l, NULL, NULL);
        Dwarf_Attribute at;
        const char *dir = dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &at));
        if (!src)
            return false;
        if (src[0] != '/' && dir && dir[0] == '/')
            snprintf(file, cap, "%s/%s", dir, src);
        else
            snprintf(file, cap, "%s", src);
        *lineno = (uint32_t)ln;
        return true;
    }
    return false;
}

bool hpa_modmap_read_string(hpa_modmap *m, uint64_t addr, char *buf, size_t cap)
{
    const module *mod = find_module(m, addr);
    if (!mod || !mod->elf->mod || cap == 0)
        return false;
    GElf_Addr ebias;
    Elf *elf = dwfl_module_getelf(mod->elf->mod, &ebias);
    uint64_t a = addr - mod->bias;
    for (Elf_Scn *scn = NULL; elf && (scn = elf_nextscn(elf, scn)) != NULL;) {
        GElf_Shdr sh;
        if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) || sh.sh_type != SHT_PROGBITS ||
            a < sh.sh_addr || a >= sh.sh_addr + sh.sh_size)
            continue;
        Elf_Data *d = elf_getdata(scn, NULL);
        size_t off = (size_t)(a - sh.sh_addr);
        if (!d || !d->d_buf || off >= d->d_size)
            return false;
        const char *s = (const char *)d->d_buf + off;
        size_t len = strnlen(s, d->d_size - off);
        if (len == d->d_size - off)
            return false; /* not terminated inside its section */
        snprintf(buf, cap, "%s", s);
        return true;
    }
    return false;
}

bool hpa_modmap_data_name(hpa_modmap *m, uint64_t addr, char *buf, size_t cap)
{
    const module *mod = find_module(m, addr);
    if (!mod || !mod->elf->mod || cap == 0)
        return false;
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *s =
        dwfl_module_addrinfo(mod->elf->mod, addr - mod->bias, &off, &sym, NULL, NULL, NULL);
    int type = s ? GELF_ST_TYPE(sym.st_info) : STT_NOTYPE;
    if (!s || !*s || (type != STT_OBJECT && type != STT_TLS) ||
        off >= (sym.st_size ? sym.st_size : 1))
        return false;
    char name[1024];
    s = unversioned(s, name, sizeof name);
    if (off)
        snprintf(buf, cap, "%s+%" PRIu64, s, (uint64_t)off);
    else
        snprintf(buf, cap, "%s", s);
    return true;
}

/* True if symbol name s is a copy gcc made of function `name` ("solve.constprop.0",
 * "solve.isra.0", "solve.part.0"): what -O2 leaves of a function under its own name. */
static bool clone_of(const char *s, const char *name)
{
    size_t n = strlen(name);
    return strncmp(s, name, n) == 0 && s[n] == '.' && s[n + 1] >= 'a' && s[n + 1] <= 'z';
}

/* True if symbol name s (mangled or not) names function `name`: equal, or, demangled, equal
 * or `name(...)` (C++ parameters); with `clones`, also a gcc clone of it. */
static bool symbol_is(const char *s, const char *name, bool clones)
{
    char buf[1024];
    s = unversioned(s, buf, sizeof(buf));
    if (strcmp(s, name) == 0 || (clones && clone_of(s, name)))
        return true;
    /* demangle only what may be it: a mangled name holds the identifier's last part */
    const char *last = strrchr(name, ':');
    if (s[0] != '_' || s[1] != 'Z' || !strstr(s, last ? last + 1 : name))
        return false;
    int status = -1;
    char *dem = __cxa_demangle(s, NULL, NULL, &status);
    size_t n = strlen(name);
    bool same = status == 0 && dem &&
                (strcmp(dem, name) == 0 || (strncmp(dem, name, n) == 0 && dem[n] == '('));
    free(dem);
    return same;
}

uint32_t hpa_modmap_func_named(hpa_modmap *m, uint64_t pc, const char *name)
{
    const module *mod = find_module(m, pc);
    Dwfl_Module *dm = mod ? mod->elf->mod : NULL;
    int n = dm ? dwfl_module_getsymtab(dm) : 0;
    for (int clones = 0; clones < 2; clones++) { /* the function itself first */
        for (int i = 1; i < n; i++) {
            GElf_Sym sym;
            GElf_Addr addr;
            const char *s = dwfl_module_getsym_info(dm, i, &sym, &addr, NULL, NULL, NULL);
            if (s && is_code_symbol(&sym) && sym.st_shndx != SHN_UNDEF && addr != 0 &&
                symbol_is(s, name, clones))
                return hpa_modmap_resolve(m, addr + mod->bias).func;
        }
    }
    return 0;
}
