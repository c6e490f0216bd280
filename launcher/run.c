/*
 * run.c - fork/exec the program, forward signals, wait4 it, and mirror its end.
 *
 * The program never outlives hpcollect unnoticed: before exec the child asks the kernel
 * for SIGKILL when its parent dies (PR_SET_PDEATHSIG, kept across exec), so a launcher
 * killed by any signal, SIGKILL included, takes its program with it. Signals hpcollect
 * can catch (SIGINT, SIGTERM, ...) are forwarded instead, and the program ends its own way.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "run.h"

static const int forwarded[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
static volatile pid_t child_pid;

/* A signal sent to hpcollect alone (kill, sigqueue) goes on to the program; one the
 * kernel sent (terminal keys go to the whole foreground group) reached it already. */
static void forward_signal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    int saved = errno;
    pid_t pid = child_pid;
    if (pid > 0 && si->si_code != SI_KERNEL && si->si_pid != pid)
        kill(pid, sig);
    errno = saved;
}

static void install_forwarding(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = forward_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
        sigaction(forwarded[i], &sa, NULL);
}

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}

int hpc_run_start(const char *path, char **argv, char **envp, pid_t *out)
{
    install_forwarding();
    fflush(NULL);
    pid_t launcher = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "hpcollect: fork: %s\n", strerror(errno));
        return -1;
    }
    if (pid == 0) {
        /* the program gets the default dispositions hpcollect itself started with */
        for (size_t i = 0; i < sizeof forwarded / sizeof forwarded[0]; i++)
            signal(forwarded[i], SIG_DFL);
        if (prctl(PR_SET_PDEATHSIG, HPC_RUN_DEATH_SIGNAL) != 0 || getppid() != launcher)
            raise(HPC_RUN_DEATH_SIGNAL); /* the launcher is gone already */
        execve(path, argv, envp);
        int err = errno;
        fprintf(stderr, "hpcollect: %s: %s\n", argv[0], strerror(err));
        _exit(err == ENOENT ? 127 : 126);
    }
    child_pid = pid;
    *out = pid;
    return 0;
}

int hpc_run_wait(pid_t pid, hpc_child_result *r)
{
    memset(r, 0, sizeof *r);
    r->pid = pid;
    while (wait4(pid, &r->status, 0, &r->ru) < 0) {
        if (errno != EINTR) {
            fprintf(stderr, "hpcollect: wait4: %s\n", strerror(errno));
            return -1;
        }
    }
    r->end_ns = now_ns();
    child_pid = 0;
    return 0;
}

void hpc_exit_like(int status)
{
    if (WIFEXITED(status))
        exit(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        struct rlimit no_core = {0, 0};
        setrlimit(RLIMIT_CORE, &no_core); /* the program dumped its own core */
        fflush(NULL);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, NULL);
        raise(sig);
        _exit(128 + sig); /* a signal whose default is not to terminate */
    }
    exit(1);
}
