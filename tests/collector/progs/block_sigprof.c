/*
 * block_sigprof.c - a program that blocks SIGPROF for its whole run. It must still be
 * sampled; its own view of the mask must say SIGPROF is blocked; and a SIGPROF it
 * raises while blocked must reach its handler only once it unblocks the signal.
 * Exit 0 if the program saw everything as without the collector.
 */
#include <signal.h>
#include <stdio.h>
#include <pthread.h>

#include "burn.h"

static volatile int calls;

static void on_prof(int sig)
{
    (void)sig;
    calls++;
}

int main(void)
{
    sigset_t set, cur;
    sigemptyset(&set);
    sigaddset(&set, SIGPROF);
    signal(SIGPROF, on_prof);
    if (sigprocmask(SIG_BLOCK, &set, NULL) != 0)
        return 10;
    raise(SIGPROF); /* pending while blocked */
    burn_cpu(0.5);
    pthread_sigmask(SIG_SETMASK, NULL, &cur);
    int blocked_view = sigismember(&cur, SIGPROF);
    int before = calls;
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    int after = calls;
    printf("blocked view %d, handler before unblock %d, after %d\n", blocked_view, before, after);
    return blocked_view == 1 && before == 0 && after == 1 ? 0 : 1;
}
