/*
 * quiet_wait.c - sleeps and waits that the collector's signals must not cut short, and
 * that still write the periodic sample points falling due while every thread waits.
 *
 * Linux never restarts a sleep or a multiplexed wait interrupted by a signal handler,
 * whatever SA_RESTART says (signal(7)): nanosleep, poll and the others return EINTR,
 * sleep() and usleep() return early. Two kinds of SIGPROF would do that to the program:
 * counter overflows of events that count while a thread blocks (context-switches
 * overflow as the thread leaves the CPU), and the points timer (periodic.c). So these
 * calls run with SIGPROF held for real (the program's own signals are untouched): an
 * overflow stays pending and is delivered the moment the call returns, still inside it,
 * where its sample belongs; clock samples lose nothing (a blocked thread uses no CPU).
 * Calls that take a signal mask (ppoll, pselect, epoll_pwait, sigsuspend) get SIGPROF
 * added to it.
 *
 * A held SIGPROF also keeps the points timer away from the waiting thread, so a wait
 * that spans a periodic point's due time is split there: the wrapper waits until the
 * due time, writes the point (in normal context) and waits on until the program's own
 * deadline, which is computed once, so the split changes neither how long the call
 * waits nor what it returns (the remaining time of an interrupted nanosleep, select's
 * updated timeout, file descriptor sets restored before each part). A program whose
 * threads all sleep thus still gets its points at their period. A zero timeout is
 * passed straight through.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"
#include "interpose.h"
#include "source.h"

#define KSIGSET_SIZE 8
#define NEVER        UINT64_MAX
#define NS           1000000000ull

/* One wait of the program: whether SIGPROF is held, and whether periodic points may
 * fall due during it. */
typedef struct quiet {
    bool held, points;
    sigset_t old;
} quiet;

static quiet quiet_begin(void)
{
    quiet q = {false, hpc_points_next_due() != 0, {{0}}};
    hpc_thread_priv *t = hpc_self();
    if (!q.points && !(t && t->ctr.n))
        return q;
    sigset_t prof;
    sigemptyset(&prof);
    sigaddset(&prof, HPC_CLOCK_SIGNAL);
    q.held = syscall(SYS_rt_sigprocmask, SIG_BLOCK, &prof, &q.old, KSIGSET_SIZE) == 0;
    q.points = q.points && q.held;
    return q;
}

static void quiet_end(const quiet *q)
{
    if (q->held) {
        int saved = errno;
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, &q->old, NULL, KSIGSET_SIZE);
        errno = saved;
    }
}

/* A copy of a mask the program passes, with SIGPROF added while held. */
static const sigset_t *quiet_mask(const quiet *q, const sigset_t *mask, sigset_t *copy)
{
    if (!mask || !q->held)
        return mask;
    *copy = *mask;
    sigaddset(copy, HPC_CLOCK_SIGNAL);
    return copy;
}

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * NS + (uint64_t)ts->tv_nsec;
}

static struct timespec ns_ts(uint64_t ns)
{
    return (struct timespec){(time_t)(ns / NS), (long)(ns % NS)};
}

static bool ts_valid(const struct timespec *ts)
{
    return ts && ts->tv_sec >= 0 && ts->tv_nsec >= 0 && ts->tv_nsec < (long)NS &&
           ts->tv_sec < (time_t)(NEVER / NS / 4);
}

/* Left of `deadline` now: 0 once passed, NEVER for none. */
static uint64_t left_ns(uint64_t deadline)
{
    if (deadline == NEVER)
        return NEVER;
    uint64_t now = hpc_now_ns();
    return deadline > now ? deadline - now : 0;
}

static uint64_t deadline_in(uint64_t ns)
{
    return ns == NEVER ? NEVER : hpc_now_ns() + ns;
}

/* Milliseconds until t, rounded up; -1 for never (poll, epoll_wait). */
static int ms_until(uint64_t t)
{
    if (t == NEVER)
        return -1;
    uint64_t ns = left_ns(t), ms = (ns + 999999) / 1000000;
    return ms > INT32_MAX ? INT32_MAX : (int)ms;
}

/*
 * When to wake for the next periodic point before `deadline` (CLOCK_MONOTONIC ns), or
 * 0 when the rest of the wait need not be split. A point due already is written first
 * (whoever holds the process stream writes it if we cannot; then look again in 1 ms).
 * errno is kept.
 */
static uint64_t wake_for_point(const quiet *q, uint64_t deadline)
{
    if (!q->points)
        return 0;
    uint64_t due = hpc_points_next_due(), now = hpc_now_ns();
    if (due && due <= now) {
        int saved = errno;
        hpc_points_catch_up(now);
        errno = saved;
        due = hpc_points_next_due();
        if (due && due <= now)
            due = now + 1000000;
    }
    return due && due < deadline ? due : 0;
}

/* ------------------------------------------------------------------ sleeps */

static bool split_clock(clockid_t clk)
{
    return clk == CLOCK_REALTIME || clk == CLOCK_MONOTONIC || clk == CLOCK_BOOTTIME ||
           clk == CLOCK_TAI;
}

/*
 * Sleep on `clk` until `target` (ns of that clock), waking on CLOCK_MONOTONIC for the
 * points due before. Returns 0, or the error of clock_nanosleep (EINTR: a handler of
 * the program ran).
 */
static int sleep_until(const quiet *q, clockid_t clk, uint64_t target)
{
    hpc_real_init();
    for (;;) {
        struct timespec now_clk;
        clock_gettime(clk, &now_clk);
        uint64_t left = target > ts_ns(&now_clk) ? target - ts_ns(&now_clk) : 0;
        uint64_t wake = wake_for_point(q, deadline_in(left));
        struct timespec until = ns_ts(wake ? wake : target);
        int rc =
            HPC_REAL(clock_nanosleep)(wake ? CLOCK_MONOTONIC : clk, TIMER_ABSTIME, &until, NULL);
        if (rc || !wake)
            return rc;
    }
}

/* What is left of a relative sleep on clk that ends at target (rem of nanosleep). */
static void remaining(clockid_t clk, uint64_t target, struct timespec *rem)
{
    struct timespec now;
    clock_gettime(clk, &now);
    if (rem)
        *rem = ns_ts(target > ts_ns(&now) ? target - ts_ns(&now) : 0);
}

/* clock_nanosleep's contract (an error number, rem for relative sleeps) for a sleep
 * that may be split; splits is false when it need not be. */
static int quiet_sleep(const quiet *q, clockid_t clk, int flags, const struct timespec *req,
                       struct timespec *rem, bool *split)
{
    struct timespec now;
    *split = q->points && ts_valid(req) && split_clock(clk) && clock_gettime(clk, &now) == 0;
    if (!*split)
        return 0;
    uint64_t target = flags & TIMER_ABSTIME ? ts_ns(req) : ts_ns(&now) + ts_ns(req);
    int rc = sleep_until(q, clk, target);
    if (rc == EINTR && !(flags & TIMER_ABSTIME))
        remaining(clk, target, rem);
    return rc;
}

HPC_INTERPOSE int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                                  struct timespec *rem)
{
    hpc_real_init();
    quiet q = quiet_begin();
    bool split;
    int rc = quiet_sleep(&q, clk, flags, req, rem, &split);
    if (!split)
        rc = HPC_REAL(clock_nanosleep)(clk, flags, req, rem);
    quiet_end(&q);
    return rc;
}

HPC_INTERPOSE int nanosleep(const struct timespec *req, struct timespec *rem)
{
    hpc_real_init();
    quiet q = quiet_begin();
    bool split;
    int rc = quiet_sleep(&q, CLOCK_MONOTONIC, 0, req, rem, &split);
    if (!split)
        rc = HPC_REAL(nanosleep)(req, rem);
    else if (rc) {
        errno = rc;
        rc = -1;
    }
    quiet_end(&q);
    return rc;
}

/* glibc's sleep and usleep call its nanosleep directly, not through ours. */
HPC_INTERPOSE unsigned int sleep(unsigned int seconds)
{
    hpc_real_init();
    quiet q = quiet_begin();
    struct timespec req = {(time_t)seconds, 0}, rem = {0, 0};
    bool split;
    int saved = errno;
    int rc = quiet_sleep(&q, CLOCK_MONOTONIC, 0, &req, &rem, &split);
    unsigned int left = split ? (rc ? (unsigned int)rem.tv_sec : 0) : HPC_REAL(sleep)(seconds);
    if (split) /* as glibc's: errno kept unless interrupted */
        errno = rc ? rc : saved;
    quiet_end(&q);
    return left;
}

HPC_INTERPOSE int usleep(useconds_t usec)
{
    hpc_real_init();
    quiet q = quiet_begin();
    struct timespec req = {(time_t)(usec / 1000000), (long)(usec % 1000000) * 1000};
    bool split;
    int rc = quiet_sleep(&q, CLOCK_MONOTONIC, 0, &req, NULL, &split);
    if (!split)
        rc = HPC_REAL(usleep)(usec);
    else if (rc) {
        errno = rc;
        rc = -1;
    }
    quiet_end(&q);
    return rc;
}

/* ------------------------------------------------------- waits for events */

/* The wait's deadline from a timeout in ms (negative: none). */
static uint64_t ms_deadline(int timeout)
{
    return timeout < 0 ? NEVER : deadline_in((uint64_t)timeout * 1000000);
}

/* The same from a timespec (NULL: none). */
static uint64_t ts_deadline(const struct timespec *t)
{
    return t ? deadline_in(ts_ns(t)) : NEVER;
}

/* A relative timespec for the part of a wait that ends at `until` (NULL: none). */
static struct timespec *part_ts(uint64_t until, struct timespec *buf)
{
    if (until == NEVER)
        return NULL;
    *buf = ns_ts(left_ns(until));
    return buf;
}

HPC_INTERPOSE int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    hpc_real_init();
    if (timeout == 0)
        return HPC_REAL(poll)(fds, n, timeout);
    quiet q = quiet_begin();
    uint64_t deadline = q.points ? ms_deadline(timeout) : NEVER, wake;
    int rc = 0;
    if (!q.points || !(wake = wake_for_point(&q, deadline)))
        rc = HPC_REAL(poll)(fds, n, timeout);
    else
        do
            rc = HPC_REAL(poll)(fds, n, ms_until(wake ? wake : deadline));
        while (rc == 0 && wake && (wake = wake_for_point(&q, deadline), left_ns(deadline)));
    quiet_end(&q);
    return rc;
}

HPC_INTERPOSE int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo,
                        const sigset_t *mask)
{
    hpc_real_init();
    if (tmo && tmo->tv_sec == 0 && tmo->tv_nsec == 0)
        return HPC_REAL(ppoll)(fds, n, tmo, mask);
    quiet q = quiet_begin();
    sigset_t copy;
    const sigset_t *m = quiet_mask(&q, mask, &copy);
    uint64_t deadline = q.points && ts_valid(tmo) ? ts_deadline(tmo) : NEVER, wake = 0;
    struct timespec part;
    int rc = 0;
    if (!q.points || (tmo && !ts_valid(tmo)) || !(wake = wake_for_point(&q, deadline)))
        rc = HPC_REAL(ppoll)(fds, n, tmo, m);
    else
        do
            rc = HPC_REAL(ppoll)(fds, n, part_ts(wake ? wake : deadline, &part), m);
        while (rc == 0 && wake && (wake = wake_for_point(&q, deadline), left_ns(deadline)));
    quiet_end(&q);
    return rc;
}

HPC_INTERPOSE int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
    hpc_real_init();
    if (timeout == 0)
        return HPC_REAL(epoll_wait)(epfd, ev, max, timeout);
    quiet q = quiet_begin();
    uint64_t deadline = q.points ? ms_deadline(timeout) : NEVER, wake;
    int rc = 0;
    if (!q.points || !(wake = wake_for_point(&q, deadline)))
        rc = HPC_REAL(epoll_wait)(epfd, ev, max, timeout);
    else
        do
            rc = HPC_REAL(epoll_wait)(epfd, ev, max, ms_until(wake ? wake : deadline));
        while (rc == 0 && wake && (wake = wake_for_point(&q, deadline), left_ns(deadline)));
    quiet_end(&q);
    return rc;
}

HPC_INTERPOSE int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout,
                              const sigset_t *mask)
{
    hpc_real_init();
    if (timeout == 0)
        return HPC_REAL(epoll_pwait)(epfd, ev, max, timeout, mask);
    quiet q = quiet_begin();
    sigset_t copy;
    const sigset_t *m = quiet_mask(&q, mask, &copy);
    uint64_t deadline = q.points ? ms_deadline(timeout) : NEVER, wake;
    int rc = 0;
    if (!q.points || !(wake = wake_for_point(&q, deadline)))
        rc = HPC_REAL(epoll_pwait)(epfd, ev, max, timeout, m);
    else
        do
            rc = HPC_REAL(epoll_pwait)(epfd, ev, max, ms_until(wake ? wake : deadline), m);
        while (rc == 0 && wake && (wake = wake_for_point(&q, deadline), left_ns(deadline)));
    quiet_end(&q);
    return rc;
}

/* select and pselect clear the sets when they time out: each part starts from the
 * program's sets (at most FD_SETSIZE descriptors are split; more wait in one piece). */
typedef struct fd_sets {
    fd_set *set[3];
    fd_set copy[3];
} fd_sets;

static bool sets_save(fd_sets *s, int n, fd_set *r, fd_set *w, fd_set *e)
{
    if (n < 0 || n > FD_SETSIZE)
        return false;
    s->set[0] = r, s->set[1] = w, s->set[2] = e;
    for (int i = 0; i < 3; i++)
        if (s->set[i])
            s->copy[i] = *s->set[i];
    return true;
}

static void sets_restore(const fd_sets *s)
{
    for (int i = 0; i < 3; i++)
        if (s->set[i])
            *s->set[i] = s->copy[i];
}

HPC_INTERPOSE int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout)
{
    hpc_real_init();
    if (timeout && timeout->tv_sec == 0 && timeout->tv_usec == 0)
        return HPC_REAL(select)(n, r, w, e, timeout);
    quiet q = quiet_begin();
    fd_sets sets;
    bool valid = !timeout || (timeout->tv_sec >= 0 && timeout->tv_usec >= 0 &&
                              timeout->tv_usec < 1000000 && timeout->tv_sec < INT32_MAX);
    uint64_t deadline = NEVER, wake = 0;
    if (timeout && valid)
        deadline = deadline_in((uint64_t)timeout->tv_sec * NS + (uint64_t)timeout->tv_usec * 1000);
    int rc = 0;
    if (!q.points || !valid || !sets_save(&sets, n, r, w, e) ||
        !(wake = wake_for_point(&q, deadline))) {
        rc = HPC_REAL(select)(n, r, w, e, timeout);
    } else {
        do {
            sets_restore(&sets);
            uint64_t ns = left_ns(wake ? wake : deadline);
            struct timeval part = {(time_t)(ns / NS), (long)((ns % NS + 999) / 1000)};
            rc = HPC_REAL(select)(n, r, w, e, ns == NEVER ? NULL : &part);
        } while (rc == 0 && wake && (wake = wake_for_point(&q, deadline), left_ns(deadline)));
        if (timeout) { /* Linux's select says how much of the timeout is left */
            uint64_t ns = left_ns(deadline);
            *timeout = (struct timeval){(time_t)(ns / NS), (long)(ns % NS / 1000)};
        }
    }
    quiet_end(&q);
    return rc;
}

HPC_INTERPOSE int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *tmo,
                          const sigset_t *mask)
{
    hpc_real_init();
    if (tmo && tmo->tv_sec == 0 && tmo->tv_nsec == 0)
        return HPC_REAL(pselect)(n, r, w, e, tmo, mask);
    quiet q = quiet_begin();
    sigset_t copy;
    const sigset_t *m = quiet_mask(&q, mask, &copy);
    fd_sets sets;
    uint64_t deadline = ts_valid(tmo) ? ts_deadline(tmo) : NEVER, wake = 0;
    struct timespec part;
    int rc = 0;
    if (!q.points || (tmo && !ts_valid(tmo)) || !sets_save(&sets, n, r, w, e) ||
        !(wake = wake_for_point(&q, deadline))) {
        rc = HPC_REAL(pselect)(n, r, w, e, tmo, m);
    } else {
        do {
            sets_restore(&sets);
            rc = HPC_REAL(pselect)(n, r, w, e, part_ts(wake ? wake : deadline, &part), m);
        } while (rc == 0 && wake && (wake = wake_for_point(&q, deadline), left_ns(deadline)));
    }
    quiet_end(&q);
    return rc;
}

/* ------------------------------------------------------------ signal waits */

/* Wait for a signal handler of the program with `mask` installed (NULL: the current
 * one), waking for points: pause and sigsuspend. Returns -1 with errno EINTR. */
static int wait_for_handler(const quiet *q, const sigset_t *mask)
{
    hpc_real_init();
    for (;;) {
        uint64_t wake = wake_for_point(q, NEVER);
        struct timespec part;
        int rc = HPC_REAL(ppoll)(NULL, 0, part_ts(wake ? wake : NEVER, &part), mask);
        if (rc < 0)
            return rc;
    }
}

HPC_INTERPOSE int pause(void)
{
    hpc_real_init();
    quiet q = quiet_begin();
    int rc = q.points ? wait_for_handler(&q, NULL) : HPC_REAL(pause)();
    quiet_end(&q);
    return rc;
}

HPC_INTERPOSE int sigsuspend(const sigset_t *mask)
{
    hpc_real_init();
    quiet q = quiet_begin();
    sigset_t copy;
    const sigset_t *m = quiet_mask(&q, mask, &copy);
    int rc = q.points ? wait_for_handler(&q, m) : HPC_REAL(sigsuspend)(m);
    quiet_end(&q);
    return rc;
}

/* sigtimedwait with points: the waits for SIGPROF itself are the program's business. */
static int timed_wait(const quiet *q, const sigset_t *set, siginfo_t *info,
                      const struct timespec *tmo)
{
    hpc_real_init();
    uint64_t deadline = ts_deadline(tmo), wake;
    struct timespec part;
    if (!q->points || sigismember(set, HPC_CLOCK_SIGNAL) == 1 || (tmo && !ts_valid(tmo)) ||
        !(wake = wake_for_point(q, deadline)))
        return HPC_REAL(sigtimedwait)(set, info, tmo);
    for (;;) {
        int rc = HPC_REAL(sigtimedwait)(set, info, part_ts(wake ? wake : deadline, &part));
        if (rc >= 0 || errno != EAGAIN || !wake)
            return rc;
        wake = wake_for_point(q, deadline);
        if (!left_ns(deadline))
            return rc;
    }
}

HPC_INTERPOSE int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *tmo)
{
    hpc_real_init();
    if (tmo && tmo->tv_sec == 0 && tmo->tv_nsec == 0)
        return HPC_REAL(sigtimedwait)(set, info, tmo);
    quiet q = quiet_begin();
    int rc = timed_wait(&q, set, info, tmo);
    quiet_end(&q);
    return rc;
}

HPC_INTERPOSE int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
    quiet q = quiet_begin();
    int rc = timed_wait(&q, set, info, NULL);
    quiet_end(&q);
    return rc;
}
