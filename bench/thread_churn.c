/*
 * thread_churn.c - the thread-start benchmark's program: N threads (argv[1]) created and
 * joined one after another, each doing nothing. N = 0 measures everything but them.
 */
#include <pthread.h>
#include <stdlib.h>

static void *nothing(void *arg)
{
    return arg;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, nothing, NULL) != 0)
            return 1;
        pthread_join(t, NULL);
    }
    return 0;
}
