/*
 * kill.c - rank 1 dies of SIGKILL in the middle of the job (tests/mpi/test_death.sh).
 *
 * 3 ranks. Rank 1: 4 x MPI_Send of 256 B to rank 0, then raise(SIGKILL). Rank 0:
 * 4 x MPI_Recv from rank 1. Then ranks 0 and 2 wait in MPI_Recv from rank 1 until
 * mpirun ends the job.
 */
#include <mpi.h>
#include <signal.h>
#include <stddef.h>

int main(int argc, char **argv)
{
    int rank;
    char buf[256] = {0};
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
    if (rank == 1) {
        for (int i = 0; i < 4; i++)
            MPI_Send(buf, 256, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
        raise(SIGKILL);
    }
    if (rank == 0)
        for (int i = 0; i < 4; i++)
            MPI_Recv(buf, 256, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Recv(buf, 256, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
