/*
 * merge.h - hpmerge's model of a job while it is turned into one OTF2 archive.
 *
 * Stages (one file each):
 *   job.c        the job: processes (sub-experiments, plus placeholders for ranks that
 *                left nothing), their MPI/counter/clock tables, location ids
 *   clockfix.c   clock correction: local monotonic ns -> rank 0's clock
 *   evgen.c      thread-stream records -> OTF2-shaped events (mg_ev), with local ids
 *   order.c      the two passes that put one location's events in time order with
 *                bounded memory (early events are sorted aside, spilled when large)
 *   evwrite.c    mg_ev -> OTF2_EvtWriter, keeping Enter/Leave properly nested
 *   part.c       what one merge rank learned (definitions, facts, summary), serialized
 *   unify.c      all parts -> global definitions and per-location mapping tables
 *   summary*.c   summary.txt and summary.json
 *   parallel.c   serial or MPI collectives for `mpirun -np K hpmerge`
 *   main.c       command line, outputs replaced atomically
 *
 * Local ids. Events are written with ids local to their process (regions, comms,
 * interrupt generators, metrics) or to their location (calling contexts = CCT node ids);
 * each location's .def file maps them to global ids (OTF2 mapping tables). Local ids
 * depend only on the data of one process, so a serial and a parallel merge write the
 * same event files, and unify.c assigns global ids in job order, so the definitions are
 * the same too.
 */
#ifndef MG_MERGE_H
#define MG_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#include "experiment.h"
#include "util.h"

#define MG_PROG "hpmerge"

/* ------------------------------------------------------------ clock */

/* global = local + offset(local), offset linear between the two measurements. */
typedef struct mg_clock {
    int nphases;     /* 0: no correction, 1: constant offset, 2: linear */
    uint64_t l0, l1; /* local_ns of the measurements */
    int64_t o0, o1;  /* offsets at l0, l1 */
    __int128 slope;  /* (o1 - o0) / (l1 - l0) in units of 2^-62: no division per event */
} mg_clock;

void mg_clock_init(mg_clock *c, const hpc_proc *p, hpc_diag *d);
/* Corrected time; nondecreasing in t for any sane measurement (slope > -1). */
uint64_t mg_clock_apply(const mg_clock *c, uint64_t t);

/* ------------------------------------------------------------ definitions */

/* The OTF2_Paradigm values (checked in evwrite.c), without pulling OTF2 in here. */
enum mg_paradigm {
    MG_PAR_OPENMP = 3,
    MG_PAR_PTHREAD = 7,
    MG_PAR_MPI = 4,
    MG_PAR_MEASUREMENT = 6,
    MG_PAR_SAMPLING = 21,
    MG_PAR_NONE = 22 /* I/O calls' regions, as Score-P's I/O adapters have them */
};

/* A region as the global definition will say it. */
typedef struct mg_region {
    char *name;
    char *file; /* "" if unknown */
    uint32_t line;
    uint8_t role;     /* OTF2_RegionRole */
    uint8_t paradigm; /* enum mg_paradigm = OTF2_Paradigm */
} mg_region;

enum mg_comm_type { MG_COMM_MPI = 1, MG_COMM_SELF = 2, MG_COMM_OMP = 3 };

/* A communicator or thread team one process uses. */
typedef struct mg_comm {
    uint8_t type;               /* enum mg_comm_type */
    uint64_t gid_root, gid_seq; /* MPI: the same in every member */
    int64_t parent;             /* index in the process's comm list, -1 = none */
    uint32_t size;              /* MPI: members; OMP: team size */
    /* MPI: world ranks of comm ranks 0..size-1, held once per distinct list by the job
     * (mg_job_members: every member of a communicator records the same list, and N
     * copies of N members would make memory quadratic in the job); not owned */
    const uint64_t *members;
    uint32_t mlist; /* the list's id in the job, UINT32_MAX: none */
    char *name;
} mg_comm;

/* Interrupt generator: the clock (counter -1) or one counter. */
typedef struct mg_igen {
    char *name;
    uint8_t mode;    /* OTF2_InterruptGeneratorMode */
    uint64_t period; /* ns for the clock, events for counters */
} mg_igen;

/* What a metric's values are (defs.c writes each kind as OTF2 has it). */
enum mg_metric_scope {
    MG_METRIC_THREAD,  /* accumulated per location since its start (counters, states) */
    MG_METRIC_PROCESS, /* the process's value at a moment (heap in use), recorded by its
                          first location: a MetricInstance scoped to its location group */
};

typedef struct mg_metric {
    char *name;
    char *unit;
    char *desc;
    uint8_t scope; /* enum mg_metric_scope */
} mg_metric;

/* A CCT node of one location: local calling context id = node id. */
typedef struct mg_ccnode {
    uint32_t parent; /* node id, 0 = root */
    uint32_t region; /* process-local region id */
    uint32_t depth;  /* 1 for children of the root; 0 = not defined (yet) */
    uint32_t func;   /* symbolizer function id (merge rank only, not serialized) */
} mg_ccnode;

/* ------------------------------------------------------------ events */

enum mg_ev_type {
    MG_EV_ENTER = 1,
    MG_EV_LEAVE,
    MG_EV_MPI_SEND,
    MG_EV_MPI_ISEND,
    MG_EV_MPI_ISEND_COMPLETE,
    MG_EV_MPI_IRECV_REQUEST,
    MG_EV_MPI_IRECV,
    MG_EV_MPI_RECV,
    MG_EV_MPI_REQUEST_CANCELLED,
    MG_EV_MPI_COLL_BEGIN,
    MG_EV_MPI_COLL_END,
    MG_EV_THREAD_FORK,
    MG_EV_THREAD_JOIN,
    MG_EV_TEAM_BEGIN,
    MG_EV_TEAM_END,
    MG_EV_SAMPLE,
    MG_EV_METRIC,
    MG_EV_PROGRAM_BEGIN,
    MG_EV_PROGRAM_END,
    MG_EV_IO_CREATE,
    MG_EV_IO_DESTROY,
    MG_EV_IO_DUP,
    MG_EV_IO_BEGIN,
    MG_EV_IO_COMPLETE,
    MG_EV_IO_DELETE,
    MG_EV_METRIC_POINT,
};

/*
 * One OTF2 event, with local ids. Field use by type:
 *   ENTER                       a = region, b = caller function (symbolizer id, 0 = unknown),
 *                               c = caller CCT node + 1 (0 = unknown; evgen.c caller hints)
 *   LEAVE                       a = region
 *   MPI_SEND/RECV               a = peer (comm rank), b = comm, c = tag, d = bytes
 *   MPI_ISEND/IRECV             as SEND/RECV, e = request id
 *   ISEND_COMPLETE, IRECV_REQUEST, REQUEST_CANCELLED      e = request id
 *   COLL_END                    a = comm, b = root (UINT32_MAX none), c = op, d = sent, e = recv
 *   THREAD_FORK                 a = requested threads
 *   TEAM_BEGIN/END              a = comm (team)
 *   SAMPLE                      a = calling context (CCT node), b = interrupt generator
 *   METRIC                      a = metric, d = delta (accumulated by the writer)
 *   METRIC_POINT                a = metric (MG_METRIC_PROCESS), d = its value then
 *   PROGRAM_END                 c = exit status (as int64)
 *   IO_CREATE                   a = I/O handle, b = access mode, c = creation flags,
 *                               d = status flags (OTF2's)
 *   IO_DESTROY                  a = I/O handle
 *   IO_DUP                      a = old handle, b = new handle, d = status flags
 *   IO_BEGIN                    a = I/O handle, b = operation mode, c = bytes requested,
 *                               d = matching id
 *   IO_COMPLETE                 a = I/O handle, c = bytes done, d = matching id
 *   IO_DELETE                   a = I/O paradigm, b = I/O file
 * I/O handles and files are process-local ids (mg_proc's iohs and iofiles), I/O
 * paradigms enum hpc_io_paradigm - 1.
 */
/* OTF2 attributes (defs.c defines them): the synchronization object of a wait's Enter
 * (an MG_EV_ENTER with e = 1 carries it in d). */
#define MG_ATTR_SYNC_OBJECT 0

typedef struct mg_ev {
    uint64_t t;   /* corrected ns */
    uint64_t ord; /* generation index in the location: ties and stability */
    uint32_t type;
    uint32_t a, b;
    uint64_t c, d, e;
} mg_ev;

#endif
