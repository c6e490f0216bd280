/*
 * experiment.h - the hpcollect experiment format: layout, records, writer and reader.
 *
 * This is the only interface between stages: the collector (and its MPI and OpenMP
 * parts) writes experiments with the writer half, hpmerge and hpanalyze read them with
 * the reader half. No stage reads another stage's internals.
 *
 * LAYOUT
 *
 *     prog.1.hpc/                 a job experiment (one per hpcollect run or MPI job)
 *       job.hpe                   job_begin, written by whoever created the directory
 *       main/ rank0/ rank1/ ...   one sub-experiment per process
 *         process.hpe             schema, proc_begin, settings, modules, samples points,
 *                                 MPI definitions, proc_end ...   (shared, locked)
 *         launcher.hpe            launcher_exit, written by hpcollect after the program
 *         t0.hpe t1.hpe ...       one stream per thread, t0 = main thread
 *         vdso.so                 optional archived images named by module_load.archived
 *       main.f1/ main.x1/ ...     descendants: .f<k> after the k-th fork, .x<k> exec
 *       otf2/ summary.txt summary.json      written by hpmerge
 *
 * STREAM FILES
 *
 * Every .hpe file is a header followed by records. All fixed-width integers are
 * little-endian. The file is a sequence of chunks of `chunk_size` bytes (the header
 * says which); a record never crosses a chunk boundary.
 *
 *     header (HPC_HEADER_SIZE bytes, at offset 0):
 *        0  char     magic[8]      "HPCEXP\r\n"
 *        8  u16      major, u16 minor
 *       12  u16      stream kind (enum hpc_stream_kind)
 *       14  u16      header size
 *       16  u32      chunk size (power of two, >= 4096)
 *       20  u32      stream id (thread seq for thread streams, else 0)
 *       24  u64      schema hash (hpc_schema_hash() of the writer)
 *       32  u64      creation time, monotonic ns
 *       40  u64      stats[HPC_NSTATS]  live counters (enum hpc_stat), updated in place
 *                                       while the program runs: current even after SIGKILL
 *                                       (as many as the header size holds, at most
 *                                       HPC_NSTATS: a 1.0 file's 256-byte header has 24)
 *     record:  u8 kind, varint payload length, payload (fields in schema order)
 *
 * The payload length may be a padded (non-minimal) varint: the writer reserves its width
 * before encoding. T fields are zigzag deltas from the previous T value in the same
 * chunk; the base is 0 at the start of every chunk, so each chunk decodes on its own and
 * damage never spreads past a chunk boundary.
 *
 * Records are written into a MAP_SHARED mapping of the file, so they are in the page
 * cache the moment they are written: a crash or SIGKILL loses nothing already recorded.
 * The kind byte is stored last (commit). A reader meeting kind 0 reads the length: 0
 * means "nothing more in this chunk" (skip to the next chunk boundary; past the end of
 * the file means end of stream); non-zero is a record torn by the writer's death, skipped
 * and counted.
 *
 * THREAD SAFETY AND SIGNALS
 *
 *   - hpc_stream_* writer functions marked signal-safe use only memory stores and
 *     system calls (open, ftruncate, mmap, munmap, close): they may run in a signal handler.
 *   - A stream has one writer at a time. Thread streams belong to their thread; the
 *     caller keeps its own signal handler from writing while a normal-context write is
 *     in progress (the collector's busy flag). Shared streams (process.hpe) are written
 *     between hpc_stream_lock() and hpc_stream_unlock(), with the collector's signals
 *     blocked by the caller.
 *   - The reader is not signal-safe and keeps no global state; distinct readers may be
 *     used from distinct threads.
 *
 * ERRORS
 *
 * Functions return 0 or a positive count on success and a negative enum hpc_err on
 * failure; hpc_strerror() names it. Damage found while reading goes to an hpc_diag as
 * "FILE: offset N: what is wrong", with the reader's source line for debugging.
 */
#ifndef HPC_EXPERIMENT_H
#define HPC_EXPERIMENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The experiment library is linked statically into every stage; its symbols stay hidden
 * (-fvisibility=hidden) so they cannot clash with the profiled program's. */
#ifndef HPC_API
#define HPC_API
#endif

#define HPC_FORMAT_MAJOR 1
#define HPC_FORMAT_MINOR 1 /* 1.1: a 512-byte header, room for 56 stats (1.0: 256, 24) */
#define HPC_MAGIC        "HPCEXP\r\n"
#define HPC_HEADER_SIZE  512
#define HPC_NSTATS       56    /* (HPC_HEADER_SIZE - 40) / 8, less the 3 slots left over */
#define HPC_MAX_RECORD   65536 /* payload bytes; chunk_size must exceed it */

#define HPC_JOB_FILE      "job.hpe"
#define HPC_PROCESS_FILE  "process.hpe"
#define HPC_LAUNCHER_FILE "launcher.hpe"
#define HPC_THREAD_FMT    "t%u.hpe"
#define HPC_EXP_SUFFIX    ".hpc"

/* ------------------------------------------------------------------ errors */

enum hpc_err {
    HPC_OK = 0,
    HPC_E_NOMEM = -1,    /* allocation failed */
    HPC_E_IO = -2,       /* a system call failed; errno says why */
    HPC_E_FORMAT = -3,   /* not an experiment file, or damaged beyond use */
    HPC_E_VERSION = -4,  /* a major version this reader does not know */
    HPC_E_LIMIT = -5,    /* the size limit (-L) is reached; nothing was written */
    HPC_E_TOOBIG = -6,   /* record larger than HPC_MAX_RECORD */
    HPC_E_INVAL = -7,    /* bad argument */
    HPC_E_NOTFOUND = -8, /* no such experiment, sub-experiment or file */
    HPC_E_CLOSED = -9,   /* stream not open */
    HPC_E_EXISTS = -10,  /* the experiment to create exists already (-o without -O) */
    HPC_E_SYMLINK = -11, /* a symbolic link where a file or directory is to be made */
    HPC_E_NOTEXP = -12,  /* a directory to replace (-O) that is not an experiment */
    HPC_E_NOTDIR = -13,  /* something other than a directory where one is to be made */
    HPC_E_NOTOURS = -14, /* a directory owned by another user where ours is to be made */
    HPC_E_NOTREG = -15,  /* not a regular file where one is expected */
};

/* Name of an error: "size limit reached", ...; never NULL. */
HPC_API const char *hpc_strerror(int err);
/* Short symbolic name for JSON output: "HPC_E_LIMIT"; never NULL. */
HPC_API const char *hpc_errname(int err);
/* What to tell a user about err with errno errnum (0: none): a full file system or quota
 * is "disk full (...)" whatever err, an I/O error says what the system said, anything
 * else is hpc_strerror(err). Never NULL. NOT signal-safe (strerror). */
HPC_API const char *hpc_errtext(int err, int errnum);

/* ------------------------------------------------------------ enumerations */

enum hpc_stream_kind {
    HPC_STREAM_JOB = 1,
    HPC_STREAM_PROCESS = 2,
    HPC_STREAM_THREAD = 3,
    HPC_STREAM_LAUNCHER = 4
};

/* Live statistics in each stream header (stats.def: slot, key, label). Every way a sample
 * can be lost has a slot. */
enum hpc_stat {
#define HPC_STAT(id, key, label) HPC_STAT_##id,
#include "stats.def"
#undef HPC_STAT
    HPC_STAT_COUNT_ /* keep last */
};
_Static_assert(HPC_STAT_COUNT_ <= HPC_NSTATS, "too many stats slots");

enum hpc_descent {
    HPC_DESCENT_FOUNDER = 0,
    HPC_DESCENT_FORK = 1,
    HPC_DESCENT_EXEC = 2,
    HPC_DESCENT_SPAWN = 3
};

enum hpc_clock_source {
    HPC_CLOCK_NONE = 0,
    HPC_CLOCK_PERF_TASK_CLOCK = 1,
    HPC_CLOCK_POSIX_CPU_TIMER = 2
};

/*
 * Thread states (docs/thread-states.md): where each moment of a thread's life went, as
 * the reference's microstates. User and System CPU are in sample_clock (cpu_ns, sys_ns);
 * the others in sample_state. Values are on disk: append only.
 */
enum hpc_mstate {
    HPC_MSTATE_USER = 0,       /* running in user mode */
    HPC_MSTATE_SYSTEM = 1,     /* running in the kernel (system calls, page faults) */
    HPC_MSTATE_WAIT_CPU = 2,   /* runnable, waiting for a CPU */
    HPC_MSTATE_USER_LOCK = 3,  /* asleep waiting for a lock (mutex, rwlock, semaphore, futex) */
    HPC_MSTATE_TEXT_PF = 4,    /* asleep in a page fault on code */
    HPC_MSTATE_DATA_PF = 5,    /* asleep in a page fault on data */
    HPC_MSTATE_OTHER_WAIT = 6, /* any other sleep: I/O, sleeps, condition waits, stopped */
    HPC_NMSTATES = 7
};

/* How thread states were collected (settings.states, thread_begin.states). */
enum hpc_states_source {
    HPC_STATES_NONE = 0,        /* off (-p off, or nothing worked): CPU time only */
    HPC_STATES_PERF_SWITCH = 1, /* perf_event context-switch records + blocking-call wrappers */
    HPC_STATES_CALL_TIMES = 2,  /* fallback without perf_event buffers: the wrappers' elapsed
                                   times; preemption and page faults not told apart */
};

/* sample_state.how: where its time was charged. */
enum hpc_state_how {
    HPC_STATE_AT_CALL = 0,   /* at the blocking call or fault it happened in */
    HPC_STATE_AT_SAMPLE = 1, /* at the thread's next clock sample (preempted while computing,
                                or asleep where no wrapper saw it) */
    HPC_STATE_AT_END = 2,    /* what was left when the thread's recording ended */
    HPC_STATE_UNSEEN = 3     /* off-CPU time whose switch records the kernel lost */
};

enum hpc_module_flags {
    HPC_MODULE_MAIN = 1,
    HPC_MODULE_DLOPEN = 2,
    HPC_MODULE_ANON = 4,
    HPC_MODULE_COLLECTOR = 8 /* our own libraries */
};

enum hpc_sample_reason {
    HPC_SAMPLE_START = 0,
    HPC_SAMPLE_PERIODIC = 1,
    HPC_SAMPLE_SIGNAL = 2,
    HPC_SAMPLE_API = 3,
    HPC_SAMPLE_PAUSE = 4,
    HPC_SAMPLE_RESUME = 5,
    HPC_SAMPLE_END = 6
};

enum hpc_limit {
    HPC_LIMIT_SIZE = 1,
    HPC_LIMIT_TIME_START = 2,
    HPC_LIMIT_TIME_END = 3,
    HPC_LIMIT_PCONTROL_OFF = 4,
    HPC_LIMIT_PCONTROL_ON = 5
};

enum hpc_end_reason {
    HPC_END_EXIT = 0,
    HPC_END_EXEC = 1,
    HPC_END_SIGNAL = 2,
    HPC_END_MPI_ABORT = 3
};

/* What an experiment's archive holds (-a; settings.archive): bits. */
enum hpc_archive_mode {
    HPC_ARCHIVE_OFF = 0,
    HPC_ARCHIVE_OBJECTS = 1, /* load objects, by build id */
    HPC_ARCHIVE_SOURCES = 2, /* source files their debug information names */
    HPC_ARCHIVE_USED = 4,    /* only objects (and sources) with sampled code */
};
#define HPC_ARCHIVE_DEFAULT HPC_ARCHIVE_OBJECTS /* gprofng's -a ldobjects */

/* The -a word of a mode (off, ldobjects, src, usedldobjects, usedsrc) and back (on = src);
 * parse returns -1 for an unknown word. */
HPC_API const char *hpc_archive_mode_name(unsigned mode);
HPC_API int hpc_archive_mode_parse(const char *word);

/* Counter flags in counter_def.flags. */
enum hpc_counter_flags {
    HPC_COUNTER_HARDWARE = 1,
    HPC_COUNTER_CYCLES = 2,
    HPC_COUNTER_SOFTWARE = 4
};

enum hpc_omp_mode { HPC_OMP_NONE = 0, HPC_OMP_LLVM = 1, HPC_OMP_NATIVE = 2 };

/* Sample state bits: bit 0 = inside an MPI call; bits 1..4 = enum hpc_omp_state. */
#define HPC_STATE_MPI       1u
#define HPC_STATE_OMP_SHIFT 1
#define HPC_STATE_OMP_MASK  (0xfu << HPC_STATE_OMP_SHIFT)
#define HPC_STATE_OMP(s)    (((s)&HPC_STATE_OMP_MASK) >> HPC_STATE_OMP_SHIFT)
#define HPC_STATE_WITH_OMP(s, o)                                                                   \
    (((s) & ~HPC_STATE_OMP_MASK) | ((unsigned)(o) << HPC_STATE_OMP_SHIFT))

enum hpc_omp_state {
    HPC_OMP_STATE_NONE = 0,   /* no OpenMP information (not an OpenMP thread / no OMPT) */
    HPC_OMP_STATE_SERIAL = 1, /* initial thread outside any parallel region: work */
    HPC_OMP_STATE_WORK = 2,   /* in a parallel region, executing user code */
    HPC_OMP_STATE_IMPLICIT_BARRIER = 3,
    HPC_OMP_STATE_EXPLICIT_BARRIER = 4,
    HPC_OMP_STATE_TASKWAIT = 5,
    HPC_OMP_STATE_TASKGROUP = 6,
    HPC_OMP_STATE_LOCK_WAIT = 7,
    HPC_OMP_STATE_CRITICAL_WAIT = 8,
    HPC_OMP_STATE_ORDERED_WAIT = 9,
    HPC_OMP_STATE_ATOMIC_WAIT = 10,
    HPC_OMP_STATE_REDUCTION = 11,
    HPC_OMP_STATE_IDLE = 12,              /* worker outside parallel regions */
    HPC_OMP_STATE_OVERHEAD = 13,          /* runtime fork/join and scheduling */
    HPC_OMP_STATE_WORKSHARE_BARRIER = 14, /* the implicit barrier ending a loop, sections or
                                             single */
    HPC_OMP_STATE_BARRIER = 15, /* a barrier the runtime cannot tell: explicit, or ending a
                                   worksharing construct (gcc-built code on libomp) */
};

/* The OpenMP records' own enums: the OMPT tool maps the runtime's values onto these (the
 * numbers of the first ones happen to equal OMPT's; nothing relies on it). */

/* omp_thread.type */
enum hpc_omp_thread_type {
    HPC_OMP_THREAD_INITIAL = 1, /* the initial thread (or a thread the program made that
                                   runs OpenMP constructs: an initial thread too) */
    HPC_OMP_THREAD_WORKER = 2,  /* a thread of the runtime's pool */
    HPC_OMP_THREAD_OTHER = 3    /* a runtime helper thread */
};

/* omp_implicit_task.endpoint */
enum hpc_omp_endpoint { HPC_OMP_BEGIN = 1, HPC_OMP_END = 2 };

/* omp_parallel_begin.flags: bits */
enum hpc_omp_parallel_flags {
    HPC_OMP_PARALLEL_INVOKER_PROGRAM = 0x1, /* the program calls the outlined body on the
                                               encountering thread (gcc's GOMP_parallel) */
    HPC_OMP_PARALLEL_INVOKER_RUNTIME = 0x2, /* the runtime calls it (clang's __kmpc_fork_call) */
    HPC_OMP_PARALLEL_LEAGUE = 0x40000000,   /* a teams construct */
    HPC_OMP_PARALLEL_TEAM = 0x80000000      /* a parallel construct */
};

enum hpc_omp_sync {
    HPC_OMP_SYNC_IMPLICIT_BARRIER = 1, /* at the end of a parallel region */
    HPC_OMP_SYNC_EXPLICIT_BARRIER = 2, /* #pragma omp barrier */
    HPC_OMP_SYNC_TASKWAIT = 3,
    HPC_OMP_SYNC_TASKGROUP = 4,
    HPC_OMP_SYNC_REDUCTION = 5,
    HPC_OMP_SYNC_BARRIER_OTHER = 6,    /* the runtime cannot tell: an explicit barrier or
                                          the end of a worksharing construct (gcc-built
                                          code on libomp) */
    HPC_OMP_SYNC_WORKSHARE_BARRIER = 7 /* implicit, at the end of a worksharing construct */
};

enum hpc_omp_mutex {
    HPC_OMP_MUTEX_LOCK = 1,
    HPC_OMP_MUTEX_NEST_LOCK = 2,
    HPC_OMP_MUTEX_CRITICAL = 3,
    HPC_OMP_MUTEX_ORDERED = 4,
    HPC_OMP_MUTEX_ATOMIC = 5
};

enum hpc_omp_work {
    HPC_OMP_WORK_LOOP = 1,
    HPC_OMP_WORK_SECTIONS = 2,
    HPC_OMP_WORK_SINGLE_EXECUTOR = 3,
    HPC_OMP_WORK_SINGLE_OTHER = 4,
    HPC_OMP_WORK_WORKSHARE = 5,
    HPC_OMP_WORK_DISTRIBUTE = 6,
    HPC_OMP_WORK_TASKLOOP = 7,
    HPC_OMP_WORK_SCOPE = 8
};

enum hpc_omp_task_event { HPC_OMP_TASK_CREATE = 1, HPC_OMP_TASK_BEGIN = 2, HPC_OMP_TASK_END = 3 };

/* omp_task.flags of a create event: bits */
enum hpc_omp_task_flags {
    HPC_OMP_TASK_UNDEFERRED = 0x08000000,
    HPC_OMP_TASK_UNTIED = 0x10000000,
    HPC_OMP_TASK_FINAL = 0x20000000,
    HPC_OMP_TASK_MERGEABLE = 0x40000000,
    HPC_OMP_TASK_MERGED = 0x80000000
};

/* omp_task.flags of an end event: how the task ended */
enum hpc_omp_task_status {
    HPC_OMP_TASK_COMPLETE = 1,
    HPC_OMP_TASK_CANCEL = 3,
    HPC_OMP_TASK_DETACH = 4,
    HPC_OMP_TASK_LATE_FULFILL = 6
};

/* tracer.kind: which tracer's settings */
enum hpc_trace_kind { HPC_TRACE_SYNC = 1 };

/* sync_wait.kind: what waited (pthread and C11 calls, OpenMP constructs) */
enum hpc_sync_kind {
    HPC_SYNC_MUTEX = 1,     /* pthread_mutex_lock/timedlock/clocklock, mtx_lock/timedlock */
    HPC_SYNC_RWLOCK_RD = 2, /* pthread_rwlock_rdlock/timedrdlock/clockrdlock */
    HPC_SYNC_RWLOCK_WR = 3, /* pthread_rwlock_wrlock/timedwrlock/clockwrlock */
    HPC_SYNC_COND = 4,      /* pthread_cond_wait/timedwait/clockwait, cnd_wait/timedwait */
    HPC_SYNC_BARRIER = 5,   /* pthread_barrier_wait */
    HPC_SYNC_JOIN = 6,      /* pthread_join/timedjoin_np/clockjoin_np/tryjoin_np, thrd_join */
    HPC_SYNC_SEM = 7,       /* sem_wait/timedwait/clockwait */
    HPC_SYNC_SPIN = 8,      /* pthread_spin_lock */
    HPC_SYNC_OMP_LOCK = 9,  /* omp_set_lock, omp_set_nest_lock */
    HPC_SYNC_OMP_CRITICAL = 10,
    HPC_SYNC_OMP_ORDERED = 11,
    HPC_SYNC_OMP_ATOMIC = 12,
    HPC_SYNC_OMP_BARRIER = 13, /* explicit, implicit and worksharing barriers */
    HPC_SYNC_KIND_COUNT_
};

enum hpc_p2p_op {
    HPC_P2P_SEND = 1,
    HPC_P2P_ISEND = 2,
    HPC_P2P_ISEND_COMPLETE = 3,
    HPC_P2P_RECV = 4,
    HPC_P2P_IRECV_REQUEST = 5,
    HPC_P2P_IRECV_COMPLETE = 6,
    HPC_P2P_REQUEST_CANCELLED = 7
};

/* mpi_call.flags bits. */
enum hpc_mpi_call_flags {
    HPC_MPI_CALL_NESTED = 1,      /* made inside another MPI call (a user op, attribute or error
                                     callback): its time is part of the outer call's */
    HPC_MPI_CALL_ERROR = 2,       /* returned an error code: no detail records follow */
    HPC_MPI_CALL_FORTRAN = 4,     /* made through the Fortran bindings */
    HPC_MPI_CALL_INTERRUPTED = 8, /* the process ended inside this call (killed, exit from
                                     a callback): time_leave is the time of that end */
};

/* heap_alloc.fn and heap_free.fn: the call (heap tracing, -H). */
enum hpc_heap_fn {
    HPC_HEAP_MALLOC = 1,
    HPC_HEAP_CALLOC = 2,
    HPC_HEAP_REALLOC = 3,
    HPC_HEAP_REALLOCARRAY = 4,
    HPC_HEAP_MEMALIGN = 5,
    HPC_HEAP_POSIX_MEMALIGN = 6,
    HPC_HEAP_ALIGNED_ALLOC = 7,
    HPC_HEAP_VALLOC = 8,
    HPC_HEAP_PVALLOC = 9,
    HPC_HEAP_MMAP = 10,
    HPC_HEAP_FREE = 11,
    HPC_HEAP_MUNMAP = 12,
    HPC_HEAP_MREMAP = 13, /* heap_free of the old range, then heap_alloc of the result */
};

enum hpc_mpi_family {
    HPC_MPI_OTHER = 0,
    HPC_MPI_P2P = 1,
    HPC_MPI_COLL = 2,
    HPC_MPI_WAIT = 3,
    HPC_MPI_COMM = 4,
    HPC_MPI_ONESIDED = 5,
    HPC_MPI_IO = 6,
    HPC_MPI_ENV = 7
};

/* Collective operations, numbered as OTF2_CollectiveOp + 1 so that 0 means none. */
enum hpc_mpi_coll {
    HPC_COLL_NONE = 0,
    HPC_COLL_BARRIER = 1,
    HPC_COLL_BCAST,
    HPC_COLL_GATHER,
    HPC_COLL_GATHERV,
    HPC_COLL_SCATTER,
    HPC_COLL_SCATTERV,
    HPC_COLL_ALLGATHER,
    HPC_COLL_ALLGATHERV,
    HPC_COLL_ALLTOALL,
    HPC_COLL_ALLTOALLV,
    HPC_COLL_ALLTOALLW,
    HPC_COLL_ALLREDUCE,
    HPC_COLL_REDUCE,
    HPC_COLL_REDUCE_SCATTER,
    HPC_COLL_SCAN,
    HPC_COLL_EXSCAN,
    HPC_COLL_REDUCE_SCATTER_BLOCK
};

enum hpc_comm_kind {
    HPC_COMM_WORLD = 1,
    HPC_COMM_SELF = 2,
    HPC_COMM_DUP = 3,
    HPC_COMM_SPLIT = 4,
    HPC_COMM_CREATE = 5,
    HPC_COMM_CART = 6,
    HPC_COMM_GRAPH = 7,
    HPC_COMM_INTERCOMM = 8,
    HPC_COMM_MERGE = 9,
    HPC_COMM_OTHER = 10
};

/* I/O tracing (-i): the functions (io_fns.def), what each adds to, what it does. */
enum hpc_io_fn {
    HPC_IO_FN_NONE = 0,
#define HPC_IO_FN(name, class, act, paradigm) HPC_IO_FN_##name,
#include "io_fns.def"
#undef HPC_IO_FN
    HPC_IO_FN_COUNT_
};
/* gprofng's metric classes; a failed call counts as I/O Error whatever its class. */
enum hpc_io_class { HPC_IO_CLASS_OTHER = 0, HPC_IO_CLASS_READ = 1, HPC_IO_CLASS_WRITE = 2 };
/* What a call does to its handle (OTF2's I/O events). */
enum hpc_io_act {
    HPC_IO_ACT_META = 0, /* on a file or handle's metadata: stat, unlink, ftruncate */
    HPC_IO_ACT_OPEN,
    HPC_IO_ACT_CLOSE,
    HPC_IO_ACT_READ,
    HPC_IO_ACT_WRITE,
    HPC_IO_ACT_SEEK,
    HPC_IO_ACT_SYNC,
    HPC_IO_ACT_DUP,
    HPC_IO_ACT_MAP
};
/* The interface a handle belongs to (OTF2's I/O paradigms). */
enum hpc_io_paradigm { HPC_IO_POSIX = 1, HPC_IO_ISOC = 2, HPC_IO_MPIIO = 3 };
/* io_handle.flags */
enum hpc_io_handle_flags {
    HPC_IO_HANDLE_FOUND = 1,  /* opened before tracing saw it (inherited, stdin, a fork's
                                 parent): the path is /proc/self/fd's answer */
    HPC_IO_HANDLE_APPEND = 2, /* O_APPEND or "a": writes go to the end, offsets unknown */
};

/* The function's name ("pread"), class and act; NULL / OTHER / META when unknown. */
HPC_API const char *hpc_io_fn_name(unsigned fn);
HPC_API enum hpc_io_class hpc_io_fn_class(unsigned fn);
HPC_API enum hpc_io_act hpc_io_fn_act(unsigned fn);
HPC_API enum hpc_io_paradigm hpc_io_fn_paradigm(unsigned fn);

/* ------------------------------------------------------ records (generated) */

/* Text or bytes. On the write side p points at the caller's data; on the read side it
 * points into the reader's mapping (valid until the reader is closed) and is NOT
 * NUL-terminated. */
typedef struct hpc_str {
    const char *p;
    uint32_t n;
} hpc_str;

#define HPC_CTYPE_U     uint64_t
#define HPC_CTYPE_S     int64_t
#define HPC_CTYPE_T     uint64_t
#define HPC_CTYPE_STR   hpc_str
#define HPC_CTYPE_BYTES hpc_str

/* struct hpc_rec_<name> for each record kind */
#define HPC_FIELD(type, name) HPC_CTYPE_##type name;
#define HPC_RECORD(name, id, fields)                                                               \
    typedef struct hpc_rec_##name {                                                                \
        fields                                                                                     \
    } hpc_rec_##name;
#include "schema.def"
#undef HPC_RECORD
#undef HPC_FIELD

/* HPC_K_<name> = on-disk kind id */
enum hpc_kind {
    HPC_K_NONE = 0,
#define HPC_RECORD(name, id, fields) HPC_K_##name = id,
#include "schema.def"
#undef HPC_RECORD
};

/* A decoded record: kind says which union member is valid. */
typedef struct hpc_record {
    unsigned kind;   /* enum hpc_kind, or an unknown id (then only raw is valid) */
    uint64_t offset; /* byte offset of the record in its file */
    hpc_str raw;     /* the payload bytes as stored */
    union {
#define HPC_RECORD(name, id, fields) hpc_rec_##name name;
#include "schema.def"
#undef HPC_RECORD
    } u;
} hpc_record;

/* The schema, for tools that print records generically (hpanalyze dump). */
typedef struct hpc_field_desc {
    const char *name;
    char type;       /* 'U' 'S' 'T' 's' (STR) 'b' (BYTES) */
    uint16_t offset; /* in the record struct */
} hpc_field_desc;

typedef struct hpc_kind_desc {
    unsigned kind;
    const char *name;
    unsigned nfields;
    const hpc_field_desc *fields;
} hpc_kind_desc;

/* Description of a kind this library knows, or NULL. */
HPC_API const hpc_kind_desc *hpc_schema_kind(unsigned kind);
/* Stable hash of the whole built-in schema; written into every header. Signal-safe
 * after the first call (the first call computes it; call it once at start-up). */
HPC_API uint64_t hpc_schema_hash(void);

/* --------------------------------------------------------------- writer */

/* A process-wide byte budget shared by all streams of a process (-L). */
typedef struct hpc_budget {
    uint64_t limit; /* 0 = unlimited */
    uint64_t used;  /* updated atomically */
    int exceeded;   /* set once, atomically, when a write was refused */
} hpc_budget;

/*
 * A stream being written. The struct is public so callers can place it in memory they
 * own (the collector keeps it in mmap'd per-thread storage); treat the fields as private.
 */
typedef struct hpc_stream {
    int fd;           /* -1 between remaps for thread streams (fds are scarce) */
    int open;         /* 1 while usable */
    uint8_t *header;  /* mapping of the header (live stats) */
    uint8_t *win;     /* mapping of the current chunk */
    uint64_t win_off; /* file offset of the current chunk */
    uint32_t pos;     /* write offset inside the current chunk */
    uint32_t chunk_size;
    uint32_t lim;       /* bytes of the current chunk the file holds, pre-faulted */
    uint64_t time_base; /* previous T value written */
    hpc_budget *budget; /* may be NULL */
    int lock;           /* for shared streams, see hpc_stream_lock */
    int keep_fd;        /* 1: keep fd open (shared streams); 0: reopen by path to grow */
    char path[1024];
} hpc_stream;

/* Where the next record goes (a file offset), unless it opens a new chunk: then at
 * win_off. Signal-safe. */
static inline uint64_t hpc_stream_offset(const hpc_stream *s)
{
    return s->win_off + s->pos;
}

/*
 * Create (truncate) the stream file `path` and write its header; for job and process
 * streams also the SCHEMA records. `budget` may be NULL. chunk_size 0 picks the default
 * (256 KiB). keep_fd 0 closes the file descriptor between chunk changes and reopens
 * `path` to grow: give an absolute path (the program may chdir).
 * Returns 0 or a negative hpc_err (errno is kept from the failing call); HPC_E_LIMIT
 * when the budget cannot hold the header (and SCHEMA records): then no file is made.
 * Signal-safe. Not thread-safe for the same stream.
 */
HPC_API int hpc_stream_create(hpc_stream *s, const char *path, enum hpc_stream_kind kind,
                              uint32_t stream_id, uint32_t chunk_size, hpc_budget *budget,
                              int keep_fd);

/*
 * Finish a stream: truncate the file to the bytes written and unmap it. Closing a
 * stream that is not open does nothing. Signal-safe.
 */
HPC_API int hpc_stream_close(hpc_stream *s);

/*
 * Forget a stream without touching the file: for a fork child, whose copy of the
 * parent's stream must not write into the parent's file. Unmaps and closes only.
 */
HPC_API void hpc_stream_abandon(hpc_stream *s);

/* Add n to a live statistic in the stream header. Signal-safe; atomic. */
HPC_API void hpc_stream_stat_add(hpc_stream *s, enum hpc_stat stat, uint64_t n);

/* Spin lock for shared streams; the caller blocks its own signals around it. */
HPC_API void hpc_stream_lock(hpc_stream *s);
HPC_API void hpc_stream_unlock(hpc_stream *s);

/*
 * hpc_write_<name>(s, &rec): append one record. Returns 0, HPC_E_LIMIT (budget spent,
 * nothing written), HPC_E_IO (file could not grow), HPC_E_TOOBIG or HPC_E_CLOSED.
 * HPC_E_TOOBIG: the payload, counting each T field at 10 bytes, exceeds HPC_MAX_RECORD,
 * or the record does not fit in one chunk. Signal-safe.
 */
#define HPC_RECORD(name, id, fields)                                                               \
    HPC_API int hpc_write_##name(hpc_stream *s, const hpc_rec_##name *r);
#include "schema.def"
#undef HPC_RECORD

/* Name of a statistic for JSON keys and dumps: "samples", "dropped_limit", ...;
 * NULL for a slot without a name (stats.def). */
HPC_API const char *hpc_stat_name(unsigned stat);
/* Its label for text reports: "Samples recorded", "Dropped: size limit (-L)", ...; NULL for
 * a slot without a name. */
HPC_API const char *hpc_stat_label(unsigned stat);

/*
 * Paths without stdio, for code that runs in a signal handler or a fork child.
 * hpc_path_join writes "dir/name", hpc_path_thread "dir/t<seq>.hpe" (HPC_THREAD_FMT) into
 * out (cap bytes, NUL-terminated). Return the length, or HPC_E_INVAL (errno ENAMETOOLONG)
 * if it does not fit. Signal-safe.
 */
HPC_API int hpc_path_join(char *out, size_t cap, const char *dir, const char *name);
HPC_API int hpc_path_thread(char *out, size_t cap, const char *dir, uint32_t seq);

/* Packed varint arrays for BYTES fields (mpi_comm.members). */
/* Encode n values into buf (cap bytes); returns bytes used or -1 if cap is too small. */
HPC_API int hpc_varints_encode(uint8_t *buf, size_t cap, const uint64_t *v, size_t n);
/* Decode up to max values from b; returns the count, or -1 if b is malformed. */
HPC_API long hpc_varints_decode(hpc_str b, uint64_t *v, size_t max);

/* --------------------------------------------------------------- diagnostics */

enum hpc_severity { HPC_WARNING = 1, HPC_ERROR = 2 };

/*
 * Where readers report damage. report may be NULL: then messages go to stderr as
 * "prog: FILE: offset N: message". Counts are kept either way.
 */
typedef struct hpc_diag {
    void (*report)(void *ctx, enum hpc_severity sev, const char *file, uint64_t offset,
                   const char *msg, const char *src_file, int src_line);
    void *ctx;
    const char *prog; /* prefix for stderr messages, e.g. "hpanalyze" */
    unsigned warnings;
    unsigned errors;
    int quiet; /* 1: count only */
} hpc_diag;

/* Offset to report for a problem with a whole file (cannot open, empty): the message is
 * then "FILE: what is wrong". */
#define HPC_NO_OFFSET UINT64_MAX

/* Report a problem at file:offset (printf-style message). src_file:src_line is the check
 * of ours that found damage (HPC_CORRUPT); NULL for an error in what the user gave (no
 * such experiment), which stderr then shows without a source line. */
HPC_API void hpc_diag_report(hpc_diag *d, enum hpc_severity sev, const char *file, uint64_t offset,
                             const char *src_file, int src_line, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));
#define HPC_CORRUPT(d, file, off, ...)                                                             \
    hpc_diag_report((d), HPC_WARNING, (file), (off), __FILE__, __LINE__, __VA_ARGS__)

/* --------------------------------------------------------------- reader */

typedef struct hpc_reader hpc_reader;

/*
 * Open one stream file for sequential reading. `schema_from` may name another stream
 * (process.hpe) whose SCHEMA records describe this one; NULL uses the file's own schema
 * records, or the built-in schema when the header's schema hash matches it.
 * Returns 0 and *out, or a negative hpc_err after reporting to d.
 */
HPC_API int hpc_reader_open(hpc_reader **out, const char *path, const hpc_reader *schema_from,
                            hpc_diag *d);

/*
 * Open one thread's life in a thread stream: a stream is reused by the threads that
 * start after its thread ended (the collector makes no file per thread), so it holds
 * their lives one after another, each beginning with its thread_begin record. offset is
 * where that record is (process.hpe's thread_life record), 0 for the file's first life.
 * Reading stops at the next thread_begin; rewind goes back to this life's start. An
 * offset where no record starts is reported to d and reads as an empty life. Most
 * callers want hpc_thread_open.
 */
HPC_API int hpc_reader_open_life(hpc_reader **out, const char *path, const hpc_reader *schema_from,
                                 hpc_diag *d, uint64_t offset);

/*
 * Next record. Returns 1 and fills *rec, 0 at the end of the stream. Damaged records
 * are reported to the diag, skipped and counted; reading goes on with the next good
 * record (or the next chunk). Unknown kinds are returned with kind set and only raw
 * valid, and counted in hpc_reader_unknown().
 */
HPC_API int hpc_reader_next(hpc_reader *r, hpc_record *rec);

/*
 * Return only records of the n kinds listed (and thread_begin, which delimits a thread's
 * life) from now on: the others are still checked (their damage reported and counted
 * as ever, their times kept for the records after them) but not decoded nor returned, so
 * that a report reading a few kinds of large streams (`mpi`: 4 of 16 kinds) does not
 * pay for the rest.
 */
HPC_API void hpc_reader_only(hpc_reader *r, const unsigned *kinds, size_t n);

/* Header facts. */
HPC_API enum hpc_stream_kind hpc_reader_kind(const hpc_reader *r);
HPC_API uint32_t hpc_reader_stream_id(const hpc_reader *r);
HPC_API const char *hpc_reader_path(const hpc_reader *r);
/* Live statistics from the header (HPC_NSTATS values). */
HPC_API const uint64_t *hpc_reader_stats(const hpc_reader *r);
/* Counts of what reading found so far. */
HPC_API uint64_t hpc_reader_unknown(const hpc_reader *r);
HPC_API uint64_t hpc_reader_damaged(const hpc_reader *r); /* skipped: bad or torn */
HPC_API uint64_t hpc_reader_torn(const hpc_reader *r);    /* of those, torn records */
/*
 * The most records the file can hold (a record takes at least its kind and length bytes):
 * the bound of anything counted in records, such as a thread's cct_node ids (1, 2, 3 ...
 * in creation order), so that a damaged or hostile id cannot size a reader's arrays.
 */
#define HPC_MIN_RECORD_BYTES 2
HPC_API uint64_t hpc_reader_max_records(const hpc_reader *r);
/*
 * The file's description of a kind: from its SCHEMA records (or schema_from's), else the
 * built-in one; NULL if neither knows the kind. Fields the built-in struct lacks have
 * offset UINT16_MAX. For printing records generically (hpc_record_print).
 */
HPC_API const hpc_kind_desc *hpc_reader_schema_kind(const hpc_reader *r, unsigned kind);
/* Restart from the first record. */
HPC_API void hpc_reader_rewind(hpc_reader *r);
/* Closing NULL does nothing. */
HPC_API void hpc_reader_close(hpc_reader *r);

/* Printing styles for hpc_record_print. */
enum hpc_print_style {
    HPC_PRINT_TEXT = 0, /* sample_clock @300 time=1000 node=5 name="x" build_id=0a1b */
    HPC_PRINT_JSON = 1, /* "record":"sample_clock","offset":300,"time":1000,"name":"x" */
};

/*
 * Print one record by the schema, without a trailing newline. JSON style prints the
 * members of an object without its braces, so callers can add members of their own.
 * `schema` is the reader the record came from (describes kinds this library does not
 * know; their T fields print as deltas "+N"), or NULL. STR fields print as escaped text,
 * BYTES as hex. Returns 0, or HPC_E_IO if writing to f failed. NOT signal-safe.
 */
HPC_API int hpc_record_print(FILE *f, const hpc_record *rec, const hpc_reader *schema,
                             enum hpc_print_style style);

/* ------------------------------------------------- experiments and processes */

/* A thread of a process: its life in a thread stream (hpc_reader_open_life). */
typedef struct hpc_thread_file {
    uint32_t seq;
    char *path;      /* t<N>.hpe: N is the seq of its first thread */
    uint64_t offset; /* where this thread's records start, 0 = the file's first thread */
} hpc_thread_file;

/*
 * One sub-experiment (process). Process-level records are loaded into memory with their
 * strings copied; thread streams are listed, not read (open them with hpc_reader_open,
 * passing `schema` so files with another writer's schema decode correctly).
 */
typedef struct hpc_proc {
    char *dir;          /* EXP/name */
    char *name;         /* "rank0", "main", "main.f1" */
    hpc_reader *schema; /* reader of process.hpe, kept open for its schema */
    bool has_begin, has_end, has_launcher_exit;
    bool launcher_killed;     /* launcher_begin without launcher_exit: hpcollect was killed */
    hpc_rec_proc_begin begin; /* strings point into `records` storage */
    hpc_rec_settings settings;
    hpc_rec_proc_end end;
    hpc_rec_launcher_exit launcher_exit;
    hpc_rec_launcher_begin launcher_begin;
    int rank; /* MPI rank (mpi_init, else proc_begin), -1 if none */
    /* The OS's CPU time of this process image since collection began: proc_end's
     * rusage (or, with no proc_end, the launcher's wait4) less proc_begin's, so an
     * exec'd image is not charged its predecessors' time. */
    bool os_cpu_known;
    uint64_t os_user_ns, os_sys_ns;
    const char *os_cpu_source; /* "proc_end", "launcher" */
    bool ended_early;          /* no proc_end, or death by signal / MPI_Abort */
    size_t nrecords;           /* every record of process.hpe and launcher.hpe, in order */
    hpc_record *records;
    bool lean;           /* records holds only the facts' records, schema is NULL: hpc_proc_load */
    bool slim;           /* lean, but records holds every record, the communicators' member lists
                            emptied (hpc_exp_open_slim); hpc_proc_unload makes it slim again */
    bool schema_builtin; /* process.hpe's schema is the built-in one (its hash, and every
                            kind it describes as built in): a lean process's threads are
                            read without reading it again (hpc_thread_open) */
    size_t nthreads;
    hpc_thread_file *threads;   /* sorted by seq */
    uint64_t stats[HPC_NSTATS]; /* sum over all streams of the process */
} hpc_proc;

typedef struct hpc_exp {
    char *path;
    bool has_job;
    hpc_rec_job_begin job;
    size_t nprocs;
    hpc_proc *procs; /* sorted: ranks by number, then other names */
} hpc_exp;

/*
 * Open a job experiment directory (or a single sub-experiment directory, which is then
 * the only process). Damage is reported to d; processes that cannot be read at all are
 * reported and left out. Returns 0 and *out, or a negative hpc_err when nothing usable
 * is there (HPC_E_NOTFOUND: no such directory / not an experiment), after reporting why
 * to d as an HPC_ERROR: callers need not print it again.
 */
HPC_API int hpc_exp_open(hpc_exp **out, const char *path, hpc_diag *d);
/*
 * The same, but every process is opened lean: of its records it keeps only those the
 * facts above point into (proc_begin, settings, proc_end, launcher_*, mpi_init,
 * mpi_abort), and no schema reader, so a job of many thousands of processes opens in
 * memory of about a kilobyte per process. hpc_proc_load reads the rest when needed.
 */
HPC_API int hpc_exp_open_lean(hpc_exp **out, const char *path, hpc_diag *d);
/*
 * The same, but every process keeps all its records except the schema's and the member
 * lists of its communicators (mpi_comm's members and remote are empty: those lists hold
 * N world ranks in each process of an N-rank job), and no schema reader: what
 * hpanalyze's reports read of a process, in memory that does not grow with the job. A
 * slim record's raw is empty (its fields hold what is kept). hpc_proc_load reads the
 * rest (a dump does).
 */
HPC_API int hpc_exp_open_slim(hpc_exp **out, const char *path, hpc_diag *d);
/* Read all of a lean process's records and open its schema again (damage is reported
 * to d again: pass a quiet one when it was reported at open). Returns 0 (also when p was
 * not lean), or a negative hpc_err; p is then still lean and usable as such. */
HPC_API int hpc_proc_load(hpc_proc *p, hpc_diag *d);
/* Make p lean again (hpc_exp_open_lean, or slim: hpc_exp_open_slim): its other records
 * and schema are freed. */
HPC_API void hpc_proc_unload(hpc_proc *p);
HPC_API void hpc_exp_close(hpc_exp *e);

/* Open a lean (or slim) process's schema reader into p->schema for a while: its thread
 * streams, opened one after the other with hpc_thread_open, then share one reading of
 * process.hpe's schema. Returns 0 (also when p is not lean), or a negative hpc_err (p
 * then reads the schema per stream, as without this). hpc_proc_schema_close (or
 * hpc_proc_unload) lets go of it. */
HPC_API int hpc_proc_schema_open(hpc_proc *p);
HPC_API void hpc_proc_schema_close(hpc_proc *p);

/* Open thread t of process p for reading (its life in its stream, with p's schema, read
 * for the occasion when p is lean and its schema is not open).
 * Returns 0 and *out, or a negative hpc_err after reporting to d. */
HPC_API int hpc_thread_open(hpc_reader **out, const hpc_proc *p, const hpc_thread_file *t,
                            hpc_diag *d);

/* One kind of loss of a process (losses.c): what was not recorded, and how much. */
typedef struct hpc_loss {
    enum hpc_stat stat; /* the statistic it counts */
    const char *what;   /* "samples not recorded: disk full" */
    uint64_t count;
    uint64_t after_ns; /* when, after the process began (the size limit); 0 = not known */
} hpc_loss;

/* The losses of p, into out (up to cap of them, in a fixed order); returns how many
 * there are. The same list for hpcollect's exit message, the `functions` header and
 * hpmerge's problems. */
HPC_API size_t hpc_proc_losses(const hpc_proc *p, hpc_loss *out, size_t cap);
/* "1234 samples not recorded: size limit (-L) reached after 0.520 s"; returns buf. */
HPC_API char *hpc_loss_text(const hpc_loss *l, char *buf, size_t cap);

/* Iterate a process's loaded records of one kind: start with *i = 0. */
HPC_API const hpc_record *hpc_proc_next_of(const hpc_proc *p, unsigned kind, size_t *i);

/* Open path for reading only if it is a regular file, never blocking on the way (a FIFO
 * or device in its place). Returns the descriptor (O_CLOEXEC) with *st filled (st may be
 * NULL), or HPC_E_NOTFOUND, HPC_E_IO (errno says why) or HPC_E_NOTREG. */
struct stat;
HPC_API int hpc_open_regular(const char *path, struct stat *st);

/* Copy an hpc_str into a NUL-terminated buffer (truncating); returns buf. */
HPC_API char *hpc_str_copy(char *buf, size_t cap, hpc_str s);
/* True if s equals the C string c. */
HPC_API bool hpc_str_eq(hpc_str s, const char *c);

/* ----------------------------------------------------------------- layout */

/* hpc_layout_job_dir flags */
#define HPC_LAYOUT_OVERWRITE 1u /* -O: replace an existing experiment of the same name */
#define HPC_LAYOUT_DRYRUN    2u /* -n: only say where it would go (or why not); make nothing */

/*
 * Create or join the job experiment directory, race-free across concurrent launchers.
 *   dir      directory to create it in (-d), NULL = "."; for a bare name or none
 *   name     -o NAME, or NULL: a bare name is made in dir, a name with '/' is a path
 *            (relative to the cwd, or absolute) whose missing parent directories are
 *            made; ".hpc" is appended if missing
 *   prog     program name for the default "<basename>.<N>.hpc"
 *   job_id   launcher job id: launchers with the same id join the same experiment
 *            (the first one creates it, under a lock, with the next free N); NULL = none
 *   flags    HPC_LAYOUT_OVERWRITE: an existing experiment NAME (not of this job) is
 *            emptied and reused; without it, an existing non-empty NAME is refused
 * Nothing is created or opened through a symbolic link: a link planted as the lock file
 * (DIR/.hpcollect.lock) or as NAME gives HPC_E_SYMLINK; a directory is used only when
 * it is ours (HPC_E_NOTOURS, HPC_E_NOTDIR otherwise). -O replaces only an experiment
 * (HPC_E_NOTEXP for any other directory); an existing NAME without -O is HPC_E_EXISTS.
 * On success writes the absolute path into out and returns 1 if this call created the
 * directory (the caller then writes job.hpe), 0 if it joined an existing one.
 * Returns a negative hpc_err (errno set) on failure; out then names the path refused
 * when it is known ("" otherwise). With HPC_LAYOUT_DRYRUN nothing is made (not even the
 * lock file): 1 = would be created, 2 = -O would replace the experiment there, or the
 * hpc_err a real call would meet (job ids are not looked at).
 */
HPC_API int hpc_layout_job_dir(char *out, size_t cap, const char *dir, const char *name,
                               const char *prog, const char *job_id, unsigned flags);

/*
 * Create the sub-experiment directory EXP/name; if it exists (two launchers of one job
 * that claim the same name), a free variant "name_2", "name_3", ... is made instead. The name
 * chosen is written to out (cap bytes). Returns 0 or a negative hpc_err. Signal-safe (mkdir only).
 */
HPC_API int hpc_layout_subexp(char *out, size_t cap, const char *job_dir, const char *name);

#ifdef __cplusplus
}
#endif
#endif /* HPC_EXPERIMENT_H */
