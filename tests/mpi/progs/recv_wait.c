/*
 * recv_wait.c - thread states of MPI waits. Both ranks run on one CPU (the program pins
 * itself to CPU 0). Phase 1: rank 1 computes for 1 s of CPU, then sends; rank 0 waits in
 * MPI_Recv, yielding (mpi_yield_when_idle) to rank 1, which holds the CPU: its wait is
 * mostly runnable-but-not-running. Phase 2: rank 1 sleeps 1 s before MPI_Finalize; rank 0
 * waits for it inside MPI_Finalize. Rank 0 prints what its clocks measured around each:
 *
 *     wait FUNC WALL CPU RUNDELAY
 */
#define _GNU_SOURCE
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "thread_clocks.h"

static void report(const char *what, clocks a, clocks b)
{
    printf("wait %s %.6f %.6f %.6f\n", what, b.wall - a.wall, b.cpu - a.cpu,
           b.run_delay - a.run_delay);
    fflush(stdout);
}

static volatile double sink;

__attribute__((noinline)) void compute(double s)
{
    clocks a = clocks_now();
    double x = 1;
    while (clocks_now().cpu - a.cpu < s)
        for (int i = 0; i < 100000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

__attribute__((noinline)) void receive(void)
{
    int v = 0;
    clocks a = clocks_now();
    MPI_Recv(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    report("MPI_Recv", a, clocks_now());
}

int main(int argc, char **argv)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof one, &one);
    MPI_Init(&argc, &argv);
    int rank, v = 42;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        receive();
    } else if (rank == 1) {
        compute(1.0);
        MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        sleep(1);
    }
    clocks a = clocks_now();
    MPI_Finalize();
    if (rank == 0)
        report("MPI_Finalize", a, clocks_now());
    return 0;
}
