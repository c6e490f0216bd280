/*
 * main_exits.c - main leaves with pthread_exit while a worker goes on: the process ends
 * when the worker does (glibc: the last thread calls exit(0)), atexit handlers run, and
 * the status is 0. main burns 0.1 s of CPU in main_work, the worker 0.4 s in
 * worker_work. Prints "worker done" and, from the atexit handler, "atexit ran".
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "burn.h"

__attribute__((noinline)) static void main_work(void)
{
    burn_cpu(0.1);
}

__attribute__((noinline)) static void worker_work(void)
{
    burn_cpu(0.4);
}

static void *worker(void *arg)
{
    (void)arg;
    worker_work();
    printf("worker done\n");
    return NULL;
}

static void at_exit(void)
{
    printf("atexit ran\n");
}

int main(void)
{
    pthread_t th;
    atexit(at_exit);
    pthread_create(&th, NULL, worker, NULL);
    main_work();
    pthread_exit(NULL);
}
