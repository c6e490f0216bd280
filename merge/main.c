/*
 * main.c - hpmerge: a job experiment into one OTF2 archive and a summary.
 *
 *     hpmerge [options] EXP                 serial
 *     mpirun -np K hpmerge [options] EXP    K merge ranks, the same outputs
 *
 * Writes EXP/otf2/traces.otf2 (with traces.def and traces/), EXP/summary.txt and
 * EXP/summary.json, replacing earlier ones only when the new ones are complete.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "merge.h"
#include "defs.h"
#include "part.h"
#include "run.h"

static void usage(FILE *f)
{
    fprintf(f,
            "Usage: hpmerge [options] EXP\n"
            "       mpirun -np K hpmerge [options] EXP\n"
            "Merge a job experiment (EXP, made by hpcollect) into one OTF2 trace,\n"
            "EXP/otf2/traces.otf2, and a summary, EXP/summary.txt and EXP/summary.json.\n"
            "\n"
            "Options:\n"
            "  -q, --quiet          do not report what was written\n"
            "      --progress       show progress on stderr (default: when it is a terminal)\n"
            "      --no-progress    never show progress\n"
            "      --top N          functions (and I/O files) listed in the summary (default 20)\n"
            "      --sort-memory N  events per location sorted in memory before a temporary\n"
            "                       file is used (default 65536)\n"
            "      --stats          print merge speed and peak memory on stderr\n"
            "      --enter-leave    write plain Enter/Leave records: MPI calls, OpenMP\n"
            "                       constructs and the sampled functions (entered at the\n"
            "                       first sample whose stack holds them, left at the first\n"
            "                       event whose stack does not), for readers that take no\n"
            "                       calling contexts; no CallingContextSample records\n"
            "  -V, --version        print the version\n"
            "  -h, --help           print this help\n"
            "\n"
            "Exit status: 0 merged (problems with the data are listed in the summary and on\n"
            "stderr), 1 nothing could be merged, 2 usage error, 130 interrupted.\n");
}

static bool parse_count(const char *s, unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end || s[0] == '-')
        return false;
    *out = v;
    return true;
}

static void on_signal(int sig)
{
    (void)sig;
    mg_interrupted = 1;
}

int main(int argc, char **argv)
{
    mg_par par;
    mg_par_init(&par, &argc, &argv);
    mg_opts opts = {.progress = -1, .top = 20};
    enum { O_PROGRESS = 256, O_NO_PROGRESS, O_TOP, O_SORT_MEMORY, O_STATS, O_ENTER_LEAVE };
    static const struct option longopts[] = {
        {"quiet", no_argument, NULL, 'q'},
        {"progress", no_argument, NULL, O_PROGRESS},
        {"no-progress", no_argument, NULL, O_NO_PROGRESS},
        {"top", required_argument, NULL, O_TOP},
        {"sort-memory", required_argument, NULL, O_SORT_MEMORY},
        {"stats", no_argument, NULL, O_STATS},
        {"enter-leave", no_argument, NULL, O_ENTER_LEAVE},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int c;
    unsigned long v;
    while ((c = getopt_long(argc, argv, "qVh", longopts, NULL)) != -1) {
        switch (c) {
        case 'q':
            opts.quiet = true;
            break;
        case O_PROGRESS:
            opts.progress = 1;
            break;
        case O_NO_PROGRESS:
            opts.progress = 0;
            break;
        case O_STATS:
            opts.stats = true;
            break;
        case O_ENTER_LEAVE:
            opts.enter_leave = true;
            break;
        case O_TOP:
            if (!parse_count(optarg, &v) || v > 100000) {
                fprintf(stderr, "%s: --top %s: expected a number of functions (0-100000)\n",
                        MG_PROG, optarg);
                mg_par_abort(&par, MG_EXIT_USAGE);
            }
            opts.top = (unsigned)v;
            break;
        case O_SORT_MEMORY:
            if (!parse_count(optarg, &v) || v < 16 || v > (1ul << 30)) {
                fprintf(stderr, "%s: --sort-memory %s: expected a number of events (16-%lu)\n",
                        MG_PROG, optarg, 1ul << 30);
                mg_par_abort(&par, MG_EXIT_USAGE);
            }
            opts.side_budget = v;
            break;
        case 'V':
            if (par.rank == 0)
                printf("hpmerge %s\n", HPC_VERSION);
            mg_par_finalize(&par);
            return 0;
        case 'h':
            if (par.rank == 0)
                usage(stdout);
            mg_par_finalize(&par);
            return 0;
        default:
            if (par.rank == 0)
                usage(stderr);
            mg_par_abort(&par, MG_EXIT_USAGE);
        }
    }
    if (optind + 1 != argc) {
        if (par.rank == 0) {
            fprintf(stderr, "%s: %s\n", MG_PROG,
                    optind == argc ? "no experiment given" : "give exactly one experiment");
            usage(stderr);
        }
        mg_par_abort(&par, MG_EXIT_USAGE);
    }
    opts.exp = argv[optind];
    struct stat st;
    if (stat(opts.exp, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (par.rank == 0)
            fprintf(stderr, "%s: %s: %s\n", MG_PROG, opts.exp,
                    errno == ENOENT ? "no such experiment directory"
                    : S_ISDIR(st.st_mode)
                        ? strerror(errno)
                        : "not a directory (give the experiment, e.g. prog.1.hpc)");
        mg_par_abort(&par, MG_EXIT_FAIL);
    }
    /* Test hooks (tests/merge/test_interrupted.sh): HPMERGE_TEST_KILL_AFTER=N kills the
     * merge with SIGKILL after N locations, as the OOM killer would;
     * HPMERGE_TEST_STOP_AFTER=N sends it SIGINT, as Ctrl-C would. */
    const char *hook = getenv("HPMERGE_TEST_KILL_AFTER");
    if (hook && !parse_count(hook, &opts.kill_after))
        opts.kill_after = 0;
    hook = getenv("HPMERGE_TEST_STOP_AFTER");
    if (hook && !parse_count(hook, &opts.stop_after))
        opts.stop_after = 0;
    /* HPMERGE_TEST_MAX_CONTEXTS=N lowers the sampled calling contexts one location keeps
     * (defs.h), so tests reach the cut with small experiments */
    opts.cc_limit = MG_MAX_SAMPLED_CCS;
    hook = getenv("HPMERGE_TEST_MAX_CONTEXTS");
    if (hook && (!parse_count(hook, &v) || v < 1 || v > MG_MAX_SAMPLED_CCS))
        v = MG_MAX_SAMPLED_CCS;
    if (hook)
        opts.cc_limit = v;
    /* HPMERGE_TEST_PIECE_BYTES=N: a part's pieces of about N bytes (part.h), so that tests
     * send parts in many pieces with small experiments */
    opts.piece_bytes = MG_PART_PIECE;
    hook = getenv("HPMERGE_TEST_PIECE_BYTES");
    if (hook && parse_count(hook, &v) && v >= 1)
        opts.piece_bytes = v;
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    int rc = mg_run(&opts, &par);
    if (rc == MG_EXIT_INTERRUPTED && par.rank == 0)
        fprintf(stderr, "%s: interrupted; the previous outputs of %s are unchanged\n", MG_PROG,
                opts.exp);
    if (fflush(stdout) != 0 && rc == 0) {
        fprintf(stderr, "%s: writing to stdout failed: %s\n", MG_PROG, strerror(errno));
        rc = MG_EXIT_FAIL;
    }
    if (rc != 0 && par.mpi && par.size > 1 && rc != MG_EXIT_INTERRUPTED)
        mg_par_abort(&par, rc);
    mg_par_finalize(&par);
    return rc;
}
