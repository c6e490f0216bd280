/*
 * io_close_race.c - a descriptor number reused while its close is still being recorded
 * (tests/io/test_io_close_race.sh). Run with HPCOLLECT_DEBUG_CLOSE_WAIT, the tracer's
 * close and fclose wait after the real close returned; another thread opens a new file
 * in that window, gets the same number, and writes all its bytes there:
 *
 *   round 1 (POSIX)  closer: a.dat: open, write 100 bytes, close
 *                    reuser: b.dat: open (a.dat's number), write() 10 x 100; once the
 *                    closer's close returned 5 x 100 more, close
 *   round 2 (stdio)  closer: c.dat: fopen, fwrite 300, writev 200 on its descriptor (as
 *                    libstdc++'s filebuf writes), fclose
 *                    reuser: d.dat: fopen (c.dat's number), fwrite 700, fflush, writev
 *                    500 on its descriptor; once the closer's close returned fwrite 300,
 *                    fflush, writev 200, fclose
 *
 * Each file's bytes are known: a 100, b 1500, c 500, d 1700, and its handles: one for
 * a.dat and b.dat (open), two for c.dat and d.dat (the stream's, and the POSIX handle its
 * descriptor's first writev makes). The reuser starts only once
 * the closer's number is closed (fcntl says EBADF), and prints whether its open and
 * writes were done before the closer's close returned ("window: hit"), i.e. whether the
 * test saw the case at all.
 *
 * Arguments: DIR. Exits 1 if a call fails or the new file did not get the old number.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

static const char *dir;
static char buf[1000];
static atomic_int closing_fd = -1, closer_done, reuser_done;

static void check(int ok, const char *what)
{
    if (!ok) {
        perror(what);
        exit(1);
    }
}

static const char *at(char *path, size_t size, const char *name)
{
    snprintf(path, size, "%s/%s", dir, name);
    return path;
}

static void vwrite(int fd, size_t n)
{
    struct iovec v[2] = {{buf, n / 2}, {buf, n - n / 2}};
    check(writev(fd, v, 2) == (ssize_t)n, "writev");
}

/* The reuser's first writes are done: were they inside the closer's close? Then, once
 * that close returned, it writes more on the same handles. */
static void hit(void)
{
    atomic_store(&reuser_done, !atomic_load(&closer_done));
    while (!atomic_load(&closer_done))
        sched_yield();
}

/* The reuser: waits until the closer's number is closed, then opens in its place. */
static void *reuser(void *arg)
{
    int round = (int)(long)arg, fd;
    while ((fd = atomic_load(&closing_fd)) < 0 || fcntl(fd, F_GETFD) != -1)
        sched_yield();
    char path[4096];
    if (round == 1) {
        int nfd = open(at(path, sizeof path, "b.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
        check(nfd == fd, "open b.dat on a.dat's number");
        for (int i = 0; i < 10; i++)
            check(write(nfd, buf, 100) == 100, "write b.dat");
        hit();
        for (int i = 0; i < 5; i++)
            check(write(nfd, buf, 100) == 100, "write b.dat after");
        check(close(nfd) == 0, "close b.dat");
    } else {
        FILE *f = fopen(at(path, sizeof path, "d.dat"), "w");
        check(f && fileno(f) == fd, "fopen d.dat on c.dat's number");
        check(fwrite(buf, 1, 700, f) == 700, "fwrite d.dat");
        check(fflush(f) == 0, "fflush d.dat");
        vwrite(fileno(f), 500);
        hit();
        check(fwrite(buf, 1, 300, f) == 300, "fwrite d.dat after");
        check(fflush(f) == 0, "fflush d.dat after");
        vwrite(fileno(f), 200);
        check(fclose(f) == 0, "fclose d.dat");
    }
    return NULL;
}

static int round_of(int round)
{
    char path[4096];
    pthread_t t;
    atomic_store(&closing_fd, -1);
    atomic_store(&closer_done, 0);
    check(pthread_create(&t, NULL, reuser, (void *)(long)round) == 0, "pthread_create");
    if (round == 1) {
        int fd = open(at(path, sizeof path, "a.dat"), O_CREAT | O_WRONLY | O_TRUNC, 0644);
        check(fd >= 0, "open a.dat");
        check(write(fd, buf, 100) == 100, "write a.dat");
        atomic_store(&closing_fd, fd);
        check(close(fd) == 0, "close a.dat");
    } else {
        FILE *f = fopen(at(path, sizeof path, "c.dat"), "w");
        check(f != NULL, "fopen c.dat");
        check(fwrite(buf, 1, 300, f) == 300, "fwrite c.dat");
        check(fflush(f) == 0, "fflush c.dat");
        vwrite(fileno(f), 200);
        atomic_store(&closing_fd, fileno(f));
        check(fclose(f) == 0, "fclose c.dat");
    }
    atomic_store(&closer_done, 1);
    check(pthread_join(t, NULL) == 0, "pthread_join");
    return atomic_load(&reuser_done);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    dir = argv[1];
    memset(buf, 'x', sizeof buf);
    for (int round = 1; round <= 2; round++)
        printf("round %d window: %s\n", round, round_of(round) ? "hit" : "missed");
    return 0;
}
