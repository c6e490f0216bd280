/*
 * clocksync.c - offset of each rank's CLOCK_MONOTONIC to rank 0's, measured at
 * MPI_Init and again at MPI_Finalize, so hpmerge can put all ranks on rank 0's clock
 * (interpolating linearly between the two measurements).
 *
 * Rank 0 serves the other ranks one after the other; each does ROUNDS ping-pongs and
 * keeps the one with the smallest round trip (Cristian's method: the reply was stamped
 * somewhere inside the round trip, so the error is at most rtt/2 and smallest when rtt
 * is). Runs over a private duplicate of MPI_COMM_WORLD through PMPI, so it can never
 * match a message of the program's. Cost: ROUNDS round trips per rank, serialized at
 * rank 0: about 2 ms for 64 ranks on shared memory.
 */
#include "mpiw.h"

#define ROUNDS   16
#define TAG_PING 1
#define TAG_PONG 2

static void serve(int nranks)
{
    for (int r = 1; r < nranks; r++) {
        for (int k = 0; k < ROUNDS; k++) {
            int ping;
            PMPI_Recv(&ping, 1, MPI_INT, r, TAG_PING, hpcw_g.sync_comm, MPI_STATUS_IGNORE);
            uint64_t now = hpcw_clock_exact();
            PMPI_Send(&now, 1, MPI_UINT64_T, r, TAG_PONG, hpcw_g.sync_comm);
        }
    }
}

static void write_offset(unsigned phase, uint64_t local, int64_t offset, uint64_t rtt)
{
    hpc_rec_clock_offset r = {
        .phase = phase, .local_ns = local, .offset_ns = offset, .rtt_ns = rtt};
    hpc_stream *s = hpcollect_proc_lock();
    if (s) {
        hpc_write_clock_offset(s, &r);
        hpcollect_proc_unlock();
    }
}

void hpcw_clock_sync(unsigned phase)
{
    int rank, size;
    if (hpcw_g.sync_comm == MPI_COMM_NULL)
        return;
    PMPI_Comm_rank(hpcw_g.sync_comm, &rank);
    PMPI_Comm_size(hpcw_g.sync_comm, &size);
    if (rank == 0) {
        serve(size);
        write_offset(phase, hpcw_clock_exact(), 0, 0);
        return;
    }
    uint64_t best_rtt = UINT64_MAX, best_mid = 0;
    int64_t best_off = 0;
    for (int k = 0; k < ROUNDS; k++) {
        int ping = k;
        uint64_t remote;
        uint64_t t1 = hpcw_clock_exact();
        PMPI_Send(&ping, 1, MPI_INT, 0, TAG_PING, hpcw_g.sync_comm);
        PMPI_Recv(&remote, 1, MPI_UINT64_T, 0, TAG_PONG, hpcw_g.sync_comm, MPI_STATUS_IGNORE);
        uint64_t t2 = hpcw_clock_exact();
        if (t2 - t1 < best_rtt) {
            best_rtt = t2 - t1;
            best_mid = t1 + (t2 - t1) / 2;
            best_off = (int64_t)(remote - best_mid);
        }
    }
    write_offset(phase, best_mid, best_off, best_rtt);
}
