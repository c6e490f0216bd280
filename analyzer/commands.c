/*
 * commands.c - the command table: er_print command name -> function, arguments, help.
 */
#include "commands.h"

#include <stdarg.h>
#include <string.h>

static const hpa_command commands[] = {
    {"functions", cmd_functions, 0, 0, "", "functions and their metrics (--sort, --limit)",
     HPA_FOLDS_CALLGRAPH},
    {"fsummary", cmd_fsummary, 0, 0, "",
     "a summary block per function: metrics, size, address, files", 0},
    {"callers-callees", cmd_callers_callees, 0, 1, "[FUNC]",
     "callers above, FUNC marked with *, callees below (all functions without FUNC)",
     HPA_FOLDS_CALLGRAPH},
    {"csingle", cmd_csingle, 1, 1, "FUNC", "callers, the function and its callees, in sections", 0},
    {"calltree", cmd_calltree, 0, 0, "", "the function-level call tree", HPA_FOLDS_CALLTREE},
    {"lines", cmd_lines, 0, 0, "", "source lines and their metrics", HPA_FOLDS_CALLGRAPH},
    {"source", cmd_source, 1, 1, "FILE|FUNC",
     "annotated source: metrics per line, hot lines marked", 0},
    {"pcs", cmd_pcs, 0, 0, "", "program counters and their metrics", 0},
    {"disasm", cmd_disasm, 1, 1, "FUNC", "annotated disassembly of FUNC (objdump)", 0},
    {"metrics", cmd_metrics, 0, 1, "[LIST]",
     "select columns (e.%cpu:i.%cpu) for what follows; list the metrics", 0},
    {"sort", cmd_sort, 1, 1, "KEY", "sort what follows by KEY (name, e.cpu, i.cpu ...)", 0},
    {"limit", cmd_limit, 1, 1, "N", "print at most N rows in what follows (0 = all)", 0},
    {"overview", cmd_overview, 0, 0, "", "experiments, metric totals, sample periods", 0},
    {"experiment_list", cmd_experiment_list, 0, 0, "", "experiments and their processes", 0},
    {"export", cmd_export, 1, 5, "KIND [-o FILE] [--metric KEY]",
     "flamegraph (SVG), folded (stacks), chrome (trace JSON), html (report), of a metric", 0},
    {"header", cmd_header, 0, 0, "", "what was run, where, when and how", 0},
    {"statistics", cmd_statistics, 0, 0, "",
     "samples recorded and lost, collector statistics, sampled vs. OS CPU time and states", 0},
    {"dump", cmd_dump, 0, 0, "", "every record of every file", 0},
    {"archive", cmd_archive, 0, 1, "[MODE]",
     "copy load objects (and sources) into the experiment, as hpcollect-archive", 0},
    {"mpi", cmd_mpi, 0, 5, "[ranks|calls|sites|sizes|collectives]...",
     "MPI time per rank, time and bytes by call and call site, message sizes", 0},
    {"ioactivity", cmd_ioactivity, 0, 0, "",
     "I/O per file (-i): time, bytes, calls, access sizes, sequential share, processes", 0},
    {"iodetail", cmd_iodetail, 0, 1, "[FILE]", "I/O per handle (open, dup, fopen) of FILE or all",
     0},
    {"iocallstack", cmd_iocallstack, 0, 0, "",
     "I/O per distinct call stack (-i), as er_print's I/O call stacks", 0},
    {"syncs", cmd_syncs, 0, 0, "",
     "synchronization objects waited for (-s): waits, time, call sites, holders", 0},
    {"omp", cmd_omp, 0, 1, "[regions|threads]",
     "OpenMP parallel regions and threads: work, wait by kind, imbalance", 0},
    {"leaks", cmd_leaks, 0, 0, "",
     "heap tracing (-H): distinct leaks with stacks, instances, bytes", 0},
    {"allocs", cmd_allocs, 0, 0, "", "heap tracing (-H): allocation sites by bytes and count", 0},
    {"heap", cmd_heap, 0, 0, "",
     "heap tracing (-H): peak in use and who held it, temporaries, in use over time", 0},
};

const hpa_command *hpa_command_find(const char *name)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

void hpa_commands_help(FILE *f)
{
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
        char left[64];
        snprintf(left, sizeof(left), "%s %s", commands[i].name, commands[i].args);
        fprintf(f, "  %-26s %s\n", left, commands[i].help);
    }
}

int hpa_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "hpanalyze: %s%s", cmd ? cmd : "", cmd ? ": " : "");
    vfprintf(stderr, fmt, ap);
    fputs("\n", stderr);
    va_end(ap);
    return HPA_EXIT_USAGE;
}
