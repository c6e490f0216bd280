/*
 * sigsafe_points.c - periodic global sample points (-S) and the points the -l / -y
 * signals queued (control.h), written without a thread of our own.
 *
 * A helper thread made every program multi-threaded: unshare(CLONE_NEWUSER) needs a
 * single-threaded caller and failed ("Invalid argument"), and chromium's zygote checks
 * that it has one thread before it forks and aborted. So a point is written by whichever
 * collector code meets it first once it is due:
 *
 *   - a running program: the next clock or counter sample (the end of its handler), a
 *     -l / -y delivery, a thread's start or end;
 *   - threads asleep in nanosleep, clock_nanosleep, sleep, usleep, poll, ppoll, select,
 *     pselect, epoll_wait, epoll_pwait, pause, sigsuspend, sigtimedwait or sigwaitinfo:
 *     those calls (quiet_wait.c) run with SIGPROF held and wake at the point's due time
 *     to write it, then wait on for the rest of the program's time;
 *   - threads blocked anywhere else (read, accept, wait4, a mutex or condition
 *     variable, pthread_join): a one-shot POSIX timer on CLOCK_MONOTONIC sends SIGPROF
 *     (si_value HPC_POINTS_COOKIE) a grace time after the due time, unless a point was
 *     written by then (each write re-arms it for the next period), to the thread that
 *     started the points (the main thread, a fork child's thread): to a thread, since a
 *     SIGPROF pending for the whole process makes the kernel drop the program's own
 *     ITIMER_PROF signals (periodic.c). Our handler is installed with SA_RESTART, so
 *     the interrupted call goes on as if nothing happened, except the few calls Linux
 *     never restarts (signal(7)); quiet_wait.c covers the common ones. When that thread
 *     has ended, the points come with samples and sleeps only. The grace (two clock
 *     intervals, at least 1 ms, at most a quarter period) lets a computing program's own
 *     samples write the point first, so its blocked threads are not disturbed.
 *
 * Whoever writes takes the process-stream lock with one attempt (hpc_proc_trylock_once):
 * one that finds it held leaves the point to the holder, whose hpc_proc_unlock writes
 * it. A point is stamped with the time and rusage of its writing; one written late (a
 * loaded machine) skips the periods it overlapped rather than writing a burst. All of
 * this is signal-safe (raw timer system calls, the stream writer, getrusage).
 */
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>

#include "collector.h"
#include "control.h"
#include "source.h"

#define GRACE_MIN_NS 1000000ull

static uint64_t next_due; /* CLOCK_MONOTONIC ns of the next periodic point, 0 = none */
static int timer_id;      /* the kernel's id of the points timer */
static int timer_ok;

void hpc_points_forget(void)
{
    __atomic_store_n(&timer_ok, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&next_due, 0, __ATOMIC_RELEASE);
}

static uint64_t grace_ns(void)
{
    uint64_t g = 2 * hpc_P.cfg.clock_ns, quarter = hpc_P.cfg.sample_ns / 4;
    if (g < GRACE_MIN_NS)
        g = GRACE_MIN_NS;
    return g < quarter ? g : quarter;
}

/* Let the timer fire at `at` (CLOCK_MONOTONIC ns). Signal-safe. */
static void arm_timer(uint64_t at)
{
    if (!__atomic_load_n(&timer_ok, __ATOMIC_ACQUIRE))
        return;
    struct itimerspec its;
    memset(&its, 0, sizeof its);
    its.it_value.tv_sec = (time_t)(at / 1000000000u);
    its.it_value.tv_nsec = (long)(at % 1000000000u);
    syscall(SYS_timer_settime, timer_id, TIMER_ABSTIME, &its, NULL);
}

void hpc_points_schedule(uint64_t first_due, int id, bool ok)
{
    __atomic_store_n(&timer_ok, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&next_due, first_due, __ATOMIC_RELEASE);
    if (!ok)
        return;
    timer_id = id;
    __atomic_store_n(&timer_ok, 1, __ATOMIC_RELEASE);
    arm_timer(first_due + grace_ns());
}

void hpc_points_stop(void)
{
    __atomic_store_n(&next_due, 0, __ATOMIC_RELEASE);
    if (__atomic_exchange_n(&timer_ok, 0, __ATOMIC_ACQ_REL))
        syscall(SYS_timer_delete, timer_id);
}

bool hpc_points_is_timer(int sig, const siginfo_t *si)
{
    return sig == HPC_CLOCK_SIGNAL && si->si_code == SI_TIMER &&
           (uintptr_t)si->si_value.sival_ptr == HPC_POINTS_COOKIE;
}

uint64_t hpc_points_next_due(void)
{
    return __atomic_load_n(&next_due, __ATOMIC_ACQUIRE);
}

bool hpc_points_pending(uint64_t now)
{
    uint64_t due = __atomic_load_n(&next_due, __ATOMIC_ACQUIRE);
    return (due && now >= due) || hpc_control_queued();
}

void hpc_points_catch_up(uint64_t now)
{
    /* the program's pthread_cancel must not end this thread with the lock held */
    hpc_nocancel cancel = hpc_nocancel_begin();
    /* A -l / -y point queued by a thread that found the lock held just before we let
     * it go is ours to write: look again after unlocking (a few rounds at most; later
     * ones find the lock free themselves). */
    for (int round = 0; round < 4 && hpc_points_pending(now); round++) {
        hpc_stream *s = hpc_proc_trylock_once();
        if (!s) {
            /* the holder writes it as it unlocks; should it never (a thread that died
             * holding it), the timer tries again */
            arm_timer(now + grace_ns());
            break;
        }
        if (hpc_P.ended) { /* between an exec's end point and the exec */
            hpc_proc_unlock_quiet();
            break;
        }
        hpc_control_drain_locked(s);
        uint64_t due = __atomic_load_n(&next_due, __ATOMIC_ACQUIRE);
        now = hpc_now_ns(); /* the lock may have waited */
        if (due && now >= due) {
            hpc_control_write_point(s, now, HPC_SAMPLE_PERIODIC, "");
            while (due <= now) /* a late point skips periods, it does not burst */
                due += hpc_P.cfg.sample_ns;
            __atomic_store_n(&next_due, due, __ATOMIC_RELEASE);
            arm_timer(due + grace_ns());
        }
        hpc_proc_unlock_quiet();
        now = hpc_now_ns();
    }
    hpc_nocancel_end(cancel);
}
