/*
 * heat_mpi.c - a small MPI + OpenMP solver to try hpcollect on:
 *
 *     mpirun -np 4 hpcollect ./examples/heat_mpi
 *     hpanalyze heat_mpi.1.hpc mpi          # who waits, where, for how long
 *     hpanalyze heat_mpi.1.hpc functions    # where the CPU time goes
 *
 * Steady-state heat on a square plate by Jacobi iteration. The plate's rows are split
 * into one block per MPI rank; each step
 *   1. exchanges the block's first and last rows with the neighbouring ranks
 *      (halo exchange: MPI_Irecv / MPI_Isend / MPI_Waitall),
 *   2. updates every cell from its four neighbours (an OpenMP parallel loop),
 *   3. adds the heat of the sources,
 *   4. sums the change over the whole plate (MPI_Allreduce) to decide when to stop.
 *
 * The load imbalance to find: the heat sources sit in the top quarter of the plate and
 * cost more per cell (source_heat), so rank 0 works longer each step and the other
 * ranks wait for it, in MPI_Waitall (its halo rows arrive late) and in MPI_Allreduce.
 * `hpanalyze EXP mpi` shows rank 0 with the least MPI time, the others with much more;
 * `functions` shows source_heat where rank 0's extra time goes.
 *
 * Usage: heat_mpi [N [STEPS]]   plate of N x N cells (default 512), STEPS (default 300)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct block {
    int n;            /* plate is n x n */
    int first, rows;  /* this rank's rows: first .. first + rows - 1 */
    int up, down;     /* neighbour ranks, MPI_PROC_NULL at the plate's edges */
    double *t, *next; /* (rows + 2) x n: row 0 and row rows + 1 are halo copies */
} block;

#define AT(b, a, i, j) ((a)[(size_t)(i) * (size_t)(b)->n + (size_t)(j)])

static void split_rows(block *b, int rank, int size)
{
    int base = b->n / size, extra = b->n % size;
    b->rows = base + (rank < extra);
    b->first = rank * base + (rank < extra ? rank : extra);
    b->up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
    b->down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
    size_t cells = (size_t)(b->rows + 2) * (size_t)b->n;
    b->t = calloc(cells, sizeof(double));
    b->next = calloc(cells, sizeof(double));
    if (!b->t || !b->next) {
        fprintf(stderr, "heat_mpi: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

/* Send my edge rows to my neighbours and receive theirs into my halo rows. */
static void exchange_halos(block *b)
{
    MPI_Request req[4];
    MPI_Irecv(&AT(b, b->t, 0, 0), b->n, MPI_DOUBLE, b->up, 1, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&AT(b, b->t, b->rows + 1, 0), b->n, MPI_DOUBLE, b->down, 0, MPI_COMM_WORLD, &req[1]);
    MPI_Isend(&AT(b, b->t, 1, 0), b->n, MPI_DOUBLE, b->up, 0, MPI_COMM_WORLD, &req[2]);
    MPI_Isend(&AT(b, b->t, b->rows, 0), b->n, MPI_DOUBLE, b->down, 1, MPI_COMM_WORLD, &req[3]);
    MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
}

/* Jacobi update of the interior; returns the sum of |change| over my rows. */
static double relax(block *b)
{
    double change = 0;
#pragma omp parallel for reduction(+ : change) schedule(static)
    for (int i = 1; i <= b->rows; i++) {
        int gi = b->first + i - 1;
        for (int j = 1; j < b->n - 1; j++) {
            double v = AT(b, b->t, i, j);
            if (gi > 0 && gi < b->n - 1)
                v = 0.25 * (AT(b, b->t, i - 1, j) + AT(b, b->t, i + 1, j) + AT(b, b->t, i, j - 1) +
                            AT(b, b->t, i, j + 1));
            change += fabs(v - AT(b, b->t, i, j));
            AT(b, b->next, i, j) = v;
        }
    }
    double *tmp = b->t;
    b->t = b->next;
    b->next = tmp;
    return change;
}

/* Heat of the sources in the top quarter of the plate: a costly formula per cell.
 * (noinline: its own row in the functions report) */
__attribute__((noinline)) static double source_heat(int gi, int j, int n, int step)
{
    double x = (double)j / n, y = (double)gi / n, s = 0;
    for (int k = 1; k <= 4; k++)
        s += exp(-k * ((x - 0.5) * (x - 0.5) + (y - 0.1) * (y - 0.1))) * sin(k * (x + y + step));
    return 1e-3 * fabs(s);
}

static void add_sources(block *b, int step)
{
#pragma omp parallel for schedule(static)
    for (int i = 1; i <= b->rows; i++) {
        int gi = b->first + i - 1;
        if (gi >= b->n / 4)
            continue;
        for (int j = 1; j < b->n - 1; j++)
            AT(b, b->t, i, j) += source_heat(gi, j, b->n, step);
    }
}

int main(int argc, char **argv)
{
    int rank, size, provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    block b = {.n = argc > 1 ? atoi(argv[1]) : 512};
    int steps = argc > 2 ? atoi(argv[2]) : 300;
    if (b.n < 4 * size || steps < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: heat_mpi [N >= 4 x ranks] [STEPS >= 1]\n");
        MPI_Finalize();
        return 2;
    }
    split_rows(&b, rank, size);

    double total = 0;
    int step;
    for (step = 0; step < steps; step++) {
        exchange_halos(&b);
        double change = relax(&b);
        add_sources(&b, step);
        MPI_Allreduce(&change, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        if (step > 0 && total < 1e-9)
            break;
    }
    if (rank == 0)
        printf("heat_mpi: %d x %d plate, %d ranks, %d steps, last change %.3e\n", b.n, b.n, size,
               step, total);
    free(b.t);
    free(b.next);
    MPI_Finalize();
    return 0;
}
