/*
 * last_thread.c - main's own pthread_exit.
 *
 * glibc ends a process whose threads have all exited: the last one to leave calls
 * exit(0), also when main left early with pthread_exit; the collector adds no thread that
 * could keep it alive (periodic.c). Main's pthread_exit is seen through a thread-specific
 * key whose destructor runs only then (not on return from main or exit): it writes
 * main's thread_end, as thread.c does for the threads it starts.
 */
#include <pthread.h>

#include "collector.h"

static pthread_key_t main_exit_key;

static void main_thread_exits(void *arg)
{
    (void)arg;
    hpc_thread_end();
}

void hpc_last_thread_init(void)
{
    if (pthread_key_create(&main_exit_key, main_thread_exits) == 0)
        pthread_setspecific(main_exit_key, (void *)1);
}

void hpc_last_thread_fork_child(void)
{
    /* only the forking thread goes on; the key's value is its own (set if it is main) */
}
