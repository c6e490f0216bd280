/*
 * commands.h - hpanalyze's command table and what every command gets.
 *
 * A command is one er_print command name mapped to a function in cmd_<name>.c
 * (commands.c holds the table, as perf's perf.c holds commands[]). A command returns
 * HPA_EXIT_OK, HPA_EXIT_DATA (unreadable data) or HPA_EXIT_USAGE (bad argument); it writes
 * its report to ctx->out in ctx->opts.format and loads samples with hpa_ctx_profile() only
 * if it needs them (header, statistics and dump do not).
 *
 * Adding a report: write cmd_<name>.c with `int cmd_<name>(hpa_ctx *, int, char **)`,
 * declare it below and add a row to the table in commands.c.
 */
#ifndef HPA_COMMANDS_H
#define HPA_COMMANDS_H

#include <stdbool.h>
#include <stdio.h>

#include "callgraph.h"
#include "filter.h"
#include "output.h"
#include "profile.h"

enum { HPA_EXIT_OK = 0, HPA_EXIT_DATA = 1, HPA_EXIT_USAGE = 2 };

struct hpa_view;

/* Options common to all reports (er_print's sort, limit ... are options here). */
typedef struct hpa_opts {
    enum hpa_format format;
    const char *sort;    /* --sort METRIC|name; NULL = exclusive of the first visible metric */
    unsigned long limit; /* --limit N; 0 = no limit */
    const struct hpa_view *view;
    hpa_filter filter;
} hpa_opts;

typedef struct hpa_ctx {
    hpa_opts opts;
    hpa_profile *prof; /* opened experiments */
    hpc_diag *diag;
    FILE *out;
    bool loaded;
    hpa_callgraph cg; /* built on first use by hpa_ctx_callgraph */
    bool cg_built;
} hpa_ctx;

/* The profile with samples loaded (filters applied), or NULL after an error message. */
hpa_profile *hpa_ctx_profile(hpa_ctx *ctx);
/* The call graph of the loaded profile in the selected view, or NULL after an error. */
const hpa_callgraph *hpa_ctx_callgraph(hpa_ctx *ctx);

/* Print a usage error "hpanalyze: COMMAND: message" to stderr; returns HPA_EXIT_USAGE. */
int hpa_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef int (*hpa_cmd_fn)(hpa_ctx *ctx, int argc, char **argv);

typedef struct hpa_command {
    const char *name;
    hpa_cmd_fn fn;
    int min_args, max_args;
    const char *args; /* "FUNC", "" */
    const char *help;
} hpa_command;

/* The command named name, or NULL. */
const hpa_command *hpa_command_find(const char *name);
/* Print the table for --help. */
void hpa_commands_help(FILE *f);

int cmd_functions(hpa_ctx *ctx, int argc, char **argv);
int cmd_callers_callees(hpa_ctx *ctx, int argc, char **argv);
int cmd_calltree(hpa_ctx *ctx, int argc, char **argv);
int cmd_lines(hpa_ctx *ctx, int argc, char **argv);
int cmd_header(hpa_ctx *ctx, int argc, char **argv);
int cmd_statistics(hpa_ctx *ctx, int argc, char **argv);
int cmd_dump(hpa_ctx *ctx, int argc, char **argv);
int cmd_mpi(hpa_ctx *ctx, int argc, char **argv);
int cmd_omp(hpa_ctx *ctx, int argc, char **argv);

#endif
