/*
 * behaviour.c - the threads library's answers a traced program must still get, printed one
 * per line (a test compares them with and without hpcollect -s all):
 *   trylock of a held mutex (EBUSY); timedlock and cond_timedwait timing out (ETIMEDOUT,
 *   the mutex held again after the wait); an error-checking mutex locked twice (EDEADLK)
 *   and unlocked by a non-owner (EPERM); a recursive mutex taken 3 times and let go 3
 *   times; a robust mutex whose owner thread died (EOWNERDEAD, then
 *   pthread_mutex_consistent); sem_timedwait timing out (-1, errno ETIMEDOUT) and
 *   sem_trywait (EAGAIN); a thread cancelled in pthread_cond_wait (its cleanup handler
 *   runs with the mutex held); a process-shared mutex and semaphore passed between a parent
 *   and its forked child; C11's mtx_timedlock timing out (thrd_timedout) and cnd_wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static struct timespec in_ms(int ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += ms * 1000000L;
    ts.tv_sec += ts.tv_nsec / 1000000000L;
    ts.tv_nsec %= 1000000000L;
    return ts;
}

static const char *err(int e)
{
    return e == 0 ? "0" : strerrorname_np(e);
}

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;

static void *try_held(void *arg)
{
    (void)arg;
    printf("trylock held: %s\n", err(pthread_mutex_trylock(&held)));
    struct timespec ts = in_ms(20);
    printf("timedlock held: %s\n", err(pthread_mutex_timedlock(&held, &ts)));
    return NULL;
}

static pthread_mutex_t robust;
static void *die_holding(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&robust);
    return NULL; /* ends holding it */
}

static pthread_mutex_t cm = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int cleanup_had_mutex;
static void cleanup(void *arg)
{
    (void)arg;
    cleanup_had_mutex = pthread_mutex_trylock(&cm) == EBUSY; /* held: by us, since cancelled */
    pthread_mutex_unlock(&cm);
}
static void *wait_forever(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&cm);
    pthread_cleanup_push(cleanup, NULL);
    for (;;)
        pthread_cond_wait(&cv, &cm);
    pthread_cleanup_pop(0);
    return NULL;
}

static mtx_t m11;
static int timed_c11(void *arg)
{
    (void)arg;
    struct timespec ts = in_ms(20);
    return mtx_timedlock(&m11, &ts);
}

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    pthread_t th;
    /* EBUSY, ETIMEDOUT */
    pthread_mutex_lock(&held);
    pthread_create(&th, NULL, try_held, NULL);
    pthread_join(th, NULL);
    pthread_mutex_unlock(&held);
    /* cond_timedwait: ETIMEDOUT and the mutex held again */
    pthread_mutex_lock(&cm);
    struct timespec ts = in_ms(20);
    printf("cond_timedwait: %s\n", err(pthread_cond_timedwait(&cv, &cm, &ts)));
    printf("mutex after it: %s\n", err(pthread_mutex_trylock(&cm)));
    pthread_mutex_unlock(&cm);
    /* error checking */
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_ERRORCHECK);
    pthread_mutex_t ec;
    pthread_mutex_init(&ec, &a);
    pthread_mutex_lock(&ec);
    printf("errorcheck relock: %s\n", err(pthread_mutex_lock(&ec)));
    pthread_mutex_unlock(&ec);
    printf("errorcheck unlock unheld: %s\n", err(pthread_mutex_unlock(&ec)));
    /* recursive */
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_t rm;
    pthread_mutex_init(&rm, &a);
    int r = 0;
    for (int i = 0; i < 3; i++)
        r |= pthread_mutex_lock(&rm);
    for (int i = 0; i < 3; i++)
        r |= pthread_mutex_unlock(&rm);
    printf("recursive 3+3: %s, then unlock: %s\n", err(r), err(pthread_mutex_unlock(&rm)));
    /* robust */
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_NORMAL);
    pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&robust, &a);
    pthread_create(&th, NULL, die_holding, NULL);
    pthread_join(th, NULL);
    r = pthread_mutex_lock(&robust);
    printf("robust, owner died: %s\n", err(r));
    if (r == EOWNERDEAD)
        printf("consistent: %s\n", err(pthread_mutex_consistent(&robust)));
    printf("robust unlock: %s\n", err(pthread_mutex_unlock(&robust)));
    /* semaphores */
    sem_t s;
    sem_init(&s, 0, 0);
    ts = in_ms(20);
    errno = 0;
    r = sem_timedwait(&s, &ts);
    printf("sem_timedwait: %d %s\n", r, err(errno));
    errno = 0;
    r = sem_trywait(&s);
    printf("sem_trywait: %d %s\n", r, err(errno));
    /* cancellation in a condition wait */
    pthread_create(&th, NULL, wait_forever, NULL);
    struct timespec d = {0, 20000000};
    nanosleep(&d, NULL);
    pthread_cancel(th);
    void *ret = NULL;
    r = pthread_join(th, &ret);
    printf("join cancelled: %s %s\n", err(r), ret == PTHREAD_CANCELED ? "PTHREAD_CANCELED" : "?");
    printf("cleanup had the mutex: %d\n", cleanup_had_mutex);
    /* process-shared, across fork */
    struct shared {
        pthread_mutex_t m;
        sem_t go;
        int value;
    } *sh = mmap(NULL, sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pthread_mutexattr_t pa;
    pthread_mutexattr_init(&pa);
    pthread_mutexattr_setpshared(&pa, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&sh->m, &pa);
    sem_init(&sh->go, 1, 0);
    pthread_mutex_lock(&sh->m);
    pid_t pid = fork();
    if (pid == 0) {
        /* a first call (EBUSY) before it says go: the child's first traced call may set up
         * its recording (slow under ASan); its wait then starts at once */
        if (pthread_mutex_trylock(&sh->m) == 0)
            pthread_mutex_unlock(&sh->m);
        sem_post(&sh->go);
        pthread_mutex_lock(&sh->m); /* waits for the parent */
        sh->value = sh->value * 10 + 2;
        pthread_mutex_unlock(&sh->m);
        _exit(0);
    }
    sem_wait(&sh->go);
    struct timespec hold = {0, 100 * 1000 * 1000}; /* the child waits 20 ms of it at least */
    nanosleep(&hold, NULL);
    sh->value = 1;
    pthread_mutex_unlock(&sh->m);
    int status;
    waitpid(pid, &status, 0);
    printf("shared across fork: %d, child status %d\n", sh->value, status);
    /* C11 */
    mtx_init(&m11, mtx_timed);
    mtx_lock(&m11);
    thrd_t t11;
    thrd_create(&t11, timed_c11, NULL);
    int res = -1;
    thrd_join(t11, &res);
    printf("mtx_timedlock held: %s\n", res == thrd_timedout ? "thrd_timedout" : "?");
    cnd_t c11;
    cnd_init(&c11);
    ts = in_ms(20);
    printf("cnd_timedwait: %s\n",
           cnd_timedwait(&c11, &m11, &ts) == thrd_timedout ? "thrd_timedout" : "?");
    printf("mtx_unlock: %s\n", mtx_unlock(&m11) == thrd_success ? "thrd_success" : "?");
    return 0;
}
