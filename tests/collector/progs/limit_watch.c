/*
 * limit_watch: does the program ever see an RLIMIT_NOFILE soft limit it did not set?
 * Under hpcollect each thread moves its thread-state descriptors above the soft limit
 * once its blocking calls took a clock interval (the 50 ms sleep: collector/states.h),
 * raising the limit for that moment (collector/sigsafe_fds.c).
 *
 *   1. 4 threads sleep 50 ms; meanwhile main reads its limit through the C library
 *      (getrlimit, prlimit, getdtablesize, sysconf) around a raw prlimit64 system call:
 *      "raw raised N" counts the raw reads that saw another soft limit (a move's moment),
 *      "seen M" the C library's reads that did (0: the program never sees it).
 *   2. 4 more threads; main sets its soft limit one lower as soon as a raw read shows a
 *      move's moment, and reads it back once they are done: "set kept yes" when it is
 *      what main set (a move's putting back did not undo it).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define THREADS 4

static int done;

static void *sleeper(void *arg)
{
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    __atomic_add_fetch(&done, 1, __ATOMIC_RELEASE);
    return arg;
}

static rlim_t raw_soft(void)
{
    struct rlimit rl;
    syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl);
    return rl.rlim_cur;
}

/* The soft limit as the C library's four readers say it, or 0 when they disagree. */
static rlim_t libc_soft(void)
{
    struct rlimit a, b;
    getrlimit(RLIMIT_NOFILE, &a);
    prlimit(0, RLIMIT_NOFILE, NULL, &b);
    long c = getdtablesize(), d = sysconf(_SC_OPEN_MAX);
    return a.rlim_cur == b.rlim_cur && (long)a.rlim_cur == c && c == d ? a.rlim_cur : 0;
}

static void start(pthread_t *t)
{
    __atomic_store_n(&done, 0, __ATOMIC_RELEASE);
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, sleeper, NULL);
}

static void join(pthread_t *t)
{
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
}

int main(void)
{
    pthread_t t[THREADS];
    struct rlimit own;
    getrlimit(RLIMIT_NOFILE, &own);
    int raised = 0, seen = 0;
    start(t);
    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < THREADS) {
        seen += libc_soft() != own.rlim_cur;
        raised += raw_soft() != own.rlim_cur;
        seen += libc_soft() != own.rlim_cur;
    }
    join(t);
    printf("raw raised %s\nseen %d\n", raised ? "yes" : "no", seen);

    struct rlimit set = own;
    set.rlim_cur = own.rlim_cur - 1;
    int did = 0;
    start(t);
    while (__atomic_load_n(&done, __ATOMIC_ACQUIRE) < THREADS) {
        if (!did && raw_soft() != own.rlim_cur)
            did = setrlimit(RLIMIT_NOFILE, &set) == 0;
        libc_soft();
    }
    join(t);
    struct rlimit now;
    getrlimit(RLIMIT_NOFILE, &now);
    printf("set during a move %s\nset kept %s\n", did ? "yes" : "no",
           now.rlim_cur == (did ? set.rlim_cur : own.rlim_cur) && raw_soft() == now.rlim_cur
               ? "yes"
               : "no");
    return 0;
}
