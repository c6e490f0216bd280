/*
 * thread.c - following threads: pthread_create is interposed so that every thread runs
 * inside a start wrapper that opens its stream t<seq>.hpe, arms its own clock and, at
 * its end (return, pthread_exit or cancellation), writes thread_end with its total CPU
 * time and the tail after its last sample. States are mmap'd blocks on a list (a fork
 * child frees the ones of threads it does not have). Thousands of short-lived threads:
 * each costs one mmap, one file and, while it lives, one perf fd and a mapped chunk;
 * its stream's fd is closed between chunk changes.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"
#include "interpose.h"
#include "source.h"

/* Thread streams use the default 256 KiB chunk: the writer grows a stream's file in
 * doubling steps from 16 KiB (experiment/sigsafe_stream.c), so a short thread reserves
 * 16 KiB and a long one changes chunks rarely. */
#define HPC_THREAD_CHUNK 0

static hpc_thread_priv *all_threads;
static int list_lock;

void hpc_threads_lock(void)
{
    while (__atomic_exchange_n(&list_lock, 1, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
}

void hpc_threads_unlock(void)
{
    __atomic_store_n(&list_lock, 0, __ATOMIC_RELEASE);
}

hpc_thread_priv *hpc_thread_alloc(int32_t parent_seq, uint64_t start_routine)
{
    HPC_GUARD_SCOPE;
    void *p = mmap(NULL, sizeof(hpc_thread_priv), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    hpc_thread_priv *t = p;
    t->pub.seq = hpc_threads_take_seq();
    t->perf_fd = -1;
    t->parent_seq = parent_seq;
    t->start_routine = start_routine;
    hpc_threads_lock();
    t->next = all_threads;
    if (all_threads)
        all_threads->prev = t;
    all_threads = t;
    hpc_threads_unlock();
    return t;
}

static void unlink_thread(hpc_thread_priv *t)
{
    if (t->prev)
        t->prev->next = t->next;
    else if (all_threads == t)
        all_threads = t->next;
    if (t->next)
        t->next->prev = t->prev;
    t->next = t->prev = NULL;
}

void hpc_thread_free(hpc_thread_priv *t)
{
    HPC_GUARD_SCOPE;
    hpc_threads_lock();
    unlink_thread(t);
    hpc_threads_unlock();
    hpc_cct_free(&t->cct);
    munmap(t, sizeof *t);
}

void hpc_threads_abandon_others(hpc_thread_priv *keep)
{
    hpc_thread_priv *t = all_threads, *next;
    all_threads = NULL;
    for (; t; t = next) {
        next = t->next;
        t->next = t->prev = NULL;
        if (t == keep)
            continue;
        if (t->stream_ok)
            hpc_stream_abandon(&t->pub.stream);
        hpc_clock_abandon(t);
        hpc_cct_free(&t->cct);
        munmap(t, sizeof *t);
    }
    if (keep)
        all_threads = keep;
}

/* Create t's stream. Descriptors can run out for a moment when many threads start at
 * once: each holds one while it creates its file and one while it opens its perf
 * events, and a loaded machine can keep a thread off the CPU for a long time inside
 * that moment (this gave up after 20 ms before, and lost threads under load). Retry
 * while the collector holds such descriptors elsewhere (hpc_fd_moment_begin), and for
 * about 20 ms more when it holds none: then the program's own descriptors are what ran
 * out, and the thread goes unrecorded. The bound on all retries (10 s or more) is a
 * safety net only. */
static int create_stream(hpc_thread_priv *t, const char *path)
{
    for (int tries = 0, idle = 0;; tries++) {
        hpc_fd_moment_begin();
        int err = hpc_stream_create(&t->pub.stream, path, HPC_STREAM_THREAD, t->pub.seq,
                                    HPC_THREAD_CHUNK, &hpc_P.budget, 0);
        int e = errno, others = hpc_fd_moment_end();
        errno = e;
        if (err >= 0 || (e != EMFILE && e != ENFILE))
            return err;
        idle = others ? 0 : idle + 1;
        if (idle > 200 || tries == 100000)
            return err;
        struct timespec pause = {0, 100000};
        nanosleep(&pause, NULL);
        errno = e;
    }
}

int hpc_thread_begin(hpc_thread_priv *t)
{
    HPC_GUARD_SCOPE;
    char path[PATH_MAX + 32], note[160];
    t->pub.tid = (pid_t)syscall(SYS_gettid);
    snprintf(path, sizeof path, "%s/" HPC_THREAD_FMT, hpc_P.dir, t->pub.seq);
    if (create_stream(t, path) < 0)
        return -1;
    t->stream_ok = 1;
    hpc_clock_arm(t, hpc_P.cfg.clock_ns, hpc_P.cfg.clock_choice, note, sizeof note);
    if (t->pub.seq == 0) { /* the process's settings record shows the main thread's */
        hpc_P.clock_source = t->clock_source;
        snprintf(hpc_P.clock_note, sizeof hpc_P.clock_note, "%s", note);
    }
    hpc_rec_thread_begin r = {
        .time = hpc_now_ns(),
        .seq = t->pub.seq,
        .tid = (uint64_t)t->pub.tid,
        .parent_seq = t->parent_seq,
        .start_routine = t->start_routine,
        .clock_source = (uint64_t)t->clock_source,
        .name = hpc_cstr(""),
    };
    hpc_write_thread_begin(&t->pub.stream, &r);
    t->last_cpu_ns = hpc_thread_cpu_ns();
    hpc_set_self(t);
    hpc_clock_start(t);
    hpc_points_catch_up(hpc_now_ns());
    return 0;
}

void hpc_thread_end(void)
{
    HPC_GUARD_SCOPE;
    hpc_thread_priv *t = hpc_self();
    if (!t)
        return;
    hpc_clock_stop(t);
    hpc_points_catch_up(hpc_now_ns());
    hpcollect_write_begin(&t->pub);
    uint64_t cpu = hpc_thread_cpu_ns();
    hpc_rec_thread_end r = {
        .time = hpc_now_ns(),
        .cpu_ns = cpu,
        .tail_cpu_ns = cpu > t->last_cpu_ns ? cpu - t->last_cpu_ns : 0,
    };
    if (t->stream_ok)
        hpc_write_thread_end(&t->pub.stream, &r);
    hpcollect_write_end(&t->pub);
    hpc_set_self(NULL);
    if (t->stream_ok)
        hpc_stream_close(&t->pub.stream);
    hpc_thread_free(t);
}

/* ------------------------------------------------------------ pthread_create */

static void thread_cleanup(void *arg)
{
    (void)arg;
    hpc_thread_end();
}

static void *thread_start(void *arg)
{
    hpc_thread_priv *t = arg;
    void *(*fn)(void *) = t->start_fn;
    void *fn_arg = t->start_arg;
    void *ret;
    hpc_signals_thread_init(t->inherit_blocked);
    /* Our setup has cancellation points (open, nanosleep): a cancel that comes now acts
     * at the program's first one instead, once the thread is recorded (test_cancel). */
    hpc_nocancel cancel = hpc_nocancel_begin();
    int begun = hpc_P.active && hpc_thread_begin(t) == 0;
    hpc_nocancel_end(cancel);
    if (!begun) {
        if (t->stream_ok)
            hpc_stream_close(&t->pub.stream);
        hpc_thread_free(t);
        ret = fn(fn_arg);
    } else {
        pthread_cleanup_push(thread_cleanup, NULL);
        ret = fn(fn_arg);
        pthread_cleanup_pop(1);
    }
    return ret;
}

HPC_INTERPOSE int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                                 void *arg)
{
    hpc_real_init();
    if (!hpc_P.active)
        return hpc_real.pthread_create(th, attr, fn, arg);
    hpc_thread_priv *self = hpc_self();
    hpc_thread_priv *t =
        hpc_thread_alloc(self ? (int32_t)self->pub.seq : -1, (uint64_t)(uintptr_t)fn);
    if (!t)
        return hpc_real.pthread_create(th, attr, fn, arg);
    t->start_fn = fn;
    t->start_arg = arg;
    t->inherit_blocked = hpc_user_blocked;
    int rc = hpc_real.pthread_create(th, attr, thread_start, t);
    if (rc != 0)
        hpc_thread_free(t);
    return rc;
}
