/*
 * metrics_recorded.c - the metrics an experiment brings with what it recorded, added to
 * the base set (CPU time, samples) before the thread streams are read:
 *
 *   - one per counter name (-h), over all processes: "page-faults", "cycles", ... with
 *     the unit of its counter_def; JSON/CSV keys excl_<name>, incl_<name>;
 *   - for a counter of cycles whose process knew its clock rate, the same counts as time,
 *     "<name>_time" (er_print shows cycle counters as time): each sample adds
 *     value / cpu_hz of its own process, so hosts of different speeds add up right; the
 *     count metric is then hidden by default but stays selectable;
 *   - "mpi_cpu" (alias "mpi"), the CPU time of clock samples taken inside MPI calls
 *     (HPC_STATE_MPI): MPI time as sampled, inclusive in the callers of the MPI calls.
 *     Shown by default when a process called MPI_Init.
 *   - the reference's MPI tracing metrics, from the traced calls (mpi_call records and
 *     their details, each on its call's calling context, mpi_call.node): "mpi_time" (MPI
 *     Time, titled "MPI" as CPU time is "Total CPU"; shown by default with MPI data), "mpi_sends",
 * "mpi_bytes_sent", "mpi_receives", "mpi_bytes_received" (point-to-point, as the reference counts
 * them) and "mpi_other" (Other MPI Events: calls that neither send nor receive), selectable with
 * `metrics`. Every MPI call counts, MPI_Init and MPI_Finalize too (the `mpi` report's MPITime
 * leaves those out, as mpiP does); a call made from inside another (user operators, callbacks) adds
 * no time of its own.
 *
 *   - the reference's synchronization wait tracing metrics (-s), from the sync_wait
 *     records, each on its waiting call's calling context: "sync_wait" (Sync Wait Time,
 *     alias "sync") and "sync_count" (Sync Wait Count, alias "syncn"), shown by default
 *     when a process traced them (its tracer record of kind HPC_TRACE_SYNC).
 *   - heap tracing's (-H, model/heap.h): "heap_allocs" (Allocations), "heap_bytes" (Bytes
 *     Allocated), "heap_leaks" (Leaks), "heap_leaked_bytes" (Bytes Leaked), each block on
 *     its allocation's calling context; er_print's names heapalloccnt, heapallocbytes,
 *     heapleakcnt, heapleakbytes are aliases. Shown by default when a process traced its heap;
 *     beside them, selectable: "heap_peak_blocks", "heap_peak_bytes" (what each stack held at
 *     its process's peak of bytes in use) and "heap_temporary" (blocks freed right after).
 *
 * Per process, counter_def.index maps to these metrics (hpa_process.counter_metric,
 * counter_time_metric, counter_hz); profile.c's loader adds each sample_counter to both.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"

static char *own(hpa_profile *p, const char *text)
{
    char **v = realloc(p->owned, sizeof(*v) * (p->nowned + 1));
    if (!v)
        return NULL;
    p->owned = v;
    char *c = strdup(text);
    if (c)
        p->owned[p->nowned++] = c;
    return c;
}

/* The metric named key, made with def (key, title and unit copied) if it is new. */
static int find_or_add(hpa_profile *p, const char *key, const char *title, const char *unit,
                       hpa_metric def)
{
    int m = hpa_metrics_find(&p->metrics, key);
    if (m >= 0)
        return m;
    def.key = own(p, key);
    def.title = own(p, title);
    def.unit = own(p, unit);
    if (!def.key || !def.title || !def.unit)
        return HPC_E_NOMEM;
    m = hpa_metrics_add(&p->metrics, &def);
    return m < 0 ? INT_MIN : m; /* INT_MIN: the set is full; the counter is not shown */
}

static int add_counter(hpa_profile *p, hpa_process *pr, const hpc_rec_counter_def *c)
{
    char name[200], unit[64], key[240], title[240];
    hpc_str_copy(name, sizeof(name), c->name);
    hpc_str_copy(unit, sizeof(unit), c->unit);
    bool as_time = (c->flags & HPC_COUNTER_CYCLES) && c->cpu_hz;
    hpa_metric counts = {.source = HPA_SRC_COUNTER, .scale = 1, .visible = !as_time};
    int m = find_or_add(p, name, name, unit, counts);
    if (m == HPC_E_NOMEM)
        return m;
    if (m >= 0)
        pr->counter_metric[c->index] = (unsigned)m;
    if (!as_time)
        return 0;
    hpa_metric time = {.source = HPA_SRC_COUNTER, .scale = 1e-9, .time = true, .visible = true};
    snprintf(key, sizeof(key), "%s_time", name);
    snprintf(title, sizeof(title), "%s time", name);
    int t = find_or_add(p, key, title, "sec.", time);
    if (t == HPC_E_NOMEM)
        return t;
    if (t >= 0) {
        pr->counter_time_metric[c->index] = (unsigned)t;
        pr->counter_hz[c->index] = c->cpu_hz;
        if (m >= 0) /* both columns count while no selection hides the events */
            p->metrics.m[m].visible = false;
    }
    return 0;
}

static int add_mpi_cpu(hpa_profile *p, bool visible)
{
    hpa_metric mpi = {.source = HPA_SRC_CLOCK_TIME,
                      .state_mask = HPC_STATE_MPI,
                      .state_value = HPC_STATE_MPI,
                      .scale = 1e-9,
                      .time = true,
                      .visible = visible};
    int m = find_or_add(p, "mpi_cpu", "MPI CPU", "sec.", mpi);
    return m == HPC_E_NOMEM ? m : 0;
}

static int add_mpi_traced(hpa_profile *p, bool visible)
{
    static const struct {
        const char *key, *title, *unit;
        enum hpa_mpi_what what;
    } defs[] = {
        {"mpi_time", "MPI", "sec.", HPA_MPI_TIME}, /* shown as "MPI Time" */
        {"mpi_sends", "MPI Sends", "", HPA_MPI_SENDS},
        {"mpi_bytes_sent", "MPI Bytes Sent", "", HPA_MPI_BYTES_SENT},
        {"mpi_receives", "MPI Receives", "", HPA_MPI_RECEIVES},
        {"mpi_bytes_received", "MPI Bytes Received", "", HPA_MPI_BYTES_RECEIVED},
        {"mpi_other", "Other MPI Events", "", HPA_MPI_OTHER},
    };
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
        bool time = defs[i].what == HPA_MPI_TIME;
        hpa_metric m = {.source = HPA_SRC_MPI,
                        .mpi = defs[i].what,
                        .scale = time ? 1e-9 : 1,
                        .time = time,
                        .visible = visible && time};
        int k = find_or_add(p, defs[i].key, defs[i].title, defs[i].unit, m);
        if (k == HPC_E_NOMEM)
            return k;
    }
    return 0;
}

/* gprofng's I/O metrics, under its names (the metric list of an experiment with -i). */
static int add_io_traced(hpa_profile *p, bool visible)
{
    static const struct {
        const char *key, *title;
        enum hpa_io_what what;
        bool time, shown;
    } defs[] = {
        {"ioreadtime", "Read Time", HPA_IO_READ_TIME, true, true},
        {"ioreadbytes", "Read Bytes", HPA_IO_READ_BYTES, false, false},
        {"ioreadcnt", "Read Count", HPA_IO_READ_COUNT, false, false},
        {"iowritetime", "Write Time", HPA_IO_WRITE_TIME, true, true},
        {"iowritebytes", "Write Bytes", HPA_IO_WRITE_BYTES, false, false},
        {"iowritecnt", "Write Count", HPA_IO_WRITE_COUNT, false, false},
        {"ioothertime", "Other I/O Time", HPA_IO_OTHER_TIME, true, true},
        {"ioothercnt", "Other I/O Count", HPA_IO_OTHER_COUNT, false, false},
        {"ioerrortime", "I/O Error Time", HPA_IO_ERROR_TIME, true, true},
        {"ioerrorcnt", "I/O Error Count", HPA_IO_ERROR_COUNT, false, false},
    };
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
        hpa_metric m = {.source = HPA_SRC_IO,
                        .io = defs[i].what,
                        .scale = defs[i].time ? 1e-9 : 1,
                        .time = defs[i].time,
                        .visible = visible && defs[i].shown};
        int k = find_or_add(p, defs[i].key, defs[i].title, defs[i].time ? "sec." : "", m);
        if (k == HPC_E_NOMEM)
            return k;
    }
    return 0;
}

/* Did the process trace I/O (-i)? */
static bool traced_io(const hpa_process *pr)
{
    size_t it = 0;
    const hpc_record *r = hpc_proc_next_of(pr->proc, HPC_K_settings, &it);
    return r && r->u.settings.io_trace;
}

static int add_sync(hpa_profile *p, bool visible)
{
    hpa_metric time = {.source = HPA_SRC_SYNC,
                       .sync = HPA_SYNC_TIME,
                       .scale = 1e-9,
                       .time = true,
                       .visible = visible};
    hpa_metric count = {
        .source = HPA_SRC_SYNC, .sync = HPA_SYNC_COUNT, .scale = 1, .visible = visible};
    int m = find_or_add(p, "sync_wait", "Sync Wait", "sec.", time);
    if (m != HPC_E_NOMEM)
        m = find_or_add(p, "sync_count", "Sync Wait Count", "", count);
    return m == HPC_E_NOMEM ? m : 0;
}

/* Did process pr trace synchronization waits (-s)? */
static bool traced_sync(const hpa_process *pr)
{
    size_t it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(pr->proc, HPC_K_tracer, &it));)
        if (r->u.tracer.kind == HPC_TRACE_SYNC)
            return true;
    return false;
}

/* Heap tracing's metrics (-H), shown by default when a process traced its heap. */
static int add_heap(hpa_profile *p)
{
    static const struct {
        const char *key, *title;
        enum hpa_heap_what what;
    } defs[] = {
        {"heap_allocs", "Allocations", HPA_HEAP_ALLOCS},
        {"heap_bytes", "Bytes Allocated", HPA_HEAP_BYTES},
        {"heap_leaks", "Leaks", HPA_HEAP_LEAKS},
        {"heap_leaked_bytes", "Bytes Leaked", HPA_HEAP_LEAKED_BYTES},
        {"heap_peak_blocks", "Blocks at Peak", HPA_HEAP_PEAK_BLOCKS},
        {"heap_peak_bytes", "Bytes at Peak", HPA_HEAP_PEAK_BYTES},
        {"heap_temporary", "Temporary Allocations", HPA_HEAP_TEMPORARY},
    };
    for (size_t i = 0; i < sizeof defs / sizeof defs[0]; i++) {
        hpa_metric m = {.source = HPA_SRC_HEAP,
                        .heap = defs[i].what,
                        .scale = 1,
                        .visible = defs[i].what <= HPA_HEAP_LEAKED_BYTES};
        if (find_or_add(p, defs[i].key, defs[i].title, "", m) == HPC_E_NOMEM)
            return HPC_E_NOMEM;
    }
    return 0;
}

int hpa_metrics_from_records(hpa_profile *p)
{
    bool mpi = false, sync = false, heap = false, io = false;
    for (size_t i = 0; i < p->nprocs; i++) {
        hpa_process *pr = &p->procs[i];
        memset(pr->counter_metric, 0xff, sizeof(pr->counter_metric));
        memset(pr->counter_time_metric, 0xff, sizeof(pr->counter_time_metric));
        size_t it = 0;
        for (const hpc_record *r; (r = hpc_proc_next_of(pr->proc, HPC_K_counter_def, &it));) {
            if (r->u.counter_def.index >= 64)
                continue;
            int rc = add_counter(p, pr, &r->u.counter_def);
            if (rc < 0)
                return rc;
        }
        mpi = mpi || hpc_proc_next_of(pr->proc, HPC_K_mpi_init, &(size_t){0});
        sync = sync || traced_sync(pr);
        heap = heap || pr->proc->settings.heap_trace;
        io = io || traced_io(pr);
    }
    int rc = add_mpi_cpu(p, mpi);
    if (rc == 0)
        rc = add_mpi_traced(p, mpi);
    if (rc == 0)
        rc = add_sync(p, sync);
    if (rc == 0 && heap)
        rc = add_heap(p);
    return rc < 0 || !io ? rc : add_io_traced(p, true);
}
