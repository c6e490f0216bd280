/*
 * mpiw.h - internal interface of the MPI wrapper library, lib/libhpcollect-mpi.so.
 *
 * The library interposes every MPI function (C and Fortran bindings) in front of the
 * MPI library and calls it through PMPI. The wrappers are generated from the tables
 * in protos/ by gen_wrappers.py; each one is
 *
 *     hpcw_enter()        mark the thread "inside MPI" for clock samples, read the clock
 *     PMPI_X(...)         the real call
 *     after-call helpers  follow requests and communicators (while MPI tracing is on)
 *     hpcw_leave()        read the clock; while recording, write the mpi_call record
 *     record helpers      write the call's detail records (mpi_p2p, mpi_coll)
 *     hpcw_done()         end of the thread's write section
 *
 * Hot-path rules: no locks, no allocation, no unwinding (the call site is
 * __builtin_return_address(0)), records encoded straight into the thread's
 * file-backed stream. Tables shared between threads (requests.c, comms.c) are read
 * without locks; only creating a communicator takes a mutex.
 *
 * Thread safety: every function here may be called from any thread at once
 * (MPI_THREAD_MULTIPLE), except hpcw_init_after / hpcw_finalize_before, which MPI calls
 * once. Nothing here is signal-safe: MPI may not be called from signal handlers.
 */
#ifndef HPCW_MPIW_H
#define HPCW_MPIW_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "collector_api.h"
#include "experiment.h"
#include "mpiw_fns.h"

#define HPCW_EXPORT __attribute__((visibility("default")))

/* mpi_call.flags bits */
#define HPCW_CALL_NESTED  HPC_MPI_CALL_NESTED
#define HPCW_CALL_ERROR   HPC_MPI_CALL_ERROR
#define HPCW_CALL_FORTRAN HPC_MPI_CALL_FORTRAN

/* ------------------------------------------------------------ the function table */

typedef struct hpcw_fn_desc {
    const char *name;
    uint8_t family;  /* enum hpc_mpi_family */
    uint8_t coll_op; /* enum hpc_mpi_coll */
} hpcw_fn_desc;

/* Generated (mpiw_fns.c), indexed by enum hpcw_fn. */
extern const hpcw_fn_desc hpcw_fn_table[HPCW_FN_COUNT_];

/* ------------------------------------------------------------ process state */

typedef struct hpcw_globals {
    volatile int tracking;  /* MPI tracing on (-m on) and MPI initialized: follow
                               requests and communicators, write records */
    volatile int finalized; /* MPI_Finalize returned: no more PMPI calls of our own */
    int tracing;            /* -m on (read once, at load): calls need timestamps */
    int world_rank, world_size;
    MPI_Comm sync_comm; /* private duplicate of MPI_COMM_WORLD for clock sync */
    int paused_by_pcontrol;
} hpcw_globals;

extern hpcw_globals hpcw_g;

static inline bool hpcw_tracking(void)
{
    return hpcw_g.tracking;
}

/* CLOCK_MONOTONIC in ns through the vDSO, as the collector's clock. Signal-safe. */
static inline uint64_t hpcw_clock_exact(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ------------------------------------------------------------ call timestamps (clock.c) */

/* The fast clock: CLOCK_MONOTONIC ns extrapolated from the TSC (clock.c says why and how
 * close). tsc is 0 until enabled; anchors are per thread. */
typedef struct hpcw_fast_clock {
    volatile int enabled;       /* x86-64 with the kernel's clocksource "tsc" */
    volatile uint64_t mult;     /* ns per TSC cycle, 32.32 fixed point */
    uint64_t base_tsc, base_ns; /* the calibration's first pair */
} hpcw_fast_clock;
extern hpcw_fast_clock hpcw_clk;

typedef struct hpcw_anchor {
    uint64_t tsc, ns;
} hpcw_anchor;
extern __thread hpcw_anchor hpcw_anch __attribute__((tls_model("initial-exec")));

#define HPCW_REANCHOR_CYCLES (1ull << 22) /* about 1.5 ms at 3 GHz */

/* Re-read CLOCK_MONOTONIC into this thread's anchor; returns the time. NOT signal-safe. */
uint64_t hpcw_clock_reanchor(void);
/* Start calibrating the fast clock if the kernel's clocksource is the TSC. At MPI_Init. */
void hpcw_clock_init(void);
/* Switch the fast clock on once calibrated (10 ms after hpcw_clock_init). Cheap. */
void hpcw_clock_tick(void);

/* CLOCK_MONOTONIC ns for call timestamps: from the TSC between per-thread anchors when
 * the fast clock is on, else clock_gettime. NOT signal-safe (use hpcw_clock_exact). */
__attribute__((always_inline)) static inline uint64_t hpcw_now(void)
{
#if defined(__x86_64__)
    if (hpcw_clk.enabled) {
        uint64_t d = __builtin_ia32_rdtsc() - hpcw_anch.tsc;
        if (__builtin_expect(d < HPCW_REANCHOR_CYCLES, 1))
            return hpcw_anch.ns + (uint64_t)(((unsigned __int128)d * hpcw_clk.mult) >> 32);
        return hpcw_clock_reanchor();
    }
#endif
    return hpcw_clock_exact();
}

/* ------------------------------------------------------------ one call */

typedef struct hpcw_comm hpcw_comm;

typedef struct hpcw_call {
    hpc_thread *t;  /* NULL: this thread is not followed; record nothing */
    uint32_t fn;    /* enum hpcw_fn */
    uint32_t flags; /* HPC_MPI_CALL_* */
    uint32_t saved_state, saved_fn;
    uint64_t enter, leave;
    uintptr_t site; /* return address in the caller */
    uintptr_t cfa;  /* the caller's stack pointer at the call (the wrapper's CFA), 0 unknown */
    MPI_Comm comm_handle;
    hpcw_comm *comm;        /* the call's communicator, looked up once */
    bool failed;            /* the MPI call returned an error: no detail records */
    uint64_t node;          /* its calling context, once its mpi_call record is written */
    struct hpcw_call *prev; /* the call this one is nested in, or NULL */
} hpcw_call;

/* The innermost call in progress on this thread (for hpcw_end_hook). Initial-exec TLS:
 * the library is preloaded, and a TLS store costs what a plain store does. */
extern __thread hpcw_call *hpcw_cur __attribute__((tls_model("initial-exec")));

/* Start of a call: mark the thread as inside MPI function fn (for clock samples) and
 * read the clock. Must be paired with hpcw_leave. */
static inline void hpcw_enter(hpcw_call *c, uint32_t fn, void *site, uint32_t flags)
{
    hpc_thread *t = hpcollect_self();
    c->t = t;
    c->fn = fn;
    c->flags = flags;
    c->site = (uintptr_t)site;
    c->cfa = 0; /* the generated wrappers set it after this */
    c->enter = 0;
    if (!t)
        return;
    c->saved_state = t->state;
    c->saved_fn = t->mpi_fn;
    c->prev = hpcw_cur;
    hpcw_cur = c;
    if (c->saved_state & HPC_STATE_MPI)
        c->flags |= HPC_MPI_CALL_NESTED; /* called back from inside MPI (user ops ...) */
    t->mpi_fn = fn;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->state = c->saved_state | HPC_STATE_MPI;
    c->enter = hpcw_g.tracing ? hpcw_now() : 0; /* -m off: only the sample marks */
}

/* hpcw_enter for the calls whose start is always recorded (MPI_Init, MPI_Finalize,
 * MPI_Abort): their times bound AppTime even with -m off. */
static inline void hpcw_enter_timed(hpcw_call *c, uint32_t fn, void *site, uint32_t flags)
{
    hpcw_enter(c, fn, site, flags);
    if (!c->enter)
        c->enter = hpcw_now();
}

/* Write the mpi_call record and open the write section; false if nothing was written. */
bool hpcw_write_call(hpcw_call *c, int rc, MPI_Comm comm);

/* The call's calling context (context.c): a cct_node id, 0 if unknown. Called by
 * hpcw_write_call inside the write section, after hpcw_context_prepare outside it. */
void hpcw_context_prepare(void);
uint64_t hpcw_context(hpcw_call *c);

/* End of a call: read the clock and restore the thread's state. Returns true when the
 * call is being recorded: the mpi_call record is written and the caller may add detail
 * records, then must call hpcw_done(). */
static inline bool hpcw_leave(hpcw_call *c, int rc, MPI_Comm comm)
{
    hpc_thread *t = c->t;
    if (!t)
        return false;
    c->leave = hpcw_g.tracing ? hpcw_now() : 0;
    if (c->leave < c->enter) /* a re-anchor in between may step back a few ns */
        c->leave = c->enter;
    hpcw_cur = c->prev;
    /* keep OpenMP state bits the OMPT tool may have changed meanwhile */
    t->state = (t->state & ~HPC_STATE_MPI) | (c->saved_state & HPC_STATE_MPI);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->mpi_fn = c->saved_fn;
    if (!hpcw_g.tracking || !hpcollect_recording_at(c->leave))
        return false;
    return hpcw_write_call(c, rc, comm);
}

static inline void hpcw_done(hpcw_call *c)
{
    hpcollect_write_end(c->t);
}

/* ------------------------------------------------------------ communicators (comms.c) */

struct hpcw_comm {
    MPI_Comm handle;
    uint32_t id;    /* process-local id, as in mpi_comm records */
    int size, rank; /* local group */
    int inter, remote_size;
    const int *world;    /* world rank of each local rank; NULL = identity (WORLD) */
    const int *remote;   /* intercommunicators: world rank of each remote rank */
    int nbr_in, nbr_out; /* topology degrees for neighborhood collectives, -1 unknown */
};

/* Record MPI_COMM_WORLD and MPI_COMM_SELF; at MPI_Init. */
void hpcw_comms_init(void);
/* The entry of comm, registering it (without agreement) if it was made by a call we
 * did not see; NULL for MPI_COMM_NULL or when tracking is off. */
hpcw_comm *hpcw_comm_get(MPI_Comm comm);
/* MPI_COMM_WORLD rank of rank `peer` of e (the remote group for intercommunicators);
 * -1 for MPI_PROC_NULL, -2 for MPI_ANY_SOURCE, -3 if unknown. */
int hpcw_comm_world(const hpcw_comm *e, int peer);
/* A constructor returned newcomm (MPI_COMM_NULL: this process is not a member). With
 * agree, the members agree on a global id with one broadcast: every member must call
 * this for the same constructor call. */
void hpcw_comm_created(MPI_Comm newcomm, MPI_Comm parent, unsigned kind, int agree);
/* Forget a freed communicator's handle. */
void hpcw_comm_freed(MPI_Comm comm);
/* In- and out-degree of comm's topology (for neighborhood collectives). */
void hpcw_comm_degrees(hpcw_comm *e, int *in, int *out);

/* ------------------------------------------------------------ requests (requests.c) */

enum hpcw_req_kind {
    HPCW_REQ_NONE = 0,
    HPCW_REQ_SEND = 1,
    HPCW_REQ_RECV = 2,
    HPCW_REQ_OTHER = 3,
    HPCW_REQ_MESSAGE = 4
};

typedef struct hpcw_req {
    uintptr_t key; /* the MPI_Request / MPI_Message handle; 0 empty, 1 deleted */
    uint64_t id;   /* unique in the process, as in mpi_p2p.request */
    uint8_t kind;  /* enum hpcw_req_kind */
    uint8_t persistent, active, cancelled;
    int32_t peer, tag; /* as given: may be MPI_ANY_SOURCE / MPI_ANY_TAG */
    uint64_t bytes;    /* sends: bytes sent; receives: buffer capacity */
    hpcw_comm *comm;
    uint64_t mark;   /* pend mark of the Wait/Test/Start call holding it; 0: none */
    uintptr_t owner; /* the thread that started it (hpc_thread *) */
} hpcw_req;

/* Follow a new point-to-point request (kind SEND or RECV). Returns its table entry, or
 * NULL if it cannot be followed (table full: counted). */
hpcw_req *hpcw_req_add(int kind, MPI_Request req, MPI_Count count, MPI_Datatype type, int peer,
                       int tag, MPI_Comm comm, int persistent);
/* Follow a request that carries no message (collective, I/O, RMA, generalized). */
void hpcw_req_add_other(MPI_Request req);
/* Matched probes: remember which communicator a message came from; take it back. */
void hpcw_msg_add(MPI_Message msg, MPI_Comm comm);
void hpcw_msg_take(MPI_Message msg, hpcw_req *out);
hpcw_req *hpcw_req_add_msg(MPI_Request req, const hpcw_req *msg, MPI_Count count,
                           MPI_Datatype type);

/* Point-to-point requests started and not seen complete (at MPI_Finalize: their
 * completion events can no longer be recorded). */
uint64_t hpcw_req_open(void);

/* Requests passed to one Wait/Test/Start/Request_free/Cancel call. */
typedef struct hpcw_pend_item {
    hpcw_req *slot; /* table entry; NULL = not followed */
    hpcw_req info;  /* copy taken before the call */
    uint8_t state;  /* HPCW_PEND_* */
    int32_t peer, tag;
    uint64_t bytes;
} hpcw_pend_item;

enum { HPCW_PEND_NONE = 0, HPCW_PEND_STARTED, HPCW_PEND_COMPLETED, HPCW_PEND_CANCELLED };

#define HPCW_PEND_INLINE 4
typedef struct hpcw_pend {
    int n, tracked;
    uint64_t mark; /* unique per call: which entries this call took (requests.c) */
    hpcw_pend_item *items;
    hpcw_pend_item inline_items[HPCW_PEND_INLINE];
    void *statuses; /* substituted status array (MPI_STATUSES_IGNORE given), or NULL */
    MPI_Status inline_statuses[HPCW_PEND_INLINE]; /* its storage for small calls */
} hpcw_pend;

void hpcw_pend_init(hpcw_pend *p, int n, const MPI_Request *reqs);
MPI_Status *hpcw_pend_statuses(hpcw_pend *p, MPI_Status *given);
void hpcw_pend_done(hpcw_pend *p, int i, const MPI_Status *st);
void hpcw_pend_all(hpcw_pend *p, const MPI_Status *sts);
void hpcw_pend_some(hpcw_pend *p, int outcount, const int *indices, const MPI_Status *sts);
void hpcw_pend_start(hpcw_pend *p);
void hpcw_pend_release(hpcw_pend *p);
void hpcw_pend_cancel(hpcw_pend *p);
void hpcw_pend_free(hpcw_pend *p);
/* Fortran forms: requests, statuses and indices as the Fortran binding has them. */
void hpcw_pend_init_f(hpcw_pend *p, int n, const MPI_Fint *reqs);
MPI_Fint *hpcw_pend_statuses_f(hpcw_pend *p, MPI_Fint *given);
void hpcw_pend_done_f(hpcw_pend *p, int i, const MPI_Fint *st);
void hpcw_pend_all_f(hpcw_pend *p, const MPI_Fint *sts);
void hpcw_pend_some_f(hpcw_pend *p, int outcount, const MPI_Fint *indices, const MPI_Fint *sts);
/* The same for MPICH's mpi_f08 statuses (their layout and IGNORE objects: fortran.c). */
#define hpcw_pend_init_f08 hpcw_pend_init_f
MPI_Fint *hpcw_pend_statuses_f08(hpcw_pend *p, MPI_Fint *given);
void hpcw_pend_done_f08(hpcw_pend *p, int i, const MPI_Fint *st);
void hpcw_pend_all_f08(hpcw_pend *p, const MPI_Fint *sts);
void hpcw_pend_some_f08(hpcw_pend *p, int outcount, const MPI_Fint *indices, const MPI_Fint *sts);

/* ------------------------------------------------------------ records (record.c, coll.c) */

void hpcw_rec_send(hpcw_call *c, MPI_Count count, MPI_Datatype type, int peer, int tag,
                   MPI_Comm comm);
void hpcw_rec_recv(hpcw_call *c, MPI_Datatype type, MPI_Comm comm, const MPI_Status *st);
void hpcw_rec_mrecv(hpcw_call *c, const hpcw_req *msg, MPI_Datatype type, const MPI_Status *st);
void hpcw_rec_req_start(hpcw_call *c, const hpcw_req *r);
void hpcw_rec_pend(hpcw_call *c, const hpcw_pend *p);
void hpcw_rec_pcontrol(hpcw_call *c, int level);

/* Arguments of a collective, by role; unset ones are 0 / NULL. */
typedef struct hpcw_coll_args {
    int root;
    MPI_Count count, scount, rcount;
    MPI_Datatype type, stype, rtype;
    const int *scounts, *rcounts;
    const MPI_Count *scounts_c, *rcounts_c; /* large-count variants (MPI_Alltoallv_c ...) */
    const MPI_Datatype *stypes, *rtypes;    /* C */
    const MPI_Fint *fstypes, *frtypes;      /* Fortran */
    const void *sbuf, *rbuf;
    int neighbor;
} hpcw_coll_args;

void hpcw_rec_coll(hpcw_call *c, unsigned op, MPI_Comm comm, const hpcw_coll_args *a);
/* Bytes this rank passes and gets in a collective (coll.c states the rules). */
void hpcw_coll_bytes(unsigned op, hpcw_comm *e, const hpcw_coll_args *a, uint64_t *sent,
                     uint64_t *recv);

/* Size in bytes of count elements of type; 0 for MPI_DATATYPE_NULL. */
uint64_t hpcw_bytes(MPI_Count count, MPI_Datatype type);
/* Bytes a receive got, from its status. */
uint64_t hpcw_status_bytes(const MPI_Status *st);

/* ------------------------------------------------------------ MPI-IO as I/O (io.c) */

/* One MPI-IO call's I/O part: the file's handle (0: not traced) and the byte offset the
 * call starts at (-1 unknown). The wrappers call hpcw_io_begin before the call (after it,
 * the POSIX calls the thread makes are the MPI library's, not traced), one of the
 * lookups, the record helper in the record section and hpcw_io_end last. */
typedef struct hpcw_io {
    uint64_t handle;
    int64_t offset;
    bool outer; /* this call set hpc_thread.io_outer */
} hpcw_io;

void hpcw_io_begin(hpcw_call *c, hpcw_io *io);
void hpcw_io_end(hpcw_call *c, hpcw_io *io);
/* After a successful MPI_File_open: a new handle for fh. */
void hpcw_io_opened(hpcw_io *io, MPI_File fh);
/* Before MPI_File_close: fh's handle, forgotten. */
void hpcw_io_closing(hpcw_io *io, MPI_File fh);
/* fh's handle; with the offset of an explicit offset (at) or the individual pointer (here). */
void hpcw_io_on_file(hpcw_io *io, MPI_File fh);
void hpcw_io_at(hpcw_io *io, MPI_File fh, MPI_Offset offset);
void hpcw_io_here(hpcw_io *io, MPI_File fh);
/* A file name's length: HPCW_CSTRING for C's NUL-terminated one, else a Fortran
 * CHARACTER's hidden length (its blanks around the name are not part of it). */
#define HPCW_CSTRING ((size_t)-1)
/* Record section: the io_handle and io_op records of an open (a failed one: its path). */
void hpcw_rec_io_open(hpcw_call *c, const hpcw_io *io, const char *name, size_t len, int amode);
/* A read or write (fn: HPC_IO_FN_MPI_File_read / _write) of count x type; st NULL for a
 * transfer that completes later (bytes asked count as done). */
void hpcw_rec_io_xfer(hpcw_call *c, const hpcw_io *io, unsigned fn, MPI_Count count,
                      MPI_Datatype type, const MPI_Status *st);
/* A call on the file that moves no bytes (close, sync, seek, set_size). */
void hpcw_rec_io_other(hpcw_call *c, const hpcw_io *io, unsigned fn);
/* MPI_File_delete of name. */
void hpcw_rec_io_delete(hpcw_call *c, const hpcw_io *io, const char *name, size_t len);

/* Count an event that could not be recorded. */
void hpcw_dropped(hpcw_call *c);

/* ------------------------------------------------------------ process records */

/* Write the mpi_fn table once per process (before the first mpi_call record). */
void hpcw_fns_once(void);
/* MPI_Init(_thread) returned successfully: set up and write mpi_init, clock_offset. */
void hpcw_init_after(hpcw_call *c, int thread_level);
/* MPI_Finalize is about to run: measure clock offsets again. */
void hpcw_finalize_before(void);
void hpcw_finalize_after(hpcw_call *c);
void hpcw_abort_before(hpcw_call *c, MPI_Comm comm, int errorcode);
void hpcw_pcontrol(hpcw_call *c, int level);

/* Registered with the collector at MPI_Init: when the process ends inside an MPI call
 * (a fatal signal, exit from a callback), record that call up to now with
 * HPC_MPI_CALL_INTERRUPTED, so a rank killed while waiting still shows its wait.
 * Signal-safe when in_signal_handler is set (sigsafe_end.c). */
void hpcw_end_hook(int in_signal_handler);

/* Clock offset to rank 0 (clocksync.c); collective over hpcw_g.sync_comm. */
void hpcw_clock_sync(unsigned phase);

/* ------------------------------------------------------------ Fortran (fortran.c) */

#define HPCW_FSTATUS_SIZE (sizeof(MPI_Status) / sizeof(MPI_Fint))

/* The Fortran binding's PMPI entry `name` (pmpi_send_); exits with a message if the
 * MPI library has none. */
void *hpcw_fortran_real(const char *name);
/* Resolve the Fortran sentinels (MPI_IN_PLACE, MPI_BOTTOM) once, and where the Fortran
 * binding that calls the C functions lies (MPICH's). */
void hpcw_fortran_init(void);
/* pc is in that binding's code (then a call's site is the first frame outside it). */
bool hpcw_in_binding(uintptr_t pc);
/* A Fortran buffer argument, with the Fortran sentinels turned into C's. */
const void *hpcw_fbuf(const void *buf);
/* A Fortran status as a C status (st is the caller's storage). */
const MPI_Status *hpcw_fstatus(const MPI_Fint *f, MPI_Status *st);
/* MPICH's mpi_f08 binding (fortran.c): a choice buffer's descriptor as the C buffer (its
 * sentinels as C's), a status of mpi_f08's layout as a C one, its MPI_STATUS_IGNORE and
 * MPI_STATUSES_IGNORE (NULL where the library is not MPICH's). */
const void *hpcw_f08buf(const void *desc);
const MPI_Status *hpcw_f08status(const MPI_Fint *f, MPI_Status *st);
extern const MPI_Fint *hpcw_f08_status_ignore, *hpcw_f08_statuses_ignore;
/* A Fortran index (1-based) as a C index; MPI_UNDEFINED stays. */
static inline int hpcw_findex(MPI_Fint i)
{
    return i == MPI_UNDEFINED ? MPI_UNDEFINED : (int)i - 1;
}

/* Weak: the dynamic linker binds a weak definition as any other (the spelling a program
 * calls is interposed all the same), while a symbolizer (libdwfl) names the address by
 * its one strong symbol, so reports show one name per wrapper (mpi_send_, gfortran's)
 * instead of whichever alias it met. */
#define HPCW_FORTRAN_ALIAS(target, name)                                                           \
    HPCW_EXPORT __typeof__(target) name __attribute__((weak, alias(#target)));
/* The other spellings compilers use for a Fortran name: mpi_send, mpi_send__, MPI_SEND. */
#define HPCW_FORTRAN_ALIASES(target, a, b, c)                                                      \
    HPCW_FORTRAN_ALIAS(target, a) HPCW_FORTRAN_ALIAS(target, b) HPCW_FORTRAN_ALIAS(target, c)

_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER arrays are read as int");

#endif /* HPCW_MPIW_H */
