/*
 * phases SIG: three compute phases, phase_one(), phase_two(), phase_three(), touching
 * PAGES, 3 * PAGES and PAGES fresh pages, with signal number SIG raised between them. The
 * program installs its own handler for SIG, which counts deliveries, and prints the count
 * at the end. Under hpcollect -l/-y SIG the collector owns SIG and the program's handler
 * must not run (the count stays 0); without it, the count is 2.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGES 3000
static volatile sig_atomic_t handled;

static void on_signal(int sig)
{
    (void)sig;
    handled++;
}

static double work(long n, long pages)
{
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(1);
    madvise(p, (size_t)(pages * page), MADV_NOHUGEPAGE);
    for (long i = 0; i < pages; i++)
        p[i * page] = 1;
    volatile double x = 0;
    for (long i = 0; i < n; i++)
        x += (double)i * 0.5;
    return x + p[0];
}

__attribute__((noinline)) static double phase_one(void)
{
    return work(40000000, PAGES);
}

__attribute__((noinline)) static double phase_two(void)
{
    return work(40000000, 3 * PAGES);
}

__attribute__((noinline)) static double phase_three(void)
{
    return work(40000000, PAGES);
}

int main(int argc, char **argv)
{
    int sig = argc > 1 ? atoi(argv[1]) : SIGUSR1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(sig, &sa, NULL);
    phase_one();
    raise(sig);
    phase_two();
    raise(sig);
    phase_three();
    printf("handled %d\n", (int)handled);
    return 0;
}
