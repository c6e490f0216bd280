/*
 * sigsafe_fds.c - moving one of the collector's descriptors above the program's
 * RLIMIT_NOFILE soft limit (fds.c says why), signal-safe: a thread's thread-state events
 * and its schedstat are opened at its first clock sample, in the handler (states.h).
 *
 * The kernel puts no descriptor at or above the soft limit, so a move raises it for the
 * moment of an F_DUPFD and puts it back. The program must never see that moment (a
 * program read "soft limit 656" for its 16 once, tests/collector/test_fds), nor lose a
 * limit it sets meanwhile to our putting back the old one. So:
 *   - every change of the limit, ours or the program's (fds.c: setrlimit, prlimit), and
 *     fork, exec and posix_spawn (descendants.c: a child must not inherit a raised limit)
 *     happen with the limit held (hpc_fd_limit_hold): one thread at a time, or nested in
 *     the holding thread (a sample's handler that moves a descriptor in the middle of
 *     the program's setrlimit);
 *   - while the soft limit is raised, the program's own is kept in `program` and
 *     `raised` is odd (a sequence count): the program's getrlimit, prlimit, getdtablesize
 *     and sysconf(_SC_OPEN_MAX) answer from it (hpc_fd_program_limit), never the raised
 *     value. A reader takes no lock: it retries while a move began or ended under it.
 * What stays visible: the raw system call and /proc/self/limits in that moment, and an
 * open() of a program at its very limit in that moment, which succeeds.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"

static int holder;            /* the thread holding the limit (its tid), 0 = none */
static unsigned raised;       /* odd while the soft limit is raised */
static struct rlimit program; /* the program's limit while it is raised */
static unsigned looked;       /* HPCOLLECT_DEBUG_FD_MOVE_WAIT: the program's reads then */

/* RLIMIT_NOFILE, read or set without our own setrlimit. */
static int nofile(const struct rlimit *set, struct rlimit *get)
{
    return (int)syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, set, get);
}

bool hpc_fd_limit_hold(unsigned looks)
{
    int me = (int)syscall(SYS_gettid), none = 0;
    if (__atomic_load_n(&holder, __ATOMIC_ACQUIRE) == me)
        return false; /* nested: a handler in the middle of its thread's hold */
    for (unsigned i = 1; !__atomic_compare_exchange_n(&holder, &none, me, false, __ATOMIC_ACQUIRE,
                                                      __ATOMIC_RELAXED);
         i++, none = 0) {
        hpc_fd_limit_looked(looks); /* tests: the program waits to set its limit */
        if (i % 128 == 0)
            sched_yield(); /* the holder may be off the CPU: 2 cores, many threads */
        else
            __builtin_ia32_pause();
    }
    return true;
}

void hpc_fd_limit_release(bool took)
{
    if (took)
        __atomic_store_n(&holder, 0, __ATOMIC_RELEASE);
}

void hpc_fd_limit_reset(void)
{
    if (__atomic_load_n(&raised, __ATOMIC_ACQUIRE) & 1)
        nofile(&program, NULL); /* forked in the middle of a move */
    raised = 0;
    __atomic_store_n(&holder, 0, __ATOMIC_RELEASE);
}

void hpc_fd_limit_looked(unsigned n)
{
    if (n && hpc_P.cfg.debug_fd_move_wait && (__atomic_load_n(&raised, __ATOMIC_ACQUIRE) & 1))
        __atomic_add_fetch(&looked, n, __ATOMIC_RELEASE);
}

/* HPCOLLECT_DEBUG_FD_MOVE_WAIT: the raised limit kept until the program has looked. */
static void debug_wait(void)
{
    unsigned from = __atomic_load_n(&looked, __ATOMIC_ACQUIRE);
    struct timespec ms = {0, 1000000};
    for (int i = 0; i < 2000 && __atomic_load_n(&looked, __ATOMIC_ACQUIRE) - from < 16; i++)
        syscall(SYS_nanosleep, &ms, NULL);
}

int hpc_fd_program_limit(struct rlimit *rl)
{
    for (;;) {
        unsigned seq = __atomic_load_n(&raised, __ATOMIC_ACQUIRE);
        if (seq & 1)
            *rl = program;
        else if (nofile(NULL, rl) != 0)
            return -1;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&raised, __ATOMIC_RELAXED) == seq)
            return 0;
    }
}

/* The descriptor for fd in [soft limit + skip, soft limit + skip + room), or -1 when the
 * hard limit leaves no room there (limit held). A move nested in another (a handler in
 * the middle of its thread's move) counts from the program's limit, not the raised one;
 * each puts back the limit it found, and the outer one says when the program's is back. */
static int dup_above_limit(int fd, unsigned skip, unsigned room)
{
    struct rlimit now, rl;
    if (nofile(NULL, &now) != 0)
        return -1;
    bool outer = !(__atomic_load_n(&raised, __ATOMIC_ACQUIRE) & 1);
    rl = outer ? now : program;
    if (rl.rlim_cur == RLIM_INFINITY || (rlim_t)fd >= rl.rlim_cur + skip)
        return fd;
    rlim_t lo = rl.rlim_cur + skip;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= lo)
        return -1;
    struct rlimit up = now;
    up.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > lo + room ? lo + room : rl.rlim_max;
    bool raise = up.rlim_cur > now.rlim_cur;
    if (outer) {
        program = now;
        __atomic_add_fetch(&raised, 1, __ATOMIC_RELEASE); /* odd: readers take `program` */
    }
    int high = !raise || nofile(&up, NULL) == 0 ? fcntl(fd, F_DUPFD_CLOEXEC, (int)lo) : -1;
    if (outer && raise && hpc_P.cfg.debug_fd_move_wait && syscall(SYS_gettid) != getpid())
        debug_wait(); /* (not the main thread's own moves: it is the one that looks) */
    if (raise)
        nofile(&now, NULL);
    if (outer)
        __atomic_add_fetch(&raised, 1, __ATOMIC_RELEASE);
    return high;
}

int hpc_fd_keep_high_at(int fd, unsigned skip, unsigned room)
{
    if (fd < 0)
        return fd;
    int saved = errno;
    bool took = hpc_fd_limit_hold(0);
    int high = dup_above_limit(fd, skip, room);
    hpc_fd_limit_release(took);
    if (high != fd)
        close(fd);
    errno = saved;
    return high;
}

int hpc_fd_keep_high(int fd)
{
    return hpc_fd_keep_high_at(fd, 0, 64);
}
