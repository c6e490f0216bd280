/*
 * run.h - one merge, from experiment to outputs, on every merge rank.
 *
 * Outputs are built in EXP/.hpmerge-PID.tmp/ and moved into place only when complete:
 * the new otf2/ directory is swapped with the old one atomically (renameat2
 * RENAME_EXCHANGE; a plain rename when there was none), then summary.txt and
 * summary.json are renamed over the old ones. A merge that is interrupted or killed
 * leaves the previous outputs as they were; its temporary directory is removed by the
 * next merge of the same experiment.
 */
#ifndef MG_RUN_H
#define MG_RUN_H

#include <stdbool.h>
#include <stddef.h>

#include "parallel.h"

typedef struct mg_opts {
    const char *exp;
    bool quiet;               /* no "wrote ..." line */
    int progress;             /* -1 = when stderr is a terminal, 0 = never, 1 = always */
    size_t side_budget;       /* events sorted in memory per location before spilling */
    unsigned top;             /* functions in the summary */
    unsigned long kill_after; /* test hook: SIGKILL ourselves after N locations (0 = off) */
    unsigned long stop_after; /* test hook: SIGINT ourselves after N locations (0 = off) */
    size_t cc_limit;          /* sampled calling contexts per location (MG_MAX_SAMPLED_CCS) */
    size_t piece_bytes;       /* a part's pieces hold about this many bytes (MG_PART_PIECE) */
    bool stats;               /* print merge statistics (speed, memory) to stderr */
    bool enter_leave;         /* plain Enter/Leave instead of calling contexts (evwrite.h) */
} mg_opts;

/* Exit codes. */
enum { MG_EXIT_OK = 0, MG_EXIT_FAIL = 1, MG_EXIT_USAGE = 2, MG_EXIT_INTERRUPTED = 130 };

/* Run the merge. Collective. Returns an exit code. */
int mg_run(const mg_opts *opts, mg_par *par);

/* Set by SIGINT/SIGTERM/SIGHUP; the merge stops at the next check and cleans up. */
extern volatile int mg_interrupted;

#endif
