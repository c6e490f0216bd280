/*
 * hpanalyze.c - entry point: options, experiments, the command list, exit status.
 *
 *     hpanalyze [options] EXP [EXP...] COMMAND [ARGS] [COMMAND [ARGS]...]
 *
 * Options may appear anywhere. Arguments up to the first command name are experiments
 * (a name that is also a command is taken as an experiment when it contains '/' or ends
 * in .hpc). Every command is checked before anything is read, so usage errors (exit 2)
 * come before output; unreadable experiments exit 1. stdout is checked for write errors
 * before exit, as perf's run_builtin does.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "view.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hpanalyze [options] EXP [EXP...] COMMAND [ARGS] [COMMAND [ARGS]...]\n"
               "\n"
               "commands:\n");
    hpa_commands_help(f);
    fprintf(f,
            "\n"
            "options:\n"
            "  --format text|csv|json   output form (default text)\n"
            "  --sort METRIC|name       order rows: cpu, samples, excl_cpu, incl_cpu, name ...\n"
            "  --limit N                print at most N rows (0 = all)\n"
            "  --view %s  stack view (default user)\n"
            "  --ranks LIST --threads LIST --cpus LIST   keep these (e.g. 0,2-3)\n"
            "  --time START-END         keep samples in this window (seconds from start)\n"
            "  --samples LIST           keep samples in these sample-point periods\n"
            "  -q                       no warnings about damaged data\n"
            "  -V, --version            print the version\n"
            "  -h, --help               this help\n",
            hpa_view_names());
}

enum {
    OPT_FORMAT = 256,
    OPT_SORT,
    OPT_LIMIT,
    OPT_VIEW,
    OPT_RANKS,
    OPT_THREADS,
    OPT_CPUS,
    OPT_TIME,
    OPT_SAMPLES
};

static const struct option long_opts[] = {
    {"format", required_argument, NULL, OPT_FORMAT},
    {"sort", required_argument, NULL, OPT_SORT},
    {"limit", required_argument, NULL, OPT_LIMIT},
    {"view", required_argument, NULL, OPT_VIEW},
    {"ranks", required_argument, NULL, OPT_RANKS},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"cpus", required_argument, NULL, OPT_CPUS},
    {"time", required_argument, NULL, OPT_TIME},
    {"samples", required_argument, NULL, OPT_SAMPLES},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, 'V'},
    {NULL, 0, NULL, 0},
};

static int bad_value(const char *opt, const char *val, const char *want)
{
    return hpa_usage_error(NULL, "bad value '%s' for --%s (expected %s)", val, opt, want);
}

static int set_ranges(hpa_opts *o, hpa_ranges *r, const char *opt, const char *val)
{
    if (hpa_ranges_parse(r, val))
        return bad_value(opt, val, "a list like 0,2-3");
    o->filter.active = true;
    return 0;
}

/* Parse one option; returns 0, or an exit status. */
static int parse_option(hpa_opts *o, int c, const char *arg, int *quiet)
{
    char *end;
    switch (c) {
    case OPT_FORMAT:
        if (strcmp(arg, "text") == 0)
            o->format = HPA_TEXT;
        else if (strcmp(arg, "csv") == 0)
            o->format = HPA_CSV;
        else if (strcmp(arg, "json") == 0)
            o->format = HPA_JSON;
        else
            return bad_value("format", arg, "text, csv or json");
        return 0;
    case OPT_SORT:
        o->sort = arg;
        return 0;
    case OPT_LIMIT:
        errno = 0;
        o->limit = strtoul(arg, &end, 10);
        if (!*arg || *end || errno || arg[0] == '-')
            return bad_value("limit", arg, "a number of rows");
        return 0;
    case OPT_VIEW:
        o->view = hpa_view_find(arg);
        return o->view ? 0 : bad_value("view", arg, hpa_view_names());
    case OPT_RANKS:
        return set_ranges(o, &o->filter.ranks, "ranks", arg);
    case OPT_THREADS:
        return set_ranges(o, &o->filter.threads, "threads", arg);
    case OPT_CPUS:
        return set_ranges(o, &o->filter.cpus, "cpus", arg);
    case OPT_SAMPLES:
        return set_ranges(o, &o->filter.samples, "samples", arg);
    case OPT_TIME:
        return hpa_filter_set_time(&o->filter, arg) ? bad_value("time", arg, "START-END seconds")
                                                    : 0;
    case 'q':
        *quiet = 1;
        return 0;
    case 'h':
        usage(stdout);
        return -1;
    case 'V':
        printf("hpanalyze %s\n", HPC_VERSION);
        return -1;
    default:
        usage(stderr);
        return HPA_EXIT_USAGE;
    }
}

static bool looks_like_path(const char *a)
{
    size_t n = strlen(a);
    return strchr(a, '/') || (n > 4 && strcmp(a + n - 4, HPC_EXP_SUFFIX) == 0);
}

/* A parsed command: its table entry and its arguments. */
typedef struct job {
    const hpa_command *cmd;
    int argc;
    char **argv;
} job;

/* Split operands into experiments and commands. Returns 0 or an exit status. */
static int split_operands(int n, char **ops, int *nexp, job *jobs, int *njobs)
{
    int i = 0;
    while (i < n && (!hpa_command_find(ops[i]) || looks_like_path(ops[i]))) {
        if (i > 0 && access(ops[i], F_OK) != 0 && !looks_like_path(ops[i]))
            return hpa_usage_error(NULL, "unknown command '%s' (hpanalyze --help lists them)",
                                   ops[i]);
        i++;
    }
    *nexp = i;
    if (i == 0)
        return hpa_usage_error(NULL, "no experiment given (hpanalyze --help)");
    if (i == n)
        return hpa_usage_error(NULL, "no command given after the experiments; try 'functions'");
    *njobs = 0;
    while (i < n) {
        const hpa_command *c = hpa_command_find(ops[i]);
        if (!c)
            return hpa_usage_error(NULL, "unknown command '%s' (hpanalyze --help lists them)",
                                   ops[i]);
        job *j = &jobs[(*njobs)++];
        j->cmd = c;
        j->argv = &ops[++i];
        j->argc = 0;
        while (i < n && j->argc < c->max_args && !hpa_command_find(ops[i])) {
            j->argc++;
            i++;
        }
        if (j->argc < c->min_args)
            return hpa_usage_error(c->name, "missing argument %s", c->args);
    }
    return 0;
}

static int finish_output(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "hpanalyze: write error on standard output: %s\n", strerror(errno));
        return HPA_EXIT_DATA;
    }
    return 0;
}

static int run(hpa_ctx *ctx, char **exps, int nexp, job *jobs, int njobs)
{
    int rc = hpa_profile_open(&ctx->prof, exps, (unsigned)nexp, ctx->diag);
    if (rc < 0) {
        fprintf(stderr, "hpanalyze: cannot read the experiment: %s\n", hpc_strerror(rc));
        return HPA_EXIT_DATA;
    }
    int status = 0;
    for (int i = 0; i < njobs && status == 0; i++) {
        if (i > 0 && ctx->opts.format == HPA_TEXT)
            fputc('\n', ctx->out);
        status = jobs[i].cmd->fn(ctx, jobs[i].argc, jobs[i].argv);
    }
    return status;
}

int main(int argc, char **argv)
{
    hpc_diag diag = {.prog = "hpanalyze"};
    hpa_ctx ctx = {.diag = &diag, .out = stdout};
    ctx.opts.view = hpa_view_default();
    int c, quiet = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "qhV", long_opts, NULL)) != -1) {
        if (c == '?') {
            const char *bad = argv[optind - 1];
            if (optopt)
                return hpa_usage_error(NULL, "unknown option '-%c' (hpanalyze --help)", optopt);
            return hpa_usage_error(NULL, "unknown option or missing value: '%s' (hpanalyze --help)",
                                   bad);
        }
        int rc = parse_option(&ctx.opts, c, optarg, &quiet);
        if (rc)
            return rc < 0 ? finish_output() : rc;
    }
    diag.quiet = quiet;
    int nops = argc - optind, nexp = 0, njobs = 0;
    job *jobs = calloc((size_t)(nops > 0 ? nops : 1), sizeof(*jobs));
    if (!jobs)
        return HPA_EXIT_DATA;
    int status = split_operands(nops, argv + optind, &nexp, jobs, &njobs);
    if (status == 0)
        status = run(&ctx, argv + optind, nexp, jobs, njobs);
    if (ctx.cg_built)
        hpa_callgraph_free(&ctx.cg);
    hpa_profile_close(ctx.prof);
    free(jobs);
    int out = finish_output();
    return status ? status : out;
}
