/*
 * sigsafe_end.c - the end hook: a process that ends inside an MPI call (killed by
 * mpirun while it waits, a fatal signal, exit() from an error handler) never returns
 * from it, so the call's mpi_call record would be lost with the time it spent there.
 * The collector calls this hook on its exit and fatal-signal paths; it writes the call
 * in progress on the ending thread with HPC_MPI_CALL_INTERRUPTED and the current time
 * as its end. Other threads' calls in progress are not recorded.
 *
 * Signal-safe: reads the thread's own call frame (still live: the handler runs on top
 * of it), clock_gettime and the experiment writer's memory stores. Nothing is written
 * when the thread was itself in the middle of writing (rule 1 of collector/sigsafe.h);
 * a killing signal that comes then is held until that write ends (collector_api.h:
 * hpc_thread.death), so the end comes here with the stream free.
 */
#include "mpiw.h"

__thread hpcw_call *hpcw_cur __attribute__((tls_model("initial-exec")));

/* signal-safe */
void hpcw_end_hook(int in_signal_handler)
{
    (void)in_signal_handler; /* the same path is safe in both contexts */
    hpcw_call *c = hpcw_cur;
    if (!c || !c->t || !hpcw_g.tracking || c->t->busy || !c->enter)
        return;
    hpc_thread *t = c->t;
    hpc_rec_mpi_call r = {
        .fn = c->fn,
        .time_enter = c->enter,
        .time_leave = hpcw_clock_exact(),
        .callsite = c->site,
        .comm = 0, /* not looked up here: a lookup may register, which allocates */
        .flags = c->flags | HPC_MPI_CALL_INTERRUPTED,
    };
    hpcollect_write_begin(t);
    if (hpc_write_mpi_call(&t->stream, &r) < 0)
        hpc_stream_stat_add(&t->stream, HPC_STAT_EVENTS_DROPPED, 1);
    hpcollect_write_end(t);
    hpcw_cur = NULL;
}
