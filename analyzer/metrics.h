/*
 * metrics.h - what a sample contributes to: the metric set of an analysis.
 *
 * A metric is one column of numbers (CPU time, sample count, a counter's events, MPI
 * time ...). Each sample adds its value to every metric whose source and state predicate
 * match it, into a per-(thread, CCT node, state) vector of uint64 sums (profile.h). Reports
 * then sum those vectors over functions, lines or call paths, and print each metric as
 * exclusive and inclusive values.
 *
 * Adding a metric (issues 3-5): append an hpa_metric with hpa_metrics_add(): a state
 * predicate selects samples (e.g. MPI bit set, an OpenMP wait state), a counter index
 * selects counter samples. Nothing else in the pipeline changes.
 */
#ifndef HPA_METRICS_H
#define HPA_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HPA_MAX_METRICS 48

enum hpa_metric_source {
    HPA_SRC_CLOCK_TIME = 1,  /* sample_clock: adds cpu_ns */
    HPA_SRC_CLOCK_COUNT = 2, /* sample_clock: adds 1 */
    HPA_SRC_COUNTER = 3,     /* sample_counter of counter `counter`: adds value */
    HPA_SRC_MPI = 4,         /* mpi_call and its details: adds the number `mpi` says */
    HPA_SRC_HEAP = 5,        /* heap_alloc (-H): adds the number `heap` says */
    HPA_SRC_SYNC = 6,        /* sync_wait (-s): adds the number `sync` says */
    HPA_SRC_IO = 7,          /* io_op (-i): adds the number `io` says */
};

/* What an HPA_SRC_HEAP metric adds per block allocated (the reference's heap tracing
 * metrics), on the allocation's calling context. */
enum hpa_heap_what {
    HPA_HEAP_ALLOCS = 0,   /* 1 */
    HPA_HEAP_BYTES,        /* its size */
    HPA_HEAP_LEAKS,        /* 1 if never freed (model/heap.h) */
    HPA_HEAP_LEAKED_BYTES, /* its size if never freed */
    HPA_HEAP_PEAK_BLOCKS,  /* 1 if held at the process's peak of bytes in use */
    HPA_HEAP_PEAK_BYTES,   /* its size if held at the peak */
    HPA_HEAP_TEMPORARY,    /* 1 if freed right after (model/heap.h) */
};

/* What an HPA_SRC_SYNC metric adds per recorded wait (the reference's Sync Wait Time and
 * Sync Wait Count). */
enum hpa_sync_what {
    HPA_SYNC_TIME = 0, /* the wait, request to grant, ns */
    HPA_SYNC_COUNT,    /* 1 */
};

/* What an HPA_SRC_IO metric adds per traced I/O call (gprofng's I/O metrics: a call that
 * failed counts as I/O Error only, whatever its class). */
enum hpa_io_what {
    HPA_IO_READ_TIME = 0, /* ns */
    HPA_IO_READ_BYTES,
    HPA_IO_READ_COUNT,
    HPA_IO_WRITE_TIME,
    HPA_IO_WRITE_BYTES,
    HPA_IO_WRITE_COUNT,
    HPA_IO_OTHER_TIME,
    HPA_IO_OTHER_COUNT,
    HPA_IO_ERROR_TIME,
    HPA_IO_ERROR_COUNT,
    HPA_IO_WHAT_COUNT_
};

/* What an HPA_SRC_MPI metric adds per MPI call (the reference's MPI tracing metrics;
 * byte and message counts are point-to-point, as there). */
enum hpa_mpi_what {
    HPA_MPI_TIME = 0,       /* the call's duration, ns (nested calls: 0, in the outer one) */
    HPA_MPI_SENDS,          /* point-to-point sends started */
    HPA_MPI_BYTES_SENT,     /* their bytes */
    HPA_MPI_RECEIVES,       /* point-to-point receives completed */
    HPA_MPI_BYTES_RECEIVED, /* their bytes, as received */
    HPA_MPI_OTHER,          /* 1 for a call that neither sends nor receives */
};

typedef struct hpa_metric {
    const char *key;   /* JSON/CSV stem: "cpu" -> excl_cpu_s, incl_cpu_s */
    const char *title; /* text header: "Total CPU" */
    const char *unit;  /* text unit line: "sec." or "" (counts) */
    enum hpa_metric_source source;
    unsigned counter;    /* HPA_SRC_COUNTER: the counter's global index */
    unsigned mpi;        /* HPA_SRC_MPI: enum hpa_mpi_what */
    unsigned io;         /* HPA_SRC_IO: enum hpa_io_what */
    unsigned sync;       /* HPA_SRC_SYNC: enum hpa_sync_what */
    unsigned heap;       /* HPA_SRC_HEAP: enum hpa_heap_what */
    uint32_t state_mask; /* sample counts if (state & mask) == value */
    uint32_t state_value;
    uint32_t omp_states; /* non-zero: the sample also needs bit HPC_STATE_OMP(state) set here
                          * (a set of OpenMP states: OpenMP Work, OpenMP Wait) */
    double scale;        /* raw sum * scale = shown value (1e-9 for ns -> s) */
    bool time;           /* shown in seconds; JSON keys get "_s" */
    bool visible;        /* shown in text reports by default */
    /* HPA_SRC_COUNTER: sums of the samples' enabled/running times; running < enabled
     * means the counter group was multiplexed and its values are scaled estimates. */
    uint64_t enabled_ns, running_ns;
} hpa_metric;

/* Sum kinds a metric column can show; a selection entry holds a set of them. */
enum { HPA_KIND_E = 1, HPA_KIND_I = 2, HPA_KIND_A = 4 };

/* One entry of er_print's metrics list ("e.%cpu:i.page-faults"): which sums of a metric
 * reports show, in this order. */
typedef struct hpa_metric_sel {
    unsigned metric;
    unsigned kinds; /* HPA_KIND_* bits */
    bool pct;       /* text reports show the percentage next to the value */
} hpa_metric_sel;

typedef struct hpa_metrics {
    unsigned n;
    hpa_metric m[HPA_MAX_METRICS];
    unsigned cpu;     /* index of the CPU time metric */
    unsigned samples; /* index of the sample count metric */
    /* The `metrics` selection; nsel == 0: every visible metric, exclusive and inclusive,
     * with percentages (er_print's default e.%cpu:i.%cpu). */
    unsigned nsel;
    hpa_metric_sel sel[2 * HPA_MAX_METRICS];
} hpa_metrics;

/* Fill ms with the base metrics: CPU time (visible) and clock sample count. */
void hpa_metrics_init(hpa_metrics *ms);

/* Append a metric; returns its index, or -1 when the set is full. The strings are not
 * copied: they must outlive ms. */
int hpa_metrics_add(hpa_metrics *ms, const hpa_metric *m);

/* Index of the metric named key ("cpu", "samples", ...), or -1. */
int hpa_metrics_find(const hpa_metrics *ms, const char *key);

/*
 * Select the metrics reports show, er_print style: entries separated by ':', each
 * FLAVORS.[%]NAME where FLAVORS is any of e (exclusive), i (inclusive), a (attributed),
 * NAME a metric key or an er_print alias (totalcpu = cpu), % asks for percentages; a
 * bare NAME means ei.%NAME; "name" is accepted and ignored; "default" clears the
 * selection. Returns 0, or -1 with a message naming the bad entry in err (ms unchanged).
 */
int hpa_metrics_select(hpa_metrics *ms, const char *spec, char *err, size_t cap);

/* The selection as er_print prints it: "e.%cpu:i.%cpu:name". */
void hpa_metrics_sel_text(const hpa_metrics *ms, char *buf, size_t cap);

/* True if text reports show metric m (selected, or visible without a selection). */
bool hpa_metrics_selected(const hpa_metrics *ms, unsigned m);

/* Index of the metric named key or one of er_print's aliases (totalcpu, ompwork,
 * ompwait), or -1. */
int hpa_metrics_lookup(const hpa_metrics *ms, const char *name);

/* True if a sample with these state bits counts for metric m. */
static inline bool hpa_metric_counts(const hpa_metric *m, uint32_t state)
{
    if ((state & m->state_mask) != m->state_value)
        return false;
    return m->omp_states == 0 || (m->omp_states >> ((state >> 1) & 0xf) & 1); /* HPC_STATE_OMP */
}

/* The shown value of a raw sum of metric i. */
static inline double hpa_metric_value(const hpa_metrics *ms, unsigned i, uint64_t raw)
{
    return (double)raw * ms->m[i].scale;
}

#endif
