/*
 * omp_trylock - lock tests that fail are not waits.
 *
 * tests_fail(tester): a region of 2 threads; the other thread takes a lock and a nest
 * lock and holds them while `tester` calls omp_test_lock and omp_test_nest_lock on them
 * TRIES times each (every test fails), then burns WORK of CPU outside any lock and lets
 * the holder go. Run with the worker as the tester, then the master. after(): a region
 * whose threads burn WORK each, with a serialized region nested in it.
 *
 * No thread ever waits for a lock (the holder's locks are free when it takes them), so
 * the profile must show no lock wait, the testers' WORK as work, and after()'s regions in
 * after(). LLVM libomp 14 reports a test as a lock acquire and a failed one with no
 * acquired or end event; the tool must not take it for a wait that never ends (TRIES is
 * more than the tool's stack of 48 frames). The two threads wait for each other in
 * usleep, not in a spin, so the region's work is the testers' WORK however loaded the
 * machine is (a spin made the time one thread waited for a CPU the other's work).
 * Usage: omp_trylock [tries [work_us]]   (defaults 100, 50000)
 */
#include <omp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "omp_common.h"

static omp_lock_t lock;
static omp_nest_lock_t nest;
static atomic_int held, done;
static int successes; /* tests that took a lock: must stay 0 */

static void hold_until_done(void)
{
    omp_set_lock(&lock);
    omp_set_nest_lock(&nest);
    atomic_store(&held, 1);
    while (!atomic_load(&done))
        usleep(100);
    omp_unset_nest_lock(&nest);
    omp_unset_lock(&lock);
}

static void test_while_held(int tries, uint64_t work_ns)
{
    while (!atomic_load(&held))
        usleep(100);
    for (int i = 0; i < tries; i++) {
        successes += omp_test_lock(&lock);
        successes += omp_test_nest_lock(&nest);
    }
    atomic_store(&done, 1);
    burn_cpu(work_ns);
}

__attribute__((noinline)) static void tests_fail(int tester, int tries, uint64_t work_ns)
{
    atomic_store(&held, 0);
    atomic_store(&done, 0);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == tester)
            test_while_held(tries, work_ns);
        else
            hold_until_done();
    }
}

__attribute__((noinline)) static void after(uint64_t work_ns)
{
#pragma omp parallel num_threads(2)
    {
#pragma omp parallel num_threads(1)
        burn_cpu(work_ns);
    }
}

int main(int argc, char **argv)
{
    int tries = argc > 1 ? atoi(argv[1]) : 100;
    uint64_t work_ns = (argc > 2 ? strtoull(argv[2], NULL, 10) : 50000) * 1000ull;
    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
    tests_fail(1, tries, work_ns);
    tests_fail(0, tries, work_ns);
    after(work_ns);
    omp_destroy_nest_lock(&nest);
    omp_destroy_lock(&lock);
    printf("omp_trylock: %d tries, %d successes\n", tries, successes);
    return successes != 0;
}
