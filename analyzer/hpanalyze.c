/*
 * hpanalyze.c - entry point: options, experiments, the command list, exit status.
 *
 *     hpanalyze [options] EXP [EXP...] COMMAND [ARGS] [COMMAND [ARGS]...]
 *
 * Options may appear anywhere. Arguments up to the first command name are experiments
 * (a name that is also a command is taken as an experiment when it contains '/' or ends
 * in .hpc). As er_print does, commands may also come as `-COMMAND [ARGS]` options, from
 * `-script FILE` (jobs.h) and from standard input (`-`, or when no command is given;
 * with a prompt when stdin is a terminal). They run in this order: -COMMAND and -script
 * commands as they appear, the commands after the experiments, then stdin's.
 *
 * Every command is checked before anything is read, so usage errors (exit 2) come before
 * output; unreadable experiments exit 1. With --format json, several commands print one
 * JSON array holding each command's document in order. stdout is checked for write errors
 * before exit, as perf's run_builtin does.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "jobs.h"
#include "view.h"

static void usage(FILE *f)
{
    fprintf(f, "usage: hpanalyze [options] EXP [EXP...] COMMAND [ARGS] [COMMAND [ARGS]...]\n"
               "       hpanalyze [options] [-script FILE] [-COMMAND [ARGS]] EXP [EXP...]\n"
               "                 (no command: commands are read from standard input)\n"
               "\n"
               "commands:\n");
    hpa_commands_help(f);
    fprintf(
        f,
        "\n"
        "options:\n"
        "  --format text|csv|json   output form (default text)\n"
        "  --sort METRIC|name       order rows: cpu, samples, excl_cpu, incl_cpu, name ...\n"
        "  --limit N                print at most N rows (0 = all)\n"
        "  --metrics LIST           columns, er_print style: e.%%cpu:i.%%cpu (`metrics` lists)\n"
        "  --compare on|delta|ratio several experiments side by side instead of summed\n"
        "  -script FILE             run the commands in FILE (one per line)\n"
        "  -o, --output FILE        where exports go (also `export KIND -o FILE`)\n"
        "  --view %s  stack view (default user)\n"
        "  --ranks LIST --threads LIST --cpus LIST   keep these (e.g. 0,2-3)\n"
        "  --time START-END         keep samples in this window (seconds from start)\n"
        "  --samples LIST           keep these sample periods: numbers, ranges or labels\n"
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
    OPT_SAMPLES,
    OPT_METRICS,
    OPT_COMPARE,
    OPT_OUTPUT
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
    {"metrics", required_argument, NULL, OPT_METRICS},
    {"compare", required_argument, NULL, OPT_COMPARE},
    {"output", required_argument, NULL, OPT_OUTPUT},
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
        if (hpa_filter_set_samples(&o->filter, arg))
            return bad_value("samples", arg, "numbers, ranges or labels like 1,3-5,phase2");
        return 0;
    case OPT_METRICS:
        o->metrics = arg;
        return 0;
    case OPT_COMPARE:
        if (strcmp(arg, "on") == 0)
            o->compare = HPA_COMPARE_ON;
        else if (strcmp(arg, "delta") == 0)
            o->compare = HPA_COMPARE_DELTA;
        else if (strcmp(arg, "ratio") == 0)
            o->compare = HPA_COMPARE_RATIO;
        else if (strcmp(arg, "off") == 0)
            o->compare = HPA_COMPARE_OFF;
        else
            return bad_value("compare", arg, "on, delta, ratio or off");
        return 0;
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

/* Split operands into experiments and commands. Returns 0 or an exit status. */
static int split_operands(int n, char **ops, int *nexp, hpa_jobs *jobs)
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
    while (i < n) {
        const hpa_command *c = hpa_command_find(ops[i]);
        if (!c)
            return hpa_usage_error(NULL, "unknown command '%s' (hpanalyze --help lists them)",
                                   ops[i]);
        char **argv = &ops[++i];
        int argc = 0;
        while (i < n && argc < c->max_args && !hpa_command_find(ops[i])) {
            argc++;
            i++;
        }
        int rc = hpa_jobs_add(jobs, c->name, argc, argv, NULL);
        if (rc)
            return rc;
    }
    return 0;
}

/* What the command line asks besides options and operands (er_print's forms). */
typedef struct early {
    hpa_jobs jobs;     /* -COMMAND and -script commands, in order */
    bool stdin_cmds;   /* "-": read commands from stdin */
    bool any_commands; /* commands anywhere on the command line */
} early;

/* True if a may be the optional argument of a -COMMAND (not an option, not an experiment). */
static bool optional_arg(const char *a)
{
    return a[0] != '-' && !looks_like_path(a) && access(a, F_OK) != 0;
}

/*
 * Take er_print's forms out of argv before getopt sees them: "-script FILE" (also
 * "--script FILE"), "-" and "-COMMAND [ARGS]". Returns 0 or an exit status; *argc shrinks.
 */
static int take_er_print_forms(int *argc, char **argv, early *e)
{
    int out = 1;
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) { /* the rest are operands */
            while (i < *argc)
                argv[out++] = argv[i++];
            break;
        }
        if (strcmp(a, "-script") == 0 || strcmp(a, "--script") == 0 ||
            strncmp(a, "--script=", 9) == 0) {
            const char *file = a[8] == '=' ? a + 9 : (i + 1 < *argc ? argv[++i] : NULL);
            if (!file)
                return hpa_usage_error(NULL, "-script needs a file name");
            FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
            if (!f)
                return hpa_usage_error(NULL, "cannot read script '%s': %s", file, strerror(errno));
            int rc = hpa_jobs_add_file(&e->jobs, f, file);
            if (f != stdin)
                fclose(f);
            if (rc)
                return rc;
            e->any_commands = true;
            continue;
        }
        if (strcmp(a, "-") == 0) {
            e->stdin_cmds = true;
            continue;
        }
        const hpa_command *c = a[0] == '-' && a[1] != '-' ? hpa_command_find(a + 1) : NULL;
        if (c) {
            int start = ++i, nargs = 0;
            while (i < *argc && nargs < c->min_args)
                nargs++, i++;
            while (i < *argc && nargs < c->max_args && optional_arg(argv[i]))
                nargs++, i++;
            /* argv is compacted below: the job keeps a copy of its arguments */
            int rc = hpa_jobs_add_copy(&e->jobs, c->name, nargs, &argv[start]);
            if (rc)
                return rc;
            e->any_commands = true;
            i--;
            continue;
        }
        argv[out++] = argv[i];
    }
    *argc = out;
    argv[out] = NULL;
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

/* Reports that sum the experiments although --compare asks for them side by side. */
static bool sums_experiments(const char *cmd)
{
    static const char *const summing[] = {
        "fsummary", "callers-callees", "csingle", "calltree", "source", "pcs", "disasm", "export"};
    for (size_t i = 0; i < sizeof(summing) / sizeof(summing[0]); i++)
        if (strcmp(cmd, summing[i]) == 0)
            return true;
    return false;
}

/* Run jobs in order; with --format json and several of them, inside one JSON array. */
static int run_jobs(hpa_ctx *ctx, const hpa_jobs *jobs)
{
    bool array = ctx->opts.format == HPA_JSON && jobs->n > 1;
    ctx->shared_stdout = jobs->n > 1;
    if (array)
        fputs("[\n", ctx->out);
    int status = 0;
    for (size_t i = 0; i < jobs->n && status == 0; i++) {
        if (i > 0 && ctx->opts.format == HPA_TEXT)
            fputc('\n', ctx->out);
        if (i > 0 && array)
            fputs(",\n", ctx->out);
        const char *name = jobs->v[i].cmd->name;
        if (ctx->opts.compare && sums_experiments(name))
            fprintf(stderr,
                    "hpanalyze: %s: --compare applies to functions and lines; %s shows "
                    "the experiments summed\n",
                    name, name);
        status = jobs->v[i].cmd->fn(ctx, jobs->v[i].argc, jobs->v[i].argv);
    }
    if (array && status == 0)
        fputs("]\n", ctx->out);
    return status;
}

/* Commands typed at a terminal: each runs when its line is read; errors do not end it. */
static int run_interactive(hpa_ctx *ctx)
{
    char *line = NULL;
    size_t cap = 0;
    int status = 0;
    for (;;) {
        fputs("(hpanalyze) ", stdout);
        fflush(stdout);
        if (getline(&line, &cap, stdin) < 0)
            break;
        hpa_jobs one = {0};
        int rc = hpa_jobs_add_line(&one, line, "stdin");
        if (rc == 1) {
            hpa_jobs_free(&one);
            break;
        }
        if (rc == 0 && one.n)
            status = run_jobs(ctx, &one);
        hpa_jobs_free(&one);
        fflush(stdout);
    }
    free(line);
    fputc('\n', stdout);
    return status;
}

static int open_experiments(hpa_ctx *ctx, char **exps, int nexp)
{
    unsigned reported = ctx->diag->errors;
    int rc = hpa_profile_open(&ctx->prof, exps, (unsigned)nexp, ctx->diag);
    if (rc < 0) {
        if (ctx->diag->errors == reported) /* hpc_exp_open's failures say why themselves */
            fprintf(stderr, "hpanalyze: cannot read the experiment: %s\n", hpc_strerror(rc));
        return HPA_EXIT_DATA;
    }
    for (unsigned i = 0; i < ctx->prof->nexps; i++)
        if (ctx->prof->exps[i]->nprocs == 0) { /* an empty report would look like a result */
            fprintf(stderr,
                    "hpanalyze: %s: no process of this experiment can be read (none was "
                    "recorded, or each is damaged as said above); nothing to report\n",
                    exps[i]);
            return HPA_EXIT_DATA;
        }
    return 0;
}

/* Everything after option parsing. Returns the exit status. */
static int run(hpa_ctx *ctx, int nops, char **ops, early *e)
{
    int nexp = 0;
    int status = split_operands(nops, ops, &nexp, &e->jobs);
    if (status)
        return status;
    bool interactive = false;
    if (e->stdin_cmds || e->jobs.n == 0) {
        interactive = isatty(STDIN_FILENO);
        if (!interactive && (status = hpa_jobs_add_file(&e->jobs, stdin, "stdin")))
            return status;
        if (!interactive && e->jobs.n == 0)
            return hpa_usage_error(NULL, "no command given after the experiments (none on "
                                         "standard input either); try 'functions'");
    }
    if (ctx->opts.compare && nexp < 2)
        return hpa_usage_error(NULL, "--compare needs two or more experiments");
    hpa_ctx_plan(ctx, &e->jobs, interactive);
    if ((status = open_experiments(ctx, ops, nexp)) || (status = hpa_ctx_check_metrics(ctx)))
        return status;
    status = run_jobs(ctx, &e->jobs);
    if (status == 0 && interactive)
        status = run_interactive(ctx);
    return status;
}

int main(int argc, char **argv)
{
    hpc_diag diag = {.prog = "hpanalyze"};
    hpa_ctx ctx = {.diag = &diag, .out = stdout, .export_metric = -1};
    ctx.opts.view = hpa_view_default();
    early e = {0};
    int status = take_er_print_forms(&argc, argv, &e);
    if (status) {
        hpa_jobs_free(&e.jobs);
        return status;
    }
    int c, quiet = 0, nops = 0;
    bool seen_export = false;
    char **ops = calloc((size_t)(2 * argc + 1), sizeof(*ops));
    if (!ops) {
        hpa_jobs_free(&e.jobs);
        return HPA_EXIT_DATA;
    }
    opterr = 0;
    /* "-" first: operands come back in order (c == 1), so "-o FILE" after an `export`
     * command stays that command's argument; before any export it is the default. */
    while ((c = getopt_long(argc, argv, "-:qhVo:", long_opts, NULL)) != -1) {
        int rc = 0;
        if (c == 1) {
            ops[nops++] = optarg;
            seen_export |= strcmp(optarg, "export") == 0;
        } else if ((c == 'o' || c == OPT_OUTPUT) && seen_export) {
            ops[nops++] = "-o";
            ops[nops++] = optarg;
        } else if (c == 'o' || c == OPT_OUTPUT) {
            ctx.opts.output = optarg;
        } else if (c == ':') {
            rc = hpa_usage_error(NULL, "option '%s' needs a value (hpanalyze --help)",
                                 argv[optind - 1]);
        } else if (c == '?') {
            const char *bad = argv[optind - 1];
            if (optopt)
                rc = hpa_usage_error(NULL, "unknown option '-%c' (hpanalyze --help)", optopt);
            else
                rc = hpa_usage_error(
                    NULL, "unknown option or missing value: '%s' (hpanalyze --help)", bad);
        } else {
            rc = parse_option(&ctx.opts, c, optarg, &quiet);
        }
        if (rc) {
            hpa_jobs_free(&e.jobs);
            free(ops);
            return rc < 0 ? finish_output() : rc;
        }
    }
    while (optind < argc) /* after "--" */
        ops[nops++] = argv[optind++];
    diag.quiet = quiet;
    status = run(&ctx, nops, ops, &e);
    hpa_ctx_free(&ctx);
    hpa_profile_close(ctx.prof);
    hpa_jobs_free(&e.jobs);
    free(ops);
    int out = finish_output();
    return status ? status : out;
}
