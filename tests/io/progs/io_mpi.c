/*
 * io_mpi.c - an MPI job's I/O known in advance (tests/io/test_io_mpi.sh):
 *
 *   rank<R>.dat   each rank's own file, POSIX: (R + 1) * 16 writes of 4096 bytes
 *   shared.dat    one file of all ranks, MPI-IO: each rank writes 1 MiB at R MiB
 *                 (MPI_File_write_at, independent)
 *
 * Arguments: DIR for the files. Exits 1 if a call does not do what the test expects.
 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MiB (1 << 20)

static char buf[MiB];

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "io_mpi: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

__attribute__((noinline)) static void own_file(const char *dir, int rank)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/rank%d.dat", dir, rank);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    check(fd >= 0, "open");
    for (int i = 0; i < (rank + 1) * 16; i++)
        check(write(fd, buf, 4096) == 4096, "write");
    check(close(fd) == 0, "close");
}

__attribute__((noinline)) static void shared_file(const char *dir, int rank)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/shared.dat", dir);
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "MPI_File_open");
    MPI_Status st;
    check(MPI_File_write_at(fh, (MPI_Offset)rank * MiB, buf, MiB, MPI_BYTE, &st) == MPI_SUCCESS,
          "MPI_File_write_at");
    check(MPI_File_close(&fh) == MPI_SUCCESS, "MPI_File_close");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check(argc == 2, "arguments");
    memset(buf, 'a' + rank, sizeof buf);
    own_file(argv[1], rank);
    shared_file(argv[1], rank);
    MPI_Finalize();
    return 0;
}
