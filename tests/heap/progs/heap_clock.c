/*
 * heap_clock.c - heap records' times against the program's own clock
 * (tests/heap/test_heap_clock.sh): 2 threads each make 200 allocations of sizes no other
 * allocation has (64 + 1000 x thread + i bytes, never freed), each between two
 * CLOCK_MONOTONIC reads it prints ("B size before after", ns), with work and sleeps of
 * 0-4 ms in between, so the run lasts about a second (the heap tracer's TSC-to-ns mapping
 * starts many segments meanwhile: collector/interpose.c, hpc_trace_ns).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t out = PTHREAD_MUTEX_INITIALIZER;
static void *volatile sink;

static unsigned long long now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static void *work(void *arg)
{
    long id = (long)arg;
    for (int i = 0; i < 200; i++) {
        size_t size = 64 + (size_t)id * 1000 + (size_t)i;
        unsigned long long a = now();
        sink = malloc(size);
        unsigned long long b = now();
        pthread_mutex_lock(&out);
        printf("B %zu %llu %llu\n", size, a, b);
        pthread_mutex_unlock(&out);
        for (volatile long k = 0; k < (i % 7 + 1) * 20000; k++)
            ;
        struct timespec ts = {0, (i % 5) * 1000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

int main(void)
{
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, work, (void *)i);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    return 0;
}
