/*
 * sigsafe_clock.c - the signal handler's side of the clock sources (source.h): is a
 * SIGPROF delivery one of our clock samples? perf events signal with si_code POLL_IN and
 * the event's descriptor in si_fd; the timer source with SI_TIMER and its cookie in
 * si_value. The program's own SIGPROF (setitimer, its timers, kill) carries neither. And
 * the steps of the sources a handler takes too: a thread's perf event opened (the first
 * sample of a thread that started on its timer, source.h: lazy), at another period (the
 * throttle, sigsafe_throttle.c), released. Signal-safe.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "source.h"

#define PERF_PAGE 4096 /* x86-64: the user page perf maps */

bool hpc_perf_clock_is_ours(const hpc_thread_priv *t, const siginfo_t *si)
{
    if (si->si_code != POLL_IN)
        return false;
    return t ? si->si_fd == t->perf_fd || (t->perf_fd_prev >= 0 && si->si_fd == t->perf_fd_prev)
             : true;
}

bool hpc_timer_clock_is_ours(const hpc_thread_priv *t, const siginfo_t *si)
{
    if (si->si_code != SI_TIMER)
        return false;
    uint64_t v = (uint64_t)(uintptr_t)si->si_value.sival_ptr;
    return t ? v == hpc_timer_cookie(t) : (v & HPC_TIMER_COOKIE_MASK) == HPC_TIMER_COOKIE_MAGIC;
}

/* Either source's, whichever t has now: a thread that went from its timer to its perf
 * event (hpc_clock_upgrade), or to a new event (the throttle), may still get the old
 * one's last signal. */
bool hpc_clock_is_ours(const hpc_thread_priv *t, const siginfo_t *si)
{
    return hpc_perf_clock_is_ours(t, si) || hpc_timer_clock_is_ours(t, si);
}

/* ------------------------------------------------------------ perf events */

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

/* A kept fd may take at most half of the program's descriptor limit: the rest stays the
 * program's, and threads beyond it fall back to the timer source, which needs none. */
static int fd_allowed(int fd)
{
    struct rlimit rl;
    if (hpc_fd_program_limit(&rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 1;
    return (rlim_t)fd < rl.rlim_cur / 2;
}

int hpc_perf_event_open(pid_t tid, uint64_t interval_ns)
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

int hpc_perf_event_settle(hpc_thread_priv *t, int fd)
{
    void *m = mmap(NULL, PERF_PAGE, PROT_READ, MAP_SHARED, fd, 0);
    if (m != MAP_FAILED) {
        if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
            int err = errno;
            munmap(m, PERF_PAGE);
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

void hpc_perf_event_release(void *map, int fd, uint64_t id)
{
    if (map)
        munmap(map, PERF_PAGE);
    else if (fd >= 0 && hpc_perf_id(fd) == id) {
        ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
        close(fd);
    }
}

/* A new event at the new period, then the old one released. */
static int perf_set_period(hpc_thread_priv *t, uint64_t interval_ns)
{
    int fd = hpc_perf_event_open(t->pub.tid, interval_ns);
    if (fd < 0)
        return fd;
    void *map = t->perf_map;
    int old_fd = t->perf_fd;
    uint64_t id = t->perf_id;
    int err = hpc_perf_event_settle(t, fd);
    if (err) {
        t->perf_map = map, t->perf_fd = old_fd, t->perf_id = id;
        return err;
    }
    if (!t->perf_map) /* a kept fd starts here */
        ioctl(t->perf_fd, PERF_EVENT_IOC_ENABLE, 0);
    t->perf_fd_prev = old_fd;
    hpc_perf_event_release(map, old_fd, id);
    return 0;
}

/* ------------------------------------------------------------ CPU timers */

int hpc_timer_set_period(hpc_thread_priv *t, uint64_t interval_ns)
{
    struct itimerspec its = {
        {(time_t)(interval_ns / 1000000000ULL), (long)(interval_ns % 1000000000ULL)}, {0, 0}};
    its.it_value = its.it_interval;
    if (!t->timer_ok || syscall(SYS_timer_settime, t->timer_id, 0, &its, NULL) != 0)
        return t->timer_ok ? -errno : -EINVAL;
    return 0;
}

void hpc_timer_release(hpc_thread_priv *t)
{
    if (t->timer_ok) {
        syscall(SYS_timer_delete, t->timer_id);
        t->timer_ok = 0;
    }
}

/* ------------------------------------------------------------ the thread's clock */

uint64_t hpc_clock_period(const hpc_thread_priv *t)
{
    return t->clock_period;
}

void hpc_clock_set_period(hpc_thread_priv *t, uint64_t interval_ns)
{
    int err = t->clock_source == HPC_CLOCK_PERF_TASK_CLOCK   ? perf_set_period(t, interval_ns)
              : t->clock_source == HPC_CLOCK_POSIX_CPU_TIMER ? hpc_timer_set_period(t, interval_ns)
                                                             : -EINVAL;
    if (!err)
        t->clock_period = interval_ns;
}

void hpc_clock_upgrade(hpc_thread_priv *t)
{
    if (!t->clock_lazy)
        return;
    t->clock_lazy = 0;
    int fd = hpc_perf_event_open(t->pub.tid, t->clock_period);
    if (fd < 0 || hpc_perf_event_settle(t, fd) != 0)
        return; /* it stays on the timer */
    if (!t->perf_map && ioctl(t->perf_fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        hpc_perf_event_release(NULL, t->perf_fd, t->perf_id);
        t->perf_fd = -1;
        return;
    }
    hpc_timer_release(t);
    t->clock_source = HPC_CLOCK_PERF_TASK_CLOCK;
}

void hpc_clock_check(hpc_thread_priv *t)
{
    if (!t->clock_lazy || t->in_handler || t->pub.busy)
        return;
    t->in_handler = 1; /* a sample now would find the clock half changed */
    hpc_clock_upgrade(t);
    t->in_handler = 0;
}
