/*
 * threads.c - threads N BATCH MS: create N threads, BATCH at a time (all of a batch
 * alive together), each burning MS milliseconds of CPU, and join them. Prints the
 * number joined.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "burn.h"

static double ms;

static void *worker(void *arg)
{
    (void)arg;
    burn_cpu(ms / 1000.0);
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000, batch = argc > 2 ? atoi(argv[2]) : 50;
    ms = argc > 3 ? atof(argv[3]) : 2.0;
    pthread_t *th = calloc((size_t)batch, sizeof *th);
    int joined = 0;
    for (int done = 0; done < n; done += batch) {
        int k = n - done < batch ? n - done : batch;
        for (int i = 0; i < k; i++)
            if (pthread_create(&th[i], NULL, worker, NULL) != 0) {
                perror("pthread_create");
                return 1;
            }
        for (int i = 0; i < k; i++)
            if (pthread_join(th[i], NULL) == 0)
                joined++;
    }
    printf("joined %d threads\n", joined);
    return joined == n ? 0 : 1;
}
