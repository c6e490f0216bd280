/*
 * io_threads.c - I/O by thread and by time, known in advance (tests/io/test_io_views.sh):
 *
 *   main thread   a.dat: open, 10 write() of 100 bytes, close
 *   thread 1      b.dat: open, 20 write() of 200 bytes, close (joined before the pause)
 *   main thread   a pause of 300 ms, then a sample point "ab_done" (period 1 ends there)
 *   main thread   c.dat: open, 5 write() of 300 bytes, close
 *
 * Arguments: DIR. Exits 1 if a call does not do what the test expects.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sample_point.h"

static const char *dir;
static char buf[300];

static void check(int ok, const char *what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

__attribute__((noinline)) static void writes(const char *name, int n, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    check(fd >= 0, "open");
    for (int i = 0; i < n; i++)
        check(write(fd, buf, size) == (ssize_t)size, "write");
    check(close(fd) == 0, "close");
}

static void *worker(void *arg)
{
    (void)arg;
    writes("b.dat", 20, 200);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    dir = argv[1];
    memset(buf, 'x', sizeof buf);
    writes("a.dat", 10, 100);
    pthread_t t;
    check(pthread_create(&t, NULL, worker, NULL) == 0, "pthread_create");
    check(pthread_join(t, NULL) == 0, "pthread_join");
    struct timespec pause = {0, 300 * 1000 * 1000};
    while (nanosleep(&pause, &pause) != 0)
        ;
    sample_point("ab_done");
    writes("c.dat", 5, 300);
    return 0;
}
