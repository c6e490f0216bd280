/*
 * plain.c - a program without MPI (tests/mpi/test_nonmpi.sh). Prints whether the MPI
 * wrappers (libhpcollect-mpi.so) and an MPI library (libmpi*) are mapped into it:
 *     mpi-wrappers: no
 *     mpi-library: no
 */
#include <stdio.h>
#include <string.h>

int main(void)
{
    char line[4096];
    int wrappers = 0, library = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f)) {
        wrappers |= strstr(line, "libhpcollect-mpi") != NULL;
        library |= strstr(line, "/libmpi") != NULL;
    }
    if (f)
        fclose(f);
    printf("mpi-wrappers: %s\nmpi-library: %s\n", wrappers ? "yes" : "no", library ? "yes" : "no");
    return 0;
}
