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
#include "mpi_leaf.h"

typedef struct mg_syms mg_syms;       /* all processes: object file cache, names */
typedef struct mg_symproc mg_symproc; /* one process's load map */

/* The function id of code outside every known module (the resolver's "<Unknown>"). */
#define MG_SYM_UNKNOWN 2

typedef struct mg_symloc {
    uint32_t func; /* function id */
    uint32_t line; /* (function, file, line) id */
} mg_symloc;

/* Open the resolver. Problems with object files are reported to d. Never NULL. */
mg_syms *mg_syms_open(hpc_diag *d);
void mg_syms_close(mg_syms *s);

/* The load map of process p (module_load records). Never NULL. */
mg_symproc *mg_symproc_open(mg_syms *s, const hpc_proc *p);
void mg_symproc_close(mg_symproc *m);

/* Where pc of this process is. Never fails: unknown code has a name too. */
mg_symloc mg_symproc_resolve(mg_symproc *m, uint64_t pc);

/* Where an OpenMP construct is in the source: its outlined body, the runtime call's
 * return address and clang's source-location string, any of them 0 (model/omp_model.h,
 * hpa_omp_site): the function holding the pragma and the pragma's line. */
mg_symloc mg_symproc_omp_site(mg_symproc *m, uint64_t outlined, uint64_t codeptr, uint64_t psource);

/* The function of pc and the source line of that function's first instruction (its
 * opening line, where DWARF has lines; line 0 otherwise). */
mg_symloc mg_symproc_func_entry(mg_symproc *m, uint64_t pc);

/* Function name ("solve", "libm.so.6+0x1234", "<Unknown>"); never NULL. */
const char *mg_syms_func_name(mg_syms *s, uint32_t func);
/* Module basename of the function, "" for pseudo functions; never NULL. */
const char *mg_syms_func_module(mg_syms *s, uint32_t func);
/* Whether function func, the next frame from the root of a stack walked with state st
 * (zeroed before the walk), is hidden as part of an MPI call (model/mpi_leaf.h: the MPI
 * library below our MPI entry); prev is the last function kept (0: none). */
bool mg_syms_mpi_hides(mg_syms *s, hpa_mpi_leaf *st, uint32_t prev, uint32_t func);
/* OpenMP construct c (enum hpa_omp_construct) named as the language of function func
 * writes it ("#pragma omp for", "!$omp do", "omp for" without debug information), into buf
 * (cap bytes); returns buf (model/omp_model.h, hpa_omp_construct_name). */
const char *mg_syms_omp_name(mg_syms *s, unsigned c, uint32_t func, char *buf, size_t cap);
/* The line id meaning "function func, no line numbers". */
uint32_t mg_syms_func_line(mg_syms *s, uint32_t func);
/* Source file and line of a line id; file "" and *lineno 0 when unknown. */
const char *mg_syms_line_file(mg_syms *s, uint32_t line, uint32_t *lineno);

#endif
