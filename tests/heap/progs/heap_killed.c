/*
 * heap_killed.c - a process killed with blocks in use: before_kill leaks 4 x 500 bytes,
 * frees_some allocates 6 x 100 and frees 2, then the process sends itself SIGKILL. Its
 * leaks are what its last records left (tests/heap/test_heap_known.sh).
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static void *volatile sink[16];

__attribute__((noinline)) static void before_kill(void)
{
    for (int i = 0; i < 4; i++)
        sink[i] = malloc(500);
}

__attribute__((noinline)) static void frees_some(void)
{
    for (int i = 0; i < 6; i++)
        sink[4 + i] = malloc(100);
    free(sink[4]);
    free(sink[5]);
}

int main(void)
{
    before_kill();
    frees_some();
    kill(getpid(), SIGKILL);
    return 0;
}
