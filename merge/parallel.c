/*
 * parallel.c - serial or MPI merge ranks (see parallel.h).
 */
#include "parallel.h"

#include "job_env.h"

#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* Send n bytes to rank 0 with tag, asleep until rank 0 takes them. */
static void send_asleep(const void *p, int n, MPI_Datatype type, int tag)
{
    MPI_Request req;
    MPI_Isend(p, n, type, 0, tag, MPI_COMM_WORLD, &req);
    sleep_until(&req);
}

/* Receive an answer of rank 0 (its length, then its bytes), asleep until it comes. */
static bool recv_answer(hpa_buf *b)
{
    uint64_t n = 0;
    MPI_Request req;
    MPI_Irecv(&n, 1, MPI_UINT64_T, 0, 4, MPI_COMM_WORLD, &req);
    sleep_until(&req);
    *b = (hpa_buf){0};
    if (n > INT_MAX)
        return false;
    b->p = mg_xmalloc(n + 1);
    b->n = b->cap = n;
    MPI_Recv(b->p, (int)n, MPI_BYTE, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return true;
}

int mg_par_collect(mg_par *par, bool (*next)(hpa_buf *b, void *ctx),
                   int (*take)(hpa_buf *b, hpa_buf *answer, void *ctx),
                   void (*back)(hpa_buf *answer, void *ctx), void *ctx)
{
    if (!par->mpi || par->size == 1)
        return 0;
    int bad = 0;
    if (par->rank != 0) {
        for (bool more = true; more;) {
            hpa_buf b = {0};
            more = next(&b, ctx);
            uint64_t n = more ? b.n : 0; /* 0: the last piece was sent */
            if (n > INT_MAX)
                more = false; /* rank 0 says so */
            send_asleep(&n, 1, MPI_UINT64_T, 0);
            if (more)
                send_asleep(b.p, (int)n, MPI_BYTE, 1);
            hpa_buf_free(&b);
            hpa_buf a;
            if (more && recv_answer(&a)) {
                back(&a, ctx);
                hpa_buf_free(&a);
            }
        }
        return 0;
    }
    /* one rank's pieces at a time, in rank order: rank 0 never holds more than one */
    for (int r = 1; r < par->size; r++)
        for (;;) {
            uint64_t n = 0;
            MPI_Recv(&n, 1, MPI_UINT64_T, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (n == 0)
                break;
            if (n > INT_MAX) {
                bad = -1;
                break;
            }
            /* mapped, not malloc'd: a piece would otherwise stay in the heap once freed
             * (glibc raises its mmap threshold to the size of a freed mapping), and the
             * heap grow wherever the next piece does not fit */
            hpa_buf b = {0};
            void *m = mmap(NULL, n + 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (m == MAP_FAILED)
                mg_out_of_memory(n + 1);
            b.p = m;
            b.n = b.cap = n;
            MPI_Recv(b.p, (int)n, MPI_BYTE, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            hpa_buf answer = {0};
            if (!bad && take(&b, &answer, ctx) != 0)
                bad = r;
            munmap(m, n + 1);
            uint64_t an = answer.n <= INT_MAX ? answer.n : 0;
            MPI_Send(&an, 1, MPI_UINT64_T, r, 4, MPI_COMM_WORLD);
            MPI_Send(answer.p ? answer.p : (void *)&an, (int)an, MPI_BYTE, r, 5, MPI_COMM_WORLD);
            hpa_buf_free(&answer);
        }
    return bad;
}
