/*
 * counter_events.c - counters by name: hpcollect's aliases (collect's names where it has
 * them: cycles, insts; perf's otherwise) with default intervals, the perf software
 * events, and the libpfm4 resolution of anything else (PFM_OS_PERF_EVENT_EXT gives the
 * perf_event_attr for "pmu::EVENT:modifiers", perf's generic names and raw "rNNNN").
 *
 * Default intervals aim at a few hundred samples per second of a program busy with that
 * event, like collect's "on"; odd (mostly prime) values keep samples from falling into
 * step with loops. Software events count both user and kernel mode (a page fault taken
 * inside read() is still the program's), unless perf_event_paranoid forbids it.
 */
#include <ctype.h>
#include <linux/perf_event.h>
#include <perfmon/pfmlib_perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "counter_events.h"
#include "experiment.h"

const hpc_event_alias hpc_event_aliases[] = {
    /* hardware */
    {"cycles", "perf::PERF_COUNT_HW_CPU_CYCLES", 10000003, "CPU cycles", false},
    {"insts", "perf::PERF_COUNT_HW_INSTRUCTIONS", 10000019, "Instructions executed", false},
    {"branches", "perf::PERF_COUNT_HW_BRANCH_INSTRUCTIONS", 1000003, "Branch instructions", false},
    {"branch-misses", "perf::PERF_COUNT_HW_BRANCH_MISSES", 100003, "Mispredicted branches", false},
    {"cache-refs", "perf::PERF_COUNT_HW_CACHE_REFERENCES", 1000003,
     "Cache references (last level, usually)", false},
    {"cache-misses", "perf::PERF_COUNT_HW_CACHE_MISSES", 100003,
     "Cache misses (last level, usually)", false},
    {"dcm", "perf::L1-DCACHE-LOAD-MISSES", 100003, "L1 data cache load misses", false},
    {"icm", "perf::L1-ICACHE-LOAD-MISSES", 100003, "L1 instruction cache misses", false},
    {"dtlbm", "perf::DTLB-LOAD-MISSES", 10007, "Data TLB load misses", false},
    {"itlbm", "perf::ITLB-LOAD-MISSES", 10007, "Instruction TLB misses", false},
    {"ref-cycles", "perf::PERF_COUNT_HW_REF_CPU_CYCLES", 10000003,
     "Reference cycles (constant rate)", false},
    {"stalls-fe", "perf::PERF_COUNT_HW_STALLED_CYCLES_FRONTEND", 10000003,
     "Cycles stalled in the front end", false},
    {"stalls-be", "perf::PERF_COUNT_HW_STALLED_CYCLES_BACKEND", 10000003,
     "Cycles stalled in the back end", false},
    /* software (perf_event) */
    {"task-clock", "perf::PERF_COUNT_SW_TASK_CLOCK", 10000000, "CPU time of the thread, ns", true},
    {"cpu-clock", "perf::PERF_COUNT_SW_CPU_CLOCK", 10000000, "CPU clock of the thread, ns", true},
    {"page-faults", "perf::PERF_COUNT_SW_PAGE_FAULTS", 1009, "Page faults, minor and major", true},
    {"minor-faults", "perf::PERF_COUNT_SW_PAGE_FAULTS_MIN", 1009, "Minor page faults (no I/O)",
     true},
    {"major-faults", "perf::PERF_COUNT_SW_PAGE_FAULTS_MAJ", 11, "Major page faults (I/O)", true},
    {"context-switches", "perf::PERF_COUNT_SW_CONTEXT_SWITCHES", 11,
     "Context switches (the thread left the CPU)", true},
    {"cpu-migrations", "perf::PERF_COUNT_SW_CPU_MIGRATIONS", 11,
     "Moves of the thread to another CPU", true},
};
const unsigned hpc_n_event_aliases = sizeof hpc_event_aliases / sizeof hpc_event_aliases[0];

int hpc_pfm_init(void)
{
    static int done, rc;
    if (!done) {
        rc = pfm_initialize();
        done = 1;
    }
    return rc;
}

static const hpc_event_alias *alias_named(const char *name)
{
    for (unsigned i = 0; i < hpc_n_event_aliases; i++)
        if (!strcmp(hpc_event_aliases[i].name, name))
            return &hpc_event_aliases[i];
    return NULL;
}

uint64_t hpc_cpu_hz(void)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[256];
    double inv = 0;
    int n = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        double mhz;
        if (sscanf(line, "cpu MHz : %lf", &mhz) == 1 && mhz > 0) {
            inv += 1 / mhz;
            n++;
        }
    }
    fclose(f);
    return n ? (uint64_t)(n / inv * 1e6 + 0.5) : 0;
}

/* Metric name for an event string: without the PMU prefix, modifiers joined by '_'
 * ("amd64_fam19h_zen4::RETIRED_OPS:u" -> "RETIRED_OPS_u"); reports and the `metrics`
 * selection (which splits on ':') take it as it is. */
static void metric_name(const char *text, char *out, size_t cap)
{
    const char *p = strstr(text, "::");
    p = p ? p + 2 : text;
    size_t n = 0;
    for (; *p && n + 1 < cap; p++)
        out[n++] = strchr(":=.,|;/ ", *p) ? '_' : *p;
    out[n] = 0;
}

static uint32_t exclude_bits(const struct perf_event_attr *a)
{
    return (a->exclude_user ? HPC_CTR_EXCL_USER : 0) |
           (a->exclude_kernel ? HPC_CTR_EXCL_KERNEL : 0) | (a->exclude_hv ? HPC_CTR_EXCL_HV : 0) |
           (a->exclude_idle ? HPC_CTR_EXCL_IDLE : 0) | (a->exclude_host ? HPC_CTR_EXCL_HOST : 0) |
           (a->exclude_guest ? HPC_CTR_EXCL_GUEST : 0);
}

/* The alias with this encoding (perf::FAULTS is page-faults), for its default interval. */
static const hpc_event_alias *alias_encoded(const struct perf_event_attr *a)
{
    for (unsigned i = 0; i < hpc_n_event_aliases; i++) {
        struct perf_event_attr b;
        pfm_perf_encode_arg_t arg;
        memset(&b, 0, sizeof b);
        memset(&arg, 0, sizeof arg);
        arg.size = sizeof arg;
        arg.attr = &b;
        if (pfm_get_os_event_encoding(hpc_event_aliases[i].pfm, PFM_PLM0 | PFM_PLM3,
                                      PFM_OS_PERF_EVENT_EXT, &arg) == PFM_SUCCESS &&
            b.type == a->type && b.config == a->config)
            return &hpc_event_aliases[i];
    }
    return NULL;
}

static bool is_cycles(const char *fstr, const struct perf_event_attr *a)
{
    if (a->type == PERF_TYPE_HARDWARE)
        return a->config == PERF_COUNT_HW_CPU_CYCLES || a->config == PERF_COUNT_HW_REF_CPU_CYCLES ||
               a->config == PERF_COUNT_HW_BUS_CYCLES ||
               a->config == PERF_COUNT_HW_STALLED_CYCLES_FRONTEND ||
               a->config == PERF_COUNT_HW_STALLED_CYCLES_BACKEND;
    if (a->type == PERF_TYPE_SOFTWARE || a->type == PERF_TYPE_HW_CACHE)
        return false;
    for (const char *p = fstr; *p; p++)
        if (!strncasecmp(p, "CYCLES", 6))
            return true;
    return false;
}

int hpc_event_resolve(const char *text, hpc_counter_def *d)
{
    int rc = hpc_pfm_init();
    if (rc != PFM_SUCCESS)
        return rc;
    const hpc_event_alias *named = alias_named(text), *al = named;
    struct perf_event_attr a;
    pfm_perf_encode_arg_t arg;
    char *fstr = NULL;
    memset(&a, 0, sizeof a);
    memset(&arg, 0, sizeof arg);
    arg.size = sizeof arg;
    arg.attr = &a;
    arg.fstr = &fstr;
    rc = pfm_get_os_event_encoding(al ? al->pfm : text, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT_EXT,
                                   &arg);
    if (rc != PFM_SUCCESS)
        return rc;
    if (!al)
        al = alias_encoded(&a);
    memset(d, 0, sizeof *d);
    if (named) /* reports call an event what the user typed */
        snprintf(d->name, sizeof d->name, "%s", named->name);
    else
        metric_name(text, d->name, sizeof d->name);
    snprintf(d->spec, sizeof d->spec, "%s", text);
    d->type = a.type;
    d->config = a.config;
    d->config1 = a.config1;
    d->config2 = a.config2;
    d->attr_bits = exclude_bits(&a);
    d->precise = a.precise_ip;
    d->interval = a.sample_period ? a.sample_period /* a :period= modifier */
                  : al            ? al->interval
                                  : HPC_RAW_DEFAULT_INTERVAL;
    bool sw = a.type == PERF_TYPE_SOFTWARE;
    bool clock =
        sw && (a.config == PERF_COUNT_SW_TASK_CLOCK || a.config == PERF_COUNT_SW_CPU_CLOCK);
    d->flags = sw ? HPC_COUNTER_SOFTWARE : HPC_COUNTER_HARDWARE;
    if (is_cycles(fstr ? fstr : text, &a)) {
        d->flags |= HPC_COUNTER_CYCLES;
        d->cpu_hz = hpc_cpu_hz();
    }
    snprintf(d->unit, sizeof d->unit, "%s",
             clock                             ? "ns"
             : (d->flags & HPC_COUNTER_CYCLES) ? "cycles"
                                               : "events");
    free(fstr);
    return PFM_SUCCESS;
}
