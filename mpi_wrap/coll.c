/*
 * coll.c - bytes of a collective operation, from one rank's arguments.
 *
 * The rule is ours (README.md, "MPI numbers", says why it is not mpiP's): bytes_sent is
 * what this rank's send-side arguments describe (count x type size, over every block it
 * provides), bytes_recv what its receive buffer gets; both can be checked against the
 * call's arguments. Arguments that MPI says are
 * significant only at the root are read only there. With MPI_IN_PLACE the rank's own
 * block stands for its contribution. n is the group size (the remote group's for
 * intercommunicators; a neighborhood's in- or out-degree for neighbor collectives).
 *
 *   op                  bytes_sent                        bytes_recv
 *   BARRIER             0                                 0
 *   BCAST               root: c*t                         others: c*t
 *   GATHER(V)           sc*st                             root: n*rc*rt (sum rcounts*rt)
 *   SCATTER(V)          root: n*sc*st (sum scounts*st)    rc*rt
 *   ALLGATHER(V)        sc*st                             n*rc*rt (sum rcounts*rt)
 *   ALLTOALL(V,W)       n*sc*st (sums)                    n*rc*rt (sums)
 *   ALLREDUCE, SCAN, EXSCAN   c*t                         c*t
 *   REDUCE              c*t                               root: c*t
 *   REDUCE_SCATTER      sum(rcounts)*t                    rcounts[me]*t
 *   REDUCE_SCATTER_BLOCK n*rc*t                           rc*t
 *
 * The type sizes come from PMPI_Type_size_x; a collective costs one or two such calls.
 */
#include <stdlib.h>

#include "mpiw.h"

/* Per-rank counts: int (counts) or MPI_Count (counts_c, the large-count variants). */
typedef struct counts_arg {
    const int *i;
    const MPI_Count *c;
} counts_arg;

static bool have(counts_arg k)
{
    return k.i || k.c;
}

static MPI_Count count_at(counts_arg k, int i)
{
    return k.i ? k.i[i] : k.c ? k.c[i] : 0;
}

static uint64_t sum_counts(counts_arg counts, int n, MPI_Datatype type)
{
    uint64_t total = 0;
    if (!have(counts))
        return 0;
    for (int i = 0; i < n; i++) {
        MPI_Count v = count_at(counts, i);
        total += v > 0 ? (uint64_t)v : 0;
    }
    return total * hpcw_bytes(1, type);
}

static MPI_Datatype type_at(const MPI_Datatype *types, const MPI_Fint *ftypes, int i)
{
    if (types)
        return types[i];
    if (ftypes)
        return PMPI_Type_f2c(ftypes[i]);
    return MPI_DATATYPE_NULL;
}

static uint64_t sum_w(counts_arg counts, const MPI_Datatype *types, const MPI_Fint *ftypes, int n)
{
    uint64_t total = 0;
    if (!have(counts))
        return 0;
    for (int i = 0; i < n; i++)
        total += hpcw_bytes(count_at(counts, i), type_at(types, ftypes, i));
    return total;
}

/* Group sizes and this rank's role for a rooted collective. */
typedef struct coll_shape {
    int n_send, n_recv; /* blocks on each side */
    int me;
    bool is_root, no_part; /* no_part: intercomm MPI_PROC_NULL */
} coll_shape;

static coll_shape shape_of(unsigned op, hpcw_comm *e, const hpcw_coll_args *a)
{
    coll_shape s = {0};
    int n = e ? (e->inter ? e->remote_size : e->size) : 1;
    s.n_send = s.n_recv = n;
    s.me = e ? e->rank : 0;
    if (a->neighbor && e)
        hpcw_comm_degrees(e, &s.n_recv, &s.n_send);
    if (e && e->inter) {
        s.is_root = a->root == MPI_ROOT;
        s.no_part = a->root == MPI_PROC_NULL;
    } else {
        s.is_root = a->root == s.me;
    }
    (void)op;
    return s;
}

void hpcw_coll_bytes(unsigned op, hpcw_comm *e, const hpcw_coll_args *a, uint64_t *sent,
                     uint64_t *recv)
{
    coll_shape s = shape_of(op, e, a);
    counts_arg scounts = {a->scounts, a->scounts_c}, rcounts = {a->rcounts, a->rcounts_c};
    bool in_place_s = a->sbuf == MPI_IN_PLACE, in_place_r = a->rbuf == MPI_IN_PLACE;
    bool inter = e && e->inter;
    uint64_t tx = 0, rx = 0;
    if (s.no_part) {
        *sent = *recv = 0;
        return;
    }
    switch (op) {
    case HPC_COLL_BCAST:
        if (s.is_root)
            tx = hpcw_bytes(a->count, a->type);
        else
            rx = hpcw_bytes(a->count, a->type);
        break;
    case HPC_COLL_GATHER:
        if (!inter || !s.is_root)
            tx = in_place_s ? hpcw_bytes(a->rcount, a->rtype) : hpcw_bytes(a->scount, a->stype);
        if (s.is_root)
            rx = (uint64_t)s.n_recv * hpcw_bytes(a->rcount, a->rtype);
        break;
    case HPC_COLL_GATHERV:
        if (!inter || !s.is_root)
            tx = in_place_s && have(rcounts) ? hpcw_bytes(count_at(rcounts, s.me), a->rtype)
                                             : hpcw_bytes(a->scount, a->stype);
        if (s.is_root)
            rx = sum_counts(rcounts, s.n_recv, a->rtype);
        break;
    case HPC_COLL_SCATTER:
        if (s.is_root)
            tx = (uint64_t)s.n_send * hpcw_bytes(a->scount, a->stype);
        if (!inter || !s.is_root)
            rx = in_place_r ? hpcw_bytes(a->scount, a->stype) : hpcw_bytes(a->rcount, a->rtype);
        break;
    case HPC_COLL_SCATTERV:
        if (s.is_root)
            tx = sum_counts(scounts, s.n_send, a->stype);
        if (!inter || !s.is_root)
            rx = in_place_r && have(scounts) ? hpcw_bytes(count_at(scounts, s.me), a->stype)
                                             : hpcw_bytes(a->rcount, a->rtype);
        break;
    case HPC_COLL_ALLGATHER:
        tx = in_place_s ? hpcw_bytes(a->rcount, a->rtype) : hpcw_bytes(a->scount, a->stype);
        rx = (uint64_t)s.n_recv * hpcw_bytes(a->rcount, a->rtype);
        break;
    case HPC_COLL_ALLGATHERV:
        tx = in_place_s && have(rcounts) ? hpcw_bytes(count_at(rcounts, s.me), a->rtype)
                                         : hpcw_bytes(a->scount, a->stype);
        rx = sum_counts(rcounts, s.n_recv, a->rtype);
        break;
    case HPC_COLL_ALLTOALL:
        tx = (uint64_t)s.n_send *
             (in_place_s ? hpcw_bytes(a->rcount, a->rtype) : hpcw_bytes(a->scount, a->stype));
        rx = (uint64_t)s.n_recv * hpcw_bytes(a->rcount, a->rtype);
        break;
    case HPC_COLL_ALLTOALLV:
        tx = in_place_s ? sum_counts(rcounts, s.n_send, a->rtype)
                        : sum_counts(scounts, s.n_send, a->stype);
        rx = sum_counts(rcounts, s.n_recv, a->rtype);
        break;
    case HPC_COLL_ALLTOALLW:
        tx = in_place_s ? sum_w(rcounts, a->rtypes, a->frtypes, s.n_send)
                        : sum_w(scounts, a->stypes, a->fstypes, s.n_send);
        rx = sum_w(rcounts, a->rtypes, a->frtypes, s.n_recv);
        break;
    case HPC_COLL_ALLREDUCE:
    case HPC_COLL_SCAN:
    case HPC_COLL_EXSCAN:
        tx = rx = hpcw_bytes(a->count, a->type);
        break;
    case HPC_COLL_REDUCE:
        if (!inter || !s.is_root)
            tx = hpcw_bytes(a->count, a->type);
        if (s.is_root)
            rx = hpcw_bytes(a->count, a->type);
        break;
    case HPC_COLL_REDUCE_SCATTER:
        tx = sum_counts(rcounts, e ? e->size : 1, a->type);
        rx = have(rcounts) ? hpcw_bytes(count_at(rcounts, s.me), a->type) : 0;
        break;
    case HPC_COLL_REDUCE_SCATTER_BLOCK:
        tx = (uint64_t)(e ? e->size : 1) * hpcw_bytes(a->rcount, a->type);
        rx = hpcw_bytes(a->rcount, a->type);
        break;
    default: /* BARRIER */
        break;
    }
    *sent = tx;
    *recv = rx;
}
