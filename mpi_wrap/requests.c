/*
 * requests.c - non-blocking and persistent requests followed from creation to
 * completion, so a receive completed by MPI_Wait* / MPI_Test* knows its communicator,
 * real source, tag and size, and a send its peer and bytes.
 *
 * The table is open addressing over a fixed array of entries keyed by the request
 * handle, shared by all threads without locks (MPI_THREAD_MULTIPLE): a thread claims a
 * free slot with a compare-and-swap on its key, fills it, and frees it by storing the
 * tombstone key. MPI lets only one thread use a request at a time, so an entry has one
 * writer. Probing stops after PROBE_LIMIT slots: an insert that finds no free slot
 * within the limit is not followed (counted in the thread's HPC_STAT_EVENTS_DROPPED),
 * and a lookup never looks further than an insert would have placed the key. Expected
 * size: live requests are tens to thousands; the array is 64 Ki entries (4 MiB of
 * address space, touched only where used).
 *
 * One handle, several requests: a library may hand out one handle for many requests
 * that completed at once (Open MPI does for small sends), so a handle is no unique key.
 * Every start gets its own entry, and a completion of handle H takes the oldest entry of
 * H that no Wait/Test call in progress holds, the calling thread's own first: a call holds
 * what it took by a compare-and-swap of its unique mark into the entry (so two threads,
 * or one handle twice in one array, never take the same entry) and lets go at its end of
 * what it did not complete. So each start meets exactly one completion, in start order
 * per thread. A handle reused after a completion we did not
 * see would leave its old entry behind and shift later completions of that handle by
 * one; every path that completes or frees a request is wrapped, so this takes an error
 * return from Wait/Test.
 *
 * Matched-probe messages (MPI_Mprobe -> MPI_Mrecv) use the same table: a message
 * handle remembers the communicator it was probed on.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "mpiw.h"

#define REQ_SLOTS   (1u << 16)
#define PROBE_LIMIT 256
#define KEY_EMPTY   ((uintptr_t)0)
#define KEY_DELETED ((uintptr_t)1)

static hpcw_req *table;
static uint64_t next_req_id = 1;
static uint64_t untracked; /* requests the table had no room for */

static hpcw_req *get_table(void)
{
    hpcw_req *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
    if (t)
        return t;
    void *m = mmap(NULL, sizeof(hpcw_req) * REQ_SLOTS, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    hpcw_req *expected = NULL;
    if (!__atomic_compare_exchange_n(&table, &expected, (hpcw_req *)m, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        munmap(m, sizeof(hpcw_req) * REQ_SLOTS);
        return expected;
    }
    return (hpcw_req *)m;
}

static unsigned hash_key(uintptr_t k)
{
    k ^= k >> 17;
    k *= 0xed5ad4bbu;
    k ^= k >> 11;
    return (unsigned)k & (REQ_SLOTS - 1);
}

/* The entry of key a completion takes: the oldest one no call holds (mark 0) started by
 * this thread, else the oldest one no call holds; any entry of key when mark is 0. */
static hpcw_req *find_oldest(uintptr_t key, uint64_t mark)
{
    hpcw_req *t = table, *best = NULL, *mine = NULL;
    if (!t || key <= KEY_DELETED)
        return NULL;
    uintptr_t self = (uintptr_t)hpcollect_self();
    unsigned i = hash_key(key);
    for (unsigned n = 0; n < PROBE_LIMIT; n++, i = (i + 1) & (REQ_SLOTS - 1)) {
        uintptr_t k = __atomic_load_n(&t[i].key, __ATOMIC_ACQUIRE);
        if (k == KEY_EMPTY)
            break;
        if (k != key || (mark && __atomic_load_n(&t[i].mark, __ATOMIC_ACQUIRE)))
            continue;
        if (!best || t[i].id < best->id)
            best = &t[i];
        if (t[i].owner == self && (!mine || t[i].id < mine->id))
            mine = &t[i];
    }
    return mine ? mine : best;
}

/* Hold entry s for the call with this mark; false if another call took it first. */
static bool hold(hpcw_req *s, uint64_t mark)
{
    uint64_t free_mark = 0;
    return __atomic_compare_exchange_n(&s->mark, &free_mark, mark, false, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

static hpcw_req *find(uintptr_t key)
{
    return find_oldest(key, 0);
}

/* The thread's stream, for counting what cannot be followed. */
static void count_untracked(void)
{
    __atomic_fetch_add(&untracked, 1, __ATOMIC_RELAXED);
    hpc_thread *t = hpcollect_self();
    if (t)
        hpc_stream_stat_add(&t->stream, HPC_STAT_EVENTS_DROPPED, 1);
}

/* A free slot for key: always a new entry, even when the handle has live ones. */
static hpcw_req *claim(uintptr_t key)
{
    hpcw_req *t = get_table();
    if (!t || key <= KEY_DELETED)
        return NULL;
    for (int attempt = 0; attempt < 4; attempt++) {
        unsigned i = hash_key(key);
        for (unsigned n = 0; n < PROBE_LIMIT; n++, i = (i + 1) & (REQ_SLOTS - 1)) {
            uintptr_t k = __atomic_load_n(&t[i].key, __ATOMIC_ACQUIRE);
            if (k != KEY_EMPTY && k != KEY_DELETED)
                continue;
            if (__atomic_compare_exchange_n(&t[i].key, &k, key, false, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&t[i].mark, 0, __ATOMIC_RELEASE);
                t[i].owner = (uintptr_t)hpcollect_self();
                return &t[i];
            }
        }
    }
    count_untracked();
    return NULL;
}

/* Free a slot, unless it was taken over for a newer request meanwhile. */
static void release(hpcw_req *slot, uint64_t id)
{
    if (slot && slot->id == id)
        __atomic_store_n(&slot->key, KEY_DELETED, __ATOMIC_RELEASE);
}

static hpcw_req *fill(hpcw_req *s, int kind, hpcw_comm *comm, int peer, int tag, uint64_t bytes,
                      int persistent)
{
    s->id = __atomic_fetch_add(&next_req_id, 1, __ATOMIC_RELAXED);
    s->kind = (uint8_t)kind;
    s->persistent = (uint8_t)persistent;
    s->active = (uint8_t)!persistent;
    s->cancelled = 0;
    s->peer = peer;
    s->tag = tag;
    s->bytes = bytes;
    s->comm = comm;
    return s;
}

hpcw_req *hpcw_req_add(int kind, MPI_Request req, MPI_Count count, MPI_Datatype type, int peer,
                       int tag, MPI_Comm comm, int persistent)
{
    hpcw_req *s = claim((uintptr_t)req);
    if (!s)
        return NULL;
    uint64_t bytes = peer == MPI_PROC_NULL ? 0 : hpcw_bytes(count, type);
    return fill(s, kind, hpcw_comm_get(comm), peer, tag, bytes, persistent);
}

void hpcw_req_add_other(MPI_Request req)
{
    hpcw_req *s = claim((uintptr_t)req);
    if (s)
        fill(s, HPCW_REQ_OTHER, NULL, MPI_PROC_NULL, 0, 0, 0);
}

void hpcw_msg_add(MPI_Message msg, MPI_Comm comm)
{
    if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC)
        return;
    hpcw_req *s = claim((uintptr_t)msg);
    if (s)
        fill(s, HPCW_REQ_MESSAGE, hpcw_comm_get(comm), MPI_ANY_SOURCE, MPI_ANY_TAG, 0, 0);
}

void hpcw_msg_take(MPI_Message msg, hpcw_req *out)
{
    memset(out, 0, sizeof *out);
    if (!hpcw_tracking() || msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC)
        return;
    hpcw_req *s = find((uintptr_t)msg);
    if (!s)
        return;
    *out = *s;
    release(s, out->id);
}

hpcw_req *hpcw_req_add_msg(MPI_Request req, const hpcw_req *msg, MPI_Count count, MPI_Datatype type)
{
    hpcw_req *s = claim((uintptr_t)req);
    if (!s)
        return NULL;
    return fill(s, HPCW_REQ_RECV, msg->kind ? msg->comm : NULL, MPI_ANY_SOURCE, MPI_ANY_TAG,
                hpcw_bytes(count, type), 0);
}

/* ------------------------------------------------------------ one Wait/Test/Start call */

static void pend_alloc(hpcw_pend *p, int n)
{
    static uint64_t next_mark = 1;
    p->n = 0;
    p->tracked = 0;
    p->statuses = NULL;
    p->mark = __atomic_fetch_add(&next_mark, 1, __ATOMIC_RELAXED);
    p->items = p->inline_items;
    if (n <= 0 || !hpcw_tracking() || !table)
        return;
    if (n > HPCW_PEND_INLINE) {
        p->items = malloc(sizeof(hpcw_pend_item) * (size_t)n);
        if (!p->items) {
            p->items = p->inline_items;
            return;
        }
    }
    p->n = n;
}

/* Item i of the call is request key: the oldest entry of key that no earlier item of
 * this call took (the same shared handle may appear several times in one array). */
static void pend_look(hpcw_pend *p, int i, uintptr_t key)
{
    hpcw_pend_item *it = &p->items[i];
    it->state = HPCW_PEND_NONE;
    it->slot = NULL;
    for (int tries = 0; tries < 8; tries++) { /* another thread may hold what we found */
        hpcw_req *s = find_oldest(key, p->mark);
        if (!s || hold(s, p->mark)) {
            it->slot = s;
            break;
        }
    }
    if (it->slot) {
        it->info = *it->slot;
        p->tracked++;
    }
}

void hpcw_pend_init(hpcw_pend *p, int n, const MPI_Request *reqs)
{
    pend_alloc(p, n);
    for (int i = 0; i < p->n; i++)
        pend_look(p, i, reqs[i] == MPI_REQUEST_NULL ? 0 : (uintptr_t)reqs[i]);
}

void hpcw_pend_init_f(hpcw_pend *p, int n, const MPI_Fint *reqs)
{
    pend_alloc(p, n);
    for (int i = 0; i < p->n; i++) {
        MPI_Request r = PMPI_Request_f2c(reqs[i]);
        pend_look(p, i, r == MPI_REQUEST_NULL ? 0 : (uintptr_t)r);
    }
}

/* Statuses to pass to MPI: ours when the program passed MPI_STATUSES_IGNORE and a
 * followed receive may complete (its source and size are in the status). */
/* Room for the substituted statuses: inline for a few, else malloc'd (freed by
 * hpcw_pend_free). A Fortran status has the size of a C one. */
static void *status_room(hpcw_pend *p)
{
    if (p->n <= HPCW_PEND_INLINE)
        return p->inline_statuses;
    p->statuses = malloc(sizeof(MPI_Status) * (size_t)p->n);
    return p->statuses;
}

MPI_Status *hpcw_pend_statuses(hpcw_pend *p, MPI_Status *given)
{
    if (given != MPI_STATUSES_IGNORE || !p->tracked)
        return given;
    MPI_Status *room = status_room(p);
    return room ? room : given;
}

/* A Fortran binding's statuses: their IGNORE objects and their conversion to C's. */
typedef struct fstatuses {
    const MPI_Fint *ignore, *array_ignore;
    const MPI_Status *(*to_c)(const MPI_Fint *f, MPI_Status *st);
} fstatuses;

static fstatuses f77(void)
{
    return (fstatuses){MPI_F_STATUS_IGNORE, MPI_F_STATUSES_IGNORE, hpcw_fstatus};
}

static fstatuses f08(void)
{
    return (fstatuses){hpcw_f08_status_ignore, hpcw_f08_statuses_ignore, hpcw_f08status};
}

static MPI_Fint *statuses_fk(hpcw_pend *p, MPI_Fint *given, fstatuses k)
{
    if (given != k.array_ignore || !p->tracked)
        return given;
    MPI_Fint *room = status_room(p);
    return room ? room : given;
}

MPI_Fint *hpcw_pend_statuses_f(hpcw_pend *p, MPI_Fint *given)
{
    return statuses_fk(p, given, f77());
}

MPI_Fint *hpcw_pend_statuses_f08(hpcw_pend *p, MPI_Fint *given)
{
    return statuses_fk(p, given, f08());
}

void hpcw_pend_done(hpcw_pend *p, int i, const MPI_Status *st)
{
    if (i < 0 || i >= p->n || !p->items[i].slot)
        return;
    hpcw_pend_item *it = &p->items[i];
    if (!it->info.active)
        return; /* an inactive persistent request completes at once, with nothing */
    int cancelled = 0;
    if (st && st != MPI_STATUS_IGNORE) {
        if (it->slot->cancelled) /* only requests passed to MPI_Cancel can be */
            PMPI_Test_cancelled(st, &cancelled);
        it->peer = st->MPI_SOURCE;
        it->tag = st->MPI_TAG;
        it->bytes = it->info.kind == HPCW_REQ_RECV ? hpcw_status_bytes(st) : it->info.bytes;
    } else {
        it->peer = it->info.peer;
        it->tag = it->info.tag;
        it->bytes = it->info.bytes;
    }
    it->state = cancelled ? HPCW_PEND_CANCELLED : HPCW_PEND_COMPLETED;
    if (it->info.persistent)
        it->slot->active = 0;
    else
        release(it->slot, it->info.id);
}

static void done_fk(hpcw_pend *p, int i, const MPI_Fint *st, fstatuses k)
{
    MPI_Status cst;
    bool have = st && st != k.ignore;
    hpcw_pend_done(p, i, have ? k.to_c(st, &cst) : NULL);
}

void hpcw_pend_done_f(hpcw_pend *p, int i, const MPI_Fint *st)
{
    done_fk(p, i, st, f77());
}

void hpcw_pend_done_f08(hpcw_pend *p, int i, const MPI_Fint *st)
{
    done_fk(p, i, st, f08());
}

void hpcw_pend_all(hpcw_pend *p, const MPI_Status *sts)
{
    for (int i = 0; i < p->n && p->tracked; i++)
        hpcw_pend_done(p, i, sts == MPI_STATUSES_IGNORE ? NULL : &sts[i]);
}

static void all_fk(hpcw_pend *p, const MPI_Fint *sts, fstatuses k)
{
    for (int i = 0; i < p->n && p->tracked; i++)
        done_fk(p, i, sts == k.array_ignore ? NULL : sts + i * HPCW_FSTATUS_SIZE, k);
}

void hpcw_pend_all_f(hpcw_pend *p, const MPI_Fint *sts)
{
    all_fk(p, sts, f77());
}

void hpcw_pend_all_f08(hpcw_pend *p, const MPI_Fint *sts)
{
    all_fk(p, sts, f08());
}

void hpcw_pend_some(hpcw_pend *p, int outcount, const int *indices, const MPI_Status *sts)
{
    if (outcount == MPI_UNDEFINED || !p->tracked)
        return;
    for (int k = 0; k < outcount; k++)
        hpcw_pend_done(p, indices[k], sts == MPI_STATUSES_IGNORE ? NULL : &sts[k]);
}

static void some_fk(hpcw_pend *p, int outcount, const MPI_Fint *indices, const MPI_Fint *sts,
                    fstatuses k)
{
    if (outcount == MPI_UNDEFINED || !p->tracked)
        return;
    for (int j = 0; j < outcount; j++)
        done_fk(p, hpcw_findex(indices[j]),
                sts == k.array_ignore ? NULL : sts + j * HPCW_FSTATUS_SIZE, k);
}

void hpcw_pend_some_f(hpcw_pend *p, int outcount, const MPI_Fint *indices, const MPI_Fint *sts)
{
    some_fk(p, outcount, indices, sts, f77());
}

void hpcw_pend_some_f08(hpcw_pend *p, int outcount, const MPI_Fint *indices, const MPI_Fint *sts)
{
    some_fk(p, outcount, indices, sts, f08());
}

void hpcw_pend_start(hpcw_pend *p)
{
    for (int i = 0; i < p->n; i++) {
        hpcw_pend_item *it = &p->items[i];
        if (!it->slot || !it->info.persistent)
            continue;
        it->slot->active = 1;
        it->info.active = 1;
        it->state = HPCW_PEND_STARTED;
    }
}

void hpcw_pend_release(hpcw_pend *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->items[i].slot)
            release(p->items[i].slot, p->items[i].info.id);
}

void hpcw_pend_cancel(hpcw_pend *p)
{
    for (int i = 0; i < p->n; i++)
        if (p->items[i].slot)
            p->items[i].slot->cancelled = 1;
}

void hpcw_pend_free(hpcw_pend *p)
{
    /* let go of the entries this call held and did not release (not completed yet,
     * persistent ones): a later call may take them */
    for (int i = 0; i < p->n; i++) {
        hpcw_req *s = p->items[i].slot;
        uint64_t mine = p->mark;
        if (s && s->id == p->items[i].info.id)
            __atomic_compare_exchange_n(&s->mark, &mine, 0, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED);
    }
    if (p->items != p->inline_items)
        free(p->items);
    free(p->statuses);
}

uint64_t hpcw_req_open(void)
{
    hpcw_req *t = __atomic_load_n(&table, __ATOMIC_ACQUIRE);
    uint64_t n = 0;
    for (unsigned i = 0; t && i < REQ_SLOTS; i++) {
        uintptr_t k = __atomic_load_n(&t[i].key, __ATOMIC_ACQUIRE);
        if (k > KEY_DELETED && (t[i].kind == HPCW_REQ_SEND || t[i].kind == HPCW_REQ_RECV) &&
            t[i].active)
            n++;
    }
    return n;
}
