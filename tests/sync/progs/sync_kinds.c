/*
 * sync_kinds.c - ground truth for the sync tracer: waits of known length in a condition
 * variable, a barrier, a join and a semaphore, plus N uncontended lock/unlock pairs (argv[1],
 * default 0) that no threshold above a few microseconds records.
 *
 *   cond_waiter   waits on `ready` COND_ROUNDS times; the signaller sleeps COND_MS first
 *   barrier_main  waits at `gate` for a thread that arrives BARRIER_MS late
 *   join_main     joins a thread that sleeps JOIN_MS
 *   sem_main      waits on `token`, posted SEM_MS later
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
#include <time.h>

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

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
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
        uint64_t a = now_ns();
        while (!flag) {
            pthread_cond_wait(&ready, &ready_lock);
            __atomic_add_fetch(&calls_cond, 1, __ATOMIC_RELAXED);
        }
        total += now_ns() - a;
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
    uint64_t a = now_ns();
    pthread_barrier_wait(&gate);
    uint64_t waited = now_ns() - a;
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
    uint64_t a = now_ns();
    pthread_join(th, NULL);
    calls_join++;
    return now_ns() - a;
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
    uint64_t a = now_ns();
    sem_wait(&token);
    uint64_t waited = now_ns() - a;
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

int main(int argc, char **argv)
{
    long quick = argc > 1 ? atol(argv[1]) : 0;
    uint64_t cond_ns = cond_waiter();
    uint64_t barrier_ns = barrier_main();
    uint64_t join_ns = join_main();
    uint64_t sem_ns = sem_main();
    quick_pairs(quick);
    /* joins: cond_waiter's, barrier_main's, sem_main's and join_main's own (the long one) */
    printf("cond %ld %d %llu\n", calls_cond, COND_ROUNDS, (unsigned long long)cond_ns);
    printf("barrier %ld 1 %llu\n", calls_barrier, (unsigned long long)barrier_ns);
    printf("join %ld 1 %llu\n", calls_join, (unsigned long long)join_ns);
    printf("sem %ld 1 %llu\n", calls_sem, (unsigned long long)sem_ns);
    printf("mutex %ld 0 0\n", calls_mutex);
    return 0;
}
