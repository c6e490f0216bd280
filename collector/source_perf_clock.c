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
 * closed only while PERF_EVENT_IOC_ID still names our event.
 *
 * The throttle (sigsafe_throttle.c) changes a thread's rate by opening a new event at
 * the new period and unmapping the old one (signal-safe system calls); a signal of the
 * old event still pending is recognised by the old number.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "source.h"

/* A kept fd may take at most half of the program's descriptor limit: the rest stays the
 * program's, and threads beyond it fall back to the timer source, which needs none. */
static int fd_allowed(int fd)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 1;
    return (rlim_t)fd < rl.rlim_cur / 2;
}

/* Open the event (disabled) with its signal routed to the calling thread. Returns the
 * fd or a negative errno. Signal-safe. */
static int event_open(pid_t tid, uint64_t interval_ns)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = interval_ns;
    a.disabled = 1;
    a.wakeup_events = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        /* perf_event_paranoid >= 2 allows user-space-only measurement */
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    if (fd < 0)
        return -errno;
    struct f_owner_ex owner = {F_OWNER_TID, tid ? tid : (pid_t)syscall(SYS_gettid)};
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 ||
        fcntl(fd, F_SETSIG, HPC_CLOCK_SIGNAL) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    return fd;
}

/* Map the event's user page and start it, then close the fd; or keep the fd (disabled,
 * for start) when the mapping is refused or the fd is not allowed. Signal-safe. */
static int event_settle(hpc_thread_priv *t, int fd)
{
    void *m = mmap(NULL, (size_t)getpagesize(), PROT_READ, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) {
        if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
            int err = errno;
            munmap(m, (size_t)getpagesize());
            close(fd);
            return -err;
        }
        close(fd);
        t->perf_map = m;
        t->perf_fd = fd; /* the number its signals carry */
        t->perf_id = 0;
        return 0;
    }
    if (!fd_allowed(fd)) {
        close(fd);
        return -EMFILE;
    }
    t->perf_map = NULL;
    t->perf_fd = fd;
    t->perf_id = hpc_perf_id(fd);
    return 0;
}

static int perf_open(hpc_thread_priv *t, uint64_t interval_ns)
{
    hpc_fd_moment_begin();
    int fd = event_open(t->pub.tid, interval_ns);
    int err = fd < 0 ? fd : event_settle(t, fd);
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

/* Release an event: unmap it, or close its fd while it is still ours. */
static void release(void *map, int fd, uint64_t id)
{
    if (map)
        munmap(map, (size_t)getpagesize());
    else if (fd >= 0 && hpc_perf_id(fd) == id) {
        ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        close(fd);
    }
}

static void perf_stop(hpc_thread_priv *t)
{
    release(t->perf_map, t->perf_fd, t->perf_id);
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

/* A new event at the new period, then the old one released. Signal-safe. */
static int perf_set_period(hpc_thread_priv *t, uint64_t interval_ns)
{
    int fd = event_open(t->pub.tid, interval_ns);
    if (fd < 0)
        return fd;
    void *map = t->perf_map;
    int old_fd = t->perf_fd;
    uint64_t id = t->perf_id;
    int err = event_settle(t, fd);
    if (err) {
        t->perf_map = map, t->perf_fd = old_fd, t->perf_id = id;
        return err;
    }
    if (!t->perf_map) /* a kept fd starts here */
        ioctl(t->perf_fd, PERF_EVENT_IOC_ENABLE, 0);
    t->clock_period = interval_ns;
    t->perf_fd_prev = old_fd;
    release(map, old_fd, id);
    return 0;
}

static bool perf_is_ours(const hpc_thread_priv *t, const siginfo_t *si)
{
    if (si->si_code != POLL_IN)
        return false;
    return t ? si->si_fd == t->perf_fd || (t->perf_fd_prev >= 0 && si->si_fd == t->perf_fd_prev)
             : true;
}

const hpc_clock_ops hpc_perf_clock_ops = {
    .name = "perf_event_open task-clock",
    .id = HPC_CLOCK_PERF_TASK_CLOCK,
    .open = perf_open,
    .start = perf_start,
    .stop = perf_stop,
    .abandon = perf_abandon,
    .set_period = perf_set_period,
    .is_ours = perf_is_ours,
};
