/*
 * omp_mpi - MPI + OpenMP with known times, for the OpenMP model's MPI rules.
 *
 * STEPS times: a parallel region of 2 threads in which each thread burns UNIT of CPU, then
 * rank 0 alone burns EXTRA of serial CPU while every other rank's master waits for it in
 * MPI_Allreduce (Open MPI polls: the wait uses CPU inside the MPI call). Each rank's
 * master measures its own thread CPU inside MPI calls (MPI_Init and MPI_Finalize
 * included) and outside them, and prints
 *     truth rank=R thread=0 what=mpi cpu_ns=N wall_ns=N
 *     truth rank=R thread=0 what=other cpu_ns=N wall_ns=N
 * so a test can hold the profile's MPI time and OpenMP time of that thread to them.
 * Usage: omp_mpi [steps [unit_ms [extra_ms]]]   (defaults 10, 10, 40)
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static truth in_mpi, total;
static stopwatch mpi_watch;

static void mpi_enter(void)
{
    mpi_watch = stopwatch_start();
}

static void mpi_leave(void)
{
    stopwatch_lap(&mpi_watch, &in_mpi);
}

__attribute__((noinline)) static void region(uint64_t unit_ns)
{
#pragma omp parallel num_threads(2)
    burn_cpu(unit_ns);
}

int main(int argc, char **argv)
{
    stopwatch all = stopwatch_start();
    int provided, rank;
    mpi_enter();
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    mpi_leave();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int steps = argc > 1 ? atoi(argv[1]) : 10;
    uint64_t unit_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 10) * 1000000ull;
    uint64_t extra_ns = (argc > 3 ? strtoull(argv[3], NULL, 10) : 40) * 1000000ull;
    double x = 1, sum;
    for (int s = 0; s < steps; s++) {
        region(unit_ns);
        if (rank == 0)
            burn_cpu(extra_ns);
        mpi_enter();
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        mpi_leave();
    }
    mpi_enter();
    MPI_Finalize();
    mpi_leave();
    stopwatch_lap(&all, &total);
    truth other = {total.cpu_ns - in_mpi.cpu_ns, total.wall_ns - in_mpi.wall_ns};
    printf("truth rank=%d thread=0 what=mpi cpu_ns=%llu wall_ns=%llu\n", rank,
           (unsigned long long)in_mpi.cpu_ns, (unsigned long long)in_mpi.wall_ns);
    printf("truth rank=%d thread=0 what=other cpu_ns=%llu wall_ns=%llu\n", rank,
           (unsigned long long)other.cpu_ns, (unsigned long long)other.wall_ns);
    return 0;
}
