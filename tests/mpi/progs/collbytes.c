/*
 * collbytes.c - collectives of known sizes (tests/mpi/test_collbytes.sh), on 3 ranks:
 *   MPI_Bcast      100 ints from rank 0
 *   MPI_Alltoall   10 ints to every rank (40 bytes a block)
 *   MPI_Alltoallv  rank r sends (r+1)*(j+1) ints to rank j, so it receives the same
 *                  number from each: (j+1)*(r+1)
 *   MPI_Allgather  5 ints from each rank, with MPI_IN_PLACE on rank 1
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    int *b = calloc(1000, sizeof(int)), *s = calloc(1000, sizeof(int)),
        *r = calloc(1000, sizeof(int));
    int sc[16], rc[16], sd[16], rd[16];
    MPI_Bcast(b, 100, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Alltoall(s, 10, MPI_INT, r, 10, MPI_INT, MPI_COMM_WORLD);
    for (int j = 0, so = 0, ro = 0; j < n; j++) {
        sc[j] = (rank + 1) * (j + 1);
        rc[j] = (j + 1) * (rank + 1);
        sd[j] = so;
        rd[j] = ro;
        so += sc[j];
        ro += rc[j];
    }
    MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, MPI_COMM_WORLD);
    if (rank == 1)
        MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, 5, MPI_INT, MPI_COMM_WORLD);
    else
        MPI_Allgather(s, 5, MPI_INT, r, 5, MPI_INT, MPI_COMM_WORLD);
    free(b);
    free(s);
    free(r);
    MPI_Finalize();
    return 0;
}
