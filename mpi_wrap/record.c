/*
 * record.c - the per-call trace records of the MPI wrappers: mpi_call, then its
 * mpi_p2p detail records, written into the calling thread's stream.
 *
 * A call's records are written in one section between hpcollect_write_begin/end, so
 * the clock-sample handler never interleaves with them (collector/sigsafe.h, rule 1). A
 * record that cannot be written (size limit, full disk) is counted in the stream's
 * HPC_STAT_EVENTS_DROPPED; after a dropped mpi_call its detail records are skipped, so
 * a reader never sees details without their call.
 */
#include <stdlib.h>
#include <string.h>

#include "mpiw.h"

hpcw_globals hpcw_g = {.world_rank = -1, .sync_comm = MPI_COMM_NULL, .tracing = 1};

/* -m, before any call: calls before MPI_Init need timestamps only if traced. */
__attribute__((constructor)) static void read_tracing(void)
{
    hpcw_g.tracing = hpcollect_settings_get()->mpi_trace;
}

void hpcw_dropped(hpcw_call *c)
{
    hpc_stream_stat_add(&c->t->stream, HPC_STAT_EVENTS_DROPPED, 1);
}

/* The entry of the call's communicator, looked up once per call. */
static hpcw_comm *call_comm(hpcw_call *c, MPI_Comm comm)
{
    if (comm != c->comm_handle)
        return hpcw_comm_get(comm);
    return c->comm;
}

bool hpcw_write_call(hpcw_call *c, int rc, MPI_Comm comm)
{
    hpcw_fns_once();
    hpcw_clock_tick();
    c->comm_handle = comm;
    c->comm = comm == MPI_COMM_NULL ? NULL : hpcw_comm_get(comm);
    c->failed = rc != MPI_SUCCESS;
    if (c->failed)
        c->flags |= HPC_MPI_CALL_ERROR;
    hpc_rec_mpi_call r = {
        .fn = c->fn,
        .time_enter = c->enter,
        .time_leave = c->leave,
        .comm = c->comm ? c->comm->id : 0,
        .flags = c->flags,
    };
    hpcw_context_prepare();
    hpcollect_write_begin(c->t);
    r.node = hpcw_context(c); /* may write cct_node records first; may move c->site */
    r.callsite = c->site;
    c->node = r.node;
    if (hpc_write_mpi_call(&c->t->stream, &r) < 0) {
        hpcw_dropped(c);
        hpcollect_write_end(c->t);
        return false;
    }
    return true;
}

uint64_t hpcw_bytes(MPI_Count count, MPI_Datatype type)
{
    MPI_Count size = 0;
    if (count <= 0 || type == MPI_DATATYPE_NULL || !type)
        return 0;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size < 0)
        return 0;
    return (uint64_t)count * (uint64_t)size;
}

uint64_t hpcw_status_bytes(const MPI_Status *st)
{
    int n = 0;
    MPI_Count big = 0;
    if (st->MPI_SOURCE == MPI_PROC_NULL)
        return 0;
    /* counted in MPI_BYTE, the size is the byte count; beyond an int, the _x form */
    if (PMPI_Get_count(st, MPI_BYTE, &n) == MPI_SUCCESS && n != MPI_UNDEFINED && n >= 0)
        return (uint64_t)n;
    if (PMPI_Get_elements_x(st, MPI_BYTE, &big) != MPI_SUCCESS || big < 0)
        return 0;
    return (uint64_t)big;
}

/* peer as recorded: rank, -1 for MPI_PROC_NULL, -2 for MPI_ANY_SOURCE */
static int64_t peer_code(int peer)
{
    if (peer == MPI_PROC_NULL)
        return -1;
    if (peer == MPI_ANY_SOURCE)
        return -2;
    return peer;
}

static void write_p2p(hpcw_call *c, unsigned op, uint64_t time, hpcw_comm *e, int peer, int tag,
                      uint64_t bytes, uint64_t request)
{
    hpc_rec_mpi_p2p r = {
        .time = time,
        .op = op,
        .comm = e ? e->id : 0,
        .peer = peer_code(peer),
        .peer_world = e ? hpcw_comm_world(e, peer) : -3,
        .tag = tag,
        .bytes = peer == MPI_PROC_NULL ? 0 : bytes,
        .request = request,
    };
    if (hpc_write_mpi_p2p(&c->t->stream, &r) < 0)
        hpcw_dropped(c);
}

void hpcw_rec_send(hpcw_call *c, MPI_Count count, MPI_Datatype type, int peer, int tag,
                   MPI_Comm comm)
{
    if (c->failed)
        return;
    write_p2p(c, HPC_P2P_SEND, c->enter, call_comm(c, comm), peer, tag,
              peer == MPI_PROC_NULL ? 0 : hpcw_bytes(count, type), 0);
}

void hpcw_rec_recv(hpcw_call *c, MPI_Datatype type, MPI_Comm comm, const MPI_Status *st)
{
    (void)type; /* the size comes from the status: what arrived, not what fitted */
    if (c->failed)
        return;
    write_p2p(c, HPC_P2P_RECV, c->leave, call_comm(c, comm), st->MPI_SOURCE, st->MPI_TAG,
              hpcw_status_bytes(st), 0);
}

void hpcw_rec_mrecv(hpcw_call *c, const hpcw_req *msg, MPI_Datatype type, const MPI_Status *st)
{
    (void)type;
    if (c->failed)
        return;
    write_p2p(c, HPC_P2P_RECV, c->leave, msg->kind ? msg->comm : NULL, st->MPI_SOURCE, st->MPI_TAG,
              hpcw_status_bytes(st), 0);
}

void hpcw_rec_req_start(hpcw_call *c, const hpcw_req *r)
{
    if (c->failed || !r)
        return;
    if (r->kind == HPCW_REQ_SEND)
        write_p2p(c, HPC_P2P_ISEND, c->enter, r->comm, r->peer, r->tag, r->bytes, r->id);
    else if (r->kind == HPCW_REQ_RECV)
        write_p2p(c, HPC_P2P_IRECV_REQUEST, c->enter, r->comm, r->peer, r->tag, r->bytes, r->id);
}

/* Records for the requests a Wait/Test/Start call started or completed. */
void hpcw_rec_pend(hpcw_call *c, const hpcw_pend *p)
{
    if (c->failed || !p->tracked)
        return;
    for (int i = 0; i < p->n; i++) {
        const hpcw_pend_item *it = &p->items[i];
        const hpcw_req *r = &it->info;
        switch (it->state) {
        case HPCW_PEND_STARTED:
            hpcw_rec_req_start(c, r);
            break;
        case HPCW_PEND_COMPLETED:
            if (r->kind == HPCW_REQ_SEND)
                write_p2p(c, HPC_P2P_ISEND_COMPLETE, c->leave, r->comm, r->peer, r->tag, r->bytes,
                          r->id);
            else if (r->kind == HPCW_REQ_RECV)
                write_p2p(c, HPC_P2P_IRECV_COMPLETE, c->leave, r->comm, it->peer, it->tag,
                          it->bytes, r->id);
            break;
        case HPCW_PEND_CANCELLED:
            if (r->kind == HPCW_REQ_SEND || r->kind == HPCW_REQ_RECV)
                write_p2p(c, HPC_P2P_REQUEST_CANCELLED, c->leave, r->comm, r->peer, r->tag, 0,
                          r->id);
            break;
        }
    }
}

void hpcw_rec_pcontrol(hpcw_call *c, int level)
{
    hpc_rec_mpi_pcontrol r = {.time = c->enter, .level = level};
    if (hpc_write_mpi_pcontrol(&c->t->stream, &r) < 0)
        hpcw_dropped(c);
}

void hpcw_rec_coll(hpcw_call *c, unsigned op, MPI_Comm comm, const hpcw_coll_args *a)
{
    if (c->failed)
        return;
    hpcw_comm *e = call_comm(c, comm);
    uint64_t sent = 0, recv = 0;
    hpcw_coll_bytes(op, e, a, &sent, &recv);
    bool rooted = op == HPC_COLL_BCAST || op == HPC_COLL_GATHER || op == HPC_COLL_GATHERV ||
                  op == HPC_COLL_SCATTER || op == HPC_COLL_SCATTERV || op == HPC_COLL_REDUCE;
    hpc_rec_mpi_coll r = {
        .time_begin = c->enter,
        .time_end = c->leave,
        .op = op,
        .comm = e ? e->id : 0,
        .root = rooted && a->root >= 0 ? a->root : -1,
        .bytes_sent = sent,
        .bytes_recv = recv,
    };
    if (hpc_write_mpi_coll(&c->t->stream, &r) < 0)
        hpcw_dropped(c);
}
