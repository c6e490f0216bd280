/*
 * lifecycle.c - what the MPI layer records once per process: the function table, the
 * start of MPI (mpi_init, communicators WORLD and SELF, clock offsets), its end
 * (clock offsets again, mpi_finalize), MPI_Abort, and MPI_Pcontrol's pause/resume.
 * special.c calls these from the hand-written MPI_Init/Finalize/Abort/Pcontrol wrappers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_env.h"
#include "mpiw.h"

void hpcw_fns_once(void)
{
    static int done;
    if (__atomic_load_n(&done, __ATOMIC_ACQUIRE) || __atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
        return;
    hpc_stream *s = hpcollect_proc_lock();
    if (!s)
        return;
    for (unsigned id = 1; id < HPCW_FN_COUNT_; id++) {
        const hpcw_fn_desc *f = &hpcw_fn_table[id];
        hpc_rec_mpi_fn r = {.id = id,
                            .name = {f->name, (uint32_t)strlen(f->name)},
                            .family = f->family,
                            .coll_op = f->coll_op};
        hpc_write_mpi_fn(s, &r);
    }
    hpcollect_proc_unlock();
}

/* The rank the launcher announced, -1 if none: the sub-experiment is named after it. */
static long launcher_rank(void)
{
    hpc_job_env je;
    hpc_job_env_read(&je);
    return je.rank;
}

static void write_init(uint64_t enter, int thread_level)
{
    char proc[MPI_MAX_PROCESSOR_NAME] = "", lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    PMPI_Get_processor_name(proc, &n);
    PMPI_Get_library_version(lib, &n);
    lib[strcspn(lib, "\n,")] = 0; /* "Open MPI v4.1.4, package: ..." -> first part */
    hpc_rec_mpi_init r = {
        .time_enter = enter,
        .time_leave = hpcw_now(),
        .rank = (uint64_t)hpcw_g.world_rank,
        .size = (uint64_t)hpcw_g.world_size,
        .thread_level = thread_level,
        .processor = {proc, (uint32_t)strlen(proc)},
        .library = {lib, (uint32_t)strlen(lib)},
    };
    hpc_stream *s = hpcollect_proc_lock();
    if (s) {
        hpc_write_mpi_init(s, &r);
        hpcollect_proc_unlock();
    }
}

void hpcw_init_after(hpcw_call *c, int thread_level)
{
    uint64_t enter = c->enter;
    const hpcollect_settings *set = hpcollect_settings_get();
    PMPI_Comm_rank(MPI_COMM_WORLD, &hpcw_g.world_rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &hpcw_g.world_size);
    hpcollect_set_mpi_rank(hpcw_g.world_rank, hpcw_g.world_size);
    long announced = launcher_rank();
    if (announced >= 0 && announced != hpcw_g.world_rank)
        fprintf(stderr,
                "hpcollect: MPI_COMM_WORLD rank %d differs from the launcher's rank %d; "
                "this process's data is under the launcher's rank\n",
                hpcw_g.world_rank, (int)announced);
    hpcw_fortran_init();
    int trace = set ? set->mpi_trace : hpcw_g.tracing;
    hpcw_g.tracing = trace;
    if (trace) {
        hpcw_clock_init();
        hpcw_fns_once();
        hpcw_comms_init();
    }
    if (trace)
        hpcollect_register_end_hook(hpcw_end_hook);
    PMPI_Comm_dup(MPI_COMM_WORLD, &hpcw_g.sync_comm);
    hpcw_clock_sync(0);
    hpcw_g.tracking = trace;
    write_init(enter, thread_level);
}

void hpcw_finalize_before(void)
{
    /* a start without its completion in the trace is an event lost: counted (a correct
     * program has completed or freed every request by now) */
    uint64_t open = hpcw_req_open();
    hpc_thread *t = hpcollect_self();
    if (open && t)
        hpc_stream_stat_add(&t->stream, HPC_STAT_EVENTS_DROPPED, open);
    hpcw_clock_sync(1);
    if (hpcw_g.sync_comm != MPI_COMM_NULL)
        PMPI_Comm_free(&hpcw_g.sync_comm);
}

void hpcw_finalize_after(hpcw_call *c)
{
    hpcw_g.finalized = 1;
    hpc_rec_mpi_finalize r = {.time_enter = c->enter, .time_leave = hpcw_now()};
    hpc_stream *s = hpcollect_proc_lock();
    if (s) {
        hpc_write_mpi_finalize(s, &r);
        hpcollect_proc_unlock();
    }
}

/* Before PMPI_Abort, which does not return: the record that says this process ended
 * by MPI_Abort, and the call itself. */
void hpcw_abort_before(hpcw_call *c, MPI_Comm comm, int errorcode)
{
    hpcw_comm *e = hpcw_comm_get(comm);
    hpc_rec_mpi_abort r = {.time = c->enter, .errorcode = errorcode, .comm = e ? e->id : 0};
    hpc_stream *s = hpcollect_proc_lock();
    if (s) {
        hpc_write_mpi_abort(s, &r);
        hpcollect_proc_unlock();
    }
    if (hpcw_leave(c, MPI_SUCCESS, comm))
        hpcw_done(c);
}

/* MPI_Pcontrol(0) pauses all recording in the process, any other level resumes what
 * level 0 paused. The call itself is recorded on the recording side of the switch. */
void hpcw_pcontrol(hpcw_call *c, int level)
{
    bool pausing = level == 0;
    if (!pausing && __atomic_exchange_n(&hpcw_g.paused_by_pcontrol, 0, __ATOMIC_ACQ_REL))
        hpcollect_resume(HPC_LIMIT_PCONTROL_ON);
    if (hpcw_leave(c, MPI_SUCCESS, MPI_COMM_NULL)) {
        hpcw_rec_pcontrol(c, level);
        hpcw_done(c);
    }
    if (pausing && !__atomic_exchange_n(&hpcw_g.paused_by_pcontrol, 1, __ATOMIC_ACQ_REL))
        hpcollect_pause(HPC_LIMIT_PCONTROL_OFF);
}
