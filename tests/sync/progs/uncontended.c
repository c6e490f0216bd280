/*
 * uncontended.c - 8 threads, each taking its own mutex PAIRS/8 times (argv[1], default
 * 1000000 pairs in all): nothing ever waits. Prints a checksum of the work done under the
 * locks and how many sync calls were made (the locks and the joins), and exits 3, so a
 * test can compare output and exit status with and without hpcollect.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 8

typedef struct worker {
    pthread_mutex_t lock;
    long pairs;
    uint64_t sum;
    char pad[64];
} worker;

static worker w[NTHREADS];

static void *run(void *arg)
{
    worker *me = arg;
    for (long i = 0; i < me->pairs; i++) {
        pthread_mutex_lock(&me->lock);
        me->sum = me->sum * 6364136223846793005u + (uint64_t)i;
        pthread_mutex_unlock(&me->lock);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long pairs = argc > 1 ? atol(argv[1]) : 1000000;
    pthread_t th[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        pthread_mutex_init(&w[i].lock, NULL);
        w[i].pairs = pairs / NTHREADS + (i < pairs % NTHREADS);
        pthread_create(&th[i], NULL, run, &w[i]);
    }
    uint64_t sum = 0;
    for (int i = 0; i < NTHREADS; i++) {
        pthread_join(th[i], NULL);
        sum += w[i].sum * (uint64_t)(i + 1);
    }
    printf("pairs %ld checksum %016llx sync_calls %ld\n", pairs, (unsigned long long)sum,
           pairs + NTHREADS);
    return 3;
}
