/*
 * short_lives MODE ...: processes and threads that end before a 10 ms clock interval
 * has passed, so most of their CPU time comes after their last sample (if any):
 *   threads N MS    N threads one after another, each burning MS ms of its own CPU
 *                   time in thread_work()
 *   forks N MS      N fork children one after another, each burning MS ms in
 *                   child_work() and calling exit(0) there
 *   exec MS1 MS2    burns MS1 ms in before_exec(), then execs itself as
 *                   "after MS2", which burns MS2 ms in after_exec()
 * Prints the CPU time burnt in total (what each thread or process measured itself).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void burn(double s)
{
    double t0 = thread_cpu();
    while (thread_cpu() - t0 < s)
        for (int i = 0; i < 1000; i++)
            sink += i;
}

__attribute__((noinline)) static void *thread_work(void *arg)
{
    burn(*(double *)arg);
    return NULL;
}

__attribute__((noinline)) static void child_work(double s)
{
    burn(s);
    exit(0);
}

__attribute__((noinline)) static void before_exec(double s)
{
    burn(s);
}

__attribute__((noinline)) static void after_exec(double s)
{
    burn(s);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    double a = argc > 2 ? atof(argv[2]) : 0, b = argc > 3 ? atof(argv[3]) : 0;
    if (!strcmp(mode, "threads")) {
        double s = b / 1000;
        for (int i = 0; i < (int)a; i++) {
            pthread_t t;
            pthread_create(&t, NULL, thread_work, &s);
            pthread_join(t, NULL);
        }
        printf("threads %d x %.3f s\n", (int)a, s);
    } else if (!strcmp(mode, "forks")) {
        for (int i = 0; i < (int)a; i++) {
            pid_t c = fork();
            if (c == 0)
                child_work(b / 1000);
            waitpid(c, NULL, 0);
        }
        printf("forks %d x %.3f s\n", (int)a, b / 1000);
    } else if (!strcmp(mode, "exec")) {
        before_exec(a / 1000);
        fflush(stdout);
        execl("/proc/self/exe", argv[0], "after", argv[3], (char *)NULL);
        return 3;
    } else if (!strcmp(mode, "after")) {
        after_exec(a / 1000);
        printf("exec done\n");
    } else {
        fprintf(stderr, "usage: short_lives threads|forks|exec ...\n");
        return 2;
    }
    return 0;
}
