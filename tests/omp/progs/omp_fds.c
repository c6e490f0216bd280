/*
 * omp_fds - the program's descriptors survive its first OpenMP parallel region: libunwind's
 * default memory reader once opened a pipe as the collector's first samples unwound, and
 * closed the program's descriptors 3 and 4 (issue 24). Opens two files of its own onto
 * descriptors 3 and 4 (moved there: a shell may have left others open), runs its first
 * parallel region (2 threads, MS ms of CPU each: clock samples unwinding in both, the
 * OpenMP tool's callbacks), then checks that 3 and 4 are still the same files (device
 * and inode) and writes a line into each through them. Prints
 *     fd 3 same | fd 3 changed ...
 *     fd 4 same | ...
 * and the files get "three" and "four". Usage: omp_fds DIR [MS]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <omp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "omp_common.h"

static const char *const names[2] = {"three", "four"};

/* Open DIR/NAME onto descriptor want. */
static int open_at(const char *dir, const char *name, int want)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || (fd != want && (dup2(fd, want) != want || close(fd) != 0))) {
        perror(path);
        exit(1);
    }
    return want;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    uint64_t ms = argc > 2 ? strtoull(argv[2], NULL, 10) : 50;
    struct stat before[2], after[2];
    for (int i = 0; i < 2; i++)
        if (fstat(open_at(argv[1], names[i], 3 + i), &before[i]) != 0)
            return 1;
#pragma omp parallel num_threads(2)
    burn_cpu(ms * 1000000);
    for (int i = 0; i < 2; i++) {
        int fd = 3 + i;
        if (fstat(fd, &after[i]) != 0) {
            printf("fd %d closed\n", fd);
            continue;
        }
        bool same = after[i].st_dev == before[i].st_dev && after[i].st_ino == before[i].st_ino;
        printf("fd %d %s\n", fd, same ? "same" : "changed");
        if (same && (write(fd, names[i], strlen(names[i])) < 0 || write(fd, "\n", 1) < 0))
            printf("fd %d write failed\n", fd);
    }
    return 0;
}
