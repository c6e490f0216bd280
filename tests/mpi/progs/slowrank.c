/*
 * slowrank.c - one rank waits for a slow one (tests/mpi/test_wait.sh,
 * tests/counters/test_mpi_cpu.sh).
 *
 *     slowrank [SECONDS [cpu]]
 *
 * Rank 1 computes for SECONDS (default 0.4) of wall time, or with `cpu` until it has
 * used SECONDS of CPU time, then sends one int to rank 0, which has been waiting in
 * MPI_Recv since MPI_Init (it prints how long, by its own clock). So rank 0's MPI time is nearly
 * all of its AppTime, rank 1's nearly none, and rank 0's MPI_Recv lasts as long as rank 1 computed.
 * Each rank prints its own wall clock from MPI_Init's return to MPI_Finalize's call ("rank R
 * app SECONDS"), what its AppTime is.
 * Wall time keeps the run's length known (AppTime comparisons); CPU time keeps rank 1's computing
 * CPU known however loaded the machine is (CPU-time comparisons).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static clockid_t clock_id = CLOCK_MONOTONIC;

static double now(void)
{
    struct timespec ts;
    clock_gettime(clock_id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The wall clock around the program's part, from MPI_Init's return to MPI_Finalize's
 * call ("rank R app SECONDS"): what AppTime must hold. */
static double app_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Busy work until `seconds` have passed on clock_id; returns something the compiler
 * must keep. */
static double compute(double seconds)
{
    double x = 0, end = now() + seconds;
    while (now() < end)
        for (int i = 0; i < 10000; i++)
            x += 1.0 / (i + 1.0);
    return x;
}

int main(int argc, char **argv)
{
    int rank, v = 0;
    double seconds = argc > 1 ? atof(argv[1]) : 0.4;
    if (argc > 2 && strcmp(argv[2], "cpu") == 0)
        clock_id = CLOCK_THREAD_CPUTIME_ID;
    MPI_Init(&argc, &argv);
    double app0 = app_clock();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 1) {
        v = compute(seconds) > 0;
        MPI_Send(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    } else if (rank == 0) {
        clockid_t was = clock_id;
        clock_id = CLOCK_MONOTONIC;
        double t0 = now();
        MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        printf("rank 0 waited %.6f s in MPI_Recv\n", now() - t0);
        clock_id = was;
    }
    double app = app_clock() - app0;
    MPI_Finalize();
    printf("rank %d app %.6f s\n", rank, app);
    return v ? 0 : 1;
}
