/*
 * fds.c - the collector's long-lived descriptors kept out of the program's range.
 *
 * A program limited to 16 descriptors could open 12 files alone and 8 under the
 * collector (issue 23): ours counted against its RLIMIT_NOFILE. Now a thread's clock
 * holds none (its perf event is kept by a mapping, source_perf_clock.c), its stream
 * none between chunk changes, libunwind's pipe is closed (sigsafe_unwind.c), and the
 * one that stays, process.hpe's, is moved above the soft limit: the soft limit is
 * raised for the moment of an F_DUPFD and put back, so the kernel's lowest-free rule
 * gives the program the same numbers, and the same EMFILE, as alone. The program never
 * reads that moment's limit, nor loses one it sets meanwhile (sigsafe_fds.c: the readers
 * and setters below).
 * Where the hard limit leaves no room above, the stream gives its descriptor up and
 * reopens its file at each chunk change instead. When the program changes its limit
 * (setrlimit, prlimit) so that our descriptor falls inside it, it moves up again.
 * A counter group (-h) keeps its descriptors where they are: reading them is how a
 * counter sample is exact. The move (hpc_fd_keep_high_at) is in sigsafe_fds.c: a thread's
 * state events are opened in its first clock sample's handler (states.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "interpose.h"

/* The process stream's descriptor after the program changed its limit. */
static void process_stream_up(void)
{
    hpc_stream *s = hpc_proc_lock();
    if (!s)
        return;
    if (s->fd >= 0) {
        s->fd = hpc_fd_keep_high(s->fd);
        s->keep_fd = s->fd >= 0;
    }
    hpc_proc_unlock();
}

/* A change of the program's limit holds it (sigsafe_fds.c: never in the middle of one of
 * our moves, whose putting back would undo it); a read of its own gets the program's
 * limit, never one a move has raised for a moment. */
static int nofile_call(const struct rlimit *new_rl, struct rlimit *old)
{
    if (!new_rl) {
        hpc_fd_limit_looked(1); /* tests (settings.def) */
        return hpc_fd_program_limit(old);
    }
    bool took = hpc_fd_limit_hold(16);
    int rc = (int)syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, new_rl, old);
    hpc_fd_limit_release(took);
    return rc;
}

/* prlimit64 as the C library makes it, then our descriptor moved if it must. */
static int limit_call(pid_t pid, int res, const struct rlimit *new_rl, struct rlimit *old)
{
    if (res != RLIMIT_NOFILE || (pid != 0 && pid != getpid()))
        return (int)syscall(SYS_prlimit64, pid, res, new_rl, old);
    int rc = nofile_call(new_rl, old);
    if (rc == 0 && new_rl && hpc_P.active) {
        int saved = errno;
        process_stream_up();
        errno = saved;
    }
    return rc;
}

HPC_INTERPOSE int setrlimit(__rlimit_resource_t res, const struct rlimit *rl)
{
    return limit_call(0, (int)res, rl, NULL);
}

HPC_INTERPOSE int setrlimit64(__rlimit_resource_t res, const struct rlimit64 *rl)
{
    return limit_call(0, (int)res, (const struct rlimit *)rl, NULL);
}

HPC_INTERPOSE int getrlimit(__rlimit_resource_t res, struct rlimit *rl)
{
    return limit_call(0, (int)res, NULL, rl);
}

HPC_INTERPOSE int getrlimit64(__rlimit_resource_t res, struct rlimit64 *rl)
{
    return limit_call(0, (int)res, NULL, (struct rlimit *)rl);
}

HPC_INTERPOSE int prlimit(pid_t pid, enum __rlimit_resource res, const struct rlimit *new_rl,
                          struct rlimit *old)
{
    return limit_call(pid, (int)res, new_rl, old);
}

HPC_INTERPOSE int prlimit64(pid_t pid, enum __rlimit_resource res, const struct rlimit64 *new_rl,
                            struct rlimit64 *old)
{
    return limit_call(pid, (int)res, (const struct rlimit *)new_rl, (struct rlimit *)old);
}

/* The C library's own readers of the limit call its internal getrlimit, past ours; as
 * it does, the soft limit as an int. */
static long open_max(void)
{
    struct rlimit rl;
    hpc_fd_limit_looked(1);
    return hpc_fd_program_limit(&rl) == 0 ? (int)rl.rlim_cur : -1;
}

HPC_INTERPOSE int getdtablesize(void)
{
    return (int)open_max();
}

HPC_INTERPOSE long sysconf(int name)
{
    hpc_real_init();
    return name == _SC_OPEN_MAX ? open_max() : hpc_real.sysconf(name);
}
