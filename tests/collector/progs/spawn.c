/*
 * spawn.c - descendants through posix_spawn and system(): the program burns 0.2 s,
 * posix_spawns "spawn child" and waits, then runs system("<self> child"); each child
 * burns 0.2 s and exits 3. Exit 0 if both children's statuses came back.
 */
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "burn.h"

extern char **environ;

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        burn_cpu(0.2);
        return 3;
    }
    burn_cpu(0.2);
    pid_t pid;
    char *args[] = {argv[0], "child", NULL};
    int st1 = -1, st2;
    if (posix_spawn(&pid, argv[0], NULL, NULL, args, environ) == 0)
        waitpid(pid, &st1, 0);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "%s child", argv[0]);
    st2 = system(cmd);
    printf("spawn %d system %d\n", WEXITSTATUS(st1), WEXITSTATUS(st2));
    return WEXITSTATUS(st1) == 3 && WEXITSTATUS(st2) == 3 ? 0 : 1;
}
