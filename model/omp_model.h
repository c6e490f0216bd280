/*
 * omp_model.h - the one OpenMP model of hpanalyze and hpmerge: what an OpenMP state means,
 * which construct a record stands for and how it is named, and how one thread's records
 * become intervals (model/omp_timeline.c). `hpanalyze omp`, the user/expert views, the
 * Chrome export, hpmerge's OTF2 trace and its summary all read OpenMP through this file,
 * so they count the same time the same way and name the same construct the same way.
 *
 * Meanings (the reference's Clock-based Profiling for OpenMP Programs, on Linux):
 *   OpenMP Work   CPU time of threads in serial code or working in a parallel region
 *   OpenMP Wait   CPU time of threads waiting: barriers, taskwait, taskgroup, locks,
 *                 critical, ordered, atomic, reduction (spinning waits use CPU; a thread
 *                 that sleeps while waiting adds no CPU time, and shows in the traced
 *                 wall-clock wait only)
 *   idle          CPU time of worker threads outside parallel regions
 *   overhead      fork/join time of the runtime
 *   MPI           CPU time inside MPI calls, on any thread: neither work nor wait of
 *                 OpenMP (an MPI library's busy wait is MPI time)
 * The traced (wall-clock) counterparts come from the region, wait and mutex timestamps.
 *
 * Functions here are pure functions of their arguments unless said otherwise:
 * thread-safe, no allocation.
 */
#ifndef HPA_OMP_MODEL_H
#define HPA_OMP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "experiment.h"
#include "symbols.h"

/* ---------------------------------------------------------------- states */

/* Categories of OpenMP states a report sums over. */
enum hpa_omp_cat {
    HPA_OMP_CAT_NONE = 0,
    HPA_OMP_CAT_WORK,
    HPA_OMP_CAT_WAIT,
    HPA_OMP_CAT_IDLE,
    HPA_OMP_CAT_OVERHEAD,
    HPA_OMP_CAT_MPI, /* a sample inside an MPI call (state bit HPC_STATE_MPI) */
    HPA_OMP_CAT_COUNT
};

/* Wait kinds of the reports (states and traced records map onto these). */
enum hpa_omp_wait {
    HPA_OMP_W_IMPLICIT_BARRIER = 0,
    HPA_OMP_W_EXPLICIT_BARRIER,
    HPA_OMP_W_TASKWAIT,
    HPA_OMP_W_TASKGROUP,
    HPA_OMP_W_LOCK,
    HPA_OMP_W_CRITICAL,
    HPA_OMP_W_ORDERED,
    HPA_OMP_W_ATOMIC,
    HPA_OMP_W_REDUCTION,
    HPA_OMP_W_WORKSHARE_BARRIER, /* the implicit barrier ending a worksharing construct */
    HPA_OMP_W_BARRIER,           /* explicit or worksharing: gcc-built code on libomp */
    HPA_OMP_W_COUNT
};

/* The category of an OpenMP state (enum hpc_omp_state); unknown states are NONE. */
enum hpa_omp_cat hpa_omp_state_cat(unsigned omp_state);
/* The category of a sample's state bits (sample_clock.state after the rules below): MPI
 * when the sample is inside an MPI call, else its OpenMP state's. */
enum hpa_omp_cat hpa_omp_sample_cat(uint32_t state_bits);
/* Wait kind of a wait state, or -1. */
int hpa_omp_state_wait(unsigned omp_state);
/* "implicit_barrier", "lock_wait" ... as in the pseudo functions <OMP-...>; NULL for an
 * unknown state. */
const char *hpa_omp_state_name(unsigned omp_state);
/* Keys and titles of wait kinds: "implicit_barrier" / "Implicit barrier"; "?" if unknown. */
const char *hpa_omp_wait_key(int w);
const char *hpa_omp_wait_title(int w);

/* Wait kind of a traced omp_sync record's kind (enum hpc_omp_sync): "barrier" (explicit or
 * worksharing) for libomp's "implementation" barrier of gcc-built code and unknown kinds. */
int hpa_omp_sync_wait(uint64_t sync_kind);
/* Wait kind of a traced omp_mutex record's kind (enum hpc_omp_mutex): lock if unknown. */
int hpa_omp_mutex_wait(uint64_t mutex_kind);

/* ---------------------------------------------------------------- constructs */

/* Every construct the records stand for: the one table of names and roles. */
enum hpa_omp_construct {
    HPA_OC_NONE = 0,
    HPA_OC_PARALLEL,          /* the region: fork/join on the encountering thread, an
                                 implicit task on every member of the team */
    HPA_OC_IMPLICIT_BARRIER,  /* at the end of a parallel region */
    HPA_OC_WORKSHARE_BARRIER, /* implicit, at the end of a loop, sections or single */
    HPA_OC_BARRIER,           /* explicit */
    HPA_OC_BARRIER_OTHER,     /* either of the two above (gcc-built code on libomp) */
    HPA_OC_TASKWAIT,
    HPA_OC_TASKGROUP,
    HPA_OC_REDUCTION,
    HPA_OC_CRITICAL,        /* the whole construct: waiting, then holding */
    HPA_OC_CRITICAL_SBLOCK, /* the block, while held */
    HPA_OC_ORDERED,
    HPA_OC_ORDERED_SBLOCK,
    HPA_OC_LOCK,      /* omp_set_lock: the wait */
    HPA_OC_NEST_LOCK, /* omp_set_nest_lock: the wait */
    HPA_OC_ATOMIC,    /* the wait */
    HPA_OC_LOOP,
    HPA_OC_SECTIONS,
    HPA_OC_SINGLE,
    HPA_OC_WORKSHARE,
    HPA_OC_DISTRIBUTE,
    HPA_OC_TASKLOOP,
    HPA_OC_SCOPE,
    HPA_OC_TASK, /* an explicit task, while it executes */
    HPA_OC_MASKED,
    HPA_OC_COUNT
};

/* What a construct is, for formats with a fixed set of roles (OTF2's region roles). */
enum hpa_omp_role {
    HPA_OMP_ROLE_CODE = 0,
    HPA_OMP_ROLE_PARALLEL,
    HPA_OMP_ROLE_IMPLICIT_BARRIER,
    HPA_OMP_ROLE_BARRIER,
    HPA_OMP_ROLE_TASK_WAIT,
    HPA_OMP_ROLE_CRITICAL,
    HPA_OMP_ROLE_CRITICAL_SBLOCK,
    HPA_OMP_ROLE_ORDERED,
    HPA_OMP_ROLE_ORDERED_SBLOCK,
    HPA_OMP_ROLE_WRAPPER, /* an API call (omp_set_lock) */
    HPA_OMP_ROLE_ATOMIC,
    HPA_OMP_ROLE_LOOP,
    HPA_OMP_ROLE_SECTIONS,
    HPA_OMP_ROLE_SINGLE,
    HPA_OMP_ROLE_WORKSHARE,
    HPA_OMP_ROLE_TASK,
    HPA_OMP_ROLE_MASTER,
};

typedef struct hpa_omp_construct_info {
    const char *name;    /* as C writes the directive's name: "parallel", "for", "barrier";
                            API calls by their name: "omp_set_lock" */
    const char *fortran; /* Fortran's name where it differs ("do"), else NULL */
    const char *key;     /* stable identifier for JSON/CSV: "parallel", "loop",
                            "implicit_barrier", "workshare_barrier" */
    bool api;            /* an API call, not a directive: no "#pragma omp " prefix */
    uint8_t role;        /* enum hpa_omp_role */
    int8_t wait;         /* enum hpa_omp_wait when the construct is a wait, else -1 */
} hpa_omp_construct_info;

/* The table entry of construct c (HPA_OC_NONE's for an unknown c). Never NULL. */
const hpa_omp_construct_info *hpa_omp_construct(unsigned c);

/* The construct of an omp_sync record (enum hpc_omp_sync); an unknown kind is
 * HPA_OC_BARRIER_OTHER. */
unsigned hpa_omp_sync_construct(uint64_t sync_kind);
/* The construct of an omp_work record (enum hpc_omp_work); unknown: HPA_OC_LOOP. */
unsigned hpa_omp_work_construct(uint64_t work_kind);
/* The constructs of an omp_mutex record (enum hpc_omp_mutex): the wait (critical,
 * ordered: the whole construct) and, for critical and ordered, the block held
 * (*held, else HPA_OC_NONE). Unknown kinds are locks. */
unsigned hpa_omp_mutex_construct(uint64_t mutex_kind, unsigned *held);
/* The block held of a mutual-exclusion construct (critical, ordered), else HPA_OC_NONE. */
unsigned hpa_omp_held_construct(unsigned c);

/*
 * The construct's name as the code's language writes it: "#pragma omp for" (C, C++),
 * "!$omp do" (Fortran), "omp for" (unknown: no debug information), "omp_set_lock" (an API
 * call, any language). Writes at most cap bytes (NUL included) into buf; returns buf.
 */
char *hpa_omp_construct_name(unsigned c, enum hpa_lang lang, char *buf, size_t cap);

/* ---------------------------------------------------------------- sites */

/*
 * Where a construct is in the source, named as its author wrote it. A construct's code
 * addresses say it less well than one would think: with a tail call the runtime's return
 * address lies in the caller; after inlining it lies in the function that received the
 * inlined code; gcc's line for the call is often the end of the loop or a declaration.
 * So, in this order:
 *   function  clang's source-location string (psource, ";file;function;line;column;;",
 *             written with -g), else gcc's outlined name ("solve._omp_fn.0", "solve(...)
 *             [clone ._omp_fn.0]": the function it was outlined from), else the innermost
 *             function inlined at codeptr (DWARF), else codeptr's function;
 *   line      psource's line, else the first line row at the outlined function's entry (the
 *             pragma, for both compilers), else codeptr's line.
 * outlined, codeptr, psource: addresses in process m (0 = unknown). Returns the function id
 * (a made-up function of that name when the source function has no code of its own, e.g.
 * everywhere inlined) and the line id. NOT thread-safe (the symbol table).
 */
hpa_loc hpa_omp_site(hpa_symtab *st, hpa_modmap *m, uint64_t outlined, uint64_t codeptr,
                     uint64_t psource);

/* The function a compiler outlined `name` from: "solve" for "solve._omp_fn.3" and
 * "solve(int) [clone ._omp_fn.0]" (gcc), NULL for names that are not gcc's outlined bodies
 * (clang's ".omp_outlined." says nothing). Writes into buf (cap bytes). */
const char *hpa_omp_outlined_from(const char *name, char *buf, size_t cap);

/* ---------------------------------------------------------------- the runtime */

typedef struct hpa_omp_runtime {
    bool seen;      /* some OpenMP runtime is known to have run (record or module) */
    bool ompt;      /* it recorded OpenMP states (an OMPT tool was active) */
    bool replaced;  /* LLVM libomp ran a program that links GNU libgomp: hpcollect chose
                       it (--omp-runtime auto or llvm); its scheduling, spinning and
                       defaults are libomp's, not the ones the program was built for */
    char name[256]; /* "LLVM libomp (LLVM OMP version: 5.0.20140926)", "GNU libgomp" */
    char path[512];
    char asked[32]; /* --omp-runtime as asked, "" if not recorded */
} hpa_omp_runtime;

/* Which OpenMP runtime process p ran, from its omp_runtime record and, for old
 * experiments or a runtime opened late, its module list. */
void hpa_omp_runtime_of(const hpc_proc *p, hpa_omp_runtime *rt);

/*
 * One line for a person: "LLVM libomp (...): OpenMP states recorded (--omp-runtime auto)",
 * or, for a program built with gcc, "LLVM libomp (...) in place of the program's GNU
 * libgomp (--omp-runtime auto): OpenMP states recorded; libomp schedules and waits
 * differently than libgomp (hpcollect --omp-runtime native keeps libgomp, without
 * OpenMP states)". False (buf "") when no runtime was seen.
 */
bool hpa_omp_runtime_text(const hpa_omp_runtime *rt, char *buf, size_t cap);

/* ---------------------------------------------------------------- rules */

/*
 * The runtime's records and states do not say everything; these decide the rest, the
 * same way for samples (hpanalyze's buckets, hpmerge's summary) and for traced intervals
 * in reports (`hpanalyze omp`'s wall-clock columns). Traces (OTF2, Chrome) show each
 * thread's intervals at the times its own records give (omp_timeline below): the rules
 * classify time, they never move an event.
 */

/* Thread types of the omp_thread record (enum hpc_omp_thread_type), 0 when none. */
enum hpa_omp_thread_type {
    HPA_OMP_THREAD_UNKNOWN = 0, /* no omp_thread record: not an OpenMP thread (so far) */
    HPA_OMP_THREAD_INITIAL = HPC_OMP_THREAD_INITIAL,
    HPA_OMP_THREAD_WORKER = HPC_OMP_THREAD_WORKER,
};

/* What the rules need to know of one execution of a parallel region. */
typedef struct hpa_omp_exec {
    uint64_t t_end;   /* the encountering thread's parallel-end, 0 = not recorded */
    uint32_t enc_seq; /* the encountering thread */
} hpa_omp_exec;

/*
 * Rule 1, a worker's time in a region ends with the region: libomp reports a worker's
 * implicit-barrier end (and its implicit task's) only at the next fork, and the time
 * between is idle, not wait. Returns `end` clipped to the region's end when thread seq is
 * a worker of region x (not its encountering thread) and the end is known; else `end`.
 * x NULL (region unknown): `end`. For reports' sums only: a trace keeps the thread's time.
 */
uint64_t hpa_omp_region_time_end(const hpa_omp_exec *x, uint32_t seq, uint64_t end);

/*
 * Rule 2, time the runtime did not describe: a sample with no OpenMP state outside every
 * region (before the runtime started; libomp starts at the first construct), or a thread's
 * traced time outside every region. The initial thread ran serial code of an OpenMP
 * program there: HPC_OMP_STATE_SERIAL (work); other threads: HPC_OMP_STATE_NONE.
 */
unsigned hpa_omp_unreported_state(uint32_t thread_type);

/* True for a sample rule 2 decides (no OpenMP state, outside every region): its state
 * depends on the thread's type only. */
bool hpa_omp_sample_unreported(unsigned omp_state, uint64_t region);

/*
 * Both rules for one sample of thread seq (type thread_type) at `time` in state
 * omp_state and region `region` (0 = none), whose execution is x (NULL = unknown):
 * returns the OpenMP state the sample counts in. An implicit-barrier sample of a worker
 * after its region's end is HPC_OMP_STATE_IDLE; see hpa_omp_unreported_state for samples
 * outside every region.
 */
unsigned hpa_omp_sample_state(unsigned omp_state, uint64_t region, const hpa_omp_exec *x,
                              uint32_t seq, uint64_t time, uint32_t thread_type);

/* ---------------------------------------------------------------- one thread's timeline */

/*
 * One thread's OpenMP records in stream order become items: the fork and join of the
 * regions it encounters, the open and close of its implicit and explicit tasks (paired
 * here, innermost first, by region or task id), and the complete intervals of its waits,
 * worksharing and masked constructs. Every consumer (hpmerge's events, hpanalyze's
 * intervals and its Chrome export) reads OpenMP records only through this.
 *
 * Times are the thread's own: an item begins and ends at times its thread recorded,
 * nothing is clipped by another thread's times. Two repairs change a time, and each is
 * counted (hpa_omp_timeline.repaired, .closed_at_end) so that a tool can say so:
 *   - clocks: the MPI wrapper stamps calls with a TSC-based clock and the OpenMP tool with
 *     CLOCK_MONOTONIC; they may disagree by up to a microsecond. A call that, by the
 *     stream's order, comes after an OpenMP event but begins before it (or an event after
 *     a call that begins before the call ends) would break the nesting of the thread's
 *     events (and a trace writer would cut the call short). The OpenMP event's time is
 *     moved to the call's begin (end), not the call's, so MPI times stay as measured;
 *     only by at most HPA_OMP_SKEW_NS (larger differences are left as recorded);
 *   - tasks still open when the stream ends (a thread killed inside a region) close at
 *     the thread's last recorded time.
 * Items come out in stream order, but an item is held back (at most HPA_OMP_HOLD items)
 * until no later MPI call can need to move it, so a consumer may see samples before the
 * OpenMP item that precedes them in the stream.
 */

#define HPA_OMP_SKEW_NS 10000u
#define HPA_OMP_HOLD    64u
#define HPA_OMP_NEST    64u

enum hpa_omp_item_kind {
    HPA_OMP_IT_FORK = 1, /* parallel-begin on the encountering thread: begin = end = time */
    HPA_OMP_IT_JOIN,     /* parallel-end: begin = its fork's time (0 if unknown), end = time */
    HPA_OMP_IT_OPEN,     /* implicit (PARALLEL) or explicit (TASK) task begins: at begin */
    HPA_OMP_IT_CLOSE,    /* the task ends at end; begin = its OPEN's time */
    HPA_OMP_IT_SPAN,     /* one record's complete interval: a wait, worksharing, masked */
};

typedef struct hpa_omp_item {
    uint8_t kind;                    /* enum hpa_omp_item_kind */
    uint8_t construct;               /* enum hpa_omp_construct */
    uint8_t repaired;                /* a time of this item was moved (see above) */
    int8_t wait;                     /* enum hpa_omp_wait of a wait, else -1 */
    uint64_t begin, end;             /* see the kinds */
    uint64_t acquired;               /* mutex waits: the wait is [begin, acquired], the block held
                                        [acquired, end] (critical, ordered) */
    uint64_t region;                 /* parallel region id, 0 = none */
    uint64_t codeptr;                /* the construct's code address, 0 = unknown */
    uint64_t id;                     /* explicit task id; mutex wait id */
    uint64_t count;                  /* worksharing: iterations */
    uint32_t team;                   /* implicit task: the team's size (0 = not reported); fork:
                                        the threads requested */
    uint32_t thread_num;             /* implicit task: the thread's number in its team */
    hpc_rec_omp_parallel_begin fork; /* FORK: the record */
} hpa_omp_item;

typedef void (*hpa_omp_emit_fn)(void *arg, const hpa_omp_item *it);

typedef struct hpa_omp_timeline {
    hpa_omp_emit_fn emit;
    void *arg;
    /* open things, innermost last (deeper nesting is counted, not kept) */
    unsigned nimpl, nexpl, nfork;
    struct {
        uint64_t region, t;
        uint32_t team, thread_num;
    } impl[HPA_OMP_NEST];
    struct {
        uint64_t task, t;
    } expl[HPA_OMP_NEST];
    struct {
        uint64_t region, t, codeptr;
    } forks[HPA_OMP_NEST];
    /* items held back for the clock rule */
    unsigned nheld;
    hpa_omp_item held[HPA_OMP_HOLD];
    uint64_t mpi_enter, mpi_leave; /* the last MPI call, 0 = none */
    uint64_t newest;               /* the latest OpenMP time seen */
    uint64_t last;                 /* the latest time of any record seen */
    /* what was repaired, for the tool to report */
    uint64_t repaired;      /* items whose time was moved by the clock rule */
    uint64_t max_shift_ns;  /* by at most this much */
    uint64_t closed_at_end; /* tasks and parallel regions closed at the stream's end */
    uint64_t unpaired;      /* ends without their begin (left out) */
} hpa_omp_timeline;

/* Start a thread's timeline: items go to emit(arg, item). */
void hpa_omp_timeline_init(hpa_omp_timeline *tl, hpa_omp_emit_fn emit, void *arg);
/* The next record of the thread's stream, any kind (MPI calls and samples matter for the
 * clock rule and the stream's last time; kinds the model does not use are ignored). */
void hpa_omp_timeline_feed(hpa_omp_timeline *tl, const hpc_record *r);
/* The stream ended: close what is open, give out what is held. */
void hpa_omp_timeline_end(hpa_omp_timeline *tl);

#endif
