/*
 * mutex_hold.c - ground truth for the sync tracer: two threads contend for one global
 * mutex. The holder takes it first and keeps it HOLD_MS each time (in hold_lock, a
 * sleep), and longer until the waiter waits for it (on a loaded machine the waiter may
 * not have asked within HOLD_MS); so each of the waiter's ROUNDS lock calls waits, on its
 * call site in wait_for_lock. Lock order is forced by two semaphores.
 * Prints the program's own measure of the waits (ns) and the mutex's address.
 */
#include <pthread.h>
#include <semaphore.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS  20
#define HOLD_MS 5

pthread_mutex_t the_lock = PTHREAD_MUTEX_INITIALIZER;
static sem_t held, done;
static uint64_t waited_ns;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Does a thread wait for the_lock? glibc's lock word is 2 once a locker found it taken
 * and is going to sleep (1: taken, nobody waits). */
static int waiter_blocked(void)
{
#ifdef __GLIBC__
    return __atomic_load_n(&the_lock.__data.__lock, __ATOMIC_ACQUIRE) == 2;
#else
    return 1;
#endif
}

__attribute__((noinline)) static void hold_lock(void)
{
    pthread_mutex_lock(&the_lock);
    sem_post(&held);
    struct timespec d = {0, HOLD_MS * 1000000L}, tick = {0, 200000L};
    nanosleep(&d, NULL);
    while (!waiter_blocked())
        nanosleep(&tick, NULL);
    pthread_mutex_unlock(&the_lock);
}

__attribute__((noinline)) static void wait_for_lock(void)
{
    uint64_t a = now_ns();
    pthread_mutex_lock(&the_lock);
    waited_ns += now_ns() - a;
    pthread_mutex_unlock(&the_lock);
}

static void *holder(void *arg)
{
    (void)arg;
    for (int i = 0; i < ROUNDS; i++) {
        hold_lock();
        sem_wait(&done);
    }
    return NULL;
}

int main(void)
{
    sem_init(&held, 0, 0);
    sem_init(&done, 0, 0);
    pthread_t th;
    pthread_create(&th, NULL, holder, NULL);
    for (int i = 0; i < ROUNDS; i++) {
        sem_wait(&held);
        wait_for_lock();
        sem_post(&done);
    }
    pthread_join(th, NULL);
    printf("lock %p waits %d waited_ns %llu\n", (void *)&the_lock, ROUNDS,
           (unsigned long long)waited_ns);
    return 0;
}
