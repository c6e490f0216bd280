/*
 * plain.c - a program without MPI (tests/mpi/test_nonmpi.sh): prints "mpi-wrappers: yes"
 * if libhpcollect-mpi.so or an MPI library is mapped into it, else "mpi-wrappers: no".
 */
#include <stdio.h>
#include <string.h>

int main(void)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f))
        found |= strstr(line, "libhpcollect-mpi") != NULL || strstr(line, "libmpi") != NULL;
    if (f)
        fclose(f);
    printf("mpi-wrappers: %s\n", found ? "yes" : "no");
    return 0;
}
