/*
 * fork_in_dl.c - a fork while another thread is inside dl_iterate_phdr: the child
 * inherits the loader's write lock held by a thread it does not have (glibc resets only
 * dl_load_lock), so any dl_iterate_phdr in the child would wait forever. The program
 * never calls one there; the collector must not either. A helper thread holds the lock
 * (its callback waits on a semaphore) while main forks a child that burns 0.3 s of CPU
 * in child_work and exits 0; main burns 0.3 s in parent_work before. Prints
 * "child exit N", or "child hung" and kills it after 20 s.
 */
#define _GNU_SOURCE /* dl_iterate_phdr */
#include <link.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "burn.h"

static sem_t inside, release;

static int hold_lock(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)info, (void)size, (void)data;
    sem_post(&inside);
    while (sem_wait(&release) != 0)
        ;
    return 1; /* stop after the first object */
}

static void *holder(void *arg)
{
    (void)arg;
    dl_iterate_phdr(hold_lock, NULL);
    return NULL;
}

__attribute__((noinline)) static void parent_work(void)
{
    burn_cpu(0.3);
}

__attribute__((noinline)) static void child_work(void)
{
    burn_cpu(0.3);
}

static int wait_child(pid_t pid)
{
    for (int i = 0; i < 2000; i++) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

int main(void)
{
    pthread_t th;
    sem_init(&inside, 0, 0);
    sem_init(&release, 0, 0);
    parent_work();
    pthread_create(&th, NULL, holder, NULL);
    while (sem_wait(&inside) != 0)
        ;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        child_work();
        _exit(0);
    }
    int rc = wait_child(pid);
    sem_post(&release);
    pthread_join(th, NULL);
    if (rc < 0)
        printf("child hung\n");
    else
        printf("child exit %d\n", rc);
    return rc != 0;
}
