/*
 * open_blocks - a thread asleep inside open() and inside fclose(), for thread states:
 * the sleep is charged to the call's stack, not to the next clock sample's.
 *
 *   opener   opens a FIFO for reading: open() sleeps until a writer (another thread,
 *            0.3 s after it is about to call) opens it
 *   closer   closes a stream whose 192 KiB buffer is full: fclose() writes it into a
 *            pipe that holds 64 KiB and sleeps until a reader (0.3 s later) drains it
 *   after_open, after_close   30 ms of CPU right after each: the next clock sample's
 *            stack, where the sleeps would go if the calls were not followed
 *
 * Prints "call NAME WALL CPU RUN_DELAY" for each call (the calling thread's clocks around
 * it: thread_clocks.h) and "done". Usage: open_blocks DIR (a directory for the FIFO).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "thread_clocks.h"

#define BUF (192 << 10)

static char fifo[4096];
static int pipe_fd[2];
static volatile double sink;
static volatile int about_to_block; /* the 0.3 s count from here, not from thread start */

static void nap(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&t, &t) != 0)
        ;
}

static void spin_cpu(double s)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    double end = ts_s(t) + s, x = 1;
    do {
        for (int i = 0; i < 20000; i++)
            x = x * 1.0000001 + 1e-9;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while (ts_s(t) < end);
    sink = x;
}

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return ts_s(t);
}

/* wall: the call's own (w0, w1 right around it); CPU and run delay: a and b around those
 * (clocks_now reads schedstat with stdio, which a preemption or a hypervisor's steal may
 * hit: kept out of the call's wall time, where the collector does not see it) */
static void report(const char *name, clocks a, double w0, double w1, clocks b)
{
    printf("call %s %.6f %.6f %.6f\n", name, w1 - w0, b.cpu - a.cpu, b.run_delay - a.run_delay);
    fflush(stdout);
}

static void *late_writer(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&about_to_block, __ATOMIC_ACQUIRE))
        nap(0.001);
    nap(0.3);
    int fd = open(fifo, O_WRONLY);
    if (fd < 0)
        abort();
    close(fd);
    return NULL;
}

static void *late_reader(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&about_to_block, __ATOMIC_ACQUIRE))
        nap(0.001);
    nap(0.3);
    static char buf[1 << 16];
    while (read(pipe_fd[0], buf, sizeof buf) > 0)
        ;
    return NULL;
}

__attribute__((noinline)) void opener(void)
{
    clocks a = clocks_now();
    __atomic_store_n(&about_to_block, 1, __ATOMIC_RELEASE);
    double w0 = wall_now();
    int fd = open(fifo, O_RDONLY);
    double w1 = wall_now();
    clocks b = clocks_now();
    if (fd < 0)
        abort();
    close(fd);
    report("open", a, w0, w1, b);
}

__attribute__((noinline)) void closer(FILE *f)
{
    clocks a = clocks_now();
    __atomic_store_n(&about_to_block, 1, __ATOMIC_RELEASE);
    double w0 = wall_now();
    int r = fclose(f);
    double w1 = wall_now();
    clocks b = clocks_now();
    if (r != 0)
        abort();
    report("fclose", a, w0, w1, b);
}

__attribute__((noinline)) void after_open(void)
{
    spin_cpu(0.030);
}

__attribute__((noinline)) void after_close(void)
{
    spin_cpu(0.030);
}

int main(int argc, char **argv)
{
    snprintf(fifo, sizeof fifo, "%s/open_blocks.fifo", argc > 1 ? argv[1] : ".");
    unlink(fifo);
    if (mkfifo(fifo, 0600) != 0)
        abort();
    pthread_t w;
    pthread_create(&w, NULL, late_writer, NULL);
    opener();
    after_open();
    pthread_join(w, NULL);
    unlink(fifo);
    about_to_block = 0;

    if (pipe(pipe_fd) != 0)
        abort();
    FILE *f = fdopen(pipe_fd[1], "w");
    static char buf[BUF], data[BUF];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    memset(data, 'x', sizeof data);
    if (fwrite(data, 1, sizeof data - 1, f) != sizeof data - 1) /* stays in the buffer */
        abort();
    pthread_t r;
    pthread_create(&r, NULL, late_reader, NULL);
    closer(f);
    after_close();
    pthread_join(r, NULL);
    printf("done\n");
    return 0;
}
