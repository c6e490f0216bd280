/*
 * parallel.c - serial or MPI merge ranks (see parallel.h).
 */
#include "parallel.h"

#include "job_env.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <otf2/OTF2_MPI_Collectives.h>
#pragma GCC diagnostic pop

static bool under_launcher(void)
{
    hpc_job_env je;
    hpc_job_env_read(&je);
    return je.launcher != NULL;
}

void mg_par_init(mg_par *par, int *argc, char ***argv)
{
    *par = (mg_par){0, 1, false};
    if (!under_launcher())
        return;
    MPI_Init(argc, argv);
    par->mpi = true;
    MPI_Comm_rank(MPI_COMM_WORLD, &par->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &par->size);
}

void mg_par_finalize(mg_par *par)
{
    if (par->mpi)
        MPI_Finalize();
    par->mpi = false;
}

void mg_par_abort(mg_par *par, int code)
{
    fflush(stdout);
    fflush(stderr);
    if (par->mpi && par->size > 1)
        MPI_Abort(MPI_COMM_WORLD, code);
    if (par->mpi)
        MPI_Finalize();
    exit(code);
}

OTF2_ErrorCode mg_par_archive_callbacks(mg_par *par, OTF2_Archive *a)
{
    if (!par->mpi)
        return OTF2_Archive_SetSerialCollectiveCallbacks(a);
    return OTF2_MPI_Archive_SetCollectiveCallbacks(a, MPI_COMM_WORLD, MPI_COMM_NULL);
}

void mg_par_bcast_u64(mg_par *par, uint64_t *v)
{
    if (par->mpi)
        MPI_Bcast(v, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
}

void mg_par_wait(mg_par *par)
{
    if (!par->mpi || par->size == 1)
        return;
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    for (int done = 0;;) {
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&(struct timespec){0, 1000000}, NULL); /* 1 ms: idle, not spinning */
    }
}

int mg_par_max(mg_par *par, int v)
{
    int out = v;
    if (par->mpi)
        MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

int mg_par_gather(mg_par *par, const hpa_buf *mine, hpa_buf **all)
{
    *all = NULL;
    if (!par->mpi || par->size == 1) {
        *all = mg_xcalloc(1, sizeof(hpa_buf));
        hpa_buf_put(&(*all)[0], mine->p, mine->n);
        mg_xbuf(&(*all)[0]);
        return 0;
    }
    int n = mine->n > INT_MAX ? -1 : (int)mine->n;
    int *counts = par->rank == 0 ? mg_xcalloc((size_t)par->size, sizeof(int)) : NULL;
    MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int bad = n < 0;
    int *displs = NULL;
    char *recv = NULL;
    if (par->rank == 0) {
        displs = mg_xcalloc((size_t)par->size, sizeof(int));
        long long total = 0;
        for (int r = 0; r < par->size; r++) {
            if (counts[r] < 0 || total + counts[r] > INT_MAX)
                bad = 1;
            displs[r] = bad ? 0 : (int)total;
            total += counts[r] < 0 ? 0 : counts[r];
        }
        recv = mg_xmalloc(bad ? 1 : (size_t)total + 1);
    }
    bad = mg_par_max(par, bad);
    if (bad) {
        free(counts);
        free(displs);
        free(recv);
        return -1;
    }
    MPI_Gatherv(mine->p, n, MPI_BYTE, recv, counts, displs, MPI_BYTE, 0, MPI_COMM_WORLD);
    if (par->rank == 0) {
        *all = mg_xcalloc((size_t)par->size, sizeof(hpa_buf));
        for (int r = 0; r < par->size; r++) {
            hpa_buf_put(&(*all)[r], recv + displs[r], (size_t)counts[r]);
            mg_xbuf(&(*all)[r]);
        }
    }
    free(counts);
    free(displs);
    free(recv);
    return 0;
}
