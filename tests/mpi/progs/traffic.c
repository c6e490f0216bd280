/*
 * traffic.c - MPI traffic known in advance, for 4 ranks (tests/mpi/test_traffic.sh).
 *
 * Every rank r does exactly this (next = r+1, prev = r-1, mod 4):
 *   A  ring: 3 x MPI_Send 1000 B to next, 3 x MPI_Recv from prev (MPI_STATUS_IGNORE)
 *   B  2 x MPI_Irecv from MPI_ANY_SOURCE into 4096 B buffers, MPI_Isend 512 B to next
 *      and 768 B to r+2, one MPI_Waitall with MPI_STATUSES_IGNORE (gets 512 + 768 B)
 *   C  MPI_Isend 400 B to next, MPI_Irecv (4000 B buffer), MPI_Wait on the receive,
 *      then on the send, both with MPI_STATUS_IGNORE
 *   D  MPI_Sendrecv: 64 B to next, 64 B from prev
 *   E  persistent MPI_Send_init 128 B to next / MPI_Recv_init from prev, twice
 *      MPI_Startall + MPI_Waitall (with statuses), then 2 x MPI_Request_free
 *   F  MPI_Send of 100 B to MPI_PROC_NULL: a call, not a message
 *   G  MPI_Bcast 100 ints from 0, MPI_Allreduce 10 doubles, MPI_Barrier,
 *      MPI_Gather 1 int to 0
 *   H  MPI_Comm_split by r % 2 ({0,2}, {1,3}), in it MPI_Comm_rank, MPI_Allreduce 1 int
 *      and MPI_Send 2048 B from its rank 0 to its rank 1 (MPI_Recv, MPI_STATUS_IGNORE),
 *      MPI_Comm_free
 * plus MPI_Init, MPI_Comm_rank, MPI_Comm_size (WORLD) and MPI_Finalize.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

static char buf[8][8192];

static void ring(int r, int next, int prev)
{
    for (int i = 0; i < 3; i++) {
        if (r % 2 == 0) {
            MPI_Send(buf[0], 125, MPI_DOUBLE, next, 1, MPI_COMM_WORLD); /* SITE ring_send */
            MPI_Recv(buf[1], 125, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(buf[1], 125, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(buf[0], 125, MPI_DOUBLE, next, 1, MPI_COMM_WORLD); /* SITE ring_send */
        }
    }
}

static void nonblocking(int r, int next)
{
    MPI_Request req[4];
    MPI_Irecv(buf[2], 4096, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(buf[3], 4096, MPI_BYTE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(buf[0], 128, MPI_INT, next, 7, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(buf[0], 192, MPI_INT, (r + 2) % 4, 7, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);

    MPI_Request s, q;
    MPI_Isend(buf[0], 100, MPI_INT, next, 9, MPI_COMM_WORLD, &s);
    MPI_Irecv(buf[4], 1000, MPI_INT, MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
}

static void persistent(int next, int prev)
{
    MPI_Request req[2];
    MPI_Status st[2];
    MPI_Send_init(buf[0], 32, MPI_INT, next, 5, MPI_COMM_WORLD, &req[0]);
    MPI_Recv_init(buf[5], 64, MPI_INT, prev, 5, MPI_COMM_WORLD, &req[1]);
    for (int i = 0; i < 2; i++) {
        MPI_Startall(2, req);
        MPI_Waitall(2, req, st);
    }
    MPI_Request_free(&req[0]);
    MPI_Request_free(&req[1]);
}

static void collectives(void)
{
    double x[10] = {0}, y[10];
    int one = 1, all[4];
    MPI_Bcast(buf[6], 100, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Allreduce(x, y, 10, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Gather(&one, 1, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
}

static void split(int r)
{
    MPI_Comm half;
    int hr, one = 1, sum;
    MPI_Comm_split(MPI_COMM_WORLD, r % 2, r, &half);
    MPI_Comm_rank(half, &hr);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, half);
    if (hr == 0)
        MPI_Send(buf[0], 2048, MPI_BYTE, 1, 3, half);
    else
        MPI_Recv(buf[7], 2048, MPI_BYTE, 0, 3, half, MPI_STATUS_IGNORE);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    int r, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n != 4) {
        fprintf(stderr, "traffic: run with 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int next = (r + 1) % 4, prev = (r + 3) % 4;
    ring(r, next, prev);
    nonblocking(r, next);
    MPI_Sendrecv(buf[0], 16, MPI_INT, next, 4, buf[1], 16, MPI_INT, prev, 4, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    persistent(next, prev);
    MPI_Send(buf[0], 100, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_WORLD);
    collectives();
    split(r);
    MPI_Finalize();
    return 0;
}
