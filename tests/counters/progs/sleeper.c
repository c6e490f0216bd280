/*
 * sleeper N: sleeps N times 1 ms in sleep_often() (nanosleep, usleep and poll in turn:
 * each a voluntary context switch), then computes briefly in compute(). Prints how many
 * of the sleeps came back early (EINTR or less time than asked) - a collector whose
 * counter signals woke the sleeper would change the program - its thread's voluntary
 * and involuntary context switches during sleep_often() (RUSAGE_THREAD: a sleep whose
 * timer expires before the thread gets off the CPU does not switch, so N sleeps are
 * N-2..N switches) and the process's (ru_nvcsw, ru_nivcsw).
 */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

__attribute__((noinline)) static int sleep_often(int n)
{
    int early = 0;
    for (int i = 0; i < n; i++) {
        double t0 = now();
        int rc = 0;
        struct timespec ms = {0, 1000000};
        if (i % 3 == 0)
            rc = nanosleep(&ms, NULL);
        else if (i % 3 == 1)
            rc = usleep(1000);
        else
            rc = poll(NULL, 0, 1);
        if (rc != 0 || now() - t0 < 0.001)
            early++;
    }
    return early;
}

__attribute__((noinline)) static double compute(long n)
{
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    return x;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 150;
    struct rusage before, after, ru;
    getrusage(RUSAGE_THREAD, &before);
    int early = sleep_often(n);
    getrusage(RUSAGE_THREAD, &after);
    compute(20000000);
    getrusage(RUSAGE_SELF, &ru);
    printf("sleeps %d early %d nvcsw %ld nivcsw %ld\n", n, early, ru.ru_nvcsw, ru.ru_nivcsw);
    printf("sleep_often voluntary %ld involuntary %ld\n", after.ru_nvcsw - before.ru_nvcsw,
           after.ru_nivcsw - before.ru_nivcsw);
    return early ? 3 : 0;
}
