/*
 * sigsafe_fds.c - moving one of the collector's descriptors above the program's
 * RLIMIT_NOFILE soft limit (fds.c says why), signal-safe: a thread's thread-state events
 * and its schedstat are opened at its first clock sample, in the handler (states.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"

/* RLIMIT_NOFILE, read or set without our own setrlimit. */
static int nofile(const struct rlimit *set, struct rlimit *get)
{
    return (int)syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, set, get);
}

/* The descriptor for fd in [soft limit + skip, soft limit + skip + room), or -1 when the
 * hard limit leaves no room there. */
static int dup_above_limit(int fd, unsigned skip, unsigned room)
{
    struct rlimit rl, raised;
    if (nofile(NULL, &rl) != 0)
        return -1;
    if (rl.rlim_cur == RLIM_INFINITY || (rlim_t)fd >= rl.rlim_cur + skip)
        return fd;
    rlim_t lo = rl.rlim_cur + skip;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max <= lo)
        return -1;
    raised = rl;
    raised.rlim_cur =
        rl.rlim_max == RLIM_INFINITY || rl.rlim_max > lo + room ? lo + room : rl.rlim_max;
    if (nofile(&raised, NULL) != 0)
        return -1;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, (int)lo);
    nofile(&rl, NULL);
    return high;
}

int hpc_fd_keep_high_at(int fd, unsigned skip, unsigned room)
{
    if (fd < 0)
        return fd;
    int saved = errno, high = dup_above_limit(fd, skip, room);
    if (high != fd)
        close(fd);
    errno = saved;
    return high;
}

int hpc_fd_keep_high(int fd)
{
    return hpc_fd_keep_high_at(fd, 0, 64);
}
