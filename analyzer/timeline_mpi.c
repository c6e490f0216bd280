/*
 * timeline_mpi.c - the MPI layer of the timelines (timeline.h): each MPI call a slice
 * named after its function, with its bytes sent and received (point-to-point and
 * collective), its peer and tag (world rank, of its last point-to-point message) and its
 * call site; messages matched from the send to the completed receive.
 *
 * Matching: sends and completed receives are paired in order per source, destination,
 * communicator and tag, as MPI's non-overtaking rule orders them. A message's times are
 * moved strictly inside their calls' slices, so viewers bind an arrow to its slice.
 *
 * Sizes: every point-to-point message of the walk (48 bytes each) until the end.
 */
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "u64map.h"

/* One end of a message. */
typedef struct msg_end {
    int64_t src, dst, tag;
    uint64_t comm; /* communicator's global id */
    uint64_t ns;   /* from the origin */
    const hpa_process *pr;
    uint32_t seq;
    uint64_t bytes;
    uint64_t order; /* record order, for stable matching */
} msg_end;

typedef struct msg_ends {
    msg_end *v;
    size_t n, cap;
} msg_ends;

/* A process's definitions. */
typedef struct proc_defs {
    bool read;
    char **fn_names; /* mpi_fn id -> name */
    size_t nfn;
    hpa_u64map comm_gid; /* local communicator id -> index into comm_keys */
    uint64_t *comm_keys;
    size_t ncomm;
} proc_defs;

/* The MPI call being read on the current thread: the record and its details. */
typedef struct open_call {
    bool open;
    hpc_rec_mpi_call c;
    uint64_t bytes_sent, bytes_recv;
    int64_t peer, tag;
} open_call;

typedef struct mpi_layer {
    proc_defs *defs; /* [process] */
    size_t nprocs;
    open_call call;
    msg_ends sends, recvs;
    uint64_t order;
} mpi_layer;

static const char *const keys_msg[] = {"bytes_sent", "bytes_received", "peer", "tag", NULL};
static const char *const keys_bytes[] = {"bytes_sent", "bytes_received", NULL};

static int layer_open(hpa_timeline *tl, void **state)
{
    mpi_layer *L = calloc(1, sizeof *L);
    *state = L;
    if (!L)
        return HPC_E_NOMEM;
    L->nprocs = hpa_timeline_profile(tl)->nprocs;
    L->defs = calloc(L->nprocs + 1, sizeof *L->defs);
    return L->defs ? 0 : HPC_E_NOMEM;
}

static void layer_close(void *state)
{
    mpi_layer *L = state;
    for (size_t i = 0; L->defs && i < L->nprocs; i++) {
        for (size_t k = 0; k < L->defs[i].nfn; k++)
            free(L->defs[i].fn_names[k]);
        free(L->defs[i].fn_names);
        free(L->defs[i].comm_keys);
        hpa_u64map_free(&L->defs[i].comm_gid);
    }
    free(L->defs);
    free(L->sends.v);
    free(L->recvs.v);
    free(L);
}

/* The process's function names and communicators, read at its first record. */
static int read_defs(proc_defs *d, const hpc_proc *p)
{
    d->read = true;
    size_t it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_mpi_fn, &it));) {
        size_t id = r->u.mpi_fn.id;
        if (id >= 100000)
            continue;
        if (id >= d->nfn) {
            char **v = realloc(d->fn_names, sizeof(*v) * (id + 1));
            if (!v)
                return HPC_E_NOMEM;
            memset(v + d->nfn, 0, sizeof(*v) * (id + 1 - d->nfn));
            d->fn_names = v;
            d->nfn = id + 1;
        }
        char name[128];
        hpc_str_copy(name, sizeof(name), r->u.mpi_fn.name);
        free(d->fn_names[id]);
        if (!(d->fn_names[id] = strdup(name)))
            return HPC_E_NOMEM;
    }
    it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_mpi_comm, &it));) {
        const hpc_rec_mpi_comm *c = &r->u.mpi_comm;
        uint64_t *v = realloc(d->comm_keys, sizeof(*v) * (d->ncomm + 1));
        if (!v)
            return HPC_E_NOMEM;
        d->comm_keys = v;
        v[d->ncomm] = c->gid_root << 32 | (c->gid_seq & 0xffffffffu);
        if (hpa_u64map_put(&d->comm_gid, c->id, (uint32_t)d->ncomm++))
            return HPC_E_NOMEM;
    }
    return 0;
}

static uint64_t comm_key(const proc_defs *d, uint64_t comm)
{
    uint64_t k;
    if (hpa_u64map_get(&d->comm_gid, comm, &k))
        return d->comm_keys[k];
    return UINT64_MAX - comm; /* unknown: only matches itself */
}

static void add_end(hpa_timeline *tl, msg_ends *m, const msg_end *x)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 256;
        msg_end *v = realloc(m->v, sizeof(*v) * cap);
        if (!v) {
            hpa_timeline_fail(tl, HPC_E_NOMEM);
            return;
        }
        m->v = v;
        m->cap = cap;
    }
    m->v[m->n++] = *x;
}

/* t moved strictly inside the call's slice, so viewers bind the arrow to that slice. */
static uint64_t inside_call(const open_call *oc, uint64_t t)
{
    uint64_t b = oc->c.time_enter, e = oc->c.time_leave;
    if (e <= b + 2)
        return t;
    return t <= b ? b + 1 : t >= e ? e - 1 : t;
}

static void p2p(hpa_timeline *tl, mpi_layer *L, const hpa_process *pr, const hpa_thread *t,
                const hpc_rec_mpi_p2p *r)
{
    open_call *oc = &L->call;
    bool send = r->op == HPC_P2P_SEND || r->op == HPC_P2P_ISEND;
    bool recv = r->op == HPC_P2P_RECV || r->op == HPC_P2P_IRECV_COMPLETE;
    if (r->peer < 0 || r->peer_world < 0 || (!send && !recv))
        return;
    if (send)
        oc->bytes_sent += r->bytes;
    else
        oc->bytes_recv += r->bytes;
    oc->peer = r->peer_world;
    oc->tag = r->tag;
    const proc_defs *d = &L->defs[pr - hpa_timeline_profile(tl)->procs];
    msg_end m = {.src = send ? pr->proc->rank : r->peer_world,
                 .dst = send ? r->peer_world : pr->proc->rank,
                 .tag = r->tag,
                 .comm = comm_key(d, r->comm),
                 .ns = hpa_timeline_time(tl, pr, inside_call(oc, r->time)),
                 .pr = pr,
                 .seq = t->seq,
                 .bytes = r->bytes,
                 .order = L->order++};
    add_end(tl, send ? &L->sends : &L->recvs, &m);
}

static void flush_call(hpa_timeline *tl, mpi_layer *L, const hpa_process *pr)
{
    open_call *oc = &L->call;
    if (!oc->open)
        return;
    oc->open = false;
    const proc_defs *d = &L->defs[pr - hpa_timeline_profile(tl)->procs];
    hpa_tl_slice s = {
        .name = oc->c.fn < d->nfn && d->fn_names[oc->c.fn] ? d->fn_names[oc->c.fn] : "MPI call",
        .keys = oc->peer >= 0 ? keys_msg : keys_bytes,
        .v = {(int64_t)oc->bytes_sent, (int64_t)oc->bytes_recv, oc->peer, oc->tag},
    };
    if (oc->c.callsite) {
        s.site_key = "call_site";
        s.site = hpa_modmap_resolve(pr->map, oc->c.callsite - 1);
    }
    hpa_timeline_slice(tl, pr, hpa_timeline_layer_index(&hpa_tl_layer_mpi), oc->c.time_enter,
                       oc->c.time_leave, &s);
}

static void layer_record(hpa_timeline *tl, void *state, const hpa_process *pr, const hpa_thread *t,
                         const hpc_record *rec)
{
    mpi_layer *L = state;
    proc_defs *d = &L->defs[pr - hpa_timeline_profile(tl)->procs];
    if (!d->read) {
        int rc = read_defs(d, pr->proc);
        if (rc)
            hpa_timeline_fail(tl, rc);
    }
    switch (rec->kind) {
    case HPC_K_mpi_call:
        flush_call(tl, L, pr);
        L->call = (open_call){.open = true, .c = rec->u.mpi_call, .peer = -1};
        return;
    case HPC_K_mpi_p2p:
        if (L->call.open)
            p2p(tl, L, pr, t, &rec->u.mpi_p2p);
        return;
    case HPC_K_mpi_coll:
        if (L->call.open) {
            L->call.bytes_sent += rec->u.mpi_coll.bytes_sent;
            L->call.bytes_recv += rec->u.mpi_coll.bytes_recv;
        }
        return;
    default:
        flush_call(tl, L, pr);
    }
}

static void layer_thread_end(hpa_timeline *tl, void *state, const hpa_process *pr,
                             const hpa_thread *t)
{
    (void)t;
    flush_call(tl, state, pr);
}

/* ------------------------------------------------------------------ matching */

static int by_channel(const void *a, const void *b)
{
    const msg_end *x = a, *y = b;
#define CMP(f)                                                                                     \
    if (x->f != y->f)                                                                              \
        return x->f < y->f ? -1 : 1;
    CMP(src)
    CMP(dst)
    CMP(comm)
    CMP(tag)
    CMP(ns)
    CMP(order)
#undef CMP
    return 0;
}

static bool same_channel(const msg_end *x, const msg_end *y)
{
    return x->src == y->src && x->dst == y->dst && x->comm == y->comm && x->tag == y->tag;
}

/* Pair the i-th send of each (source, destination, communicator, tag) with the i-th
 * completed receive of it. */
static void layer_finish(hpa_timeline *tl, void *state)
{
    mpi_layer *L = state;
    msg_ends *s = &L->sends, *r = &L->recvs;
    if (s->n)
        qsort(s->v, s->n, sizeof(*s->v), by_channel);
    if (r->n)
        qsort(r->v, r->n, sizeof(*r->v), by_channel);
    size_t i = 0, j = 0;
    while (i < s->n && j < r->n) {
        const msg_end *a = &s->v[i], *b = &r->v[j];
        if (same_channel(a, b)) {
            if (hpa_timeline_in_window(tl, a->ns, b->ns)) {
                hpa_tl_msg m = {.from_pr = a->pr,
                                .to_pr = b->pr,
                                .from_seq = a->seq,
                                .to_seq = b->seq,
                                .send_ns = a->ns,
                                .recv_ns = b->ns,
                                .bytes = a->bytes,
                                .tag = a->tag};
                hpa_timeline_message(tl, &m);
            }
            i++, j++;
        } else if (by_channel(a, b) < 0) {
            i++;
        } else {
            j++;
        }
    }
}

const hpa_tl_layer hpa_tl_layer_mpi = {
    .key = "mpi",
    .title = "MPI",
    .open = layer_open,
    .record = layer_record,
    .thread_end = layer_thread_end,
    .finish = layer_finish,
    .close = layer_close,
};
