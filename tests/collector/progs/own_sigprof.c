/*
 * own_sigprof.c - a program with its own SIGPROF handler, which must run for every
 * SIGPROF the program sends itself (kill, raise, sigqueue, tgkill) with the si_code the
 * kernel gives, while the collector samples the same signal. Also checks that
 * sigaction reports the program's own handler back, and that signal() returns it.
 * Prints "own handler: 4 of 4" and exits 0 when all is as without the collector.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "burn.h"

static volatile int calls, codes_ok, value_ok;
static const int expect[] = {SI_USER, SI_TKILL, SI_QUEUE, SI_TKILL};

static void on_prof(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (sig == SIGPROF && calls < 4 && si->si_code == expect[calls])
        codes_ok++;
    if (si->si_code == SI_QUEUE && si->si_value.sival_int == 42)
        value_ok = 1;
    calls++;
}

int main(void)
{
    struct sigaction sa, back;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0)
        return 10;
    if (sigaction(SIGPROF, NULL, &back) != 0 || back.sa_sigaction != on_prof ||
        !(back.sa_flags & SA_SIGINFO)) {
        printf("sigaction does not report the program's handler back\n");
        return 11;
    }
    burn_cpu(0.15);
    kill(getpid(), SIGPROF);
    burn_cpu(0.15);
    raise(SIGPROF);
    burn_cpu(0.15);
    union sigval v = {.sival_int = 42};
    sigqueue(getpid(), SIGPROF, v);
    burn_cpu(0.15);
    tgkill(getpid(), gettid(), SIGPROF);
    burn_cpu(0.15);
    printf("own handler: %d of 4, si_code right: %d, value: %d\n", calls, codes_ok, value_ok);
    /* signal() hands back what was installed before */
    void (*prev)(int) = signal(SIGPROF, SIG_IGN);
    if (prev != (void (*)(int))on_prof) {
        printf("signal() returned another handler\n");
        return 12;
    }
    raise(SIGPROF); /* ignored now, as the program asked */
    burn_cpu(0.05);
    return calls == 4 && codes_ok == 4 && value_ok ? 0 : 1;
}
