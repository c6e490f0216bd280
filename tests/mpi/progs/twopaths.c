/*
 * twopaths.c - MPI_Allreduce reached from two call paths through one call site
 * (tests/mpi/test_mpi_paths.sh): main -> phase_a -> reduce_step -> MPI_Allreduce 30
 * times, then main -> phase_b -> reduce_step -> MPI_Allreduce 70 times. phase_a and
 * phase_b are the same code, so their frames have the same size: the same call site is
 * met with the same stack pointer on both paths, and only the return address into
 * phase_a or phase_b tells them apart. Rank 0 sleeps 1 ms before each call of phase_b,
 * so the other ranks wait there: the times differ per path and per rank.
 */
#include <mpi.h>
#include <time.h>

__attribute__((noinline)) static void reduce_step(double *x)
{
    MPI_Allreduce(MPI_IN_PLACE, x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    __asm__ volatile("" ::: "memory"); /* no tail call: reduce_step stays a frame */
}

/* phase_a and phase_b: the same code (rank 0 sleeps 1 ms before each call when slow). */
__attribute__((noinline)) void phase_a(int n, double *x, int slow)
{
    for (int i = 0; i < n; i++) {
        if (slow)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        reduce_step(x);
    }
    __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void phase_b(int n, double *x, int slow)
{
    for (int i = 0; i < n; i++) {
        if (slow)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        reduce_step(x);
    }
    __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
    int rank;
    double x = 1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    phase_a(30, &x, 0);
    phase_b(70, &x, rank == 0);
    MPI_Finalize();
    return 0;
}
