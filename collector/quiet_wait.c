/*
 * quiet_wait.c - sleeps and waits that a counter signal must not cut short.
 *
 * Events that count while a thread blocks (context-switches: the count happens as the
 * thread leaves the CPU; cpu-migrations) overflow inside the blocking call, and the
 * signal then wakes the sleeper: nanosleep and poll return EINTR, sleep() and usleep()
 * return early, and the program would run differently under the collector. So while a
 * thread has counters open, these calls run with SIGPROF blocked for real: the overflow
 * stays pending and is delivered the moment the call returns, still inside the call,
 * where its sample belongs. Clock samples lose nothing (a blocked thread uses no CPU
 * time); the program's own signals are untouched. Calls that already take a signal mask
 * (ppoll, pselect, epoll_pwait, sigsuspend) are left alone: the mask they install is
 * the program's.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "source.h"

#define KSIGSET_SIZE 8

/* The next definition of a function we interpose (normal context only). */
static void *next_fn(void **cache, const char *name)
{
    void *p = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (!p) {
        p = dlsym(RTLD_NEXT, name);
        __atomic_store_n(cache, p, __ATOMIC_RELEASE);
    }
    return p;
}
#define NEXT(name)                                                                                 \
    static void *name##_cache;                                                                     \
    __typeof__(&name) real_##name = (__typeof__(&name))next_fn(&name##_cache, #name)

/* Block SIGPROF if this thread has counters; returns whether it did. */
static bool hold_counter_signal(sigset_t *old)
{
    hpc_thread_priv *t = hpc_self();
    if (!t || t->ctr.n == 0)
        return false;
    sigset_t prof;
    sigemptyset(&prof);
    sigaddset(&prof, HPC_CLOCK_SIGNAL);
    return syscall(SYS_rt_sigprocmask, SIG_BLOCK, &prof, old, KSIGSET_SIZE) == 0;
}

static void release_counter_signal(bool held, const sigset_t *old)
{
    if (held) {
        int saved = errno;
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, KSIGSET_SIZE);
        errno = saved;
    }
}

/* The wait's time off the CPU is charged to its stack as Other Wait (states.h). */
#define QUIETLY(real, call)                                                                        \
    sigset_t old_;                                                                                 \
    hpc_call c_;                                                                                   \
    hpc_thread_priv *t_ = hpc_states_call_begin(&c_, HPC_MSTATE_OTHER_WAIT, (void *)real);         \
    bool held_ = hold_counter_signal(&old_);                                                       \
    __typeof__(call) rc_ = call;                                                                   \
    release_counter_signal(held_, &old_);                                                          \
    if (t_)                                                                                        \
        hpc_states_call_end(t_, &c_);                                                              \
    return rc_

HPC_INTERPOSE int nanosleep(const struct timespec *req, struct timespec *rem)
{
    NEXT(nanosleep);
    QUIETLY(real_nanosleep, real_nanosleep(req, rem));
}

HPC_INTERPOSE int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req,
                                  struct timespec *rem)
{
    NEXT(clock_nanosleep);
    QUIETLY(real_clock_nanosleep, real_clock_nanosleep(clk, flags, req, rem));
}

HPC_INTERPOSE unsigned int sleep(unsigned int seconds)
{
    NEXT(sleep);
    QUIETLY(real_sleep, real_sleep(seconds));
}

HPC_INTERPOSE int usleep(useconds_t usec)
{
    NEXT(usleep);
    QUIETLY(real_usleep, real_usleep(usec));
}

HPC_INTERPOSE int poll(struct pollfd *fds, nfds_t n, int timeout)
{
    NEXT(poll);
    QUIETLY(real_poll, real_poll(fds, n, timeout));
}

HPC_INTERPOSE int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *timeout)
{
    NEXT(select);
    QUIETLY(real_select, real_select(n, r, w, e, timeout));
}

HPC_INTERPOSE int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
    NEXT(epoll_wait);
    QUIETLY(real_epoll_wait, real_epoll_wait(epfd, ev, max, timeout));
}
