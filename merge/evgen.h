/*
 * evgen.h - one thread stream's records turned into OTF2-shaped events.
 *
 * Records (experiment/schema.def) and what they become:
 *   cct_node            a calling context (region = the function of its pc)
 *   sample_clock        CallingContextSample (clock interrupt generator)
 *   sample_counter      Metric (accumulated by the writer) + CallingContextSample
 *   mpi_call            Enter/Leave of the MPI function, around the events of its
 *                       detail records:
 *     mpi_p2p           MpiSend, MpiIsend, MpiIsendComplete, MpiRecv, MpiIrecvRequest,
 *                       MpiIrecv, MpiRequestCancelled (peer = rank in the communicator)
 *     mpi_coll          MpiCollectiveBegin/End with root and bytes
 *   omp_parallel_begin/end   ThreadFork / ThreadJoin (encountering thread)
 *   omp_implicit_task   ThreadTeamBegin + Enter(parallel) ... Leave + ThreadTeamEnd
 *   omp_sync            Enter/Leave of the barrier, taskwait, taskgroup, reduction
 *   omp_mutex           Enter/Leave of the wait (critical, ordered, lock, atomic); for
 *                       critical and ordered also Enter/Leave of the block held
 *   omp_work, omp_masked, omp_task begin/end    Enter/Leave of the construct
 *   sync_wait           Enter/Leave of the wait's region below its caller
 *   io_handle           the process's I/O handle definition (iodefs.c)
 *   io_op               Enter/Leave of the I/O function's region below its caller, inside:
 *                       IoCreateHandle, IoDestroyHandle, IoDuplicateHandle,
 *                       IoOperationBegin/Complete, IoDeleteFile (what the call did)
 *   (heap_alloc/free)   the process's "heap in use" (-H): Metric events on its first
 *                       location at model/heap.h's points (job.c reads them)
 * Timestamps are corrected (clockfix.c). Events come out in stream order; order.c puts
 * them in time order.
 *
 * Pass 1 also accumulates the summary (loc->sum, proc->sum); pass 2 makes exactly the
 * same events again (definitions made in pass 1 are only looked up).
 */
#ifndef MG_EVGEN_H
#define MG_EVGEN_H

#include "job.h"
#include "order.h"

/*
 * Generate the events of loc (pass 1 or 2) from its stream r (read from the start; NULL
 * for a location without a readable stream: only its "no stack" context is defined)
 * into sink. Returns 0.
 */
int mg_gen_location(mg_job *job, mg_loc *loc, hpc_reader *r, int pass, mg_ev_sink sink, void *ctx);

#endif
