/*
 * crash.c - crash MODE: burn about one second of CPU, then die: "segv" by a null
 * pointer write, "wait" by touching READY_FILE (argv[2]) and spinning until killed.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "burn.h"

int main(int argc, char **argv)
{
    burn_cpu(1.0);
    if (argc > 1 && !strcmp(argv[1], "wait") && argc > 2) {
        close(open(argv[2], O_CREAT | O_WRONLY, 0644));
        for (;;)
            burn_cpu(0.1);
    }
    volatile int *p = NULL;
    *p = 1;
    return 0;
}
