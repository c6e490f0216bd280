/*
 * mpi_overhead - MPI microbenchmarks for the cost of the MPI wrappers (bench/mpi_bench.sh).
 *
 *   mpi_overhead pingpong N    2 ranks: N round trips of an 8-byte message
 *                              (MPI_Send + MPI_Recv on each side: 4 calls per round trip)
 *   mpi_overhead calls N       N x MPI_Comm_rank, the cheapest call there is
 *   mpi_overhead requests N    N x (MPI_Irecv + MPI_Isend to itself + MPI_Waitall):
 *                              3 calls per iteration, through the request table
 *
 * Rank 0 prints "<mode> <ops> <ns/op> <calls/op>": the fastest of REPS timed loops of N
 * ops (the machine is shared: the minimum is the least disturbed run), after a warm-up
 * of N/10 ops. Time is wall-clock (CLOCK_MONOTONIC) around each loop.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define REPS 15

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void pingpong(int rank, long n)
{
    double msg = 0;
    for (long i = 0; i < n; i++) {
        if (rank == 0) {
            MPI_Send(&msg, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
            MPI_Recv(&msg, 1, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (rank == 1) {
            MPI_Recv(&msg, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&msg, 1, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
        }
    }
}

static void calls(long n)
{
    int r;
    for (long i = 0; i < n; i++)
        MPI_Comm_rank(MPI_COMM_WORLD, &r);
}

static void requests(int rank, long n)
{
    double in = 0, out = 1;
    for (long i = 0; i < n; i++) {
        MPI_Request req[2];
        MPI_Irecv(&in, 1, MPI_DOUBLE, rank, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(&out, 1, MPI_DOUBLE, rank, 1, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
}

static void run(const char *mode, int rank, long n)
{
    if (!strcmp(mode, "pingpong"))
        pingpong(rank, n);
    else if (!strcmp(mode, "calls"))
        calls(n);
    else
        requests(rank, n);
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "";
    long n = argc > 2 ? atol(argv[2]) : 0;
    if (n <= 0 || (strcmp(mode, "pingpong") && strcmp(mode, "calls") && strcmp(mode, "requests"))) {
        if (rank == 0)
            fprintf(stderr, "usage: mpi_overhead pingpong|calls|requests N\n");
        MPI_Finalize();
        return 2;
    }
    run(mode, rank, n / 10);
    double best = 1e30;
    for (int rep = 0; rep < REPS; rep++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = now();
        run(mode, rank, n);
        double t = now() - t0;
        best = t < best ? t : best;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    int per = !strcmp(mode, "pingpong") ? 4 : !strcmp(mode, "calls") ? 1 : 3;
    if (rank == 0)
        printf("%s %ld %.1f %d\n", mode, n, best * 1e9 / (double)n, per);
    MPI_Finalize();
    return 0;
}
