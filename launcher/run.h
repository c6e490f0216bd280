/*
 * run.h - start the program, forward signals to it, wait, and end as it ended.
 */
#ifndef HPC_LAUNCHER_RUN_H
#define HPC_LAUNCHER_RUN_H

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

typedef struct hpc_child_result {
    pid_t pid;
    int status; /* as wait4 gives it */
    struct rusage ru;
    unsigned long long end_ns; /* CLOCK_MONOTONIC when wait4 returned */
} hpc_child_result;

/* What the kernel sends the program when hpcollect dies before it (PR_SET_PDEATHSIG). */
#define HPC_RUN_DEATH_SIGNAL SIGKILL

/*
 * fork + execve(path, argv, envp), forwarding SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1
 * and SIGUSR2 sent to hpcollect (not those the terminal sent to the whole process group,
 * which the program already got). The program gets HPC_RUN_DEATH_SIGNAL if hpcollect
 * dies first. Returns 0 and the program's pid, or -1 after printing why it could not be
 * started.
 */
int hpc_run_start(const char *path, char **argv, char **envp, pid_t *pid);

/* wait4 the program started by hpc_run_start. Returns 0 and fills r, or -1 (printed). */
int hpc_run_wait(pid_t pid, hpc_child_result *r);

/* Leave hpcollect the way the program left: exit with its status, or die of its signal
 * (without dumping a second core). Does not return. */
void hpc_exit_like(int status) __attribute__((noreturn));

#endif
