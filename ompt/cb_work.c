/*
 * cb_work.c - OMPT callbacks for worksharing constructs, masked, explicit tasks and
 * omp_control_tool.
 *
 * Worksharing and masked constructs do not change the thread's state (it works in them);
 * each becomes one record with its begin and end times. Explicit tasks push a work frame
 * while they execute, so a task run inside a barrier or taskwait counts as work, and
 * write omp_task create/begin/end records.
 *
 * omp_control_tool(omp_control_tool_pause / _start / _end) pauses and resumes the whole
 * collection, as the program's own way to restrict profiling to a phase.
 */
#include "omptool.h"

/* omp_control_tool commands and result (OpenMP 5.0 omp_control_tool_t); not taken from
 * <omp.h>, which belongs to whichever compiler builds us. */
enum { TOOL_START = 1, TOOL_PAUSE = 2, TOOL_FLUSH = 3, TOOL_END = 4, TOOL_SUCCESS = 0 };

static void write_work(const omptool_work *w, uint64_t now, uint64_t region)
{
    hpc_thread *t = omptool_writer(omptool_collector(), now);
    if (t == NULL)
        return;
    hpc_rec_omp_work r = {
        .kind = w->kind,
        .time_begin = w->t_begin,
        .time_end = now,
        .region = region,
        .count = w->count,
        .codeptr = w->codeptr,
    };
    hpcollect_write_begin(t);
    int rc = hpc_write_omp_work(&t->stream, &r);
    hpcollect_write_end(t);
    omptool_check_write(t, rc);
}

/* The record's kind (enum hpc_omp_work) of an OMPT worksharing type. */
static unsigned work_kind(ompt_work_t wstype)
{
    switch (wstype) {
    case ompt_work_loop:
        return HPC_OMP_WORK_LOOP;
    case ompt_work_sections:
        return HPC_OMP_WORK_SECTIONS;
    case ompt_work_single_executor:
        return HPC_OMP_WORK_SINGLE_EXECUTOR;
    case ompt_work_single_other:
        return HPC_OMP_WORK_SINGLE_OTHER;
    case ompt_work_workshare:
        return HPC_OMP_WORK_WORKSHARE;
    case ompt_work_distribute:
        return HPC_OMP_WORK_DISTRIBUTE;
    case ompt_work_taskloop:
        return HPC_OMP_WORK_TASKLOOP;
    default:
        return HPC_OMP_WORK_SCOPE;
    }
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                    ompt_data_t *task_data, uint64_t count, const void *codeptr_ra)
{
    (void)task_data;
    omptool_thread *th = omptool_self();
    uint64_t now = omptool_now();
    if (endpoint == ompt_scope_begin) {
        if (th->nwork < OMPTOOL_MAX_WORK)
            th->work[th->nwork] = (omptool_work){.t_begin = now,
                                                 .count = count,
                                                 .codeptr = (uint64_t)(uintptr_t)codeptr_ra,
                                                 .kind = (uint8_t)work_kind(wstype)};
        th->nwork++;
        return;
    }
    if (th->nwork == 0)
        return;
    th->nwork--;
    if (th->nwork >= OMPTOOL_MAX_WORK)
        return;
    omptool_work w = th->work[th->nwork];
    if (w.kind != (uint8_t)work_kind(wstype))
        return; /* unbalanced report: keep the stack, drop the record */
    if (w.count == 0)
        w.count = count;
    uint64_t region = parallel_data ? parallel_data->value : omptool_current_region(th);
    write_work(&w, now, region);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                      ompt_data_t *task_data, const void *codeptr_ra)
{
    (void)task_data;
    omptool_thread *th = omptool_self();
    uint64_t now = omptool_now();
    if (endpoint == ompt_scope_begin) {
        th->masked_begin = now;
        return;
    }
    hpc_thread *t = omptool_writer(omptool_collector(), now);
    if (t == NULL)
        return;
    hpc_rec_omp_masked r = {
        .time_begin = th->masked_begin ? th->masked_begin : now,
        .time_end = now,
        .region = parallel_data ? parallel_data->value : omptool_current_region(th),
        .codeptr = (uint64_t)(uintptr_t)codeptr_ra,
    };
    th->masked_begin = 0;
    hpcollect_write_begin(t);
    int rc = hpc_write_omp_masked(&t->stream, &r);
    hpcollect_write_end(t);
    omptool_check_write(t, rc);
}

/* The record's task flags (enum hpc_omp_task_flags) of OMPT's. */
static unsigned task_flags(int flags)
{
    unsigned f = 0;
    f |= flags & ompt_task_undeferred ? HPC_OMP_TASK_UNDEFERRED : 0;
    f |= flags & ompt_task_untied ? HPC_OMP_TASK_UNTIED : 0;
    f |= flags & ompt_task_final ? HPC_OMP_TASK_FINAL : 0;
    f |= flags & ompt_task_mergeable ? HPC_OMP_TASK_MERGEABLE : 0;
    f |= flags & ompt_task_merged ? HPC_OMP_TASK_MERGED : 0;
    return f;
}

/* The record's end status (enum hpc_omp_task_status) of an OMPT one. */
static unsigned task_status(ompt_task_status_t status)
{
    switch (status) {
    case ompt_task_cancel:
        return HPC_OMP_TASK_CANCEL;
    case ompt_task_detach:
        return HPC_OMP_TASK_DETACH;
    case ompt_task_late_fulfill:
        return HPC_OMP_TASK_LATE_FULFILL;
    default:
        return HPC_OMP_TASK_COMPLETE;
    }
}

static void write_task(unsigned event, uint64_t task, uint64_t parent, unsigned flags,
                       const void *codeptr_ra)
{
    uint64_t now = omptool_now();
    hpc_thread *t = omptool_writer(omptool_collector(), now);
    if (t == NULL)
        return;
    hpc_rec_omp_task r = {
        .time = now,
        .event = event,
        .task = task >> 1,
        .parent_task = parent >> 1,
        .flags = flags,
        .codeptr = (uint64_t)(uintptr_t)codeptr_ra,
    };
    hpcollect_write_begin(t);
    int rc = hpc_write_omp_task(&t->stream, &r);
    hpcollect_write_end(t);
    omptool_check_write(t, rc);
}

static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra)
{
    (void)encountering_task_frame, (void)has_dependences;
    uint64_t id = omptool_next_task_id(omptool_self()) << 1;
    if (flags & ompt_task_explicit)
        id |= 1;
    new_task_data->value = id;
    if (!(flags & ompt_task_explicit))
        return; /* initial/target tasks: the implicit-task callback covers them */
    write_task(HPC_OMP_TASK_CREATE, id, encountering_task_data ? encountering_task_data->value : 0,
               task_flags(flags), codeptr_ra);
}

static bool task_finished(ompt_task_status_t status)
{
    return status == ompt_task_complete || status == ompt_task_cancel ||
           status == ompt_task_detach || status == ompt_task_late_fulfill;
}

static bool on_stack(omptool_thread *th, uint64_t id)
{
    uint32_t kept = th->depth < OMPTOOL_MAX_DEPTH ? th->depth : OMPTOOL_MAX_DEPTH;
    for (uint32_t i = 0; i < kept; i++)
        if (th->frames[i].kind == OMPTOOL_F_EXPLICIT && th->frames[i].id == id)
            return true;
    return false;
}

static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
                             ompt_data_t *next_task_data)
{
    omptool_thread *th = omptool_self();
    hpc_thread *self = omptool_collector();
    uint64_t prior = prior_task_data ? prior_task_data->value : 0;
    uint64_t next = next_task_data ? next_task_data->value : 0;

    if ((prior & 1) && task_finished(prior_task_status)) {
        omptool_pop(th, self, OMPTOOL_F_EXPLICIT, prior);
        write_task(HPC_OMP_TASK_END, prior, 0, task_status(prior_task_status), NULL);
    }
    if ((next & 1) && !on_stack(th, next)) {
        omptool_push(th, self, OMPTOOL_F_EXPLICIT, HPC_OMP_STATE_WORK, omptool_current_region(th),
                     next, 0);
        write_task(HPC_OMP_TASK_BEGIN, next, 0, 0, NULL);
    }
}

static int on_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr_ra)
{
    (void)modifier, (void)arg, (void)codeptr_ra;
    switch (command) {
    case TOOL_START:
        hpcollect_resume(HPC_SAMPLE_RESUME);
        return TOOL_SUCCESS;
    case TOOL_PAUSE:
    case TOOL_END:
        hpcollect_pause(HPC_SAMPLE_PAUSE);
        return TOOL_SUCCESS;
    default: /* flush: records are in the page cache already */
        return TOOL_SUCCESS;
    }
}

void omptool_register_work(void)
{
    omptool_register(ompt_callback_work, (ompt_callback_t)on_work);
    omptool_register(ompt_callback_masked, (ompt_callback_t)on_masked);
    omptool_register(ompt_callback_task_create, (ompt_callback_t)on_task_create);
    omptool_register(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
    omptool_register(ompt_callback_control_tool, (ompt_callback_t)on_control_tool);
}
