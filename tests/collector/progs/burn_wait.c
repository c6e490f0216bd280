/*
 * burn_wait.c - a program that never ends by itself: burns 0.2 s of CPU, writes its pid
 * to the file named by argv[1] (the test's "ready" sign), then waits for a signal for ever.
 */
#include <stdio.h>
#include <unistd.h>

#include "burn.h"

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    burn_cpu(0.2);
    FILE *f = fopen(argv[1], "w");
    if (!f)
        return 1;
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
    for (;;)
        pause();
}
