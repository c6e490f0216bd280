/*
 * report_util.h - small pieces several reports share: selecting and sorting function
 * rows, function names for sorting, the sort key from the options.
 */
#ifndef HPA_REPORT_UTIL_H
#define HPA_REPORT_UTIL_H

#include <stdint.h>

#include "commands.h"
#include "sort.h"

/* What the collector could not record in the profile's processes (experiment/losses.c),
 * where the reader of a profile sees it: text, a line per loss under
 * the report's title ("Note: main: 12 samples not recorded: disk full"); JSON, "not_recorded":
 * [{process, what, count, after_s}] in the report's object. Nothing when nothing was lost. */
void hpa_losses_text(FILE *f, const hpa_profile *p);
void hpa_losses_json(hpa_json *j, const hpa_profile *p);

/* Name of function id (arg is the hpa_symtab). */
const char *hpa_func_name_cb(const void *symtab, uint32_t id);

/* The sort key from --sort, or a usage error message (returns HPA_EXIT_USAGE). */
int hpa_ctx_sortkey(hpa_ctx *ctx, const char *cmd, hpa_sortkey *k);

/* Function ids (not <Total>) with any non-zero inclusive sum, sorted by k and cut to
 * --limit. Returns a malloc'd array and *n, or NULL when out of memory. */
uint32_t *hpa_sorted_funcs(hpa_ctx *ctx, const hpa_callgraph *g, const hpa_sortkey *k, size_t *n);

/* Functions with samples named name into out (room for g->nfuncs): exact matches, else
 * matches without the parameter list ("f" matches "f(int)"). Returns how many. */
size_t hpa_match_funcs(const hpa_callgraph *g, const hpa_symtab *st, const char *name,
                       uint32_t *out);

/* The source file of function f: the file of its lines holding the largest inclusive sum
 * of metric m; "(unknown)" without line numbers. */
const char *hpa_func_source_file(const hpa_profile *p, const hpa_callgraph *g, uint32_t f,
                                 unsigned m);

/* For every function f of g, hot[f] = the id of its line (with a number) holding the
 * largest inclusive sum of metric m, 0 when it has none. hot has room for g->nfuncs. */
void hpa_func_hot_lines(const hpa_profile *p, const hpa_callgraph *g, unsigned m, uint32_t *hot);

/* er_print's name of line id: "f, line 23 in \"x.c\"", "<Function: f, instructions without
 * line numbers>", "<Total>" for id 0. */
void hpa_line_name(const hpa_symtab *st, uint32_t id, char *buf, size_t cap);

/* Where loc is, for people: "main heat.c:132" (the function, its line's file without the
 * directories, the line), the function alone when the line has no number, "<Unknown>"
 * for function 0. */
void hpa_loc_text(const hpa_symtab *st, hpa_loc loc, char *buf, size_t cap);

/* The program's call in a stack of thread t that ends in a call it made: the first frame
 * from the leaf outside the collector's interposers and, when in_callee (the leaf is the
 * called function: a sync wait, a blocking call's off-CPU time), outside the leaf's module
 * (the threads library, the OpenMP runtime, libc); else (the leaf is the caller: heap and
 * I/O calls) the first frame outside the collector. A stack all in those: its leaf. Node
 * 0 or unknown: func 0. */
hpa_loc hpa_call_site(const hpa_profile *p, const hpa_process *pr, const hpa_thread *t,
                      uint64_t node, bool in_callee);

/* The name of an hpc_sync_kind: "mutex", "condition variable" ..., "unknown". */
const char *hpa_sync_kind_name(unsigned kind);

/* True if any of the nm values is non-zero. */
static inline int hpa_any(const uint64_t *v, unsigned nm)
{
    for (unsigned i = 0; i < nm; i++)
        if (v[i])
            return 1;
    return 0;
}

#endif
