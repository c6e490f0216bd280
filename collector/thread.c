/*
 * thread.c - following threads: pthread_create is interposed so that every thread runs
 * inside a start wrapper that opens its stream t<seq>.hpe, arms its own clock and, at
 * its end (return, pthread_exit or cancellation), writes thread_end with its total CPU
 * time (its last CPU time charged, tail.c). States are mmap'd blocks on a list (a fork
 * child frees the ones of threads it does not have).
 *
 * Thread start must cost little (1000 threads created and joined took 0.30 s plain, 0.81
 * s collected, nearly all of it making a file per thread: 1.2 ms on this machine's
 * ext4). So a state whose thread ended goes to a free list with its stream and its
 * calling-context table, and the next thread takes it: its records continue that stream
 * from its own thread_begin on, and a thread_life record in process.hpe says where
 * (experiment.h: hpc_reader_open_life). Files: as many as threads ever ran at once.
 * A thread start is then a few system calls: its clock's perf event (see
 * source_perf_clock.c), the signal mask, its CPU clock at the end.
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
static hpc_thread_priv *free_states; /* ended threads' states with their streams, on ->next */
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

/* A state from the free list, reset for a new thread but keeping its stream and its
 * (emptied) calling-context table; NULL if there is none. */
static hpc_thread_priv *reuse_state(void)
{
    hpc_threads_lock();
    hpc_thread_priv *t = free_states;
    if (t)
        free_states = t->next;
    hpc_threads_unlock();
    if (!t)
        return NULL;
    hpc_stream stream = t->pub.stream;
    hpc_cct cct = t->cct;
    uint32_t file_seq = t->file_seq;
    hpc_cct_clear(&cct);
    memset(t, 0, offsetof(hpc_thread_priv, pcs)); /* pcs is scratch */
    t->pub.stream = stream;
    t->stream_ok = 1;
    t->cct = cct;
    t->file_seq = file_seq;
    return t;
}

hpc_thread_priv *hpc_thread_alloc(int32_t parent_seq, uint64_t start_routine)
{
    HPC_GUARD_SCOPE;
    hpc_thread_priv *t = hpc_P.active ? reuse_state() : NULL;
    if (!t) {
        void *p = mmap(NULL, sizeof(hpc_thread_priv), PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        t = p;
    }
    t->pub.seq = hpc_threads_take_seq();
    t->perf_fd = t->perf_fd_prev = -1;
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

static void state_destroy(hpc_thread_priv *t)
{
    if (t->stream_ok)
        hpc_stream_close(&t->pub.stream);
    hpc_cct_free(&t->cct);
    munmap(t, sizeof *t);
}

void hpc_thread_free(hpc_thread_priv *t)
{
    HPC_GUARD_SCOPE;
    hpc_threads_lock();
    unlink_thread(t);
    /* kept for the next thread while collecting; the end closes them (hpc_threads_close) */
    bool keep = t->stream_ok && hpc_P.active && !hpc_P.ended;
    if (keep) {
        t->next = free_states;
        free_states = t;
    }
    hpc_threads_unlock();
    if (!keep)
        state_destroy(t);
}

void hpc_threads_close(void)
{
    hpc_threads_lock();
    hpc_thread_priv *t = free_states;
    free_states = NULL;
    hpc_threads_unlock();
    for (hpc_thread_priv *next; t; t = next) {
        next = t->next;
        state_destroy(t);
    }
}

/* A fork child: the free states' streams are the parent's. */
static void abandon_free(void)
{
    hpc_thread_priv *t = free_states, *next;
    free_states = NULL;
    for (; t; t = next) {
        next = t->next;
        hpc_stream_abandon(&t->pub.stream);
        hpc_cct_free(&t->cct);
        munmap(t, sizeof *t);
    }
}

void hpc_threads_abandon_others(hpc_thread_priv *keep)
{
    abandon_free();
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
 * out, and the thread goes unrecorded (counted: threads_unrecorded). The bound on all
 * retries (10 s or more) is a safety net only. */
static int create_stream(hpc_thread_priv *t, const char *path)
{
    for (int tries = 0, idle = 0;; tries++) {
        hpc_fd_moment_begin();
        /* no budget without a limit (-L): one cache line less to read per record */
        int err = hpc_stream_create(&t->pub.stream, path, HPC_STREAM_THREAD, t->pub.seq,
                                    HPC_THREAD_CHUNK, hpc_P.budget.limit ? &hpc_P.budget : NULL, 0);
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

/*
 * A reused stream: this thread's life starts here, and process.hpe says where. Without
 * both records its samples would run on in the previous thread's: then it is not
 * recorded (counted in process.hpe's threads_unrecorded). The lock is taken without
 * blocking SIGPROF (a system call each way): this thread is not hpc_self() yet, so no
 * handler of it writes anything, and the ones that take the lock try once and see it
 * held (hpc_proc_trylock).
 */
static int life_begin(hpc_thread_priv *t, const hpc_rec_thread_begin *r)
{
    static uint64_t lives;
    uint64_t every = hpc_P.cfg.debug_life_lock_fail;
    bool held = every && __atomic_add_fetch(&lives, 1, __ATOMIC_RELAXED) % every == 0;
    hpc_stream *p = held ? NULL : hpc_proc_trylock(); /* held: as if for the whole wait */
    if (!p)
        return -1;
    hpc_stream *s = &t->pub.stream;
    uint64_t off = hpc_stream_offset(s), chunk = s->win_off;
    int err = hpc_write_thread_begin(s, r);
    if (s->win_off != chunk) /* it opened a new chunk */
        off = s->win_off;
    hpc_rec_thread_life l = {
        .time = r->time, .seq = t->pub.seq, .stream = t->file_seq, .offset = off};
    if (!err)
        err = hpc_write_thread_life(p, &l);
    hpc_proc_unlock();
    return err ? -1 : 0;
}

int hpc_thread_begin(hpc_thread_priv *t)
{
    HPC_GUARD_SCOPE;
    char path[PATH_MAX + 32], note[160];
    t->pub.tid = (pid_t)syscall(SYS_gettid);
    bool reused = t->stream_ok;
    if (!reused) {
        snprintf(path, sizeof path, "%s/" HPC_THREAD_FMT, hpc_P.dir, t->pub.seq);
        if (create_stream(t, path) < 0)
            return -1;
        t->stream_ok = 1;
        t->file_seq = t->pub.seq;
    }
    hpc_clock_arm(t, hpc_P.cfg.clock_ns, hpc_P.cfg.clock_choice, t->pub.seq != 0, note,
                  sizeof note);
    if (t->pub.seq == 0) { /* the process's settings record shows the main thread's */
        hpc_P.clock_source = t->clock_source;
        snprintf(hpc_P.clock_note, sizeof hpc_P.clock_note, "%s", note);
        hpc_P.states_source = t->st.source;
        snprintf(hpc_P.states_note, sizeof hpc_P.states_note, "%s", t->st.note);
    }
    hpc_rec_thread_begin r = {
        .time = hpc_states_window_preset(t), /* states count from here (states.h) */
        .seq = t->pub.seq,
        .tid = (uint64_t)t->pub.tid,
        .parent_seq = t->parent_seq,
        .start_routine = t->start_routine,
        .clock_source = (uint64_t)t->clock_source,
        .name = hpc_cstr(""),
        .states = (uint64_t)t->st.source,
    };
    if (!reused)
        hpc_write_thread_begin(&t->pub.stream, &r);
    else if (life_begin(t, &r) != 0) {
        hpc_clock_stop(t);
        return -1;
    }
    if (t->st.source && !t->st.lazy) /* lazy: both at its end */
        hpc_states_write_account(t);
    /* a new thread's CPU clock starts at its creation: all of it is the program's (the
     * main thread's before now was the loader's, less the process's start rusage) */
    t->last_cpu_ns = t->thr_seen_ns = t->pub.seq == 0 ? hpc_thread_cpu_ns() : 0;
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
    if (t->st.source && t->stream_ok) { /* its off-CPU time, while its events live */
        hpcollect_write_begin(&t->pub);
        hpc_states_end(t);
        hpcollect_write_end(&t->pub);
    }
    hpc_clock_stop(t);
    hpc_points_catch_up(hpc_now_ns());
    hpcollect_write_begin(&t->pub);
    uint64_t cpu = hpc_thread_cpu_ns();
    hpc_states_end_usage(t); /* one read for the tail and the last window */
    hpc_tail_charge(t, cpu);
    hpc_trace_flush(t); /* interpose.h: the screened calls not yet counted */
    hpc_rec_thread_end r = {
        .time = hpc_now_ns(),
        .cpu_ns = cpu,
        .tail_cpu_ns = cpu > t->last_cpu_ns ? cpu - t->last_cpu_ns : 0,
        .handler_cpu_ns = t->handler_ns,
    };
    if (t->stream_ok && hpc_states_finish(t, r.time, cpu)) /* up to this very end */
        hpc_states_write_account(t);
    if (t->stream_ok)
        hpc_write_thread_end(&t->pub.stream, &r);
    hpcollect_write_end(&t->pub);
    hpc_set_self(NULL);
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
    if (!begun && hpc_P.active)
        hpc_threads_unrecorded(1);
    hpc_nocancel_end(cancel);
    if (!begun) {
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
