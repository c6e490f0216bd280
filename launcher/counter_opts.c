/*
 * counter_opts.c - the values of -h, -S, -l and -y, checked completely before anything
 * runs (options.c's rule), and the probe that opens the chosen counters once in hpcollect
 * itself so that an event this machine cannot count is named before the program starts:
 *
 *     $ hpcollect -h cycles ./prog
 *     hpcollect: cycles: not supported on this machine (perf_event_open: No such file or
 *     directory): the CPU, or the hypervisor of this virtual machine, does not let
 *     perf_event count it; `hpcollect -h list` shows what can be counted here
 *     (exit status 2)
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <math.h>
#include <perfmon/pfmlib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "counter_events.h"
#include "counter_opts.h"
#include "options.h"

#define NS_PER_S 1000000000ULL

/* ------------------------------------------------------------------ errors */

static int paranoid_level(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = 2;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 2;
        fclose(f);
    }
    return v;
}

void hpc_counter_error(char *buf, size_t cap, const char *event, int pfm_err, int err)
{
    if (pfm_err) {
        const char *advice =
            pfm_err == PFM_ERR_NOTFOUND ? "no such event here; `hpcollect -h list` shows the names"
            : pfm_err == PFM_ERR_ATTR || pfm_err == PFM_ERR_ATTR_VAL || pfm_err == PFM_ERR_ATTR_SET
                ? "check the modifiers after ':' (`hpcollect -h list`)"
            : pfm_err == PFM_ERR_UMASK ? "this event needs a unit mask (EVENT:UMASK), see the "
                                         "PMU's documentation"
                                       : "`hpcollect -h list` shows what can be counted here";
        snprintf(buf, cap, "%s: unknown event (libpfm4: %s): %s", event, pfm_strerror(pfm_err),
                 advice);
        return;
    }
    const char *what, *advice;
    switch (err) {
    case ENOENT:
    case ENODEV:
    case EOPNOTSUPP:
        what = "not supported on this machine";
        advice = "the CPU, or the hypervisor of this virtual machine, does not let perf_event "
                 "count it; `hpcollect -h list` shows what can be counted here";
        break;
    case EACCES:
    case EPERM: {
        static char adv[200];
        snprintf(adv, sizeof adv,
                 "kernel.perf_event_paranoid is %d: run as root, lower it (sysctl "
                 "kernel.perf_event_paranoid=1), or count user mode only (EVENT:u)",
                 paranoid_level());
        what = "not permitted";
        advice = adv;
        break;
    }
    case EINVAL:
        what = "not accepted";
        advice = "the PMU refuses the event, its modifiers or the interval as given";
        break;
    case EBUSY:
        what = "busy";
        advice = "another tool (or the NMI watchdog) holds the counter it needs";
        break;
    case ENOSPC:
        what = "does not fit";
        advice = "the PMU has too few counters for the whole group; profile fewer events "
                 "at once";
        break;
    case EMFILE:
    case ENFILE:
        what = "out of file descriptors";
        advice = "raise the limit (ulimit -n)";
        break;
    case ENOSYS:
        what = "not supported by this kernel";
        advice = "it was built without perf_event";
        break;
    default:
        what = "cannot be opened";
        advice = "perf stat -e EVENT may say more";
    }
    snprintf(buf, cap, "%s: %s (perf_event_open: %s): %s", event, what, strerror(err), advice);
}

/* ------------------------------------------------------------------ -h */

static int counter_bad(const char *opt, const char *val, const char *why)
{
    fprintf(stderr, "hpcollect: %s: bad value '%s': %s\n", opt, val, why);
    return -1;
}

static bool is_interval(const char *tok)
{
    if (!strcmp(tok, "on") || !strcmp(tok, "hi") || !strcmp(tok, "lo"))
        return true;
    if (!*tok)
        return false;
    for (const char *p = tok; *p; p++)
        if (*p < '0' || *p > '9')
            return false;
    return true;
}

/* on = the event's default, hi = 10 times the rate, lo = a tenth of it. */
static int interval_value(const char *tok, uint64_t dflt, uint64_t *out)
{
    if (!strcmp(tok, "on"))
        *out = dflt;
    else if (!strcmp(tok, "hi"))
        *out = dflt / 10 ? dflt / 10 : 1;
    else if (!strcmp(tok, "lo"))
        *out = dflt * 10;
    else {
        errno = 0;
        unsigned long long v = strtoull(tok, NULL, 10);
        if (errno || v == 0 || v > (1ULL << 62))
            return -1;
        *out = v;
    }
    return 0;
}

static int add_counter(hpc_opts *o, const char *opt, const char *event, const char *interval)
{
    hpc_counter_def d;
    char msg[512];
    if (strpbrk(event, "|;"))
        return counter_bad(opt, event, "an event name has no '|' or ';'");
    int rc = hpc_event_resolve(event, &d);
    if (rc != 0) {
        hpc_counter_error(msg, sizeof msg, event, rc, 0);
        fprintf(stderr, "hpcollect: %s: %s\n", opt, msg);
        return -1;
    }
    if (interval && interval_value(interval, d.interval, &d.interval) != 0)
        return counter_bad(opt, interval,
                           "an interval is a whole number of events >= 1, or on, hi, lo");
    for (int i = 0; i < o->ncounters; i++)
        if (!strcmp(o->counters[i].name, d.name)) {
            fprintf(stderr, "hpcollect: %s: %s: asked for twice\n", opt, d.name);
            return -1;
        }
    if (o->ncounters == HPC_MAX_COUNTERS) {
        fprintf(stderr, "hpcollect: %s: %s: at most %d counters at once\n", opt, event,
                HPC_MAX_COUNTERS);
        return -1;
    }
    o->counters[o->ncounters++] = d;
    return 0;
}

int hpc_opt_counters(hpc_opts *o, const char *opt, const char *val)
{
    if (!strcmp(val, "list")) {
        o->list_counters = 1;
        return 0;
    }
    char buf[1024];
    if (strlen(val) >= sizeof buf)
        return counter_bad(opt, val, "too long");
    strcpy(buf, val);
    char *toks[64];
    int n = 0;
    for (char *p = buf;; p++) {
        char *comma = strchr(p, ',');
        if (n == 64)
            return counter_bad(opt, val, "too many items");
        toks[n++] = p;
        if (!comma)
            break;
        *comma = 0;
        p = comma;
    }
    for (int i = 0; i < n; i++) {
        if (!*toks[i])
            return counter_bad(opt, val, "an empty item; expected EVENT[,INTERVAL][,EVENT2...]");
        if (is_interval(toks[i]))
            return counter_bad(opt, val, "an interval must follow an event (EVENT[,INTERVAL]...)");
        const char *interval = i + 1 < n && is_interval(toks[i + 1]) ? toks[i + 1] : NULL;
        if (add_counter(o, opt, toks[i], interval) != 0)
            return -1;
        if (interval)
            i++;
    }
    return 0;
}

/* ------------------------------------------------------------------ -S -l -y */

int hpc_opt_sample_period(hpc_opts *o, const char *opt, const char *val)
{
    const char *expected = "on, off, or a period in seconds between 0.001 and 1000000 (e.g. 0.5)";
    if (!strcmp(val, "on")) {
        o->sample_ns = NS_PER_S;
        return 0;
    }
    if (!strcmp(val, "off")) {
        o->sample_ns = 0;
        return 0;
    }
    char *end;
    errno = 0;
    double s = strtod(val, &end);
    if (!(val[0] >= '0' && val[0] <= '9') && val[0] != '.')
        return counter_bad(opt, val, expected);
    if (errno || *end || !isfinite(s) || s < 0.001 || s > 1e6)
        return counter_bad(opt, val, expected);
    o->sample_ns = (uint64_t)(s * 1e9 + 0.5);
    return 0;
}

/* A signal by name (SIGUSR1, USR1, usr1) or number; -1 if none. */
static int signal_number(const char *name)
{
    char *end;
    long v = strtol(name, &end, 10);
    if (*name && !*end)
        return v > 0 && v < NSIG ? (int)v : -1;
    if (!strncasecmp(name, "SIG", 3))
        name += 3;
    for (int s = 1; s < NSIG; s++) {
        const char *abbrev = sigabbrev_np(s);
        if (abbrev && !strcasecmp(abbrev, name))
            return s;
    }
    return -1;
}

/* Why sig cannot be a control signal, or NULL if it can. */
static const char *unusable_signal(int sig)
{
    switch (sig) {
    case SIGKILL:
    case SIGSTOP:
        return "it cannot be caught";
    case SIGPROF:
        return "the collector samples with it";
    case SIGSEGV:
    case SIGBUS:
    case SIGILL:
    case SIGFPE:
    case SIGTRAP:
        return "it reports faults of the program";
    case SIGCHLD:
    case SIGCONT:
        return "the program's children and job control need it";
    default:
        return sig >= 64 ? "only signals 1-63 can be used" : NULL;
    }
}

static int control_signal(const char *opt, const char *val, const char *name)
{
    char why[160];
    int sig = signal_number(name);
    if (sig < 0)
        return counter_bad(opt, val, "expected a signal name or number (e.g. SIGUSR1, USR2, 10)");
    const char *no = unusable_signal(sig);
    if (no) {
        snprintf(why, sizeof why, "%s (SIGUSR1 or SIGUSR2 are the usual choice)", no);
        return counter_bad(opt, val, why);
    }
    return sig;
}

int hpc_opt_sample_signal(hpc_opts *o, const char *opt, const char *val)
{
    int sig = control_signal(opt, val, val);
    if (sig < 0)
        return -1;
    o->sample_sig = sig;
    return 0;
}

int hpc_opt_pause_signal(hpc_opts *o, const char *opt, const char *val)
{
    char name[64];
    const char *comma = strchr(val, ',');
    size_t len = comma ? (size_t)(comma - val) : strlen(val);
    if (len >= sizeof name || (comma && strcmp(comma + 1, "r")))
        return counter_bad(opt, val, "expected SIGNAL or SIGNAL,r (r: start paused)");
    memcpy(name, val, len);
    name[len] = 0;
    int sig = control_signal(opt, val, name);
    if (sig < 0)
        return -1;
    o->pause_sig = sig;
    o->start_paused = comma != NULL;
    return 0;
}

/* ------------------------------------------------------------------ probe */

int hpc_counters_try_open(const hpc_counter_def *defs, int n, int *bad)
{
    int fds[HPC_MAX_COUNTERS], err = 0, i;
    for (i = 0; i < n; i++) {
        struct perf_event_attr a;
        hpc_counter_attr(&defs[i], &a, i == 0);
        fds[i] =
            (int)syscall(SYS_perf_event_open, &a, 0, -1, i ? fds[0] : -1, PERF_FLAG_FD_CLOEXEC);
        if (fds[i] < 0) {
            err = errno;
            *bad = i;
            break;
        }
    }
    while (i-- > 0)
        close(fds[i]);
    return err;
}

/* Like perf: where the kernel forbids counting kernel mode, count user mode only. */
static int open_user_only(hpc_opts *o, int bad)
{
    hpc_counter_def *d = &o->counters[bad];
    if (d->attr_bits & HPC_CTR_EXCL_KERNEL)
        return -1;
    d->attr_bits |= HPC_CTR_EXCL_KERNEL | HPC_CTR_EXCL_HV;
    if (!o->quiet)
        fprintf(stderr,
                "hpcollect: note: %s counts user mode only (kernel.perf_event_paranoid is %d)\n",
                d->name, paranoid_level());
    return 0;
}

int hpc_counters_probe(hpc_opts *o)
{
    if (o->sample_sig && o->sample_sig == o->pause_sig) {
        fprintf(stderr, "hpcollect: -l and -y: the same signal (%s) cannot do both\n",
                sigabbrev_np(o->sample_sig));
        return -1;
    }
    for (;;) {
        int bad = 0, err = hpc_counters_try_open(o->counters, o->ncounters, &bad);
        if (!err)
            return 0;
        if ((err == EACCES || err == EPERM) && open_user_only(o, bad) == 0)
            continue;
        char msg[512];
        hpc_counter_error(msg, sizeof msg, o->counters[bad].name, 0, err);
        fprintf(stderr, "hpcollect: %s\n", msg);
        return -1;
    }
}

/* ------------------------------------------------------------------ environment */

void hpc_counters_env(const hpc_opts *o, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < o->ncounters && n < cap; i++) {
        const hpc_counter_def *d = &o->counters[i];
        n +=
            (size_t)snprintf(buf + n, cap - n, "%s%s|%s|%u|%llu|%llu|%llu|%llu|%u|%s|%llu|%u|%u",
                             i ? ";" : "", d->name, d->spec, d->type, (unsigned long long)d->config,
                             (unsigned long long)d->config1, (unsigned long long)d->config2,
                             (unsigned long long)d->interval, d->flags, d->unit,
                             (unsigned long long)d->cpu_hz, d->attr_bits, d->precise);
    }
}
