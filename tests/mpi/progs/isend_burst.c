/*
 * isend_burst.c - many small MPI_Isends that complete at once (tests/mpi/test_isend_burst.sh).
 * Open MPI hands out one shared request handle for such sends; every start must still
 * meet its own completion. Rank 0 sends 4-byte messages to rank 1:
 *   phase 1: 200 Isends, then one MPI_Waitall over all of them (one handle, 200 times)
 *   phase 2: 100 Isends, each completed by MPI_Wait right away
 *   phase 3: 100 Isends, completed by MPI_Testall until done
 *   phase 4: 100 Isends, completed by MPI_Waitsome until done
 * 500 sends, 2000 bytes; rank 1 receives them with MPI_Recv.
 * With the argument "leak", rank 0 then starts 3 more Isends (rank 1 receives them) and
 * never completes them: their completions cannot be traced, and must be counted.
 */
#include <mpi.h>
#include <stdlib.h>

#define MAXN 200

static void burst(int n, MPI_Request *q, int *buf)
{
    for (int i = 0; i < n; i++)
        MPI_Isend(&buf[i], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &q[i]);
}

int main(int argc, char **argv)
{
    int rank, buf[MAXN], idx[MAXN], done = 0, flag = 0;
    MPI_Request q[MAXN];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int i = 0; i < MAXN; i++)
        buf[i] = i;
    if (rank == 0) {
        burst(200, q, buf);
        MPI_Waitall(200, q, MPI_STATUSES_IGNORE);
        for (int i = 0; i < 100; i++) {
            MPI_Isend(&buf[i], 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &q[0]);
            MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        }
        burst(100, q, buf);
        while (!flag)
            MPI_Testall(100, q, &flag, MPI_STATUSES_IGNORE);
        burst(100, q, buf);
        for (int left = 100; left > 0; left -= done)
            MPI_Waitsome(100, q, &done, idx, MPI_STATUSES_IGNORE);
    } else if (rank == 1) {
        for (int i = 0; i < 500; i++)
            MPI_Recv(&buf[0], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    if (argc > 1 && argv[1][0] == 'l') {
        if (rank == 0)
            burst(3, q, buf);
        else if (rank == 1)
            for (int i = 0; i < 3; i++)
                MPI_Recv(&buf[0], 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
