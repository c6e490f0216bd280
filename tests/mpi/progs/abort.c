/*
 * abort.c - rank 1 calls MPI_Abort while the others wait for it (tests/mpi/test_death.sh).
 *
 * 3 ranks. All: MPI_Barrier. Rank 1: 3 x MPI_Send of 100 B to rank 2, then
 * MPI_Abort(MPI_COMM_WORLD, 3). Rank 2: 3 x MPI_Recv from rank 1, then like rank 0 an
 * MPI_Recv from rank 1 that never completes: mpirun kills them.
 */
#include <mpi.h>
#include <signal.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank;
    char buf[100] = {0};
    /* MPI's own threads start in MPI_Init with this mask: with SIGTERM blocked there,
     * mpirun's SIGTERM reaches the main thread, the one waiting in MPI_Recv (hpcollect
     * records the call a process dies in only on the thread that gets the signal). */
    sigset_t term, old;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &term, &old);
    MPI_Init(&argc, &argv);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        for (int i = 0; i < 3; i++)
            MPI_Send(buf, 100, MPI_BYTE, 2, 0, MPI_COMM_WORLD);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 2)
        for (int i = 0; i < 3; i++)
            MPI_Recv(buf, 100, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(buf, 100, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
