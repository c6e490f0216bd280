/*
 * last_thread.c - the process ends when its last program thread does.
 *
 * glibc ends a process whose threads have all exited: the last one to leave calls
 * exit(0), also when main left early with pthread_exit. Our sampler thread (periodic.c)
 * is a thread too, so it would keep such a process alive for ever. The program threads
 * are counted here (the main thread, and each one our pthread_create starts, from the
 * call on, so a creator that leaves first does not bring the count to zero); when the
 * last leaves, the sampler is told to quit, and whichever of the two ends last makes
 * glibc call exit(0) as it would have without us.
 *
 * Main's own pthread_exit is seen through a thread-specific key whose destructor runs
 * only then (not on return from main or exit): it also writes main's thread_end.
 * Threads started by raw clone, or by pthread_create while our thread state cannot be
 * allocated, are not counted; then the sampler may quit early (fewer periodic points),
 * never late.
 */
#include <pthread.h>

#include "collector.h"
#include "control.h"

static int program_threads = 1;
static pthread_key_t main_exit_key;

static void main_thread_exits(void *arg)
{
    (void)arg;
    hpc_thread_end();
    hpc_program_thread_left();
}

void hpc_last_thread_init(void)
{
    __atomic_store_n(&program_threads, 1, __ATOMIC_RELEASE);
    if (pthread_key_create(&main_exit_key, main_thread_exits) == 0)
        pthread_setspecific(main_exit_key, (void *)1);
}

void hpc_program_thread_starting(void)
{
    __atomic_add_fetch(&program_threads, 1, __ATOMIC_ACQ_REL);
}

void hpc_program_thread_left(void)
{
    if (__atomic_sub_fetch(&program_threads, 1, __ATOMIC_ACQ_REL) == 0)
        hpc_sampler_quit();
}

void hpc_last_thread_fork_child(void)
{
    /* only the forking thread goes on; the key's value is its own (set if it is main) */
    __atomic_store_n(&program_threads, 1, __ATOMIC_RELEASE);
}
