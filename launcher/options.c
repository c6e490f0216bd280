/*
 * options.c - the table of hpcollect's options (as docs/DESIGN.md lists them, following
 * Oracle collect where one exists) and their value parsers.
 *
 * Every value is checked completely before anything runs: a bad option or value names
 * itself ("hpcollect: -p: bad value 'x': expected ...") and hpcollect exits 2. Options
 * of later issues are listed with opt_unimplemented until their developer fills them in.
 */
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "options.h"

#define NS_PER_MS 1000000ULL

typedef struct hpc_option {
    const char *name; /* "-p" or "--omp-runtime" */
    const char *arg;  /* value's name in the usage text, NULL for a flag */
    int (*parse)(hpc_opts *o, const char *opt, const char *val);
    const char *help;
} hpc_option;

static int bad_value(const char *opt, const char *val, const char *expected)
{
    fprintf(stderr, "hpcollect: %s: bad value '%s': expected %s\n", opt, val, expected);
    return -1;
}

/* Parse a non-negative decimal number ("12", "2.5"); whole string must be used. */
static int parse_decimal(const char *s, double *out)
{
    char *end;
    if (!*s || (!(s[0] >= '0' && s[0] <= '9') && s[0] != '.'))
        return -1;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !isfinite(v) || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int on_off(const char *val)
{
    if (!strcmp(val, "on"))
        return 1;
    if (!strcmp(val, "off"))
        return 0;
    return -1;
}

/* -o/-O NAME: a bare name (made in -d DIR) or a path; ".hpc" is appended if missing. */
static int opt_name(hpc_opts *o, const char *opt, const char *val)
{
    char buf[4096];
    size_t n = strlen(val);
    while (n > 1 && val[n - 1] == '/')
        n--; /* "runs/run1.hpc/" */
    if (n >= sizeof buf)
        return bad_value(opt, val, "a path shorter than 4096 bytes");
    memcpy(buf, val, n);
    buf[n] = 0;
    const char *base = strrchr(buf, '/') ? strrchr(buf, '/') + 1 : buf;
    if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
        return bad_value(opt, val,
                         "an experiment name or path (e.g. run1.hpc, /scratch/me/run1.hpc)");
    o->name = val;
    o->overwrite = !strcmp(opt, "-O");
    return 0;
}

static int opt_dir(hpc_opts *o, const char *opt, const char *val)
{
    struct stat st;
    if (stat(val, &st) != 0) {
        fprintf(stderr, "hpcollect: %s: %s: %s\n", opt, val, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "hpcollect: %s: %s: Not a directory\n", opt, val);
        return -1;
    }
    o->dir = val;
    return 0;
}

/* -p on|off|hi|lo|<ms>[u]: 10 ms, off, 1 ms, 100 ms, or a number of ms (µs with 'u'). */
static int opt_clock(hpc_opts *o, const char *opt, const char *val)
{
    static const struct {
        const char *word;
        uint64_t ns;
    } words[] = {
        {"on", 10 * NS_PER_MS}, {"off", 0}, {"hi", 1 * NS_PER_MS}, {"lo", 100 * NS_PER_MS}};
    const char *expected = "on|off|hi|lo or an interval in ms (e.g. 5, 0.5, 200u for µs) "
                           "between 10u and 1000";
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (!strcmp(val, words[i].word)) {
            o->clock_ns = words[i].ns;
            return 0;
        }
    char num[64];
    size_t n = strlen(val);
    double scale = 1e6; /* ms -> ns */
    if (n == 0 || n >= sizeof num)
        return bad_value(opt, val, expected);
    memcpy(num, val, n + 1);
    if (num[n - 1] == 'u') {
        num[n - 1] = 0;
        scale = 1e3;
    }
    double v;
    if (parse_decimal(num, &v) != 0)
        return bad_value(opt, val, expected);
    double ns = v * scale;
    if (ns < 10e3 || ns > 1000e6)
        return bad_value(opt, val, expected);
    o->clock_ns = (uint64_t)(ns + 0.5);
    return 0;
}

/* -F on|off|=REGEX: follow every descendant, none, or those whose executable or
 * sub-experiment name matches the extended regular expression. */
static int opt_follow(hpc_opts *o, const char *opt, const char *val)
{
    if (val[0] == '=') {
        regex_t re;
        int rc = val[1] ? regcomp(&re, val + 1, REG_EXTENDED | REG_NOSUB) : REG_BADPAT;
        if (rc != 0) {
            char why[256] = "empty expression";
            if (val[1])
                regerror(rc, &re, why, sizeof why);
            fprintf(stderr, "hpcollect: %s: bad regular expression '%s': %s\n", opt, val + 1, why);
            return -1;
        }
        regfree(&re);
        o->follow = 1;
        o->follow_regex = val + 1;
        return 0;
    }
    int v = on_off(val);
    if (v < 0)
        return bad_value(opt, val, "on|off|=REGEX");
    o->follow = v;
    o->follow_regex = NULL;
    return 0;
}

/* -L MB: a positive whole number of megabytes, or "unlimited"/"none". */
static int opt_limit(hpc_opts *o, const char *opt, const char *val)
{
    if (!strcmp(val, "unlimited") || !strcmp(val, "none")) {
        o->limit_bytes = 0;
        return 0;
    }
    char *end;
    errno = 0;
    unsigned long long mb = strtoull(val, &end, 10);
    if (!(val[0] >= '0' && val[0] <= '9') || *end || errno || mb == 0 || mb > (1ULL << 40))
        return bad_value(opt, val, "a size in MB (a whole number >= 1) or unlimited");
    o->limit_bytes = mb << 20;
    return 0;
}

/* A -t time: seconds, or with a unit as gprofng's: "90", "90s", "1.5m" (minutes). */
static int parse_seconds(const char *s, double *out)
{
    char num[64];
    size_t n = strlen(s);
    double scale = 1;
    if (n == 0 || n >= sizeof num)
        return -1;
    memcpy(num, s, n + 1);
    if (num[n - 1] == 's' || num[n - 1] == 'm') {
        scale = num[n - 1] == 'm' ? 60 : 1;
        num[n - 1] = 0;
    }
    if (parse_decimal(num, out) != 0)
        return -1;
    *out *= scale;
    return 0;
}

/* -t [start-]end: seconds (or with an s or m unit each), start < end. */
static int opt_window(hpc_opts *o, const char *opt, const char *val)
{
    const char *expected = "[start-]end in seconds, or with a unit s or m (minutes), start < end "
                           "(e.g. 10, 2.5-10, 5m, 30s-2m)";
    char buf[128];
    if (strlen(val) >= sizeof buf)
        return bad_value(opt, val, expected);
    strcpy(buf, val);
    char *dash = strchr(buf, '-');
    double start = 0, end;
    if (dash) {
        *dash = 0;
        if (parse_seconds(buf, &start) != 0 || parse_seconds(dash + 1, &end) != 0)
            return bad_value(opt, val, expected);
    } else if (parse_seconds(buf, &end) != 0) {
        return bad_value(opt, val, expected);
    }
    if (end <= start || end > 1e7)
        return bad_value(opt, val, expected);
    o->tstart_ns = (uint64_t)(start * 1e9 + 0.5);
    o->tend_ns = (uint64_t)(end * 1e9 + 0.5);
    return 0;
}

/* -C COMMENT: up to HPC_MAX_COMMENTS, kept in the experiment (header shows them). */
static int opt_comment(hpc_opts *o, const char *opt, const char *val)
{
    if (o->ncomments == HPC_MAX_COMMENTS) {
        fprintf(stderr, "hpcollect: %s: at most %d comments\n", opt, HPC_MAX_COMMENTS);
        return -1;
    }
    if (strlen(val) > 1000)
        return bad_value(opt, val, "a comment of at most 1000 characters");
    o->comments[o->ncomments++] = val;
    return 0;
}

static int opt_dry_run(hpc_opts *o, const char *opt, const char *val)
{
    (void)opt, (void)val;
    o->dry_run = 1;
    return 0;
}

/* -a off|on|ldobjects|src|usedldobjects|usedsrc: what goes into the experiment's archive. */
static int opt_archive(hpc_opts *o, const char *opt, const char *val)
{
    int mode = hpc_archive_mode_parse(val);
    if (mode < 0)
        return bad_value(opt, val, "off|on|ldobjects|src|usedldobjects|usedsrc");
    o->archive = (unsigned)mode;
    return 0;
}

static int opt_mpi(hpc_opts *o, const char *opt, const char *val)
{
    int v = on_off(val);
    if (v < 0)
        return bad_value(opt, val, "on|off");
    o->mpi_trace = v;
    return 0;
}

static int opt_io(hpc_opts *o, const char *opt, const char *val)
{
    int v = on_off(val);
    if (v < 0)
        return bad_value(opt, val, "on|off");
    o->io_trace = v;
    return 0;
}

/* -s on|off|all|<µs>: synchronization wait tracing; on calibrates the threshold at
 * start-up, all (= 0) records every call, a number is the threshold in microseconds. */
static int opt_sync(hpc_opts *o, const char *opt, const char *val)
{
    static const char expected[] = "on|off|all|<microseconds>";
    double us;
    int v = on_off(val);
    if (v >= 0) {
        o->sync = v; /* 1: calibrated */
        o->sync_ns = 0;
    } else if (!strcmp(val, "all")) {
        o->sync = 2;
        o->sync_ns = 0;
    } else if (parse_decimal(val, &us) == 0 && us <= 1e9) {
        o->sync = 2;
        o->sync_ns = (uint64_t)(us * 1e3 + 0.5);
    } else {
        return bad_value(opt, val, expected);
    }
    return 0;
}

static int opt_heap(hpc_opts *o, const char *opt, const char *val)
{
    int v = on_off(val);
    if (v < 0)
        return bad_value(opt, val, "on|off");
    o->heap_trace = v;
    return 0;
}

static int opt_omp_runtime(hpc_opts *o, const char *opt, const char *val)
{
    if (strcmp(val, "auto") && strcmp(val, "llvm") && strcmp(val, "native"))
        return bad_value(opt, val, "auto|llvm|native");
    o->omp_runtime = val;
    return 0;
}

static int opt_quiet(hpc_opts *o, const char *opt, const char *val)
{
    (void)opt, (void)val;
    o->quiet = 1;
    return 0;
}

static int opt_version(hpc_opts *o, const char *opt, const char *val)
{
    (void)opt, (void)val;
    o->version = 1;
    return 0;
}

static int opt_help(hpc_opts *o, const char *opt, const char *val)
{
    (void)opt, (void)val;
    o->help = 1;
    return 0;
}

/* Listed in DESIGN.md, implemented by a later issue. */
static int opt_unimplemented(hpc_opts *o, const char *opt, const char *val)
{
    (void)o, (void)val;
    fprintf(stderr, "hpcollect: %s: not implemented yet in this version\n", opt);
    return -1;
}

static const hpc_option options[] = {
    {"-o", "NAME", opt_name,
     "experiment name or path (default <program>.<N>.hpc, next free N); an existing one is "
     "refused"},
    {"-O", "NAME", opt_name, "as -o, replacing an existing experiment of that name"},
    {"-d", "DIR", opt_dir, "directory for the experiment when -o gives no path (default .)"},
    {"-p", "on|off|hi|lo|<ms>", opt_clock,
     "clock profiling: on = 10 ms, hi = 1 ms, lo = 100 ms, or ms ('u' suffix: µs)"},
    {"-h", "EVENT[,INTERVAL]...", hpc_opt_counters,
     "counter overflow profiling (INTERVAL: a number, on, hi, lo); -h list shows the events"},
    {"-S", "on|off|<s>", hpc_opt_sample_period,
     "periodic global sample points with resource usage (default 1 s)"},
    {"-l", "SIGNAL", hpc_opt_sample_signal, "record a sample point on each SIGNAL"},
    {"-y", "SIGNAL[,r]", hpc_opt_pause_signal,
     "each SIGNAL toggles pause/resume of recording (r: start paused)"},
    {"-m", "on|off", opt_mpi, "MPI tracing (default on)"},
    {"-s", "on|off|all|<us>", opt_sync,
     "synchronization wait tracing: on = threshold calibrated at start-up, all = every call, "
     "or the threshold in microseconds (default off)"},
    {"-H", "on|off", opt_heap,
     "heap tracing: allocations, leaks and peak memory per call stack (default off)"},
    {"-i", "on|off", opt_io, "I/O tracing: POSIX and C stdio calls (default off)"},
    {"-F", "on|off|=REGEX", opt_follow,
     "follow fork/exec descendants: all (default), none, or those whose executable or "
     "sub-experiment name matches REGEX"},
    {"-L", "MB", opt_limit, "stop recording when the experiment reaches MB megabytes"},
    {"-t", "[START-]END", opt_window,
     "record only between START and END seconds after the start (unit s or m allowed)"},
    {"-a", "MODE", opt_archive,
     "archive into the experiment at the end: ldobjects (default: every load object), "
     "usedldobjects (those with samples), src or on (and their sources), usedsrc (used objects, "
     "sources of sampled lines), off"},
    {"-C", "COMMENT", opt_comment, "a comment kept in the experiment (up to 10)"},
    {"-n", NULL, opt_dry_run, "dry run: show what would be collected, run nothing"},
    {"--omp-runtime", "auto|llvm|native", opt_omp_runtime,
     "OpenMP runtime for libgomp programs (default auto)"},
    {"-q", NULL, opt_quiet, "no messages from hpcollect"},
    {"-V", NULL, opt_version, "print the version and exit"},
    {"--help", NULL, opt_help, "print this help and exit"},
};

static const hpc_option *find_option(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++)
        if (strlen(options[i].name) == len && !strncmp(options[i].name, name, len))
            return &options[i];
    return NULL;
}

static void set_defaults(hpc_opts *o)
{
    memset(o, 0, sizeof *o);
    o->clock_ns = 10 * NS_PER_MS;
    o->follow = 1;
    o->mpi_trace = 1;
    o->omp_runtime = "auto";
    o->sample_ns = 1000 * NS_PER_MS;
    o->archive = HPC_ARCHIVE_DEFAULT;
}

int hpc_opts_parse(hpc_opts *o, int argc, char **argv)
{
    set_defaults(o);
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (a[0] != '-' || a[1] == 0)
            break;
        /* "--long=value" is accepted besides "--long value" */
        const char *eq = a[1] == '-' ? strchr(a, '=') : NULL;
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        const hpc_option *opt = find_option(a, len);
        if (!opt) {
            fprintf(stderr, "hpcollect: %s: unknown option; try 'hpcollect --help'\n", a);
            return -1;
        }
        const char *val = NULL;
        if (opt->arg) {
            if (eq) {
                val = eq + 1;
            } else if (i + 1 < argc) {
                val = argv[++i];
            } else {
                fprintf(stderr, "hpcollect: %s: missing value (%s)\n", opt->name, opt->arg);
                return -1;
            }
        } else if (eq) {
            fprintf(stderr, "hpcollect: %s: takes no value\n", opt->name);
            return -1;
        }
        if (opt->parse(o, opt->name, val) != 0)
            return -1;
    }
    o->argv = argv + i;
    return 0;
}

void hpc_opts_usage(void)
{
    printf("usage: hpcollect [options] [--] program [args]\n\n"
           "Runs program with the collector and writes an experiment directory\n"
           "(prog.1.hpc/) that hpanalyze and hpmerge read. The program's output and exit\n"
           "status are its own.\n\noptions:\n");
    for (size_t i = 0; i < sizeof options / sizeof options[0]; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s%s%s", options[i].name, options[i].arg ? " " : "",
                 options[i].arg ? options[i].arg : "");
        printf("  %-26s %s%s\n", left, options[i].help,
               options[i].parse == opt_unimplemented ? " [not yet]" : "");
    }
}
