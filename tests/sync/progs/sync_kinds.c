/*
 * sync_kinds.c - ground truth for the sync tracer: waits of known length in a condition
 * variable, a barrier, a join and a semaphore, plus N uncontended lock/unlock pairs (argv[1],
 * default 0) that no threshold above a few microseconds records.
 *
 *   cond_waiter   waits on `ready` COND_ROUNDS times; the signaller sleeps COND_MS first
 *   barrier_main  waits at `gate` for a thread that arrives BARRIER_MS late
 *   join_main     joins a thread that sleeps JOIN_MS
 *   sem_main      waits on `token`, posted SEM_MS later
 *   rdlock_main, wrlock_main, spin_main, mtx_main (C11)  wait HOLD_MS for a thread
 *                 holding the rwlock for writing, for reading, the spin lock, the mtx_t
 *   thrd_join_main  joins (C11) a thread that sleeps HOLD_MS
 *
 * Prints, per kind, how many sync calls the program made and how long the long waits
 * lasted by its own clock (ns), one line each:  KIND CALLS LONG_WAITS LONG_NS
 * (the threshold test: every call is either recorded or screened, the long ones recorded).
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <threads.h>
#include <time.h>

#include "thread_clocks.h"

#define COND_ROUNDS 3
#define COND_MS     30
#define BARRIER_MS  40
#define JOIN_MS     50
#define SEM_MS      20

pthread_mutex_t ready_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t ready = PTHREAD_COND_INITIALIZER;
pthread_barrier_t gate;
sem_t token;
pthread_mutex_t quick_lock = PTHREAD_MUTEX_INITIALIZER;

static int flag;                     /* under ready_lock */
static long calls_mutex, calls_cond; /* every sync call the program made, by kind */
static long calls_barrier, calls_join, calls_sem;
static long calls_rd, calls_wr, calls_spin; /* rwlock read and write locks, spin locks */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A timed wait's window: wall time from window_open to window_close, and the run delay
 * in it (time runnable, not running: thread_clocks.h) added to window_rd, read before
 * and after so that the reads stay outside. A preemption between the program's clock
 * read and the call is in the program's time, not in the traced call's. */
static double rd_open, window_rd;

static uint64_t window_open(void)
{
    rd_open = run_delay_s();
    return now_ns();
}

static uint64_t window_close(uint64_t a)
{
    uint64_t w = now_ns() - a;
    window_rd += run_delay_s() - rd_open;
    return w;
}

/* One kind's long waits: their time by the program's clock and the run delay in their
 * windows (ns). */
typedef struct waited {
    unsigned long long ns, rd;
} waited;

static waited timed(uint64_t (*wait)(void))
{
    window_rd = 0;
    waited w = {wait(), 0};
    w.rd = (unsigned long long)(window_rd * 1e9);
    return w;
}

static void sleep_ms(int ms)
{
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&d, &d))
        ;
}

static void *signaller(void *arg)
{
    (void)arg;
    for (int i = 0; i < COND_ROUNDS; i++) {
        sleep_ms(COND_MS);
        pthread_mutex_lock(&ready_lock);
        __atomic_add_fetch(&calls_mutex, 1, __ATOMIC_RELAXED);
        flag = 1;
        pthread_cond_signal(&ready);
        pthread_mutex_unlock(&ready_lock);
        /* wait until the waiter took it before the next round */
        for (;;) {
            pthread_mutex_lock(&ready_lock);
            __atomic_add_fetch(&calls_mutex, 1, __ATOMIC_RELAXED);
            int f = flag;
            pthread_mutex_unlock(&ready_lock);
            if (!f)
                break;
            sleep_ms(1);
        }
    }
    return NULL;
}

__attribute__((noinline)) static uint64_t cond_waiter(void)
{
    pthread_t th;
    uint64_t total = 0;
    pthread_mutex_lock(&ready_lock);
    __atomic_add_fetch(&calls_mutex, 1, __ATOMIC_RELAXED);
    pthread_create(&th, NULL, signaller, NULL);
    for (int i = 0; i < COND_ROUNDS; i++) {
        uint64_t a = window_open();
        while (!flag) {
            pthread_cond_wait(&ready, &ready_lock);
            __atomic_add_fetch(&calls_cond, 1, __ATOMIC_RELAXED);
        }
        total += window_close(a);
        flag = 0;
    }
    pthread_mutex_unlock(&ready_lock);
    pthread_join(th, NULL);
    calls_join++;
    return total;
}

static void *late_arrival(void *arg)
{
    (void)arg;
    sleep_ms(BARRIER_MS);
    pthread_barrier_wait(&gate);
    __atomic_add_fetch(&calls_barrier, 1, __ATOMIC_RELAXED);
    return NULL;
}

__attribute__((noinline)) static uint64_t barrier_main(void)
{
    pthread_t th;
    pthread_barrier_init(&gate, NULL, 2);
    pthread_create(&th, NULL, late_arrival, NULL);
    uint64_t a = window_open();
    pthread_barrier_wait(&gate);
    uint64_t waited = window_close(a);
    __atomic_add_fetch(&calls_barrier, 1, __ATOMIC_RELAXED);
    pthread_join(th, NULL);
    calls_join++;
    return waited;
}

static void *sleeper(void *arg)
{
    (void)arg;
    sleep_ms(JOIN_MS);
    return NULL;
}

__attribute__((noinline)) static uint64_t join_main(void)
{
    pthread_t th;
    pthread_create(&th, NULL, sleeper, NULL);
    uint64_t a = window_open();
    pthread_join(th, NULL);
    calls_join++;
    return window_close(a);
}

static void *poster(void *arg)
{
    (void)arg;
    sleep_ms(SEM_MS);
    sem_post(&token);
    return NULL;
}

__attribute__((noinline)) static uint64_t sem_main(void)
{
    pthread_t th;
    sem_init(&token, 0, 0);
    pthread_create(&th, NULL, poster, NULL);
    uint64_t a = window_open();
    sem_wait(&token);
    uint64_t waited = window_close(a);
    calls_sem++;
    pthread_join(th, NULL);
    calls_join++;
    return waited;
}

__attribute__((noinline)) static void quick_pairs(long n)
{
    for (long i = 0; i < n; i++) {
        pthread_mutex_lock(&quick_lock);
        calls_mutex++;
        pthread_mutex_unlock(&quick_lock);
    }
}

/* ---- a thread holds an object HOLD_MS while the main thread waits for it */

#define HOLD_MS 30
pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static int asking; /* the main thread is about to ask for the held object */
pthread_spinlock_t spin;
mtx_t c11_lock;
static sem_t taken;

enum what { WRITER, READER, SPINNER, C11 };

static void *holder(void *arg)
{
    enum what w = (enum what)(uintptr_t)arg;
    if (w == WRITER)
        pthread_rwlock_wrlock(&rw), calls_wr++;
    else if (w == READER)
        pthread_rwlock_rdlock(&rw), calls_rd++;
    else if (w == SPINNER)
        pthread_spin_lock(&spin), calls_spin++;
    else
        mtx_lock(&c11_lock), __atomic_add_fetch(&calls_mutex, 1, __ATOMIC_RELAXED);
    sem_post(&taken);
    /* the hold begins once the main thread asks: on a loaded machine it may run long
     * after the post, and would then wait for less than the hold, or not at all */
    while (!__atomic_load_n(&asking, __ATOMIC_ACQUIRE))
        sleep_ms(1);
    __atomic_store_n(&asking, 0, __ATOMIC_RELAXED);
    sleep_ms(HOLD_MS);
    if (w == SPINNER)
        pthread_spin_unlock(&spin);
    else if (w == C11)
        mtx_unlock(&c11_lock);
    else
        pthread_rwlock_unlock(&rw);
    return NULL;
}

/* Start a holder of w and wait until it holds it; then say the main thread asks. */
static pthread_t start_holder(enum what w)
{
    pthread_t th;
    pthread_create(&th, NULL, holder, (void *)(uintptr_t)w);
    sem_wait(&taken);
    calls_sem++;
    __atomic_store_n(&asking, 1, __ATOMIC_RELEASE);
    return th;
}

static void end_holder(pthread_t th)
{
    pthread_join(th, NULL);
    calls_join++;
}

__attribute__((noinline)) static uint64_t rdlock_main(void)
{
    pthread_t th = start_holder(WRITER);
    uint64_t a = window_open();
    pthread_rwlock_rdlock(&rw);
    uint64_t waited = window_close(a);
    calls_rd++;
    pthread_rwlock_unlock(&rw);
    end_holder(th);
    return waited;
}

__attribute__((noinline)) static uint64_t wrlock_main(void)
{
    pthread_t th = start_holder(READER);
    uint64_t a = window_open();
    pthread_rwlock_wrlock(&rw);
    uint64_t waited = window_close(a);
    calls_wr++;
    pthread_rwlock_unlock(&rw);
    end_holder(th);
    return waited;
}

__attribute__((noinline)) static uint64_t spin_main(void)
{
    pthread_spin_init(&spin, PTHREAD_PROCESS_PRIVATE);
    pthread_t th = start_holder(SPINNER);
    uint64_t a = window_open();
    pthread_spin_lock(&spin);
    uint64_t waited = window_close(a);
    calls_spin++;
    pthread_spin_unlock(&spin);
    end_holder(th);
    return waited;
}

__attribute__((noinline)) static uint64_t mtx_main(void)
{
    mtx_init(&c11_lock, mtx_plain);
    pthread_t th = start_holder(C11);
    uint64_t a = window_open();
    mtx_lock(&c11_lock);
    uint64_t waited = window_close(a);
    __atomic_add_fetch(&calls_mutex, 1, __ATOMIC_RELAXED);
    mtx_unlock(&c11_lock);
    end_holder(th);
    return waited;
}

static int c11_sleeper(void *arg)
{
    (void)arg;
    sleep_ms(HOLD_MS);
    return 0;
}

__attribute__((noinline)) static uint64_t thrd_join_main(void)
{
    thrd_t th;
    thrd_create(&th, c11_sleeper, NULL);
    uint64_t a = window_open();
    thrd_join(th, NULL);
    calls_join++;
    return window_close(a);
}

int main(int argc, char **argv)
{
    long quick = argc > 1 ? atol(argv[1]) : 0;
    waited cond = timed(cond_waiter), barrier = timed(barrier_main), join = timed(join_main);
    waited sem = timed(sem_main);
    sem_init(&taken, 0, 0);
    waited rd = timed(rdlock_main), wr = timed(wrlock_main), spin = timed(spin_main);
    waited mtx = timed(mtx_main), thrd = timed(thrd_join_main);
    quick_pairs(quick);
    /* KIND CALLS LONG_WAITS WAIT_NS RUN_DELAY_NS; joins: cond_waiter's, barrier_main's,
     * sem_main's and join_main's own (the long one) */
    printf("cond %ld %d %llu %llu\n", calls_cond, COND_ROUNDS, cond.ns, cond.rd);
    printf("barrier %ld 1 %llu %llu\n", calls_barrier, barrier.ns, barrier.rd);
    printf("join %ld 1 %llu %llu\n", calls_join, join.ns, join.rd);
    printf("sem %ld 1 %llu %llu\n", calls_sem, sem.ns, sem.rd);
    printf("mutex %ld 0 0 0\n", calls_mutex);
    /* one long wait each: its calls are counted in the lines above (join, mutex) */
    printf("rwlock_rd %ld 1 %llu %llu\n", calls_rd, rd.ns, rd.rd);
    printf("rwlock_wr %ld 1 %llu %llu\n", calls_wr, wr.ns, wr.rd);
    printf("spin %ld 1 %llu %llu\n", calls_spin, spin.ns, spin.rd);
    printf("mtx11 0 1 %llu %llu\n", mtx.ns, mtx.rd);
    printf("thrd_join 0 1 %llu %llu\n", thrd.ns, thrd.rd);
    return 0;
}
