/*
 * sigsafe_process.c - the process stream from any context: its lock (rule 3 of
 * sigsafe.h), proc_end, and the end of collection from a fatal signal's handler.
 * Signal-safe, every function.
 */
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"
#include "source.h"

/* ------------------------------------------------------- process stream lock */

static int proc_lock_word;
static uint64_t unrecorded; /* threads not recorded, not yet in process.hpe's statistics */

/* (lock held) */
static void flush_unrecorded(hpc_stream *s)
{
    uint64_t n = __atomic_exchange_n(&unrecorded, 0, __ATOMIC_RELAXED);
    if (n)
        hpc_stream_stat_add(s, HPC_STAT_THREADS_UNRECORDED, n);
}

/* The count goes into process.hpe's header by a holder of its lock (the thread's start
 * may have failed for want of it): now if the lock is free, else at the holder's unlock
 * or at proc_end. */
void hpc_threads_unrecorded(uint64_t n)
{
    __atomic_add_fetch(&unrecorded, n, __ATOMIC_RELAXED);
    if (hpc_proc_trylock_once())
        hpc_proc_unlock();
}
static __thread int proc_lock_held __attribute__((tls_model("initial-exec")));
static __thread sigset_t proc_lock_saved __attribute__((tls_model("initial-exec")));

static void block_clock_signal(sigset_t *saved)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, HPC_CLOCK_SIGNAL);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, saved, 8);
}

/* One more round of waiting for the lock word: a pause, and every 256th round the CPU
 * given away. The holder is another thread, which may be waiting for a CPU itself: with
 * hundreds of threads starting on 2 cores, pure spinning kept it off for seconds (a
 * thread's start gave up on the lock and went unrecorded). */
static void lock_wait(long i)
{
    if ((i & 255) == 255)
        sched_yield();
    else
        __builtin_ia32_pause();
}

hpc_stream *hpc_proc_lock(void)
{
    if (!hpc_P.active || proc_lock_held)
        return NULL;
    block_clock_signal(&proc_lock_saved);
    for (long i = 0; __atomic_exchange_n(&proc_lock_word, 1, __ATOMIC_ACQUIRE); i++)
        lock_wait(i);
    if (!hpc_P.proc.open) { /* ended meanwhile */
        __atomic_store_n(&proc_lock_word, 0, __ATOMIC_RELEASE);
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, &proc_lock_saved, NULL, 8);
        return NULL;
    }
    proc_lock_held = 1;
    return &hpc_P.proc;
}

hpc_stream *hpc_proc_trylock(void)
{
    if (!hpc_P.proc.open || proc_lock_held)
        return NULL;
    /* the holder runs normal code with our signals blocked, so it finishes soon; bound
     * the wait anyway (it may be a thread that is dying) */
    for (long i = 0; __atomic_exchange_n(&proc_lock_word, 1, __ATOMIC_ACQUIRE); i++) {
        if (i > 50000000L)
            return NULL;
        lock_wait(i);
    }
    if (!hpc_P.proc.open) {
        __atomic_store_n(&proc_lock_word, 0, __ATOMIC_RELEASE);
        return NULL;
    }
    proc_lock_held = 2; /* 2: nothing to restore */
    return &hpc_P.proc;
}

hpc_stream *hpc_proc_trylock_once(void)
{
    if (!hpc_P.proc.open || proc_lock_held ||
        __atomic_exchange_n(&proc_lock_word, 1, __ATOMIC_ACQUIRE))
        return NULL;
    if (!hpc_P.proc.open) {
        __atomic_store_n(&proc_lock_word, 0, __ATOMIC_RELEASE);
        return NULL;
    }
    proc_lock_held = 2; /* 2: nothing to restore */
    return &hpc_P.proc;
}

void hpc_proc_lock_reset(void)
{
    __atomic_store_n(&unrecorded, 0, __ATOMIC_RELAXED); /* the parent's to count */
    __atomic_store_n(&proc_lock_word, 0, __ATOMIC_RELEASE);
    proc_lock_held = 0;
}

void hpc_proc_unlock_quiet(void)
{
    int held = proc_lock_held;
    if (!held)
        return;
    if (__atomic_load_n(&unrecorded, __ATOMIC_RELAXED))
        flush_unrecorded(&hpc_P.proc);
    proc_lock_held = 0;
    __atomic_store_n(&proc_lock_word, 0, __ATOMIC_RELEASE);
    /* the unlocker then looks for points queued meanwhile (periodic.c); a queuer looks
     * at the lock after publishing its point: neither load may pass the other's store */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (held == 1)
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, &proc_lock_saved, NULL, 8);
}

/* A sample point that came due, or a -l / -y point queued, while the lock was held was
 * left to its holder (periodic.c): write it now. */
void hpc_proc_unlock(void)
{
    if (!proc_lock_held)
        return;
    hpc_proc_unlock_quiet();
    uint64_t now = hpc_now_ns();
    if (hpc_points_pending(now))
        hpc_points_catch_up(now);
}

/* ------------------------------------------------------------- end */

void hpc_record_proc_end(hpc_stream *s, int reason, int status, const hpc_usage *at)
{
    hpc_usage u;
    if (at)
        u = *at;
    else
        hpc_get_usage(&u);
    hpc_rec_proc_end r = {
        .time = hpc_now_ns(),
        .reason = (uint64_t)reason,
        .status = status,
        .utime_ns = u.utime_ns,
        .stime_ns = u.stime_ns,
        .maxrss_kb = u.maxrss_kb,
        .minflt = u.minflt,
        .majflt = u.majflt,
        .nvcsw = u.nvcsw,
        .nivcsw = u.nivcsw,
        .inblock = u.inblock,
        .oublock = u.oublock,
        .nthreads = hpc_threads_seen(),
    };
    flush_unrecorded(s);
    hpc_write_proc_end(s, &r);
}

void hpc_process_end_sigsafe(int sig)
{
    if (!hpc_P.active || __atomic_exchange_n(&hpc_P.ended, 1, __ATOMIC_ACQ_REL))
        return;
    hpc_points_stop();
    hpc_thread_priv *t = hpc_self();
    if (t) /* the dying thread's last CPU time (sigsafe_tail.c) */
        hpc_tail_charge_sigsafe(t);
    hpc_usage u;
    hpc_get_usage(&u);
    if (hpc_P.end_hook)
        hpc_P.end_hook(1);
    hpc_stream *s = hpc_proc_trylock();
    if (!s)
        return;
    hpc_write_sample_point_locked(s, HPC_SAMPLE_END, "end");
    hpc_record_proc_end(s, HPC_END_SIGNAL, sig, &u);
    hpc_P.active = 0;
    hpc_gate_update();
    hpc_stream_close(s);
    hpc_proc_unlock();
}
