/*
 * descend.c - a process tree of known work: the program burns 0.3 s, forks a child
 * that burns 0.3 s, waits for it, runs `descend exec` through execv, which burns 0.3 s
 * and prints how many HPCOLLECT_ variables and collector libraries its environment has
 * (none are expected with -F off).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "burn.h"

extern char **environ;

static int collector_traces(void)
{
    int n = 0;
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "HPCOLLECT_", 10) ||
            (!strncmp(*e, "LD_PRELOAD=", 11) && strstr(*e, "libhpcollect")))
            n++;
    return n;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "exec")) {
        burn_cpu(0.3);
        printf("exec image: %d collector variables\n", collector_traces());
        return 0;
    }
    burn_cpu(0.3);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        burn_cpu(0.3);
        _exit(7);
    }
    int status;
    waitpid(pid, &status, 0);
    printf("child exit %d\n", WEXITSTATUS(status));
    fflush(stdout);
    char *args[] = {argv[0], "exec", NULL};
    execv(argv[0], args);
    perror("execv");
    return 1;
}
