/*
 * source_perf_clock.c - clock profiling with a perf_event software task-clock event per
 * thread. The event counts the thread's CPU time in ns; every sample_period ns it
 * overflows and, with O_ASYNC + F_SETSIG + F_SETOWN_EX(F_OWNER_TID), the kernel sends
 * SIGPROF with si_code POLL_IN and si_fd = the event's fd to that very thread. The rate is
 * exactly the one asked (POSIX CPU timers only fire at the scheduler tick).
 *
 * The descriptor is not kept: the event's first page (its user page, no ring buffer) is
 * mapped, which keeps the event alive with its signal set-up, and the fd is closed at
 * once. So the program's descriptors are its own: one limited to 16 opens as many files
 * as it does alone, and a program that closes descriptors it does not know (chromium
 * before it execs a helper) cannot close ours. Unmapping ends the event. si_fd still
 * carries the number the fd had, which is how a delivery is recognised as this thread's
 * (its counters' fds are open meanwhile, so their numbers differ). Where the mapping is
 * refused (an unprivileged user past perf_event_mlock_kb) the fd is kept, as before:
 * closed only while PERF_EVENT_IOC_ID still names our event. The event's steps that a
 * signal handler also takes (a new event at another period for the throttle, release)
 * are sigsafe_clock.c's.
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/perf_event.h>
#include <unistd.h>

#include "collector.h"
#include "source.h"

static int perf_open(hpc_thread_priv *t, uint64_t interval_ns)
{
    hpc_fd_moment_begin();
    int fd = hpc_perf_event_open(t->pub.tid, interval_ns);
    int err = fd < 0 ? fd : hpc_perf_event_settle(t, fd);
    hpc_fd_moment_end();
    if (!err)
        t->clock_period = interval_ns;
    return err;
}

static int perf_start(hpc_thread_priv *t)
{
    if (t->perf_map) /* started as it was mapped */
        return 0;
    if (ioctl(t->perf_fd, PERF_EVENT_IOC_RESET, 0) != 0 ||
        ioctl(t->perf_fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
        return -errno;
    return 0;
}

static void perf_stop(hpc_thread_priv *t)
{
    hpc_perf_event_release(t->perf_map, t->perf_fd, t->perf_id);
    t->perf_map = NULL;
    t->perf_fd = t->perf_fd_prev = -1;
}

/* A fork child has no copy of the mapping (perf maps are not inherited); a kept fd
 * refers to the parent thread's event: just drop it. */
static void perf_abandon(hpc_thread_priv *t)
{
    if (!t->perf_map)
        hpc_perf_close(t->perf_fd, t->perf_id);
    t->perf_map = NULL;
    t->perf_fd = t->perf_fd_prev = -1;
}

const hpc_clock_ops hpc_perf_clock_ops = {
    .name = "perf_event_open task-clock",
    .id = HPC_CLOCK_PERF_TASK_CLOCK,
    .open = perf_open,
    .start = perf_start,
    .stop = perf_stop,
    .abandon = perf_abandon,
};
