/*
 * ompt_stamp - the cheapest OMPT tool that still does something: it registers the
 * callbacks hpcollect registers for a parallel region and its barriers, and each one reads
 * CLOCK_MONOTONIC into a per-thread slot; nothing is recorded. It is the yardstick of
 * issue 24's fork/join target (hpcollect's added cost within 1.3x of this tool's), loaded
 * with OMP_TOOL_LIBRARIES=build/bench/libompt_stamp.so (bench/forkjoin_bench.py).
 */
#include <omp-tools.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static __thread struct timespec last; /* the stamp: kept so the read is not dropped */
static __thread unsigned long events;

/* OMPT_STAMP=record: each callback also stores a 32-byte record (time, event number and
 * two words) into a per-thread ring in memory, the least any tool that keeps its events
 * must do; nothing is encoded or written to a file. */
#define RING 32768 /* records: 1 MiB a thread */
typedef struct stamp_rec {
    uint64_t ns, n, a, b;
} stamp_rec;
static __thread stamp_rec *ring;
static int keep; /* OMPT_STAMP=record */

static void stamp(void)
{
    clock_gettime(CLOCK_MONOTONIC, &last);
    events++;
    if (!keep)
        return;
    if (ring == NULL && (ring = calloc(RING, sizeof *ring)) == NULL)
        return;
    stamp_rec *r = &ring[events % RING];
    r->ns = (uint64_t)last.tv_sec * 1000000000u + (uint64_t)last.tv_nsec;
    r->n = events;
    r->a = (uint64_t)(uintptr_t)&last;
    r->b = 0;
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int n, int flags, const void *ra)
{
    (void)task, (void)frame, (void)parallel, (void)n, (void)flags, (void)ra;
    stamp();
}

static void on_parallel_end(ompt_data_t *parallel, ompt_data_t *task, int flags, const void *ra)
{
    (void)parallel, (void)task, (void)flags, (void)ra;
    stamp();
}

static void on_implicit_task(ompt_scope_endpoint_t ep, ompt_data_t *parallel, ompt_data_t *task,
                             unsigned int n, unsigned int index, int flags)
{
    (void)ep, (void)parallel, (void)task, (void)n, (void)index, (void)flags;
    stamp();
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t ep, ompt_data_t *parallel,
                           ompt_data_t *task, const void *ra)
{
    (void)kind, (void)ep, (void)parallel, (void)task, (void)ra;
    stamp();
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread)
{
    (void)type, (void)thread;
    stamp();
}

/* The callbacks hpcollect registers beyond a region's and its barriers' (OMPT_STAMP=all):
 * whether libomp itself runs slower for a tool that asks for them. */
static void on_thread_end(ompt_data_t *thread)
{
    (void)thread;
    stamp();
}

static void on_work(ompt_work_t type, ompt_scope_endpoint_t ep, ompt_data_t *parallel,
                    ompt_data_t *task, uint64_t count, const void *ra)
{
    (void)type, (void)ep, (void)parallel, (void)task, (void)count, (void)ra;
    stamp();
}

static void on_masked(ompt_scope_endpoint_t ep, ompt_data_t *parallel, ompt_data_t *task,
                      const void *ra)
{
    (void)ep, (void)parallel, (void)task, (void)ra;
    stamp();
}

static void on_task_create(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *next,
                           int flags, int deps, const void *ra)
{
    (void)task, (void)frame, (void)next, (void)flags, (void)deps, (void)ra;
    stamp();
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    (void)prior, (void)status, (void)next;
    stamp();
}

static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t id, const void *ra)
{
    (void)kind, (void)hint, (void)impl, (void)id, (void)ra;
    stamp();
}

static void on_mutex(ompt_mutex_t kind, ompt_wait_id_t id, const void *ra)
{
    (void)kind, (void)id, (void)ra;
    stamp();
}

static void on_nest_lock(ompt_scope_endpoint_t ep, ompt_wait_id_t id, const void *ra)
{
    (void)ep, (void)id, (void)ra;
    stamp();
}

static void register_all(ompt_set_callback_t set)
{
    set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
    set(ompt_callback_reduction, (ompt_callback_t)on_sync_region);
    set(ompt_callback_mutex_acquire, (ompt_callback_t)on_mutex_acquire);
    set(ompt_callback_mutex_acquired, (ompt_callback_t)on_mutex);
    set(ompt_callback_mutex_released, (ompt_callback_t)on_mutex);
    set(ompt_callback_nest_lock, (ompt_callback_t)on_nest_lock);
    set(ompt_callback_work, (ompt_callback_t)on_work);
    set(ompt_callback_masked, (ompt_callback_t)on_masked);
    set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
    set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
}

static int init(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device, (void)data;
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
    set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    set(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
    set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
    set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
    set(ompt_callback_sync_region_wait, (ompt_callback_t)on_sync_region);
    const char *how = getenv("OMPT_STAMP");
    if (how != NULL && strcmp(how, "all") == 0)
        register_all(set);
    keep = how != NULL && strcmp(how, "record") == 0;
    return 1;
}

static void fini(ompt_data_t *data)
{
    (void)data;
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int version, const char *runtime)
{
    (void)version, (void)runtime;
    static ompt_start_tool_result_t r = {init, fini, {0}};
    return &r;
}
