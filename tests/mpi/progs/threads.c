/*
 * threads.c - MPI_THREAD_MULTIPLE: 2 ranks, THREADS threads each (tests/mpi/test_threads.sh).
 * Thread t of each rank exchanges with the same thread of the other rank, on tag t:
 *   ROUNDS x MPI_Sendrecv of 64 B, then ROUNDS x (MPI_Irecv + MPI_Isend of 32 B + MPI_Waitall)
 * so each rank sends and receives THREADS * 2 * ROUNDS messages: 2 * 2 * 50 = 200.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#define THREADS 2
#define ROUNDS  50

static int peer;

static void *exchange(void *arg)
{
    int tag = (int)(long)arg;
    char out[64] = {0}, in[64];
    for (int i = 0; i < ROUNDS; i++)
        MPI_Sendrecv(out, 64, MPI_BYTE, peer, tag, in, 64, MPI_BYTE, peer, tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    for (int i = 0; i < ROUNDS; i++) {
        MPI_Request req[2];
        MPI_Irecv(in, 64, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(out, 32, MPI_BYTE, peer, tag, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, rank;
    pthread_t th[THREADS];
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "threads: MPI_THREAD_MULTIPLE not provided\n");
        MPI_Abort(MPI_COMM_WORLD, 77);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    peer = 1 - rank;
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, exchange, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    MPI_Finalize();
    return 0;
}
