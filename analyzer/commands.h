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
/* --compare: how reports put several experiments side by side. */
enum hpa_compare { HPA_COMPARE_OFF = 0, HPA_COMPARE_ON, HPA_COMPARE_DELTA, HPA_COMPARE_RATIO };

typedef struct hpa_opts {
    enum hpa_format format;
    const char *sort;    /* --sort METRIC|name; NULL = exclusive of the first visible metric */
    unsigned long limit; /* --limit N; 0 = no limit */
    const char *metrics; /* --metrics LIST, applied when samples are loaded; NULL = default */
    const struct hpa_view *view;
    hpa_filter filter;
    enum hpa_compare compare; /* several experiments: aggregate (off) or side by side */
    const char *output;       /* -o FILE before any `export`: where exports go (NULL = stdout) */
} hpa_opts;

typedef struct hpa_ctx {
    hpa_opts opts;
    hpa_profile *prof; /* opened experiments */
    hpc_diag *diag;
    FILE *out;
    bool loaded;
    hpa_callgraph cg; /* built on first use by hpa_ctx_callgraph */
    bool cg_built;
    hpa_calltree ct; /* built on first use by hpa_ctx_calltree */
    bool ct_built;
    unsigned fold; /* HPA_FOLDS_* of every command of the run when all fold (hpa_ctx_plan) */
    hpa_callgraph *cmp_cg; /* --compare: one call graph per experiment (hpa_ctx_compare_graphs) */
    unsigned ncmp;
    bool shared_stdout; /* stdout holds other commands' results too (a JSON array) */
    char sort_buf[128]; /* storage for a `sort` command's key */
    int export_metric;  /* `export ... --metric KEY`: the metric exported, -1 = the sort's */
} hpa_ctx;

/* The profile with samples loaded (filters applied), or NULL after an error message. */
hpa_profile *hpa_ctx_profile(hpa_ctx *ctx);
/* The profile for reports that read no samples (hpa_profile_prepare: the kept processes
 * with their module maps), or NULL after an error message. Samples are not read: a job
 * of many ranks holds its slim processes only. */
hpa_profile *hpa_ctx_processes(hpa_ctx *ctx);
/* Load the profile and apply --metrics when it is given. Returns 0 or an exit status
 * after a message (a bad metric list is a usage error). */
int hpa_ctx_check_metrics(hpa_ctx *ctx);
/* The call graph of the loaded profile in the selected view, or NULL after an error. */
const hpa_callgraph *hpa_ctx_callgraph(hpa_ctx *ctx);
/* The function-level call tree in the selected view, or NULL after an error. */
const hpa_calltree *hpa_ctx_calltree(hpa_ctx *ctx);
/*
 * Before the first command: when every command of the run (jobs, not interactive, no
 * --compare) reads nothing of the samples but the call graph or the call tree (its
 * command's `folds`), the profile is loaded folding each process into them as it is read
 * (hpa_profile_load_folded): memory then grows with the distinct functions and paths, not
 * with the ranks.
 */
struct hpa_jobs;
void hpa_ctx_plan(hpa_ctx *ctx, const struct hpa_jobs *jobs, bool interactive);

/* --compare: the call graph of each experiment (ctx->prof->nexps of them), or NULL after
 * an error message. */
const hpa_callgraph *hpa_ctx_compare_graphs(hpa_ctx *ctx);
/* Free what the context built (call graphs). */
void hpa_ctx_free(hpa_ctx *ctx);

/* Print a usage error "hpanalyze: COMMAND: message" to stderr; returns HPA_EXIT_USAGE. */
int hpa_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef int (*hpa_cmd_fn)(hpa_ctx *ctx, int argc, char **argv);

typedef struct hpa_command {
    const char *name;
    hpa_cmd_fn fn;
    int min_args, max_args;
    const char *args; /* "FUNC", "" */
    const char *help;
    unsigned folds;            /* what it reads of the samples when that is only sums over paths: */
#define HPA_FOLDS_CALLGRAPH 1u /* hpa_ctx_callgraph (functions, lines) */
#define HPA_FOLDS_CALLTREE  2u /* hpa_ctx_calltree */
} hpa_command;

/* The command named name, or NULL. */
const hpa_command *hpa_command_find(const char *name);
/* Print the table for --help. */
void hpa_commands_help(FILE *f);

int cmd_functions(hpa_ctx *ctx, int argc, char **argv);
int cmd_fsummary(hpa_ctx *ctx, int argc, char **argv);
int cmd_source(hpa_ctx *ctx, int argc, char **argv);
int cmd_pcs(hpa_ctx *ctx, int argc, char **argv);
int cmd_disasm(hpa_ctx *ctx, int argc, char **argv);
int cmd_csingle(hpa_ctx *ctx, int argc, char **argv);
int cmd_metrics(hpa_ctx *ctx, int argc, char **argv);
int cmd_sort(hpa_ctx *ctx, int argc, char **argv);
int cmd_limit(hpa_ctx *ctx, int argc, char **argv);
int cmd_overview(hpa_ctx *ctx, int argc, char **argv);
int cmd_experiment_list(hpa_ctx *ctx, int argc, char **argv);
int cmd_callers_callees(hpa_ctx *ctx, int argc, char **argv);
int cmd_calltree(hpa_ctx *ctx, int argc, char **argv);
int cmd_lines(hpa_ctx *ctx, int argc, char **argv);
int cmd_header(hpa_ctx *ctx, int argc, char **argv);
int cmd_statistics(hpa_ctx *ctx, int argc, char **argv);
int cmd_archive(hpa_ctx *ctx, int argc, char **argv);
int cmd_dump(hpa_ctx *ctx, int argc, char **argv);
int cmd_syncs(hpa_ctx *ctx, int argc, char **argv);
int cmd_mpi(hpa_ctx *ctx, int argc, char **argv);
int cmd_ioactivity(hpa_ctx *ctx, int argc, char **argv);
int cmd_iodetail(hpa_ctx *ctx, int argc, char **argv);
int cmd_iocallstack(hpa_ctx *ctx, int argc, char **argv);
int cmd_omp(hpa_ctx *ctx, int argc, char **argv);
int cmd_leaks(hpa_ctx *ctx, int argc, char **argv);
int cmd_allocs(hpa_ctx *ctx, int argc, char **argv);
int cmd_heap(hpa_ctx *ctx, int argc, char **argv);
int cmd_export(hpa_ctx *ctx, int argc, char **argv);

#endif
