/*
 * heap_work.c - an allocation-heavy program for bench/heap_bench.py: N allocations of 16
 * to 79 bytes across 2 threads, each freed 64 allocations later (a ring of 64 live blocks
 * per thread), so nearly every allocation is a malloc/free pair.
 *
 *     heap_work [N]        N allocations in all (default 10000000)
 */
#include <pthread.h>
#include <stdlib.h>

static long per_thread;

static void *work(void *arg)
{
    (void)arg;
    void *ring[64] = {0};
    for (long i = 0; i < per_thread; i++) {
        free(ring[i & 63]);
        ring[i & 63] = malloc(16 + (size_t)(i & 63));
        *(volatile char *)ring[i & 63] = 1;
    }
    for (int i = 0; i < 64; i++)
        free(ring[i]);
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 10000000;
    per_thread = n / 2;
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
