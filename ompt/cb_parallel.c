/*
 * cb_parallel.c - OMPT callbacks for threads, parallel regions and implicit tasks.
 *
 * Region ids are ours (process-unique, kept in parallel_data->value), so samples and
 * records of all threads agree on them. Task ids go into task_data->value as
 * (id << 1) | explicit, so the task-schedule callback can tell explicit tasks apart.
 *
 * What libomp 14 reports, and how we read it:
 *   - the initial thread gets an implicit task with flags ompt_task_initial: serial code;
 *   - the encountering thread sees parallel-begin, then its implicit-task begin, ...,
 *     implicit-task end, parallel-end; between them it is in fork/join overhead;
 *   - a worker's implicit barrier at the end of a region and its implicit-task end are
 *     reported when it is released for the NEXT region (or at shutdown), with a NULL
 *     parallel_data; so a worker's samples between the master's parallel-end and the next
 *     fork carry the implicit-barrier state of the old region. The analyzer turns the part
 *     after that region's parallel_end (a record with its time) into idle time.
 */
#include "omptool.h"

/* The record's thread type (enum hpc_omp_thread_type) of an OMPT one. */
static unsigned thread_type(ompt_thread_t type)
{
    switch (type) {
    case ompt_thread_initial:
        return HPC_OMP_THREAD_INITIAL;
    case ompt_thread_worker:
        return HPC_OMP_THREAD_WORKER;
    default:
        return HPC_OMP_THREAD_OTHER;
    }
}

/* The record's parallel flags (enum hpc_omp_parallel_flags) of OMPT's. */
static unsigned parallel_flags(int flags)
{
    unsigned f = 0;
    f |= flags & ompt_parallel_invoker_program ? HPC_OMP_PARALLEL_INVOKER_PROGRAM : 0;
    f |= flags & ompt_parallel_invoker_runtime ? HPC_OMP_PARALLEL_INVOKER_RUNTIME : 0;
    f |= flags & ompt_parallel_league ? HPC_OMP_PARALLEL_LEAGUE : 0;
    f |= flags & ompt_parallel_team ? HPC_OMP_PARALLEL_TEAM : 0;
    return f;
}

/* clang's source-location record (kmp.h's ident_t, the compiler's ABI). */
typedef struct kmp_ident {
    int32_t reserved_1, flags, reserved_2, reserved_3;
    const char *psource;
} kmp_ident;

/* The outlined body and clang's source string of the fork that returns to codeptr_ra,
 * from the slot fork.c's entry points filled on this thread (0 when it came another way);
 * the slot is used up. */
static void fork_taken(const void *codeptr_ra, uint64_t *outlined, uint64_t *psource)
{
    omptool_fork_slot *s = &omptool_fork;
    *outlined = *psource = 0;
    if (s->ra != 0 && s->ra == (uint64_t)(uintptr_t)codeptr_ra) {
        *outlined = s->outlined;
        if (s->ident)
            *psource = (uint64_t)(uintptr_t)((const kmp_ident *)(uintptr_t)s->ident)->psource;
    }
    s->ra = 0;
}

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data)
{
    omptool_thread *th = omptool_self();
    hpc_thread *self = omptool_collector();
    th->started = 1;
    th->depth = 0;
    th->base_state = type == ompt_thread_initial  ? HPC_OMP_STATE_SERIAL
                     : type == ompt_thread_worker ? HPC_OMP_STATE_IDLE
                                                  : HPC_OMP_STATE_NONE;
    thread_data->value = 0;
    omptool_publish(th, self);

    uint64_t now = omptool_now();
    hpc_thread *t = omptool_writer(self, now);
    if (t == NULL)
        return;
    hpc_rec_omp_thread r = {.time = now, .type = thread_type(type)};
    hpcollect_write_begin(t);
    int rc = hpc_write_omp_thread(&t->stream, &r);
    hpcollect_write_end(t);
    omptool_check_write(t, rc);
}

static void on_thread_end(ompt_data_t *thread_data)
{
    (void)thread_data;
    omptool_thread *th = omptool_self();
    th->depth = 0;
    th->base_state = HPC_OMP_STATE_NONE;
    omptool_publish(th, omptool_collector());
    omptool_context_release(th);
}

static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism,
                              int flags, const void *codeptr_ra)
{
    (void)encountering_task_data;
    omptool_thread *th = omptool_self();
    hpc_thread *self = omptool_collector();
    uint64_t parent = omptool_current_region(th);
    uint64_t id = omptool_next_region_id();
    parallel_data->value = id;
    uint64_t outlined, psource;
    fork_taken(codeptr_ra, &outlined, &psource);
    /* its codeptr tells its join barrier (cb_sync.c) */
    omptool_push(th, self, OMPTOOL_F_FORK, HPC_OMP_STATE_OVERHEAD, id, 0,
                 (uint64_t)(uintptr_t)codeptr_ra);

    uint64_t now = omptool_now();
    hpc_thread *t = omptool_writer(self, now);
    if (t == NULL)
        return;
    hpcollect_write_begin(t);
    const void *enter = encountering_task_frame ? encountering_task_frame->enter_frame.ptr : NULL;
    uint64_t node = omptool_context_at_construct(th, t, enter, codeptr_ra);
    hpc_rec_omp_parallel_begin r = {
        .time = now,
        .region = id,
        .parent_region = parent,
        .team_size = requested_parallelism,
        .flags = parallel_flags(flags),
        .codeptr = (uint64_t)(uintptr_t)codeptr_ra,
        .node = node,
        .outlined = outlined,
        .psource = psource,
    };
    int rc = hpc_write_omp_parallel_begin(&t->stream, &r);
    hpcollect_write_end(t);
    omptool_check_write(t, rc);
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                            int flags, const void *codeptr_ra)
{
    (void)encountering_task_data, (void)flags, (void)codeptr_ra;
    omptool_thread *th = omptool_self();
    hpc_thread *self = omptool_collector();
    uint64_t id = parallel_data ? parallel_data->value : 0;
    omptool_pop(th, self, OMPTOOL_F_FORK, 0);

    uint64_t now = omptool_now();
    hpc_thread *t = omptool_writer(self, now);
    if (t == NULL)
        return;
    hpc_rec_omp_parallel_end r = {.time = now, .region = id};
    hpcollect_write_begin(t);
    int rc = hpc_write_omp_parallel_end(&t->stream, &r);
    hpcollect_write_end(t);
    omptool_check_write(t, rc);
}

static inline __attribute__((always_inline)) void
write_implicit_task(hpc_thread *self, unsigned endpoint, uint64_t region, uint64_t team_size,
                    uint64_t thread_num)
{
    uint64_t now = omptool_now();
    hpc_thread *t = omptool_writer(self, now);
    if (t == NULL)
        return;
    hpc_rec_omp_implicit_task r = {
        .time = now,
        .endpoint = endpoint,
        .region = region,
        .team_size = team_size,
        .thread_num = thread_num,
    };
    hpcollect_write_begin(t);
    int rc = hpc_write_omp_implicit_task(&t->stream, &r);
    hpcollect_write_end(t);
    omptool_check_write(t, rc);
}

/* Team size of the innermost region: libomp 14 passes 0 as actual_parallelism. */
static unsigned team_size_now(unsigned reported)
{
    if (reported != 0 || omptool_g.get_parallel_info == NULL)
        return reported;
    ompt_data_t *pd = NULL;
    int size = 0;
    if (omptool_g.get_parallel_info(0, &pd, &size) != 2 || size < 0)
        return 0;
    return (unsigned)size;
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual_parallelism,
                             unsigned int index, int flags)
{
    omptool_thread *th = omptool_self();
    hpc_thread *self = omptool_collector();
    bool initial = (flags & ompt_task_initial) != 0;

    if (endpoint == ompt_scope_begin) {
        uint64_t tid = omptool_next_task_id(th) << 1;
        task_data->value = tid;
        if (initial) {
            omptool_push(th, self, OMPTOOL_F_INITIAL, HPC_OMP_STATE_SERIAL, 0, tid, 0);
            return;
        }
        uint64_t region = parallel_data ? parallel_data->value : 0;
        omptool_push(th, self, OMPTOOL_F_IMPLICIT, HPC_OMP_STATE_WORK, region, tid, 0);
        write_implicit_task(self, HPC_OMP_BEGIN, region, team_size_now(actual_parallelism), index);
        /* a worker still on its first clock, a CPU timer, may go unsampled: source.h */
        hpc_inlib_clock_check(self);
        return;
    }

    if (initial) {
        omptool_pop(th, self, OMPTOOL_F_INITIAL, 0);
        return;
    }
    omptool_frame *f = omptool_pop(th, self, OMPTOOL_F_IMPLICIT, task_data ? task_data->value : 0);
    uint64_t region = f ? f->region : parallel_data ? parallel_data->value : 0;
    write_implicit_task(self, HPC_OMP_END, region, actual_parallelism, index);
}

void omptool_register_parallel(void)
{
    omptool_register(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
    omptool_register(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
    omptool_register(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    omptool_register(ompt_callback_parallel_end, (ompt_callback_t)on_parallel_end);
    omptool_register(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
}
