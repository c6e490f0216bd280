/*
 * thread_churn.c - the thread-start benchmark's program: N threads (argv[1]) created and
 * joined one after another, each doing nothing. N = 0 measures everything but them.
 * Prints the CPU time of the loop: the main thread's own (creating and joining: its
 * pthread_create and pthread_join, its context switches) and the whole process's less
 * it (the threads'), so a cost can be told apart by the side that pays it.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static void *nothing(void *arg)
{
    return arg;
}

static double main_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double process_cpu(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
           1e-6 * (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    double m0 = main_cpu(), p0 = process_cpu();
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, nothing, NULL) != 0)
            return 1;
        pthread_join(t, NULL);
    }
    double m = main_cpu() - m0, p = process_cpu() - p0;
    printf("main %.6f threads %.6f\n", m, p > m ? p - m : 0.0);
    return 0;
}
