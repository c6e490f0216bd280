/*
 * options.h - hpcollect's command-line options: one table (options.c), one parser.
 *
 * Adding an option is one entry in the table plus, if it needs a value, one parse
 * function that stores it in struct hpc_opts; launch.c turns hpc_opts into HPCOLLECT_*
 * variables (collector/config.h).
 */
#ifndef HPC_LAUNCHER_OPTIONS_H
#define HPC_LAUNCHER_OPTIONS_H

#include <stdint.h>

#include "counter_opts.h"
#include "experiment.h"

#define HPC_MAX_COMMENTS 10 /* -C, as gprofng's collect */

typedef struct hpc_opts {
    const char *name;         /* -o/-O, NULL = default "<prog>.<N>.hpc" */
    int overwrite;            /* -O */
    const char *dir;          /* -d, NULL = current directory */
    uint64_t clock_ns;        /* -p, 0 = off */
    int follow;               /* -F */
    const char *follow_regex; /* -F =REGEX, NULL = all (or none) */
    uint64_t limit_bytes;     /* -L, 0 = none */
    uint64_t tstart_ns;       /* -t */
    uint64_t tend_ns;         /* 0 = none */
    int mpi_trace;            /* -m */
    int heap_trace;           /* -H */
    int sync;                 /* -s: 0 off, 1 on (calibrated), 2 threshold sync_ns */
    uint64_t sync_ns;
    const char *omp_runtime; /* --omp-runtime */
    int ncounters;           /* -h */
    hpc_counter_def counters[HPC_MAX_COUNTERS];
    int list_counters;                          /* -h list */
    uint64_t sample_ns;                         /* -S, 0 = off */
    int sample_sig;                             /* -l, 0 = none */
    int pause_sig;                              /* -y, 0 = none */
    int start_paused;                           /* -y SIG,r */
    unsigned archive;                           /* -a: enum hpc_archive_mode */
    const char *comments[HPC_MAX_COMMENTS + 1]; /* -C, NULL-terminated */
    int ncomments;
    int dry_run;  /* -n */
    int io_trace; /* -i */
    int quiet;    /* -q */
    int version;  /* -V */
    int help;     /* --help */
    char **argv;  /* the program and its arguments, NULL-terminated */
} hpc_opts;

/*
 * Parse argv into o (defaults first). On a bad option or value prints
 * "hpcollect: OPTION: what is wrong" to stderr and returns -1; else 0. Parsing stops at
 * "--" or the first argument that is not an option (the program).
 */
int hpc_opts_parse(hpc_opts *o, int argc, char **argv);

/* Print the usage text, generated from the table, to stdout. */
void hpc_opts_usage(void);

#endif
