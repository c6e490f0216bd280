/*
 * states.c - a thread's thread-state machinery at its start and end, in normal context
 * (states.h): the events opened (sigsafe_states_events.c) with the reason written down
 * when they cannot be, or, for a thread from pthread_create, nothing opened until its
 * first clock sample (lazy); enabled, stopped, forgotten in a fork child.
 */
#include <errno.h>
#include <link.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "source.h"

int hpc_states_open(hpc_thread_priv *t, bool lazy)
{
    hpc_states *s = &t->st;
    memset(s, 0, sizeof *s);
    s->fd = s->fault_fd = s->fault_sig_fd = s->sched_fd = -1;
    if (!hpc_P.cfg.states || hpc_P.cfg.clock_ns == 0)
        return 0;
    hpc_states_page = (size_t)sysconf(_SC_PAGESIZE);
    s->lazy = lazy;
    if (hpc_P.cfg.states == HPC_STATES_CALL_TIMES) {
        snprintf(s->note, sizeof s->note, "call times forced by HPCOLLECT_STATES");
        s->source = HPC_STATES_CALL_TIMES;
        return 0;
    }
    s->source = HPC_STATES_PERF_SWITCH;
    if (lazy) /* its first clock sample opens them (hpc_states_upgrade) */
        return 0;
    int err = hpc_states_events_open(s, false);
    if (err)
        snprintf(s->note, sizeof s->note, "context-switch records: %s", strerror(-err));
    else if (s->fault_err) /* without it, faults are sleeps like others: keep the rest */
        snprintf(s->note, sizeof s->note,
                 "major-faults event: %s (page-fault sleeps count as Other Wait)",
                 strerror(-s->fault_err));
    s->source = err ? HPC_STATES_CALL_TIMES : HPC_STATES_PERF_SWITCH;
    return err;
}

void hpc_states_start(hpc_thread_priv *t)
{
    hpc_states *s = &t->st;
    if (s->source == HPC_STATES_NONE || s->lazy)
        return;
    struct rusage ru;
    if (getrusage(RUSAGE_THREAD, &ru) == 0)
        s->stime_ns =
            (uint64_t)ru.ru_stime.tv_sec * 1000000000ull + (uint64_t)ru.ru_stime.tv_usec * 1000ull;
    hpc_states_window_open(t);
    if (s->fault_fd >= 0 && ioctl(s->fault_fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        hpc_perf_close(s->fault_fd, s->fault_id);
        s->fault_fd = -1;
    }
}

void hpc_states_stop(hpc_thread_priv *t)
{
    hpc_states *s = &t->st;
    if (s->fault_fd >= 0 && hpc_perf_id(s->fault_fd) == s->fault_id)
        ioctl(s->fault_fd, PERF_EVENT_IOC_DISABLE, 0);
    hpc_states_events_release(s);
}

void hpc_states_abandon(hpc_thread_priv *t)
{
    hpc_states *s = &t->st;
    s->rb = NULL; /* perf buffers are not copied into a fork child */
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    hpc_states_events_release(s);
}
