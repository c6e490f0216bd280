/*
 * fork_reset - the fork-then-exec idiom of chromium's LaunchProcess: block every signal,
 * fork, and in the child reset every caught signal to SIG_DFL with raw system calls
 * (glibc's sigaction is not used there), restore the mask, work, exit. Two children:
 *
 *   reset   does the raw reset, then 0.1 s of CPU before its exec (a launcher closing
 *           descriptors, or a loaded machine, before its exec) of this program as
 *           `fork_reset exec`, which forks a grandchild doing 0.1 s of CPU
 *   keep    restores its mask without the reset (a child that goes on without an exec)
 *           and does the same 0.1 s of CPU
 *
 *   segv    keeps every signal blocked but SIGSEGV, which it unblocks, and recovers from
 *           a fault of its own through its SIGSEGV handler (siglongjmp)
 *
 * The parent prints each child's end ("child NAME exit N" or "child NAME signal N") and
 * each child its own CPU time ("cpu NAME SECONDS").
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "thread_clocks.h"

struct ksigaction {
    void *handler;
    unsigned long flags;
    void *restorer;
    uint64_t mask;
};

/* as chromium's ResetChildSignalHandlersToDefaults: straight to the kernel */
static void reset_handlers_raw(void)
{
    for (int sig = 1; sig < 65; sig++) {
        struct ksigaction k;
        if (syscall(SYS_rt_sigaction, sig, NULL, &k, 8) != 0)
            continue;
        if (k.handler == (void *)SIG_DFL || k.handler == (void *)SIG_IGN)
            continue;
        k.handler = (void *)SIG_DFL;
        k.restorer = NULL;
        syscall(SYS_rt_sigaction, sig, &k, NULL, 8);
    }
}

__attribute__((noinline)) static void work(double s)
{
    double end = thread_cpu_s() + s;
    volatile double x = 1;
    while (thread_cpu_s() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
}

static void child(const char *name, int reset, const sigset_t *orig)
{
    if (reset)
        reset_handlers_raw();
    pthread_sigmask(SIG_SETMASK, orig, NULL);
    double c0 = thread_cpu_s();
    work(0.1);
    printf("cpu %s %.6f\n", name, thread_cpu_s() - c0);
    fflush(stdout);
    if (reset) {
        execl("/proc/self/exe", "fork_reset", "exec", (char *)NULL);
        _exit(126);
    }
    _exit(0);
}

/* the exec'd image: a grandchild forked the plain way (no signal blocked) */
static int exec_mode(void)
{
    pid_t p = fork();
    if (p == 0) {
        double c0 = thread_cpu_s();
        work(0.1);
        printf("cpu grandchild %.6f\n", thread_cpu_s() - c0);
        fflush(stdout);
        _exit(0);
    }
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) != p)
        return 1;
    printf("grandchild %s %d\n", WIFSIGNALED(st) ? "signal" : "exit",
           WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
    return 0;
}

static sigjmp_buf fault_env;
static volatile uintptr_t bad_addr = 16; /* unmapped, hidden from the compiler */

static void on_segv(int sig)
{
    siglongjmp(fault_env, sig);
}

static void segv_child(void)
{
    sigset_t segv;
    sigemptyset(&segv);
    sigaddset(&segv, SIGSEGV);
    pthread_sigmask(SIG_UNBLOCK, &segv, NULL);
    signal(SIGSEGV, on_segv);
    if (sigsetjmp(fault_env, 1) == 0)
        *(volatile int *)bad_addr = 1;
    printf("segv caught\n");
    fflush(stdout);
    _exit(0);
}

static void launch(const char *name, int reset)
{
    sigset_t full, orig;
    sigfillset(&full);
    pthread_sigmask(SIG_SETMASK, &full, &orig);
    pid_t p = fork();
    if (p == 0 && reset < 0)
        segv_child();
    if (p == 0)
        child(name, reset, &orig);
    pthread_sigmask(SIG_SETMASK, &orig, NULL);
    int st = 0;
    if (p < 0 || waitpid(p, &st, 0) != p) {
        printf("child %s lost\n", name);
        return;
    }
    if (WIFSIGNALED(st))
        printf("child %s signal %d\n", name, WTERMSIG(st));
    else
        printf("child %s exit %d\n", name, WEXITSTATUS(st));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc > 1 && strcmp(argv[1], "exec") == 0)
        return exec_mode();
    launch("reset", 1);
    launch("keep", 0);
    launch("segv", -1);
    return 0;
}
