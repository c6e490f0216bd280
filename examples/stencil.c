/*
 * stencil.c - a small serial program to try hpcollect on: Jacobi iterations of the
 * heat equation on a square plate held hot on one edge.
 *
 *     hpcollect -p hi ./stencil          # writes stencil.1.hpc/
 *     hpanalyze stencil.1.hpc functions  # sweep() takes most of the time,
 *                                        # residual() the rest
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N 400

static double a[N][N], b[N][N];

/* One Jacobi step: every interior point becomes the mean of its four neighbours. */
__attribute__((noinline, noclone)) static void sweep(double (*dst)[N], double (*src)[N])
{
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++)
            dst[i][j] = 0.25 * (src[i - 1][j] + src[i + 1][j] + src[i][j - 1] + src[i][j + 1]);
}

/* How far the plate still is from equilibrium (largest change in one step). */
__attribute__((noinline, noclone)) static double residual(double (*x)[N], double (*y)[N])
{
    double r = 0;
    for (int i = 1; i < N - 1; i++)
        for (int j = 1; j < N - 1; j++) {
            double d = fabs(x[i][j] - y[i][j]);
            if (d > r)
                r = d;
        }
    return r;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 2000;
    for (int j = 0; j < N; j++)
        a[0][j] = b[0][j] = 100.0; /* the hot edge */
    double r = 0;
    for (int s = 0; s < steps; s += 2) {
        sweep(b, a);
        sweep(a, b);
        if (s % 4 == 0)
            r = residual(a, b);
    }
    printf("after %d steps: temperature 10 rows from the hot edge %.2f, residual %.2e\n", steps,
           a[10][N / 2], r);
    return 0;
}
