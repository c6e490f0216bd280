/*
 * source.c - the table of clock sources and the fallback between them.
 *
 * A thread's counter group (-h, source_counter.c) lives and dies with its clock: each
 * arm/start/stop/abandon below does the same for the counters, so new threads, fork
 * children and exec see both.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "config.h"
#include "source.h"

/* In order of preference. */
static const hpc_clock_ops *const sources[] = {&hpc_perf_clock_ops, &hpc_timer_clock_ops};
#define NSOURCES (sizeof sources / sizeof sources[0])

static const hpc_clock_ops *ops_of(int id)
{
    for (size_t i = 0; i < NSOURCES; i++)
        if (sources[i]->id == id)
            return sources[i];
    return NULL;
}

void hpc_clock_arm(hpc_thread_priv *t, uint64_t interval_ns, int choice, char *note, size_t cap)
{
    note[0] = 0;
    t->clock_source = HPC_CLOCK_NONE;
    t->perf_fd = -1;
    hpc_counters_open(t, note, cap);
    if (interval_ns == 0)
        return;
    size_t first = choice == HPC_CLOCK_CHOICE_TIMER ? 1 : 0;
    if (choice == HPC_CLOCK_CHOICE_TIMER)
        snprintf(note, cap, "timer forced by HPCOLLECT_CLOCK_SOURCE");
    for (size_t i = first; i < NSOURCES; i++) {
        int err = sources[i]->open(t, interval_ns);
        if (err == 0) {
            t->clock_source = sources[i]->id;
            return;
        }
        size_t n = strlen(note);
        snprintf(note + n, cap - n, "%s%s: %s", n ? "; " : "", sources[i]->name, strerror(-err));
    }
}

void hpc_clock_start(hpc_thread_priv *t)
{
    hpc_counters_start(t);
    const hpc_clock_ops *o = ops_of(t->clock_source);
    if (o && o->start(t) != 0) {
        o->stop(t);
        t->clock_source = HPC_CLOCK_NONE;
    }
}

void hpc_clock_stop(hpc_thread_priv *t)
{
    hpc_counters_stop(t);
    const hpc_clock_ops *o = ops_of(t->clock_source);
    if (o)
        o->stop(t);
}

void hpc_clock_abandon(hpc_thread_priv *t)
{
    hpc_counters_abandon(t);
    const hpc_clock_ops *o = ops_of(t->clock_source);
    if (o)
        o->abandon(t);
    t->clock_source = HPC_CLOCK_NONE;
}

uint64_t hpc_perf_id(int fd)
{
    uint64_t id = 0;
    if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0)
        return 0;
    return id;
}

void hpc_perf_close(int fd, uint64_t id)
{
    if (fd >= 0 && id && hpc_perf_id(fd) == id)
        close(fd);
}
