/*
 * comms.c - the communicators of this process: ids, members, global ids.
 *
 * Every communicator the process belongs to gets a process-local id (1 = WORLD,
 * 2 = SELF, then 3, 4, ... in order of creation) and an mpi_comm record with its
 * members' MPI_COMM_WORLD ranks. Records refer to communicators by that id; hpmerge
 * unifies them across processes by (gid_root, gid_seq), which the members agree on when
 * the communicator is created: its rank 0 numbers it from its own counter and
 * broadcasts the pair (for an intercommunicator, over a temporary merge of the two
 * groups). Communicators made by calls we do not see (MPI_Comm_idup, the spawn family,
 * a binding we do not wrap) are registered the first time they are used, without
 * agreement: gid_seq 0 says "unify by members".
 *
 * The table maps handles to entries: open addressing over a fixed array of atomic
 * pointers, read without locks on every wrapped call that has a communicator; inserts
 * and deletes take a mutex (they come with communicator creation, which is collective
 * and slow anyway). Entries are never freed, so a reader holding one is always safe;
 * a freed handle's slot becomes a tombstone and the handle may come back with a new id.
 * Expected size: a few to a few hundred live communicators.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "mpiw.h"

#define COMM_SLOTS 4096 /* power of two */
#define TOMBSTONE  ((hpcw_comm *)1)

static hpcw_comm *slots[COMM_SLOTS];
static pthread_mutex_t insert_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_id = 3;  /* 1 WORLD, 2 SELF */
static uint64_t next_gid = 3; /* this process's counter for communicators it numbers */
static hpcw_comm world_entry, self_entry;

static unsigned slot_of(MPI_Comm comm)
{
    uintptr_t h = (uintptr_t)comm;
    return (unsigned)((h >> 4) ^ (h >> 16)) & (COMM_SLOTS - 1);
}

static hpcw_comm *lookup(MPI_Comm comm)
{
    unsigned i = slot_of(comm);
    for (unsigned n = 0; n < COMM_SLOTS; n++, i = (i + 1) & (COMM_SLOTS - 1)) {
        hpcw_comm *e = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
        if (!e)
            return NULL;
        if (e != TOMBSTONE && e->handle == comm)
            return e;
    }
    return NULL;
}

/* Caller holds insert_lock. Returns false if the table is full. */
static bool insert(hpcw_comm *e)
{
    unsigned i = slot_of(e->handle);
    for (unsigned n = 0; n < COMM_SLOTS; n++, i = (i + 1) & (COMM_SLOTS - 1)) {
        hpcw_comm *old = slots[i];
        if (!old || old == TOMBSTONE || old->handle == e->handle) {
            __atomic_store_n(&slots[i], e, __ATOMIC_RELEASE);
            return true;
        }
    }
    return false;
}

static void remove_handle(MPI_Comm comm)
{
    unsigned i = slot_of(comm);
    for (unsigned n = 0; n < COMM_SLOTS; n++, i = (i + 1) & (COMM_SLOTS - 1)) {
        hpcw_comm *e = slots[i];
        if (!e)
            return;
        if (e != TOMBSTONE && e->handle == comm) {
            __atomic_store_n(&slots[i], TOMBSTONE, __ATOMIC_RELEASE);
            return;
        }
    }
}

/* World ranks of the processes of group g, or NULL (no memory). */
static int *world_ranks(MPI_Group g, int n)
{
    MPI_Group wg;
    int *in = malloc(sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    if (!in || !out) {
        free(in);
        free(out);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    PMPI_Comm_group(MPI_COMM_WORLD, &wg);
    PMPI_Group_translate_ranks(g, n, in, wg, out);
    PMPI_Group_free(&wg);
    free(in);
    return out;
}

/* A new entry with the communicator's groups filled in; NULL if out of memory. */
static hpcw_comm *describe(MPI_Comm comm)
{
    hpcw_comm *e = calloc(1, sizeof *e);
    MPI_Group g;
    if (!e)
        return NULL;
    e->handle = comm;
    e->nbr_in = e->nbr_out = -1;
    PMPI_Comm_size(comm, &e->size);
    PMPI_Comm_rank(comm, &e->rank);
    PMPI_Comm_test_inter(comm, &e->inter);
    PMPI_Comm_group(comm, &g);
    e->world = world_ranks(g, e->size);
    PMPI_Group_free(&g);
    if (e->inter) {
        PMPI_Comm_remote_size(comm, &e->remote_size);
        PMPI_Comm_remote_group(comm, &g);
        e->remote = world_ranks(g, e->remote_size);
        PMPI_Group_free(&g);
    }
    return e;
}

/* The global id: rank 0 of the communicator (of the merged groups for an
 * intercommunicator) numbers it and tells the others. Collective over comm. */
static void agree(hpcw_comm *e, MPI_Comm comm, uint64_t gid[2])
{
    MPI_Comm over = comm, merged = MPI_COMM_NULL;
    int rank;
    if (e->inter) {
        PMPI_Intercomm_merge(comm, 0, &merged);
        over = merged;
    }
    PMPI_Comm_rank(over, &rank);
    if (rank == 0) {
        gid[0] = (uint64_t)hpcw_g.world_rank;
        gid[1] = __atomic_fetch_add(&next_gid, 1, __ATOMIC_RELAXED);
    }
    PMPI_Bcast(gid, 2, MPI_UINT64_T, 0, over);
    if (merged != MPI_COMM_NULL)
        PMPI_Comm_free(&merged);
}

/* Packed varints of n world ranks (identity when ranks is NULL); malloc'd. */
static uint8_t *pack_ranks(const int *ranks, int n, size_t *len)
{
    uint64_t *v = malloc(sizeof(uint64_t) * (size_t)(n ? n : 1));
    uint8_t *buf = malloc((size_t)n * 10 + 1);
    int used = -1;
    if (v && buf) {
        for (int i = 0; i < n; i++)
            v[i] = ranks ? (uint64_t)(ranks[i] < 0 ? 0 : ranks[i]) : (uint64_t)i;
        used = hpc_varints_encode(buf, (size_t)n * 10 + 1, v, (size_t)n);
    }
    free(v);
    if (used < 0) {
        free(buf);
        *len = 0;
        return NULL;
    }
    *len = (size_t)used;
    return buf;
}

static void write_record(const hpcw_comm *e, unsigned kind, uint32_t parent, const uint64_t gid[2],
                         const char *name)
{
    size_t nm = 0, nr = 0;
    uint8_t *members = pack_ranks(e->world, e->size, &nm);
    uint8_t *remote = e->inter ? pack_ranks(e->remote, e->remote_size, &nr) : NULL;
    hpc_rec_mpi_comm r = {
        .time = hpcw_now(),
        .id = e->id,
        .kind = kind,
        .parent = parent,
        .size = (uint64_t)e->size,
        .rank = (uint64_t)e->rank,
        .gid_root = gid[0],
        .gid_seq = gid[1],
        .members = {(const char *)members, (uint32_t)nm},
        .remote = {(const char *)remote, (uint32_t)nr},
        .name = {name, (uint32_t)strlen(name)},
    };
    hpc_stream *s = hpcollect_proc_lock();
    if (s) {
        hpc_write_mpi_comm(s, &r);
        hpcollect_proc_unlock();
    }
    free(members);
    free(remote);
}

void hpcw_comms_init(void)
{
    static int self_world;
    uint64_t gid[2];
    world_entry = (hpcw_comm){.handle = MPI_COMM_WORLD, .id = 1, .nbr_in = -1, .nbr_out = -1};
    PMPI_Comm_size(MPI_COMM_WORLD, &world_entry.size);
    PMPI_Comm_rank(MPI_COMM_WORLD, &world_entry.rank);
    self_world = world_entry.rank;
    self_entry = (hpcw_comm){.handle = MPI_COMM_SELF,
                             .id = 2,
                             .size = 1,
                             .world = &self_world,
                             .nbr_in = -1,
                             .nbr_out = -1};
    /* every process numbers WORLD as rank 0's communicator 1; SELF is its own 2 */
    gid[0] = 0, gid[1] = 1;
    write_record(&world_entry, HPC_COMM_WORLD, 0, gid, "MPI_COMM_WORLD");
    gid[0] = (uint64_t)world_entry.rank, gid[1] = 2;
    write_record(&self_entry, HPC_COMM_SELF, 0, gid, "MPI_COMM_SELF");
}

static hpcw_comm *lookup_any(MPI_Comm comm)
{
    if (comm == MPI_COMM_WORLD)
        return &world_entry;
    if (comm == MPI_COMM_SELF)
        return &self_entry;
    return lookup(comm);
}

/* Register comm (not yet in the table) and write its record. */
static hpcw_comm *add(MPI_Comm comm, MPI_Comm parent, unsigned kind, int do_agree)
{
    hpcw_comm *e = describe(comm), *p = parent == MPI_COMM_NULL ? NULL : lookup_any(parent);
    uint64_t gid[2] = {0, 0};
    if (!e)
        return NULL;
    if (do_agree) {
        agree(e, comm, gid);
    } else {
        /* not agreed: named after the world rank of its rank 0 (remote group's too) */
        gid[0] = e->world ? (uint64_t)e->world[0] : 0;
        gid[1] = 0;
    }
    pthread_mutex_lock(&insert_lock);
    hpcw_comm *old = lookup(comm);
    if (old && !do_agree) { /* another thread registered it meanwhile */
        pthread_mutex_unlock(&insert_lock);
        free((void *)e->world);
        free((void *)e->remote);
        free(e);
        return old;
    }
    e->id = next_id++;
    bool ok = insert(e);
    pthread_mutex_unlock(&insert_lock);
    if (!ok)
        return NULL; /* more live communicators than slots: records carry comm 0 */
    write_record(e, kind, p ? p->id : 0, gid, "");
    return e;
}

hpcw_comm *hpcw_comm_get(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || !hpcw_g.tracking)
        return NULL;
    hpcw_comm *e = lookup_any(comm);
    if (e || hpcw_g.finalized)
        return e;
    return add(comm, MPI_COMM_NULL, HPC_COMM_OTHER, 0);
}

int hpcw_comm_world(const hpcw_comm *e, int peer)
{
    if (peer == MPI_PROC_NULL)
        return -1;
    if (peer == MPI_ANY_SOURCE)
        return -2;
    if (e->inter)
        return peer >= 0 && peer < e->remote_size && e->remote ? e->remote[peer] : -3;
    if (peer < 0 || peer >= e->size)
        return -3;
    return e->world ? e->world[peer] : peer;
}

void hpcw_comm_created(MPI_Comm newcomm, MPI_Comm parent, unsigned kind, int agree_gid)
{
    if (newcomm == MPI_COMM_NULL || hpcw_g.finalized)
        return;
    add(newcomm, parent, kind, agree_gid);
}

void hpcw_comm_freed(MPI_Comm comm)
{
    if (comm == MPI_COMM_NULL || comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF)
        return;
    pthread_mutex_lock(&insert_lock);
    remove_handle(comm);
    pthread_mutex_unlock(&insert_lock);
}

void hpcw_comm_degrees(hpcw_comm *e, int *in, int *out)
{
    if (__atomic_load_n(&e->nbr_in, __ATOMIC_RELAXED) < 0) {
        int topo = MPI_UNDEFINED, a = 0, b = 0, w = 0;
        PMPI_Topo_test(e->handle, &topo);
        if (topo == MPI_CART) {
            PMPI_Cartdim_get(e->handle, &a);
            a = b = 2 * a;
        } else if (topo == MPI_GRAPH) {
            PMPI_Graph_neighbors_count(e->handle, e->rank, &a);
            b = a;
        } else if (topo == MPI_DIST_GRAPH) {
            PMPI_Dist_graph_neighbors_count(e->handle, &a, &b, &w);
        }
        __atomic_store_n(&e->nbr_out, b, __ATOMIC_RELAXED);
        __atomic_store_n(&e->nbr_in, a, __ATOMIC_RELEASE);
    }
    *in = __atomic_load_n(&e->nbr_in, __ATOMIC_ACQUIRE);
    *out = __atomic_load_n(&e->nbr_out, __ATOMIC_RELAXED);
}
