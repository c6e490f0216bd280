/*
 * omp_tail - OpenMP code as -O2 leaves it (built -O2 by both compilers), with known CPU:
 *
 *   par_tail     a parallel region whose body is only a call: the outlined body
 *                tail-calls work_par (no outlined frame in the workers' stacks). Each of
 *                2 threads burns UNIT per repetition in work_par.
 *   task_tail    one thread creates TASKS tasks per repetition, each
 *                { work_task_a(); work_task_b(); }: gcc's outlined task body tail-calls
 *                work_task_b. Each call burns UNIT.
 *   c0 .. c9     ten parallel regions, each the last statement of its own function (so its
 *                fork is a tail call: the runtime's return address lies in the caller),
 *                all called through one helper (run_constructs): one code address, ten
 *                constructs. Each thread burns UNIT/4 in each.
 *   hourglass    a static function inlined into main (always_inline) holding a parallel
 *                loop of 2 iterations of UNIT: its code is main's.
 *
 * The pragmas are marked "CONSTRUCT name" for the tests. Bodies capture nothing (unit_ns
 * is a global), so nothing keeps the compilers from tail-calling.
 * Usage: omp_tail [reps [unit_ms [tasks]]]   (defaults 10, 10, 2)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static uint64_t unit_ns;
static int ntasks;
static volatile int done;

__attribute__((noinline)) void work_par(void)
{
    burn_cpu(unit_ns);
    done++;
}

__attribute__((noinline)) void work_task_a(void)
{
    burn_cpu(unit_ns);
    done++;
}

__attribute__((noinline)) void work_task_b(void)
{
    burn_cpu(unit_ns);
    done++;
}

__attribute__((noinline)) static void par_tail(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT par_tail */
    work_par();
}

__attribute__((noinline)) static void task_tail(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT task_tail */
#pragma omp single
    for (int i = 0; i < ntasks; i++) {
#pragma omp task
        {
            work_task_a();
            work_task_b();
        }
    }
}

/* Ten constructs; different constants keep gcc from folding their outlined bodies. */
__attribute__((noinline)) static void c0(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c0 */
    burn_cpu(unit_ns / 4 + 0);
}
__attribute__((noinline)) static void c1(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c1 */
    burn_cpu(unit_ns / 4 + 1);
}
__attribute__((noinline)) static void c2(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c2 */
    burn_cpu(unit_ns / 4 + 2);
}
__attribute__((noinline)) static void c3(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c3 */
    burn_cpu(unit_ns / 4 + 3);
}
__attribute__((noinline)) static void c4(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c4 */
    burn_cpu(unit_ns / 4 + 4);
}
__attribute__((noinline)) static void c5(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c5 */
    burn_cpu(unit_ns / 4 + 5);
}
__attribute__((noinline)) static void c6(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c6 */
    burn_cpu(unit_ns / 4 + 6);
}
__attribute__((noinline)) static void c7(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c7 */
    burn_cpu(unit_ns / 4 + 7);
}
__attribute__((noinline)) static void c8(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c8 */
    burn_cpu(unit_ns / 4 + 8);
}
__attribute__((noinline)) static void c9(void)
{
#pragma omp parallel num_threads(2) /* CONSTRUCT c9 */
    burn_cpu(unit_ns / 4 + 9);
}

static void (*const constructs[10])(void) = {c0, c1, c2, c3, c4, c5, c6, c7, c8, c9};

/* EPCC's benchmark() in small: calls each test, then counts (not a tail call). */
__attribute__((noinline)) static void run_constructs(void (*volatile *tests)(void), int n)
{
    for (int i = 0; i < n; i++) {
        tests[i]();
        done++;
    }
}

static inline __attribute__((always_inline)) void hourglass(void)
{
#pragma omp parallel for num_threads(2) schedule(static) /* CONSTRUCT hourglass */
    for (int i = 0; i < 2; i++)
        burn_cpu(unit_ns);
}

int main(int argc, char **argv)
{
    int reps = argc > 1 ? atoi(argv[1]) : 10;
    unit_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 10) * 1000000ull;
    ntasks = argc > 3 ? atoi(argv[3]) : 2;
    void (*volatile tests[10])(void);
    for (int i = 0; i < 10; i++)
        tests[i] = constructs[i];
    for (int r = 0; r < reps; r++) {
        par_tail();
        task_tail();
        run_constructs(tests, 10);
        hourglass();
    }
    printf("omp_tail: %d reps of %llu ns, %d tasks\n", reps, (unsigned long long)unit_ns, ntasks);
    return 0;
}
