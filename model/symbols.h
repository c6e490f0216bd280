/*
 * symbols.h - program counters to functions and source lines, from the recorded load map.
 *
 * Analysis-time symbolization (DESIGN principle 4): the collector records each process's
 * load map (module_load: path, base, size, bias, build id, archived copy); here every
 * distinct PC of a process is resolved once with elfutils (libdwfl/libdw) into
 *   - a function: symbol table name (C++ demangled), or for code without symbols
 *     "<module>+0x<start>" where start is the function's start from .eh_frame (so a
 *     stripped function still gets one row), or "<Unknown>" outside every module;
 *   - a source line (function, file, line) where DWARF line tables exist.
 *
 * Sizes: a profile has thousands to tens of thousands of distinct PCs and a few dozen
 * modules. ELF files are opened once per (path, build id) for all processes of all
 * experiments; functions and lines are interned into one global table, so an MPI job's
 * ranks share rows. Function and line ids are dense small integers; id 0 is reserved.
 *
 * Not thread-safe.
 */
#ifndef HPA_SYMBOLS_H
#define HPA_SYMBOLS_H

#include <stdbool.h>
#include <stdint.h>

#include "experiment.h"

/* Reserved function ids. */
enum {
    HPA_FUNC_TOTAL = 0,   /* "<Total>" */
    HPA_FUNC_NOSTACK = 1, /* "<no stack>": samples for which no call stack was taken */
    HPA_FUNC_UNKNOWN = 2, /* "<Unknown>": PCs outside every recorded module */
    HPA_FUNC_FIRST = 3,
};

/* Source language of code, from DWARF (DW_AT_language of its compile unit). */
enum hpa_lang {
    HPA_LANG_UNKNOWN = 0, /* no debug information, pseudo functions */
    HPA_LANG_C,
    HPA_LANG_CXX,
    HPA_LANG_FORTRAN,
    HPA_LANG_OTHER,
};

typedef struct hpa_func {
    const char *name;   /* demangled */
    const char *module; /* basename of the object, "" for pseudo functions */
    const char *module_path;
    uint64_t start;   /* file address of the function's start, 0 if unknown */
    uint64_t size;    /* bytes of code from start (symbol or unwind table), 0 if unknown */
    const char *file; /* the object file read for it (an archived copy, or module_path) */
    bool has_symbol;  /* false: stripped code named module+offset, or pseudo */
    bool collector;   /* in our own libraries (HPC_MODULE_COLLECTOR): views may hide it */
    bool exported;    /* a global symbol of default or protected visibility: callable by
                         name from other objects (for the collector: an interposer or the
                         API, not a trampoline or internal function) */
    int8_t lang;      /* enum hpa_lang once looked up (hpa_symtab_func_lang), -1 before */
} hpa_func;

typedef struct hpa_line {
    uint32_t func;
    uint32_t lineno;  /* 0: instructions without line numbers */
    const char *file; /* as DWARF names it; "" without line numbers */
} hpa_line;

/* Where a PC resolves to. */
typedef struct hpa_loc {
    uint32_t func;
    uint32_t line; /* line id: (func, file, lineno) */
} hpa_loc;

typedef struct hpa_symtab hpa_symtab; /* global: ELF cache, functions, lines */
typedef struct hpa_modmap hpa_modmap; /* one process's load map and PC cache */

/* Create the global table. Returns NULL when out of memory. */
hpa_symtab *hpa_symtab_open(hpc_diag *diag);
/* Closing NULL does nothing. */
void hpa_symtab_close(hpa_symtab *st);

uint32_t hpa_symtab_nfuncs(const hpa_symtab *st);
const hpa_func *hpa_symtab_func(const hpa_symtab *st, uint32_t id);
uint32_t hpa_symtab_nlines(const hpa_symtab *st);
const hpa_line *hpa_symtab_line(const hpa_symtab *st, uint32_t id);
/* The line id meaning "function f, no line numbers". */
uint32_t hpa_symtab_func_line(hpa_symtab *st, uint32_t func);
/* A function a view makes up ("<OMP-idle>", "f -- OMP parallel region from line 3"):
 * interned by name, module "", no symbol. Returns its id (HPA_FUNC_UNKNOWN when out of
 * memory). */
uint32_t hpa_symtab_pseudo(hpa_symtab *st, const char *name);
/* The source language of function func: DW_AT_language of the compile unit holding its
 * start, read from its object file the first time it is asked (then cached). */
enum hpa_lang hpa_symtab_func_lang(hpa_symtab *st, uint32_t func);
/* The line id with line's file and number but function func (a view moving code into
 * another function keeps its lines); func's no-line id when line has no number. */
uint32_t hpa_symtab_line_in(hpa_symtab *st, uint32_t func, uint32_t line);

/*
 * The load map of one process, from its module_load/module_unload records. Object files
 * are looked up under p->dir first when module_load.archived names a copy. Files that
 * are missing, unreadable or whose build id differs from the recorded one get one
 * warning each (through the diag). Returns NULL when out of memory.
 */
hpa_modmap *hpa_modmap_open(hpa_symtab *st, const hpc_proc *p);
void hpa_modmap_close(hpa_modmap *m);

/*
 * Resolve a PC of this process. `caller` is true for return-address frames (the CCT
 * already stores return address - 1, so nothing is adjusted; kept for views that need
 * to know). Repeated PCs hit a per-process cache. Never fails: unknown code resolves to
 * HPA_FUNC_UNKNOWN or a module+offset function.
 */
hpa_loc hpa_modmap_resolve(hpa_modmap *m, uint64_t pc);

/* The file address of pc in the object file read for its module (see hpa_func.file):
 * pc - bias. Returns false for a pc outside every module. */
bool hpa_modmap_file_addr(hpa_modmap *m, uint64_t pc, uint64_t *addr);

/* The module (basename) containing pc, or NULL; for views that look at libraries. */
const char *hpa_modmap_module_of(hpa_modmap *m, uint64_t pc);

/*
 * Inlining at pc (DWARF DW_TAG_inlined_subroutine): the name of the innermost function
 * whose code was inlined where pc is (its source function, not the one that received
 * it) into buf (cap bytes). Returns false when pc is in no inlined code or the module has
 * no DWARF.
 */
bool hpa_modmap_inlined_at(hpa_modmap *m, uint64_t pc, char *buf, size_t cap);

/*
 * The first row of the line table at pc (several rows may share an address: a function's
 * entry often has its declaration or pragma line first, then its body's): file into file
 * (cap bytes, made absolute with the unit's build directory), line into *lineno. Returns
 * false when pc has no row of its own.
 */
bool hpa_modmap_first_line(hpa_modmap *m, uint64_t pc, char *file, size_t cap, uint32_t *lineno);

/* The NUL-terminated string at address addr of the process, read from its module's file
 * (constant data: a compiler's source-location string), into buf (cap bytes). Returns
 * false when addr is in no readable module. */
bool hpa_modmap_read_string(hpa_modmap *m, uint64_t addr, char *buf, size_t cap);

/* The name of the data object at address addr of the process (a global or static
 * variable: its symbol, "+offset" inside it), into buf (cap bytes). Returns false when
 * addr is in no module or no object symbol covers it (heap, stack). */
bool hpa_modmap_data_name(hpa_modmap *m, uint64_t addr, char *buf, size_t cap);

/* The function of module-of-pc named `name` (a symbol's name, or its demangled name up to
 * the parameters: "solve" finds "solve(int)"; else a copy gcc made of it,
 * "solve.constprop.0"), or 0 when it has no code of its own there. */
uint32_t hpa_modmap_func_named(hpa_modmap *m, uint64_t pc, const char *name);

/* The line id of (func, file, lineno), made if new; func's no-line id for lineno 0. */
uint32_t hpa_symtab_line_make(hpa_symtab *st, uint32_t func, const char *file, uint32_t lineno);

#endif
