/*
 * heap_known.c - heap tracing's ground truth: every block, byte, leak and the peak known
 * in advance, each on its own function (tests/heap/test_heap_known.sh holds the numbers).
 *
 *   early         (a constructor, before main) 2 x malloc(50), never freed
 *   leak_x        7 x malloc(1000), never freed
 *   calloc_z      3 x calloc(10, 30), never freed
 *   aligned_a     posix_memalign 256, aligned_alloc 512, memalign 1024, valloc 4096,
 *                 pvalloc 100: the 512 and 1024 never freed
 *   realloc_chain realloc(NULL, 100) -> 200 -> 400 -> reallocarray 10 x 80 -> 1600, freed
 *   churn_y       50 x malloc(64), each freed right away (temporary)
 *   map_leak      an anonymous mmap of 65536, never unmapped
 *   map_free      an anonymous mmap of 8192, unmapped
 *   peak_p        10 x malloc(100000), then all freed: the peak (everything above that is
 *                 not freed, plus these: 1075072 bytes); a sample point "peak_done" after
 *                 it, when exactly the blocks above are in use (75072 bytes)
 *   produce       (a thread) 20 x malloc(128), freed by the main thread in consume
 *   child_leak    (a fork child) 3 x malloc(333), never freed
 *
 * It also checks that the program sees what it would without the collector: alignment,
 * malloc_usable_size, errno kept by free, ENOMEM, mallopt and malloc_trim. Output: one
 * line through write() (stdio would allocate its buffer), "ok" or what went wrong.
 */
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hpcollect.h>

static void *volatile sink[64]; /* keeps the compiler from removing allocations */
static int bad;

static void fail(const char *what)
{
    (void)!write(1, what, strlen(what));
    (void)!write(1, "\n", 1);
    bad = 1;
}

__attribute__((constructor, noinline)) static void early(void)
{
    sink[50] = malloc(50);
    sink[51] = malloc(50);
}

__attribute__((noinline)) static void leak_x(void)
{
    for (int i = 0; i < 7; i++) {
        sink[i] = malloc(1000);
        memset(sink[i], 1, 1000);
    }
}

__attribute__((noinline)) static void calloc_z(void)
{
    for (int i = 0; i < 3; i++) {
        char *p = calloc(10, 30);
        if (!p || p[299] != 0)
            fail("calloc: not zeroed");
        sink[8 + i] = p;
    }
}

__attribute__((noinline)) static void aligned_a(void)
{
    void *p = NULL;
    if (posix_memalign(&p, 64, 256) != 0 || (uintptr_t)p % 64)
        fail("posix_memalign");
    void *q = aligned_alloc(64, 512), *r = memalign(128, 1024);
    void *v = valloc(4096), *w = pvalloc(100);
    if (!q || (uintptr_t)q % 64 || !r || (uintptr_t)r % 128)
        fail("aligned_alloc/memalign: alignment");
    long page = sysconf(_SC_PAGESIZE);
    if (!v || (uintptr_t)v % (uintptr_t)page || !w || (uintptr_t)w % (uintptr_t)page)
        fail("valloc/pvalloc: not page-aligned");
    if (malloc_usable_size(r) < 1024)
        fail("malloc_usable_size");
    sink[12] = q;
    sink[13] = r;
    free(p);
    free(v);
    free(w);
}

__attribute__((noinline)) static void realloc_chain(void)
{
    char *p = realloc(NULL, 100);
    p[99] = 7;
    p = realloc(p, 200);
    p = realloc(p, 400);
    p = reallocarray(p, 10, 80);
    p = realloc(p, 1600);
    if (p[99] != 7)
        fail("realloc: contents lost");
    sink[14] = p;
    free(p);
}

__attribute__((noinline)) static void churn_y(void)
{
    for (int i = 0; i < 50; i++) {
        sink[15] = malloc(64);
        free(sink[15]);
    }
}

__attribute__((noinline)) static void map_leak(void)
{
    sink[16] = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
}

__attribute__((noinline)) static void map_free(void)
{
    void *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    munmap(p, 8192);
}

__attribute__((noinline)) static void peak_p(void)
{
    void *b[10];
    for (int i = 0; i < 10; i++)
        sink[20 + i] = b[i] = malloc(100000);
    for (int i = 9; i >= 0; i--)
        free(b[i]);
}

static void *blocks[20];

__attribute__((noinline)) static void *produce(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20; i++)
        blocks[i] = malloc(128);
    return NULL;
}

__attribute__((noinline)) static void consume(void)
{
    for (int i = 0; i < 20; i++)
        free(blocks[i]);
}

__attribute__((noinline)) static void child_leak(void)
{
    for (int i = 0; i < 3; i++)
        sink[40 + i] = malloc(333);
}

/* What the program sees is what it would see alone. */
static void behaviour(void)
{
    errno = 0;
    void *huge = malloc(SIZE_MAX / 2);
    if (huge || errno != ENOMEM)
        fail("malloc of SIZE_MAX/2: expected NULL and ENOMEM");
    errno = 0;
    volatile size_t n = SIZE_MAX / 2;
    if (calloc(n, 4) || errno != ENOMEM)
        fail("calloc overflow: expected NULL and ENOMEM");
    errno = 0;
    if (posix_memalign(&huge, 3, 8) != EINVAL)
        fail("posix_memalign: expected EINVAL for alignment 3");
    if (mallopt(M_TRIM_THRESHOLD, 1 << 20) != 1)
        fail("mallopt");
    (void)malloc_trim(0);
    errno = 42;
    free(NULL);
    if (errno != 42)
        fail("free changed errno");
}

int main(void)
{
    behaviour();
    leak_x();
    calloc_z();
    aligned_a();
    realloc_chain();
    churn_y();
    map_leak();
    map_free();
    peak_p();
    hpc_sample("peak_done");
    pthread_t th;
    pthread_create(&th, NULL, produce, NULL);
    pthread_join(th, NULL);
    consume();
    pid_t pid = fork();
    if (pid == 0) {
        child_leak();
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail("child failed");
    if (!bad)
        (void)!write(1, "ok\n", 3);
    return bad;
}
