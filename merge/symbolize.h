/*
 * symbolize.h - program counters to function names and source lines, for hpmerge.
 *
 * A thin adapter: the resolver itself (ELF/DWARF through elfutils, the recorded load
 * map, archived copies) is the shared model's (model/symbols.h), so that the summary's top
 * functions and hpanalyze's functions report name the same code the same way. hpmerge
 * code uses only the calls below.
 *
 * Ids are dense per merge process; id 0 never names a real function. Not thread-safe.
 */
#ifndef MG_SYMBOLIZE_H
#define MG_SYMBOLIZE_H

#include <stdint.h>

#include "experiment.h"

typedef struct mg_syms mg_syms;       /* all processes: object file cache, names */
typedef struct mg_symproc mg_symproc; /* one process's load map */

/* The function id of code outside every known module (the resolver's "<Unknown>"). */
#define MG_SYM_UNKNOWN 2

typedef struct mg_symloc {
    uint32_t func; /* function id */
    uint32_t line; /* (function, file, line) id */
} mg_symloc;

/* Source language of a function (DWARF), as far as OpenMP directives care. */
typedef enum mg_lang { MG_LANG_UNKNOWN = 0, MG_LANG_C, MG_LANG_FORTRAN } mg_lang;

/* Open the resolver. Problems with object files are reported to d. Never NULL. */
mg_syms *mg_syms_open(hpc_diag *d);
void mg_syms_close(mg_syms *s);

/* The load map of process p (module_load records). Never NULL. */
mg_symproc *mg_symproc_open(mg_syms *s, const hpc_proc *p);
void mg_symproc_close(mg_symproc *m);

/* Where pc of this process is. Never fails: unknown code has a name too. */
mg_symloc mg_symproc_resolve(mg_symproc *m, uint64_t pc);

/* The function of pc and the source line of that function's first instruction (its
 * opening line, where DWARF has lines; line 0 otherwise). */
mg_symloc mg_symproc_func_entry(mg_symproc *m, uint64_t pc);

/* Function name ("solve", "libm.so.6+0x1234", "<Unknown>"); never NULL. */
const char *mg_syms_func_name(mg_syms *s, uint32_t func);
/* Module basename of the function, "" for pseudo functions; never NULL. */
const char *mg_syms_func_module(mg_syms *s, uint32_t func);
/* Source language of the function: C and C++ are MG_LANG_C (#pragma omp), Fortran
 * MG_LANG_FORTRAN (!$omp), anything else or without debug information MG_LANG_UNKNOWN. */
mg_lang mg_syms_func_lang(mg_syms *s, uint32_t func);
/* The line id meaning "function func, no line numbers". */
uint32_t mg_syms_func_line(mg_syms *s, uint32_t func);
/* Source file and line of a line id; file "" and *lineno 0 when unknown. */
const char *mg_syms_line_file(mg_syms *s, uint32_t line, uint32_t *lineno);

#endif
