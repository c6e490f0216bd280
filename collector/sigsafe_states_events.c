/*
 * sigsafe_states_events.c - opening and closing a thread's thread-state events (states.h):
 * a dummy event with context-switch records and a major-faults event, both writing into
 * one small ring buffer, and the thread's schedstat kept open. Signal-safe: a thread from
 * pthread_create opens them at its first clock sample, in the handler (or once its
 * blocking calls took a clock interval), not at its start (states.c: lazy), as its clock's
 * perf event. Neither event is ever read by the kernel's wakeups: the switch event has no
 * O_ASYNC owner (its buffer's watermark wakeups would otherwise signal the thread as it
 * goes to sleep and cut the sleep short: docs/thread-states.md), and only the fault event
 * signals, after the fault, on a running thread.
 *
 * The buffer is 8 data pages (1024 context switches between two reads); where the
 * kernel's locked-memory budget for perf buffers refuses that (perf_event_mlock_kb, then
 * RLIMIT_MEMLOCK), 2, then 1.
 */
#include <errno.h>
#include <fcntl.h>
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

size_t hpc_states_page = 4096; /* the page size, set by hpc_states_open (sysconf) */

static long perf_open(struct perf_event_attr *a)
{
    long fd = syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !a->exclude_kernel) {
        a->exclude_kernel = 1; /* perf_event_paranoid 2 */
        a->exclude_hv = 1;
        fd = syscall(SYS_perf_event_open, a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    }
    return fd;
}

/* The fault event's descriptor goes well above the program's RLIMIT_NOFILE soft limit
 * (fds.c: the program then gets the numbers and the EMFILE it gets alone; 128 above it,
 * as it is not moved when the program raises its limit: a program raising its limit a
 * little keeps all of its own; 256 threads' room). Where there is no room there (the
 * hard limit) it stays where it is if that is within the first 16th of the program's
 * limit (a 20000 limit: 1250; a program limited to 16 keeps all of its own), else there
 * is no fault event (page-fault sleeps are Other Wait). The thread's schedstat (skip
 * KEEP_SCHEDSTAT) goes to the 256 numbers above those, so that it never takes a fault
 * event's room. Returns fd's final number, or -1 (closed). */
#define KEEP_FAULTS    128
#define KEEP_SCHEDSTAT (128 + 256)
static long keep_out(long fd, unsigned skip)
{
    struct rlimit rl;
    if (hpc_fd_program_limit(&rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return fd;
    int high = hpc_fd_keep_high_at(fcntl((int)fd, F_DUPFD_CLOEXEC, 0), skip, 256);
    if (high >= 0) {
        close((int)fd);
        return high;
    }
    if ((rlim_t)fd < rl.rlim_cur / 16)
        return fd;
    close((int)fd);
    return -1;
}

static void base_attr(struct perf_event_attr *a)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = PERF_TYPE_SOFTWARE;
    a->disabled = 1;
    a->use_clockid = 1; /* record times on the collector's clock */
    a->clockid = CLOCK_MONOTONIC;
    a->sample_id_all = 1;
}

static int open_switches(hpc_states *s)
{
    struct perf_event_attr a;
    base_attr(&a);
    a.config = PERF_COUNT_SW_DUMMY;
    a.sample_type = PERF_SAMPLE_TIME;
    a.context_switch = 1;
    long fd = perf_open(&a);
    if (fd < 0)
        return -errno;
    size_t page = hpc_states_page;
    static const int data_pages[] = {8, 2, 1};
    int err = 0;
    for (size_t i = 0; i < sizeof data_pages / sizeof data_pages[0]; i++) {
        size_t len = page * (size_t)(data_pages[i] + 1);
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
        if (p != MAP_FAILED) {
            s->fd = (int)fd;
            s->id = hpc_perf_id((int)fd);
            s->rb_map = len;
            s->data_off = ((struct perf_event_mmap_page *)p)->data_offset
                              ? ((struct perf_event_mmap_page *)p)->data_offset
                              : (uint64_t)page;
            s->mask = (uint64_t)page * (uint64_t)data_pages[i] - 1;
            s->rb = p;
            return 0;
        }
        err = -errno;
    }
    close((int)fd);
    return err;
}

/* The major-faults event: samples into the switch buffer, SIGPROF to this thread. */
static int open_faults(hpc_states *s)
{
    struct perf_event_attr a;
    base_attr(&a);
    a.config = PERF_COUNT_SW_PAGE_FAULTS_MAJ;
    a.sample_period = 1;
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TIME | PERF_SAMPLE_ADDR;
    a.wakeup_events = 1;
    a.exclude_kernel = 1; /* a fault the kernel takes for a system call is the call's */
    long fd = perf_open(&a);
    if (fd < 0)
        return -errno;
    struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
    if (ioctl((int)fd, PERF_EVENT_IOC_SET_OUTPUT, s->fd) != 0) {
        int err = errno;
        close((int)fd);
        return -err;
    }
    if ((fd = keep_out(fd, KEEP_FAULTS)) < 0)
        return -EMFILE; /* "Too many open files": none above the program's limit */
    /* O_ASYNC last: the signal's si_fd is the number the descriptor had then */
    if (fcntl((int)fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 ||
        fcntl((int)fd, F_SETSIG, HPC_CLOCK_SIGNAL) != 0 ||
        fcntl((int)fd, F_SETOWN_EX, &owner) != 0) {
        int err = errno ? errno : EMFILE;
        close((int)fd);
        return -err;
    }
    s->fault_id = hpc_perf_id((int)fd);
    s->fault_fd = s->fault_sig_fd = (int)fd;
    return 0;
}

/* The thread's schedstat, opened in the thread and kept out of the program's range as the
 * fault event (sigsafe_states.c reads it at every window); where it cannot, every read
 * opens it. */
static void keep_schedstat(hpc_states *s)
{
    struct stat st;
    int fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    int high = (int)keep_out(fd, KEEP_SCHEDSTAT);
    if (high < 0)
        return;
    if (syscall(SYS_fstat, high, &st) != 0) {
        close(high);
        return;
    }
    s->sched_fd = high;
    s->sched_dev = (uint64_t)st.st_dev;
    s->sched_ino = (uint64_t)st.st_ino;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->sched_kept = true;
}

static void release_schedstat(hpc_states *s)
{
    struct stat st;
    if (!s->sched_kept)
        return;
    s->sched_kept = false;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (syscall(SYS_fstat, s->sched_fd, &st) == 0 && (uint64_t)st.st_dev == s->sched_dev &&
        (uint64_t)st.st_ino == s->sched_ino)
        close(s->sched_fd);
    s->sched_fd = -1;
}

void hpc_states_events_release(hpc_states *s)
{
    struct perf_event_mmap_page *rb = s->rb;
    release_schedstat(s);
    int fault_fd = s->fault_fd;
    s->rb = NULL;
    s->fault_fd = -1;
    s->source = HPC_STATES_NONE;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    hpc_perf_close(fault_fd, s->fault_id);
    if (rb)
        munmap(rb, s->rb_map);
    hpc_perf_close(s->fd, s->id);
    s->fd = -1;
}

/* The fault event's signals are told from the clock's by the number they carry (si_fd,
 * fixed when O_ASYNC is set). The clock's perf descriptor is closed once mapped, so its
 * number is free, and a fault event opened after it (a lazy thread whose clock took its
 * perf event before its state events opened) may take that number: the clock's signals
 * were then read as fault signals and dropped (a worker kept 1 sample of 100). Such a
 * fault event moves to another number and says so to the kernel (O_ASYNC off and on: the
 * new number is what its signals carry). */
void hpc_states_fault_avoid(hpc_states *s, int a, int b)
{
    int fd = s->fault_fd;
    if (fd < 0 || (fd != a && fd != b))
        return;
    int other = fcntl(fd, F_DUPFD_CLOEXEC, fd + 1);
    while (other >= 0 && (other == a || other == b)) {
        int next = fcntl(fd, F_DUPFD_CLOEXEC, other + 1);
        close(other);
        other = next;
    }
    if (other < 0 || fcntl(other, F_SETFL, O_NONBLOCK) != 0 ||
        fcntl(other, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
        if (other >= 0)
            close(other);
        hpc_perf_close(fd, s->fault_id); /* no fault event: page-fault sleeps are Other Wait */
        s->fault_fd = s->fault_sig_fd = -1;
        return;
    }
    close(fd);
    s->fault_fd = s->fault_sig_fd = other;
}

int hpc_states_events_open(hpc_states *s, bool faults_on)
{
    int saved = errno;
    hpc_fd_moment_begin();
    s->fault_err = 0;
    int err = open_switches(s);
    if (err == 0 && ioctl(s->fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        err = -errno;
        int source = s->source;
        hpc_states_events_release(s);
        s->source = source;
    }
    if (err == 0 && (s->fault_err = open_faults(s)) == 0 && faults_on &&
        ioctl(s->fault_fd, PERF_EVENT_IOC_ENABLE, 0) != 0) {
        hpc_perf_close(s->fault_fd, s->fault_id);
        s->fault_fd = -1;
    }
    if (s->fd >= 0) { /* its mapping keeps the event (on from now: states.h) */
        close(s->fd);
        s->fd = -1;
    }
    if (err == 0)
        keep_schedstat(s);
    hpc_fd_moment_end();
    errno = saved;
    return err;
}
