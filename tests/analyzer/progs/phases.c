/*
 * phases.c - ground truth for filters, sample periods and the code-level reports: two
 * threads doing equal work; the main thread in two phases that sample points separate.
 *
 *     phases [ITERATIONS_PER_UNIT]     (default 10000000; 50 units in all)
 *
 *   main thread, 25 units:  phase A, 5 rounds of phase_a: kernel_x 2 units, kernel_y 1
 *                           sample point "A done"
 *                           phase B, 5 rounds of phase_b: kernel_x 1 unit, kernel_y 1
 *                           sample point "B done"
 *   worker thread, 25 units: after each round of the main thread, spin as many units
 *
 * The threads take turns (semaphores), so each runs alone on the machine, and in rounds,
 * so a change of the machine's load spreads over every function alike. Shares: each
 * thread half the CPU time; kernel_x 30%, kernel_y 20%, spin 50%; kernel_x is called by
 * phase_a (2/3) and phase_b (1/3); sample period 1 (ending at "A done") holds all of
 * phase_a and none of phase_b, period 2 ("B done") the reverse; in both periods the two
 * threads are equal. Sample points are recorded through the collector's
 * hpcollect_sample_point, looked up at run time: without the collector they are skipped.
 * The loops are on lines marked HOT. Equal work is not equal CPU time on a shared machine:
 * the callers measure each kernel call's CPU time (thread_cpu_s: the clock reads are
 * phase_a's, phase_b's and worker's callees, so the kernels stay leaves), and the program
 * prints the truth at the end:
 *
 *     cpu phase_a|phase_b|worker kernel_x|kernel_y|spin SECONDS
 *     thread main|worker SECONDS       (each thread's CPU clock at its end)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>

#include "sample_point.h"
#include "thread_clocks.h"

volatile double sink;
static long unit;
static sem_t to_worker, to_main;
static long worker_units[10];
static double cpu_ax, cpu_ay, cpu_bx, cpu_by, cpu_spin, cpu_worker;

/* clang-format off */
__attribute__((noinline)) void kernel_x(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT kernel_x */
    sink += s;
}

__attribute__((noinline)) void kernel_y(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT kernel_y */
    sink += s;
}

__attribute__((noinline)) void spin(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s = s * 0.999999 + 1.0; /* HOT spin */
    sink += s;
}
/* clang-format on */

__attribute__((noinline)) void phase_a(void)
{
    double t0 = thread_cpu_s();
    kernel_x(2 * unit); /* CALL phase_a kernel_x */
    double t1 = thread_cpu_s();
    kernel_y(unit);
    cpu_ax += t1 - t0;
    cpu_ay += thread_cpu_s() - t1;
}

__attribute__((noinline)) void phase_b(void)
{
    double t0 = thread_cpu_s();
    kernel_x(unit); /* CALL phase_b kernel_x */
    double t1 = thread_cpu_s();
    kernel_y(unit);
    cpu_bx += t1 - t0;
    cpu_by += thread_cpu_s() - t1;
}

__attribute__((noinline)) static void *worker(void *arg)
{
    (void)arg;
    for (int r = 0; r < 10; r++) {
        sem_wait(&to_worker);
        double t0 = thread_cpu_s();
        spin(worker_units[r] * unit);
        cpu_spin += thread_cpu_s() - t0;
        if (r == 9)
            cpu_worker = thread_cpu_s();
        sem_post(&to_main);
    }
    return NULL;
}

/* One round of the main thread, then the worker's turn. */
static void round_(int r, void (*phase)(void), long units)
{
    phase();
    worker_units[r] = units;
    sem_post(&to_worker);
    sem_wait(&to_main);
}

int main(int argc, char **argv)
{
    unit = argc > 1 ? atol(argv[1]) : 10000000;
    sem_init(&to_worker, 0, 0);
    sem_init(&to_main, 0, 0);
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0)
        return 1;
    for (int r = 0; r < 5; r++)
        round_(r, phase_a, 3);
    sample_point("A done");
    for (int r = 5; r < 10; r++)
        round_(r, phase_b, 2);
    sample_point("B done");
    pthread_join(th, NULL);
    printf("phases done %g\n", sink > 0 ? 1.0 : 0.0);
    printf("cpu phase_a kernel_x %.6f\ncpu phase_a kernel_y %.6f\n", cpu_ax, cpu_ay);
    printf("cpu phase_b kernel_x %.6f\ncpu phase_b kernel_y %.6f\n", cpu_bx, cpu_by);
    printf("cpu worker spin %.6f\n", cpu_spin);
    printf("thread main %.6f\nthread worker %.6f\n", thread_cpu_s(), cpu_worker);
    return 0;
}
