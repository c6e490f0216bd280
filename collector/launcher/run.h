/*
 * run.h - start the program, forward signals to it, wait, and end as it ended.
 */
#ifndef HPC_LAUNCHER_RUN_H
#define HPC_LAUNCHER_RUN_H

#include <sys/resource.h>
#include <sys/types.h>

typedef struct hpc_child_result {
    pid_t pid;
    int status; /* as wait4 gives it */
    struct rusage ru;
    unsigned long long end_ns; /* CLOCK_MONOTONIC when wait4 returned */
} hpc_child_result;

/*
 * fork + execve(path, argv, envp), forwarding SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1
 * and SIGUSR2 sent to hpcollect (not those the terminal sent to the whole process group,
 * which the program already got), then wait4. Returns 0 and fills r, or -1 after
 * printing why the program could not be started.
 */
int hpc_run_program(const char *path, char **argv, char **envp, hpc_child_result *r);

/* Leave hpcollect the way the program left: exit with its status, or die of its signal
 * (without dumping a second core). Does not return. */
void hpc_exit_like(int status) __attribute__((noreturn));

#endif
