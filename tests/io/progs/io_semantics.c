/*
 * io_semantics.c - what a program sees of its I/O calls must not change under tracing:
 * return values, errno after failures and after successes (left alone), short counts,
 * end of file, and EINTR from a read that a signal interrupts (handler without
 * SA_RESTART). Prints one line per call with what it returned and errno, so that the
 * test compares a traced run with a plain one line by line; exits 1 if a result is not
 * what POSIX says it must be.
 *
 * Seven calls fail, each once: open (ENOENT), read (EBADF), close (EBADF), fopen (ENOENT),
 * lseek on a pipe (ESPIPE), write on a read-only descriptor (EBADF), read interrupted
 * (EINTR).
 *
 * Arguments: DIR for its files.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int bad;
static char dir[4096], path[8192];

static const char *at(const char *name)
{
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void report(const char *what, long r, int want_r, int e, int want_e)
{
    printf("%-28s returned %ld errno %d (%s)\n", what, r, e, strerror(e));
    if ((want_r != -2 && r != want_r) || e != want_e) {
        printf("  WRONG: expected %d errno %d\n", want_r, want_e);
        bad = 1;
    }
}

/* A successful call leaves errno as it was: 12345 before it. */
#define KEEP(call, what, want)                                                                     \
    do {                                                                                           \
        errno = 12345;                                                                             \
        long r_ = (long)(call);                                                                    \
        report(what, r_, want, errno, 12345);                                                      \
    } while (0)
#define FAIL(call, what, want_e)                                                                   \
    do {                                                                                           \
        errno = 0;                                                                                 \
        long r_ = (long)(call);                                                                    \
        report(what, r_, -1, errno, want_e);                                                       \
    } while (0)

static void on_alarm(int sig)
{
    (void)sig;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    snprintf(dir, sizeof dir, "%s", argv[1]);
    char buf[4096];
    memset(buf, 'x', sizeof buf);

    int fd;
    errno = 12345;
    fd = open(at("hundred"), O_CREAT | O_RDWR | O_TRUNC, 0644);
    report("open hundred", fd >= 0, 1, errno, 12345);
    KEEP(write(fd, buf, 100), "write 100", 100);
    KEEP(lseek(fd, 0, SEEK_SET), "lseek 0", 0);
    KEEP(read(fd, buf, sizeof buf), "read 4096 (short)", 100);
    KEEP(read(fd, buf, sizeof buf), "read at end of file", 0);
    KEEP(pread(fd, buf, 10, 1000), "pread beyond the end", 0);
    KEEP(close(fd), "close", 0);

    FAIL(open(at("missing/file"), O_RDONLY), "open missing", ENOENT);
    FAIL(read(-1, buf, 1), "read fd -1", EBADF);
    FAIL(close(-1), "close fd -1", EBADF);
    errno = 0;
    FILE *f = fopen(at("missing/file"), "r");
    report("fopen missing", f == NULL ? -1 : 0, -1, errno, ENOENT);

    int p[2];
    KEEP(pipe(p), "pipe", 0);
    FAIL(lseek(p[0], 0, SEEK_SET), "lseek on a pipe", ESPIPE);
    fd = open(at("hundred"), O_RDONLY);
    FAIL(write(fd, buf, 1), "write on O_RDONLY", EBADF);
    close(fd);

    /* a read the signal interrupts: no SA_RESTART, so EINTR */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 0}, {0, 50000}};
    setitimer(ITIMER_REAL, &it, NULL);
    FAIL(read(p[0], buf, 1), "read interrupted", EINTR);

    f = fopen(at("hundred"), "r");
    size_t n = 0;
    errno = 12345;
    while (fgets(buf, sizeof buf, f))
        n += strlen(buf);
    report("fgets to the end", (long)n, 100, errno, 12345);
    report("feof, not ferror", feof(f) && !ferror(f), 1, 0, 0);
    KEEP(fclose(f), "fclose", 0);
    return bad;
}
