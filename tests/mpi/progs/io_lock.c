/*
 * io_lock.c - an MPI library's own lock as User Lock. MPICH's ROMIO runs every MPI-IO
 * call inside the library's global critical section, a pthread mutex: while the main
 * thread is blocked inside MPI_File_open (of a FIFO nobody has opened for writing yet),
 * another thread's MPI_File_open waits for that mutex. Open MPI's OMPIO holds no lock
 * there: its second open does not wait.
 *
 *   main         MPI_File_open(FIFO)  blocks until `writer` opens the FIFO (Other Wait)
 *   lock_waiter  once main is blocked in open(): MPI_File_open(a regular file), waiting
 *                for main's lock under MPICH (User Lock), not under Open MPI
 *   writer       once lock_waiter has started: naps LOCK_S, then opens the FIFO for writing
 *
 * Each prints what its clocks measured around its MPI_File_open:
 *
 *     wait FUNC WALL CPU RUNDELAY
 *
 * Run on one rank, in a writable directory.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "thread_clocks.h"

#define FIFO   "io_lock.fifo"
#define LOCK_S 0.5

static atomic_int waiter_started;
static pid_t main_tid;

static void nap(double s)
{
    struct timespec d = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&d, &d) != 0)
        ;
}

static void report(const char *what, clocks a, clocks b)
{
    printf("wait %s %.6f %.6f %.6f\n", what, b.wall - a.wall, b.cpu - a.cpu,
           b.run_delay - a.run_delay);
    fflush(stdout);
}

/* Whether the main thread is asleep in the openat system call (its syscall file starts
 * with the call's number while it is blocked in it): then it holds ROMIO's lock. */
static int main_blocked_in_open(void)
{
    char path[64], buf[64] = "";
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)main_tid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    int ok = fgets(buf, sizeof buf, f) != NULL;
    fclose(f);
    return ok && atoi(buf) == 257; /* __NR_openat on x86_64 */
}

__attribute__((noinline)) void *lock_waiter(void *arg)
{
    (void)arg;
    while (!main_blocked_in_open())
        nap(0.001);
    atomic_store(&waiter_started, 1);
    MPI_File f;
    clocks a = clocks_now();
    int rc = MPI_File_open(MPI_COMM_SELF, "io_lock.dat", MPI_MODE_RDWR | MPI_MODE_CREATE,
                           MPI_INFO_NULL, &f);
    report("lock_waiter", a, clocks_now());
    if (rc == MPI_SUCCESS)
        MPI_File_close(&f);
    return NULL;
}

__attribute__((noinline)) void *writer(void *arg)
{
    (void)arg;
    while (!atomic_load(&waiter_started))
        nap(0.001);
    nap(LOCK_S);
    int fd = open(FIFO, O_WRONLY);
    nap(0.05);
    if (fd >= 0)
        close(fd);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "io_lock: MPI_THREAD_MULTIPLE not provided\n");
        return 1;
    }
    main_tid = gettid();
    unlink(FIFO);
    if (mkfifo(FIFO, 0600) != 0) {
        perror("io_lock: mkfifo");
        return 1;
    }
    pthread_t w, t;
    pthread_create(&w, NULL, lock_waiter, NULL);
    pthread_create(&t, NULL, writer, NULL);
    MPI_File f;
    clocks a = clocks_now();
    int rc = MPI_File_open(MPI_COMM_SELF, FIFO, MPI_MODE_RDONLY, MPI_INFO_NULL, &f);
    report("main", a, clocks_now());
    if (rc == MPI_SUCCESS)
        MPI_File_close(&f);
    pthread_join(w, NULL);
    pthread_join(t, NULL);
    unlink(FIFO);
    MPI_Finalize();
    return 0;
}
