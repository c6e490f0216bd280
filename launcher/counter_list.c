/*
 * counter_list.c - `hpcollect -h list`: what can be counted on this machine, in the
 * spirit of `collect -h`. Each alias and software event is probe-opened (the same open
 * the program's threads will do), so the list says what works here, and why not:
 *
 *     Counters for -h EVENT[,INTERVAL]... (INTERVAL: a number of events, or on = the
 *     default shown, hi = 10 times the rate, lo = a tenth of it)
 *
 *     Hardware counters cannot be opened on this machine:
 *       cycles: not supported on this machine (perf_event_open: No such file or directory):
 *       the CPU, or the hypervisor of this virtual machine, does not let perf_event count it
 *     They are listed for reference; -h with one of them exits with status 2 here.
 *
 *     Aliases (hardware):
 *       cycles,10000003            CPU cycles [not available here]
 *       ...
 *     PMU events of amd64_fam19h_zen4 (libpfm4; default interval 1000003; also raw
 *     rNNNN):
 *       amd64_fam19h_zen4::RETIRED_INSTRUCTIONS   Retired instructions
 *       ...
 *     Software events (perf_event):
 *       page-faults,1009           Page faults, minor and major
 *       ...
 */
#include <errno.h>
#include <perfmon/pfmlib.h>
#include <stdio.h>
#include <string.h>

#include "counter_events.h"
#include "counter_opts.h"

/* Probe-open one event on its own; 0 or the errno. */
static int probe(const hpc_event_alias *a, hpc_counter_def *d)
{
    if (hpc_event_resolve(a->name, d) != 0)
        return ENOENT;
    int bad, err = hpc_counters_try_open(d, 1, &bad);
    if (err == EACCES || err == EPERM) { /* what the probe before a run would do too */
        d->attr_bits |= HPC_CTR_EXCL_KERNEL | HPC_CTR_EXCL_HV;
        err = hpc_counters_try_open(d, 1, &bad);
    }
    return err;
}

static void list_aliases(bool software, bool hw_ok)
{
    for (unsigned i = 0; i < hpc_n_event_aliases; i++) {
        const hpc_event_alias *a = &hpc_event_aliases[i];
        if (a->software != software)
            continue;
        hpc_counter_def d;
        int err = probe(a, &d);
        char left[64];
        snprintf(left, sizeof left, "%s,%llu", a->name, (unsigned long long)a->interval);
        printf("  %-26s %s (%s; %s)%s\n", left, a->desc, a->pfm + strlen("perf::"), d.unit,
               err && (software || hw_ok) ? " [cannot be opened here]"
               : err                      ? " [not available here]"
                                          : "");
    }
}

static void list_pmu_events(void)
{
    int i;
    pfm_for_all_pmus(i)
    {
        pfm_pmu_info_t pinfo;
        memset(&pinfo, 0, sizeof pinfo);
        pinfo.size = sizeof pinfo;
        if (pfm_get_pmu_info(i, &pinfo) != PFM_SUCCESS || !pinfo.is_present ||
            pinfo.type != PFM_PMU_TYPE_CORE)
            continue;
        printf("\nPMU events of %s (%s; libpfm4 names, default interval %d; raw codes as "
               "rNNNN):\n",
               pinfo.name, pinfo.desc, HPC_RAW_DEFAULT_INTERVAL);
        for (int e = pinfo.first_event; e != -1; e = pfm_get_event_next(e)) {
            pfm_event_info_t info;
            memset(&info, 0, sizeof info);
            info.size = sizeof info;
            if (pfm_get_event_info(e, PFM_OS_NONE, &info) != PFM_SUCCESS)
                continue;
            char desc[100];
            snprintf(desc, sizeof desc, "%s", info.desc ? info.desc : "");
            char *nl = strpbrk(desc, ".\n");
            if (nl && nl > desc)
                *nl = 0;
            printf("  %s::%-34s %s\n", pinfo.name, info.name, desc);
        }
    }
}

int hpc_counters_list(void)
{
    int rc = hpc_pfm_init();
    printf("Counters for -h EVENT[,INTERVAL][,EVENT2[,INTERVAL2]]... (INTERVAL: a number of\n"
           "events, or on = the default shown, hi = 10 times the rate, lo = a tenth of it)\n");
    if (rc != PFM_SUCCESS)
        printf("\nlibpfm4 could not be initialized (%s): only the names below are known.\n",
               pfm_strerror(rc));
    hpc_counter_def cycles;
    int hw_err = probe(&hpc_event_aliases[0], &cycles);
    if (hw_err) {
        char msg[512];
        hpc_counter_error(msg, sizeof msg, hpc_event_aliases[0].name, 0, hw_err);
        printf("\nHardware counters cannot be opened on this machine:\n  %s\n"
               "They are listed for reference; -h with one of them exits with status 2 "
               "here.\nThe software events at the end work.\n",
               msg);
    }
    printf("\nAliases (hardware):\n");
    list_aliases(false, !hw_err);
    if (rc == PFM_SUCCESS)
        list_pmu_events();
    printf("\nSoftware events (perf_event; counted in user and kernel mode):\n");
    list_aliases(true, true);
    printf("\nAny libpfm4 event string (PMU::EVENT:MODIFIERS), perf's names (instructions,\n"
           "L1-dcache-load-misses, ...) and raw events (rNNNN) are accepted too.\n");
    return 0;
}
