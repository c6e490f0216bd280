/*
 * pipeline.c - a small threaded program to try the tracers on: two producers compute
 * blocks of numbers and hand them through a queue guarded by one mutex to a writer
 * thread, which appends each block to a file and frees it. Three things to find:
 *
 *   - the producers hold the queue's queue_lock while they compute a block's checksum
 *     (checksum_locked), so they wait for each other: `syncs` shows the queue_lock, its
 *     waits and who held it;
 *   - every tenth block is kept in a "recent" list that is never freed: `leaks` shows
 *     the stack that allocated them;
 *   - the writer writes each block in 512-byte pieces: `ioactivity` shows the file,
 *     its bytes and access sizes; `iocallstack` the call stack of the writes.
 *
 *     hpcollect -s all -H on -i on ./pipeline     # writes pipeline.1.hpc/
 *     hpanalyze pipeline.1.hpc syncs leaks ioactivity
 *
 * Arguments: [BLOCKS [FILE]] (default 400 blocks to pipeline.out).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK_WORDS 4096 /* 32 KiB a block */
#define QUEUE_MAX   16

typedef struct block {
    struct block *next;
    double sum;
    double v[BLOCK_WORDS];
} block;

static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t nonempty = PTHREAD_COND_INITIALIZER, nonfull = PTHREAD_COND_INITIALIZER;
static block *head, *tail, *recent[1024];
static int queued, producers_left = 2, nrecent;
static int blocks_each;

__attribute__((noinline, noclone)) static void fill(block *b, int seed)
{
    double x = seed;
    for (int i = 0; i < BLOCK_WORDS; i++) {
        x = x * 1.000001 + 0.5;
        b->v[i] = x;
    }
}

/* The mistake to find: the checksum is computed while the queue_lock is held. */
__attribute__((noinline, noclone)) static void checksum_locked(block *b)
{
    double s = 0;
    for (int r = 0; r < 160; r++)
        for (int i = 0; i < BLOCK_WORDS; i++)
            s += b->v[i] * (r + 1);
    b->sum = s;
}

static void *producer(void *arg)
{
    int id = (int)(long)arg;
    for (int k = 0; k < blocks_each; k++) {
        block *b = malloc(sizeof *b);
        if (!b)
            abort();
        fill(b, id * 100000 + k);
        pthread_mutex_lock(&queue_lock);
        checksum_locked(b);
        while (queued == QUEUE_MAX)
            pthread_cond_wait(&nonfull, &queue_lock);
        b->next = NULL;
        if (tail)
            tail->next = b;
        else
            head = b;
        tail = b;
        queued++;
        pthread_cond_signal(&nonempty);
        pthread_mutex_unlock(&queue_lock);
    }
    pthread_mutex_lock(&queue_lock);
    producers_left--;
    pthread_cond_signal(&nonempty);
    pthread_mutex_unlock(&queue_lock);
    return NULL;
}

/* Kept "for later", never freed: the leak to find. */
__attribute__((noinline, noclone)) static void remember(const block *b)
{
    block *copy = malloc(sizeof *copy);
    if (!copy)
        abort();
    memcpy(copy, b, sizeof *copy);
    if (nrecent < 1024)
        recent[nrecent++] = copy;
}

__attribute__((noinline, noclone)) static void write_block(FILE *f, const block *b)
{
    const char *p = (const char *)b->v;
    for (size_t off = 0; off < sizeof b->v; off += 512)
        fwrite(p + off, 1, 512, f);
}

int main(int argc, char **argv)
{
    int blocks = argc > 1 ? atoi(argv[1]) : 400;
    const char *path = argc > 2 ? argv[2] : "pipeline.out";
    FILE *f = fopen(path, "w");
    if (!f || blocks < 2) {
        perror(path);
        return 1;
    }
    blocks_each = blocks / 2;
    pthread_t t[2];
    for (long i = 0; i < 2; i++)
        pthread_create(&t[i], NULL, producer, (void *)i);
    double total = 0;
    int written = 0;
    for (;;) {
        pthread_mutex_lock(&queue_lock);
        while (!queued && producers_left)
            pthread_cond_wait(&nonempty, &queue_lock);
        block *b = head;
        if (b) {
            head = b->next;
            tail = head ? tail : NULL;
            queued--;
            pthread_cond_signal(&nonfull);
        }
        pthread_mutex_unlock(&queue_lock);
        if (!b)
            break;
        write_block(f, b);
        total += b->sum;
        if (written++ % 10 == 0)
            remember(b);
        free(b);
    }
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    fclose(f);
    printf("pipeline: %d blocks written to %s, checksum %.6e\n", written, path, total);
    return 0;
}
