/*
 * dl_contend.c - sample handlers against a program thread in dl_iterate_phdr.
 *
 * A helper thread enters dl_iterate_phdr again and again; its callback holds the loader
 * lock until main has made progress (a counter main's work loop bumps), then the helper
 * rests 200 us outside. A sample handler of main that waits for that lock while the
 * helper waits for main never goes on: the helper notices after 5 s, prints "stalled"
 * and lets go. main burns SECONDS (argument, default 1) of CPU in main_work.
 * Before that, alone, main burns 0.3 s inside its own dl_iterate_phdr's callback
 * (own_walk > dl_iterate_phdr > inside_own_walk > burn_cpu): a sample there meets nobody
 * but its own thread, whose lock is recursive, and keeps its whole stack. First of all a
 * thread ends itself (pthread_exit) inside its callback: glibc lets go of the lock then
 * (a walk from another thread must finish: else it prints "loader lock left held" and
 * exits 2), and nobody may count that thread as inside afterwards.
 * Prints "rounds N stalled S"; exit status 1 if S > 0.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

static volatile unsigned long progress;
static volatile int done;
static unsigned long rounds, stalled;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int wait_for_main(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size, (void)data;
    unsigned long p0 = progress;
    double give_up = now_s() + 5.0;
    while (progress == p0 && !done)
        if (now_s() > give_up) {
            stalled++;
            break;
        }
    return 1; /* the first object is enough */
}

static void *helper(void *arg)
{
    (void)arg;
    struct timespec rest = {0, 200000};
    while (!done) {
        dl_iterate_phdr(wait_for_main, NULL);
        rounds++;
        nanosleep(&rest, NULL);
    }
    return NULL;
}

static int exit_inside(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size, (void)data;
    pthread_exit(NULL);
}

static void *exiter(void *arg)
{
    (void)arg;
    dl_iterate_phdr(exit_inside, NULL);
    return NULL;
}

static volatile int walked;

static int first_only(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size, (void)data;
    return 1;
}

static void *walker(void *arg)
{
    (void)arg;
    dl_iterate_phdr(first_only, NULL);
    walked = 1;
    return NULL;
}

/* A thread ends inside its callback; then another one must get through a walk. */
static void exit_inside_a_walk(void)
{
    pthread_t th;
    pthread_create(&th, NULL, exiter, NULL);
    pthread_join(th, NULL);
    pthread_create(&th, NULL, walker, NULL);
    struct timespec ms = {0, 1000000};
    for (double give_up = now_s() + 5.0; !walked && now_s() < give_up;)
        nanosleep(&ms, NULL);
    if (!walked) {
        printf("loader lock left held by a thread that ended in its callback\n");
        fflush(stdout);
        _exit(2);
    }
    pthread_join(th, NULL);
}

__attribute__((noinline)) static int inside_own_walk(struct dl_phdr_info *info, size_t size,
                                                     void *data)
{
    (void)info, (void)size, (void)data;
    burn_cpu(0.3);
    return 1;
}

__attribute__((noinline)) static void own_walk(void)
{
    dl_iterate_phdr(inside_own_walk, NULL);
}

__attribute__((noinline)) static void main_work(double seconds)
{
    double end = thread_cpu_s() + seconds, x = 1.0;
    while (thread_cpu_s() < end) {
        for (int i = 0; i < 2000; i++)
            x = x * 1.0000001 + 1e-9;
        progress++;
    }
    burn_sink = x;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    pthread_t th;
    exit_inside_a_walk();
    own_walk();
    pthread_create(&th, NULL, helper, NULL);
    main_work(seconds);
    done = 1;
    pthread_join(th, NULL);
    printf("rounds %lu stalled %lu\n", rounds, stalled);
    return stalled > 0;
}
