/*
 * source_perf_clock.c - clock profiling with a perf_event software task-clock event per
 * thread. The event counts the thread's CPU time in ns; every sample_period ns it
 * overflows and, with O_ASYNC + F_SETSIG + F_SETOWN_EX(F_OWNER_TID), the kernel sends
 * SIGPROF with si_code POLL_IN and si_fd = the event's fd to that very thread. No ring
 * buffer is mapped: the signal is all we need, and the rate is exactly the one asked
 * (POSIX CPU timers only fire at the scheduler tick).
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "source.h"

/* perf fds may take at most half of the program's descriptor limit: the rest stays the
 * program's, and threads beyond it fall back to the timer source, which needs none. */
static int fd_allowed(int fd)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 1;
    return (rlim_t)fd < rl.rlim_cur / 2;
}

static int perf_open(hpc_thread_priv *t, uint64_t interval_ns)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = interval_ns;
    a.disabled = 1;
    a.wakeup_events = 1;
    hpc_fd_moment_begin();
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM)) {
        /* perf_event_paranoid >= 2 allows user-space-only measurement */
        a.exclude_kernel = 1;
        a.exclude_hv = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    int err = fd < 0 ? -errno : 0;
    if (fd >= 0 && !fd_allowed(fd)) {
        close(fd);
        err = -EMFILE;
    }
    hpc_fd_moment_end();
    if (err)
        return err;
    struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 ||
        fcntl(fd, F_SETSIG, HPC_CLOCK_SIGNAL) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0) {
        int err = errno;
        close(fd);
        return -err;
    }
    t->perf_fd = fd;
    t->perf_id = hpc_perf_id(fd);
    return 0;
}

static int perf_start(hpc_thread_priv *t)
{
    if (ioctl(t->perf_fd, PERF_EVENT_IOC_RESET, 0) != 0 ||
        ioctl(t->perf_fd, PERF_EVENT_IOC_ENABLE, 0) != 0)
        return -errno;
    return 0;
}

static void perf_stop(hpc_thread_priv *t)
{
    if (t->perf_fd >= 0 && hpc_perf_id(t->perf_fd) == t->perf_id) {
        ioctl(t->perf_fd, PERF_EVENT_IOC_DISABLE, 0);
        close(t->perf_fd);
    }
    t->perf_fd = -1;
}

/* The child's copy of the fd refers to the parent thread's event: just drop it. */
static void perf_abandon(hpc_thread_priv *t)
{
    hpc_perf_close(t->perf_fd, t->perf_id);
    t->perf_fd = -1;
}

const hpc_clock_ops hpc_perf_clock_ops = {
    .name = "perf_event_open task-clock",
    .id = HPC_CLOCK_PERF_TASK_CLOCK,
    .open = perf_open,
    .start = perf_start,
    .stop = perf_stop,
    .abandon = perf_abandon,
};
