/*
 * mpiio.c - MPI-IO known in advance (tests/io/test_io_mpiio.sh), on every rank R of 4:
 *
 *   mpiio.dat  opened by all (CREATE | RDWR), then:
 *              MPI_File_write_at      65536 MPI_BYTEs at R * 64 KiB
 *              MPI_File_write_at_all  8192 MPI_INTs (32 KiB) at 256 KiB + R * 32 KiB
 *              MPI_File_sync
 *              MPI_File_seek          to R * 64 KiB
 *              MPI_File_read          4 x 4096 bytes (the individual file pointer)
 *              MPI_File_iread_at      1024 bytes at R * 64 KiB, MPI_Wait
 *              MPI_File_close
 *   none       rank 0: MPI_File_open of DIR/missing/none fails
 *   gone.dat   rank 0: opened with MPI_COMM_SELF (CREATE | WRONLY), closed, MPI_File_delete
 *
 * Arguments: DIR. Exits 1 (MPI_Abort) if a call does not do what the test expects.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KiB 1024

static char buf[96 * KiB];

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "mpiio: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static int got(MPI_Status *st)
{
    int n = -1;
    MPI_Get_count(st, MPI_BYTE, &n);
    return n;
}

__attribute__((noinline)) static void shared_file(const char *dir, int rank)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/mpiio.dat", dir);
    MPI_File fh;
    MPI_Status st;
    check(MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "MPI_File_open");
    check(MPI_File_write_at(fh, (MPI_Offset)rank * 64 * KiB, buf, 64 * KiB, MPI_BYTE, &st) ==
                  MPI_SUCCESS &&
              got(&st) == 64 * KiB,
          "MPI_File_write_at");
    check(MPI_File_write_at_all(fh, 256 * KiB + (MPI_Offset)rank * 32 * KiB, buf, 8192, MPI_INT,
                                &st) == MPI_SUCCESS &&
              got(&st) == 32 * KiB,
          "MPI_File_write_at_all");
    check(MPI_File_sync(fh) == MPI_SUCCESS, "MPI_File_sync");
    check(MPI_File_seek(fh, (MPI_Offset)rank * 64 * KiB, MPI_SEEK_SET) == MPI_SUCCESS,
          "MPI_File_seek");
    for (int i = 0; i < 4; i++)
        check(MPI_File_read(fh, buf, 4096, MPI_BYTE, &st) == MPI_SUCCESS && got(&st) == 4096,
              "MPI_File_read");
    MPI_Request req;
    check(MPI_File_iread_at(fh, (MPI_Offset)rank * 64 * KiB, buf, 1024, MPI_BYTE, &req) ==
              MPI_SUCCESS,
          "MPI_File_iread_at");
    check(MPI_Wait(&req, &st) == MPI_SUCCESS && got(&st) == 1024, "MPI_Wait");
    check(MPI_File_close(&fh) == MPI_SUCCESS, "MPI_File_close");
}

__attribute__((noinline)) static void own_files(const char *dir)
{
    char path[4096];
    MPI_File fh;
    snprintf(path, sizeof path, "%s/missing/none", dir);
    check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) != MPI_SUCCESS,
          "the failing MPI_File_open");
    snprintf(path, sizeof path, "%s/gone.dat", dir);
    check(MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL,
                        &fh) == MPI_SUCCESS,
          "MPI_File_open gone.dat");
    check(MPI_File_close(&fh) == MPI_SUCCESS, "MPI_File_close gone.dat");
    check(MPI_File_delete(path, MPI_INFO_NULL) == MPI_SUCCESS, "MPI_File_delete");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    check(argc == 2, "arguments");
    memset(buf, 'a' + rank, sizeof buf);
    shared_file(argv[1], rank);
    if (rank == 0)
        own_files(argv[1]);
    MPI_Finalize();
    return 0;
}
