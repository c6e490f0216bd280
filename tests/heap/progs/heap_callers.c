/*
 * heap_callers.c - one malloc call site (in alloc_here) reached through different callers
 * in turn, the case a stack cache keyed by the call site and stack pointer gets wrong
 * unless it checks the callers' return addresses (collector/interpose.c). Every count
 * and byte is known in advance (tests/heap/test_heap_callers.sh holds the numbers):
 *
 *   via_a, via_b     alloc_here called from each in turn, with the same stack pointer
 *                    (both called from the same loop in main, frames of one shape):
 *                    via_a 300 x 24 bytes never freed, via_b 500 x 40 bytes freed
 *   outer_a, outer_b mid -> alloc_here from each in turn (two frames up differ):
 *                    outer_a 200 x 16 never freed, outer_b 100 x 32 freed
 *   big_frame        a 64 KiB frame between its caller and mid -> alloc_here (farther
 *                    than the cache searches the stack): 50 x 8 never freed
 *   top_a, top_b     deep(d) -> ... -> deep(0) -> mid -> alloc_here from each in turn,
 *                    with the same stack pointer, 40 frames deep (checked whole by the
 *                    cache) and 70 (deeper than it keeps): the callers differ only that
 *                    far up. top_a 60 x 48, top_b 60 x 56, never freed
 *
 * Prints "ok" (the program's own checks of its blocks) through write().
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *volatile keep[2048];
static int nkeep;

static __attribute__((noinline, noclone)) void *alloc_here(size_t n)
{
    void *p = malloc(n);
    if (p)
        memset(p, 0x5a, n);
    return p;
}

/* Two callers of one shape (different constants: the compiler does not fold them). */
static __attribute__((noinline, noclone)) void via_a(int i)
{
    keep[nkeep++] = alloc_here(24 + (size_t)(i & 0));
}
static __attribute__((noinline, noclone)) void via_b(int i)
{
    free(alloc_here(40 + (size_t)(i & 0)));
}

static __attribute__((noinline, noclone)) void *mid(size_t n)
{
    void *p = alloc_here(n);
    __asm__ volatile("" ::: "memory"); /* not a tail call */
    return p;
}
static __attribute__((noinline, noclone)) void outer_a(void)
{
    keep[nkeep++] = mid(16);
}
static __attribute__((noinline, noclone)) void outer_b(void)
{
    free(mid(32));
}

static __attribute__((noinline, noclone)) void big_frame(void)
{
    volatile char buf[65536];
    buf[0] = 1;
    keep[nkeep++] = mid(8);
    buf[65535] = buf[0];
}

static __attribute__((noinline, noclone)) void deep(int d, size_t n)
{
    if (d > 0) {
        deep(d - 1, n);
        __asm__ volatile("" ::: "memory"); /* not a tail call */
        return;
    }
    keep[nkeep++] = mid(n);
}
static __attribute__((noinline, noclone)) void top_a(int d)
{
    deep(d, 48);
    __asm__ volatile("" ::: "memory");
}
static __attribute__((noinline, noclone)) void top_b(int d)
{
    deep(d, 56);
    __asm__ volatile("" ::: "memory");
}

int main(void)
{
    for (int i = 0; i < 500; i++) {
        if (i < 300)
            via_a(i);
        via_b(i);
    }
    for (int i = 0; i < 200; i++) {
        outer_a();
        if (i < 100)
            outer_b();
    }
    for (int i = 0; i < 50; i++)
        big_frame();
    for (int i = 0; i < 30; i++) {
        top_a(40);
        top_b(40);
        top_a(70);
        top_b(70);
    }
    int bad = nkeep != 300 + 200 + 50 + 120;
    for (int i = 0; i < nkeep; i++)
        bad |= keep[i] == NULL || ((unsigned char *)keep[i])[0] != 0x5a;
    (void)!write(1, bad ? "bad\n" : "ok\n", 3);
    return bad;
}
