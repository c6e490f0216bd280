/*
 * omp_kitchen - many OpenMP constructs in one run, for robustness: worksharing loops
 * (static, dynamic, guided), sections, single, masked/master, ordered, atomic, critical,
 * nest locks, test locks, reductions, tasks with dependences, taskloop, taskgroup,
 * cancellation constructs, teams on the host, nested regions and a region entered from two
 * pthreads at once. It checks its own results and exits 1 on a wrong one. (Not run with
 * OMP_CANCELLATION=true: LLVM libomp 14 then hangs in about 1 of 8 runs, without any tool.)
 * Usage: omp_kitchen [rounds]   (default 3)
 */
#include <omp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "omp_common.h"

static int failures;

static void expect(long got, long want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "omp_kitchen: %s: %ld, expected %ld\n", what, got, want);
        failures++;
    }
}

__attribute__((noinline)) static void worksharing(void)
{
    long sum = 0, dyn = 0, guided = 0, ord = 0, sec = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp for schedule(static) reduction(+ : sum)
        for (int i = 0; i < 1000; i++)
            sum += i;
#pragma omp for schedule(dynamic, 7) reduction(+ : dyn)
        for (int i = 0; i < 1000; i++)
            dyn += i;
#pragma omp for schedule(guided) reduction(+ : guided)
        for (int i = 0; i < 1000; i++)
            guided += i;
#pragma omp for ordered schedule(static, 1)
        for (int i = 0; i < 20; i++) {
#pragma omp ordered
            ord = ord * 2 % 1000003 + i;
        }
#pragma omp sections reduction(+ : sec)
        {
#pragma omp section
            sec += 1;
#pragma omp section
            sec += 2;
        }
#pragma omp single
        burn_cpu(100000);
#pragma omp master
        burn_cpu(100000);
    }
    long want = 0;
    for (int i = 0; i < 20; i++)
        want = want * 2 % 1000003 + i;
    expect(sum, 499500, "static loop");
    expect(dyn, 499500, "dynamic loop");
    expect(guided, 499500, "guided loop");
    expect(ord, want, "ordered");
    expect(sec, 3, "sections");
}

__attribute__((noinline)) static void mutexes(void)
{
    long atomic_n = 0, crit = 0, nested = 0, tested = 0;
    long double ld = 0; /* atomics on long double take a runtime lock */
    omp_nest_lock_t nl;
    omp_lock_t tl;
    omp_init_nest_lock(&nl);
    omp_init_lock(&tl);
#pragma omp parallel num_threads(2)
    for (int i = 0; i < 200; i++) {
#pragma omp atomic
        atomic_n++;
#pragma omp atomic
        ld += 1;
#pragma omp critical
        crit++;
        omp_set_nest_lock(&nl);
        omp_set_nest_lock(&nl);
        nested++;
        omp_unset_nest_lock(&nl);
        omp_unset_nest_lock(&nl);
        while (!omp_test_lock(&tl))
            ;
        tested++;
        omp_unset_lock(&tl);
    }
    omp_destroy_nest_lock(&nl);
    omp_destroy_lock(&tl);
    expect(atomic_n, 400, "atomic");
    expect((long)ld, 400, "atomic long double");
    expect(crit, 400, "critical");
    expect(nested, 400, "nest lock");
    expect(tested, 400, "test lock");
}

__attribute__((noinline)) static void tasking(void)
{
    long a = 0, b = 0, loop = 0, group = 0;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp task depend(out : a)
        a = 1;
#pragma omp task depend(in : a) depend(out : b)
        b = a + 1;
#pragma omp taskwait
#pragma omp taskloop reduction(+ : loop) num_tasks(8)
        for (int i = 0; i < 100; i++)
            loop += i;
#pragma omp taskgroup
        {
            for (int i = 0; i < 8; i++) {
#pragma omp task
                {
#pragma omp atomic
                    group++;
                }
            }
        }
    }
    expect(b, 2, "task dependences");
    expect(loop, 4950, "taskloop");
    expect(group, 8, "taskgroup");
}

__attribute__((noinline)) static void cancelling(void)
{
    long seen = 0;
#pragma omp parallel num_threads(2)
    {
#pragma omp for reduction(+ : seen)
        for (int i = 0; i < 100; i++) {
            seen++;
#pragma omp cancel for if (i == 10)
#pragma omp cancellation point for
        }
    }
    if (!omp_get_cancellation()) /* cancelled: the reduction is unspecified */
        expect(seen, 100, "loop with cancellation off");
}

__attribute__((noinline)) static void teams_and_nesting(void)
{
    long n = 0, inner = 0;
#pragma omp teams num_teams(2)
#pragma omp parallel num_threads(1)
    {
#pragma omp atomic
        n++;
    }
#pragma omp parallel num_threads(2) reduction(+ : inner)
    {
#pragma omp parallel num_threads(2) reduction(+ : inner) /* serialized: 1 active level */
        inner += 1;
    }
    expect(n, 2, "teams");
    expect(inner, omp_get_max_active_levels() > 1 ? 4 : 2, "nested regions");
}

static void *from_pthread(void *arg)
{
    long *sum = arg;
#pragma omp parallel num_threads(2) reduction(+ : sum[0])
    sum[0] += 1;
    return NULL;
}

__attribute__((noinline)) static void two_initial_threads(void)
{
    pthread_t t;
    long mine = 0, theirs = 0;
    pthread_create(&t, NULL, from_pthread, &theirs);
    from_pthread(&mine);
    pthread_join(t, NULL);
    expect(mine + theirs, 4, "regions from two pthreads");
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    for (int r = 0; r < rounds; r++) {
        worksharing();
        mutexes();
        tasking();
        cancelling();
        teams_and_nesting();
        two_initial_threads();
    }
    printf("omp_kitchen: %d rounds, %d failures\n", rounds, failures);
    return failures != 0;
}
