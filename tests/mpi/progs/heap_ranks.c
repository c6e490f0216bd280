/*
 * heap_ranks.c - heap tracing in an MPI job (tests/heap/test_heap_mpi.sh): rank r leaks
 * r + 1 blocks of 1000 + r bytes in rank_leak, and allocates and frees a 4096-byte
 * buffer 10 times in exchange (an MPI_Allreduce on each).
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink[64];

__attribute__((noinline)) static void rank_leak(int rank)
{
    for (int i = 0; i <= rank; i++)
        sink[i] = malloc(1000 + (size_t)rank);
}

__attribute__((noinline)) static void exchange(void)
{
    for (int i = 0; i < 10; i++) {
        double *in = malloc(4096), out[512];
        memset(in, 0, 4096);
        MPI_Allreduce(in, out, 512, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        free(in);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rank_leak(rank);
    exchange();
    MPI_Finalize();
    return 0;
}
