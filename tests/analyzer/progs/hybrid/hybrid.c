/*
 * hybrid.c - ground truth for the trace exports: MPI ranks with OpenMP threads.
 *
 *     mpirun -np 2 hybrid [ROUNDS]        (default 4; built with clang -fopenmp: libomp)
 *
 * Each round, on every rank: one parallel region of 2 threads (thread t burns (t+1) x 10 ms
 * of CPU, then the implicit barrier), then rank 0 sends 1000 bytes to rank 1 (MPI_Send /
 * MPI_Recv, tag = round) and rank 1 sends 2000 bytes back, then an MPI_Allreduce of one
 * double. So per rank: ROUNDS regions, ROUNDS sends, ROUNDS receives, ROUNDS allreduces,
 * MPI_Init and MPI_Finalize; 2 x ROUNDS messages in all, half in each direction.
 */
#include <mpi.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

volatile double sink;

__attribute__((noinline)) static void burn(double seconds)
{
    double end = thread_cpu() + seconds, x = 1;
    while (thread_cpu() < end)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 4, rank, size;
    static char buf[2000];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = 0; r < rounds; r++) {
#pragma omp parallel num_threads(2)
        burn(0.01 * (omp_get_thread_num() + 1));
        if (size >= 2 && rank == 0) {
            MPI_Send(buf, 1000, MPI_CHAR, 1, r, MPI_COMM_WORLD);
            MPI_Recv(buf, 2000, MPI_CHAR, 1, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (size >= 2 && rank == 1) {
            MPI_Recv(buf, 1000, MPI_CHAR, 0, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf, 2000, MPI_CHAR, 0, r, MPI_COMM_WORLD);
        }
        double x = rank, sum;
        MPI_Allreduce(&x, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    }
    MPI_Finalize();
    if (rank == 0)
        printf("hybrid done, %d rounds\n", rounds);
    return 0;
}
