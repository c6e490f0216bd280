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

/* Wait for req to complete, asleep between tests. */
static void sleep_until(MPI_Request *req)
{
    for (int done = 0;;) {
        MPI_Test(req, &done, MPI_STATUS_IGNORE);
        if (done)
            return;
        nanosleep(&(struct timespec){0, 1000000}, NULL); /* 1 ms: idle, not spinning */
    }
}

void mg_par_wait(mg_par *par)
{
    if (!par->mpi || par->size == 1)
        return;
    MPI_Request req;
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    sleep_until(&req);
}

int mg_par_scatter(mg_par *par, void (*make)(hpa_buf *b, int r, void *ctx), void *ctx, hpa_buf *got)
{
    *got = (hpa_buf){0};
    if (!par->mpi || par->size == 1)
        return 0;
    uint64_t n = 0;
    if (par->rank != 0) {
        MPI_Request req;
        MPI_Irecv(&n, 1, MPI_UINT64_T, 0, 2, MPI_COMM_WORLD, &req);
        sleep_until(&req);
        if (n <= INT_MAX) {
            got->p = mg_xmalloc(n + 1);
            got->n = got->cap = n;
            MPI_Recv(got->p, (int)n, MPI_BYTE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
    } else {
        for (int r = 1; r < par->size; r++) {
            hpa_buf b = {0};
            make(&b, r, ctx);
            uint64_t bn = b.n;
            MPI_Send(&bn, 1, MPI_UINT64_T, r, 2, MPI_COMM_WORLD);
            if (bn <= INT_MAX)
                MPI_Send(b.p, (int)bn, MPI_BYTE, r, 3, MPI_COMM_WORLD);
            else
                n = bn;
            hpa_buf_free(&b);
        }
    }
    if (mg_par_max(par, n > INT_MAX)) {
        hpa_buf_free(got);
        return -1;
    }
    return 0;
}

int mg_par_max(mg_par *par, int v)
{
    int out = v;
    if (par->mpi)
        MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

static uint64_t reduce_u64(mg_par *par, uint64_t v, MPI_Op op)
{
    uint64_t out = v;
    if (par->mpi)
        MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, op, MPI_COMM_WORLD);
    return out;
}

uint64_t mg_par_sum_u64(mg_par *par, uint64_t v)
{
    return reduce_u64(par, v, MPI_SUM);
}

uint64_t mg_par_max_u64(mg_par *par, uint64_t v)
{
    return reduce_u64(par, v, MPI_MAX);
}

int mg_par_collect(mg_par *par, const hpa_buf *mine, int (*take)(hpa_buf *b, void *ctx), void *ctx)
{
    if (!par->mpi || par->size == 1)
        return 0;
    int bad = 0;
    if (par->rank != 0) {
        uint64_t n = mine->n;
        MPI_Send(&n, 1, MPI_UINT64_T, 0, 0, MPI_COMM_WORLD);
        if (n <= INT_MAX)
            MPI_Send(mine->p, (int)n, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        return 0;
    }
    /* one rank's part at a time, in rank order: rank 0 never holds more than one */
    for (int r = 1; r < par->size; r++) {
        uint64_t n = 0;
        MPI_Recv(&n, 1, MPI_UINT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (n > INT_MAX) {
            bad = -1;
            continue;
        }
        hpa_buf b = {0};
        b.p = mg_xmalloc(n + 1);
        b.n = b.cap = n;
        MPI_Recv(b.p, (int)n, MPI_BYTE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (!bad && take(&b, ctx) != 0)
            bad = r;
        hpa_buf_free(&b);
    }
    return bad;
}
