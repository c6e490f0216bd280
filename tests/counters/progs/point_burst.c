/*
 * point_burst SIG HELD FREE THREADS EACH TIMES_FILE: every delivery of the -l signal SIG
 * must end up as a sample point or in the points_dropped count, never lost silently.
 *   1. the program holds the process-stream lock (hpcollect_proc_lock, the collector's
 *      in-process API) and raises SIG HELD times: no handler can write, 64 points fit
 *      the queue, the rest are dropped; hpcollect_proc_unlock writes the 64 at once
 *   2. it raises SIG FREE times with the lock free: each handler writes its point
 *   3. THREADS threads raise SIG EACH times each at the same time (each delivery goes to
 *      the thread that raised it), so handlers meet the lock held by one another
 * TIMES_FILE gets CLOCK_MONOTONIC ns: "held START END" around phase 1 (lock to unlock
 * included) and "free START END" around phase 2. Prints the deliveries; exits 77 when
 * not run under hpcollect.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int sig, each;

static long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void *raiser(void *arg)
{
    (void)arg;
    for (int i = 0; i < each; i++)
        pthread_kill(pthread_self(), sig);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 7)
        return 2;
    sig = atoi(argv[1]);
    int held = atoi(argv[2]), free_ = atoi(argv[3]), nthreads = atoi(argv[4]);
    each = atoi(argv[5]);
    FILE *times = fopen(argv[6], "w");
    void *(*lock)(void) = (void *(*)(void))dlsym(RTLD_DEFAULT, "hpcollect_proc_lock");
    void (*unlock)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "hpcollect_proc_unlock");
    if (!lock || !unlock || !times) {
        printf("not under hpcollect (no hpcollect_proc_lock)\n");
        return 77;
    }
    long long t0 = now_ns();
    if (!lock()) {
        printf("hpcollect_proc_lock: collection is off\n");
        return 77;
    }
    for (int i = 0; i < held; i++)
        raise(sig);
    unlock();
    fprintf(times, "held %lld %lld\n", t0, now_ns());

    t0 = now_ns();
    for (int i = 0; i < free_; i++)
        raise(sig);
    fprintf(times, "free %lld %lld\n", t0, now_ns());

    pthread_t th[64];
    nthreads = nthreads > 64 ? 64 : nthreads;
    for (int i = 0; i < nthreads; i++)
        pthread_create(&th[i], NULL, raiser, NULL);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    fclose(times);
    printf("raised %d\n", held + free_ + nthreads * each);
    return 0;
}
