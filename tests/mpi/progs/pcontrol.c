/*
 * pcontrol.c - MPI_Pcontrol(0) stops collection, MPI_Pcontrol(1) restarts it
 * (tests/mpi/test_pcontrol.sh). 2 ranks; rank 0 sends to rank 1:
 *   5 x MPI_Send 10 B    while collection is off   (not recorded)
 *   3 x MPI_Send 1000 B  after it is back on        (recorded)
 */
#include <mpi.h>

static void exchange(int rank, int n, int bytes)
{
    static char buf[1000];
    for (int i = 0; i < n; i++) {
        if (rank == 0)
            MPI_Send(buf, bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
        else
            MPI_Recv(buf, bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Pcontrol(0);
    exchange(rank, 5, 10);
    MPI_Pcontrol(1);
    exchange(rank, 3, 1000);
    MPI_Finalize();
    return 0;
}
