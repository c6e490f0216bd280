/*
 * idle_points WINDOWS_FILE [--await-wake]: a program that spends its time waiting, every
 * thread of it, in the ways a program waits. Each phase waits 0.2 s:
 *   nanosleep     main and a second thread both in nanosleep
 *   read          main alone, blocked in read() on a pipe a child writes after 0.2 s
 *                 (with --await-wake: and after main woke inside read at least once, as
 *                 a signal's handler makes it: see wait_for_wake)
 *   pause         main in pause() until the child's SIGUSR1 (our handler counts it)
 *   poll, select, epoll_wait, usleep, clock_nanosleep, sigtimedwait   main alone
 *   sleep         main in sleep(1) (1 s)
 * stdout gets each call's result, the same with or without a collector: whether it
 * returned what it returns when its time is up (0, the byte, EINTR for pause with one
 * run of the handler, EAGAIN for sigtimedwait, select's timeout left at 0) and whether
 * it waited at least as long as asked ("full"). WINDOWS_FILE gets each phase's
 * CLOCK_MONOTONIC start and end in ns ("PHASE START END"), the clock the experiment's
 * times are on.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_NS 200000000LL /* each phase */

static FILE *windows;
static volatile sig_atomic_t handled;

static int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_usr1(int sig)
{
    (void)sig;
    handled++;
}

/* One phase: its window to the file, its result and whether it lasted `want` ns. */
static void report(const char *phase, int64_t start, int64_t want, const char *result)
{
    int64_t end = now_ns();
    fprintf(windows, "%s %lld %lld\n", phase, (long long)start, (long long)end);
    printf("%-16s %s %s\n", phase, result, end - start >= want ? "full" : "SHORT");
}

static void *sleeper(void *arg)
{
    (void)arg;
    struct timespec ts = {0, WAIT_NS};
    return (void *)(intptr_t)nanosleep(&ts, NULL);
}

/* The number in /proc/PID/FILE after `key` (-1 if not found). */
static long long proc_field(pid_t pid, const char *file, const char *key)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/%s", (int)pid, file);
    FILE *f = fopen(path, "r");
    long long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, n) == 0 &&
            (isspace((unsigned char)line[n]) || isdigit((unsigned char)line[n])))
            v = atoll(line + n);
    if (f)
        fclose(f);
    return v;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* With --await-wake: once pid is blocked in its read(2) of rfd,
 * wait until it has woken in it at least once more (its voluntary context switches go
 * up as it blocks again after a signal's handler), at most 60 s. Whatever the load, the
 * byte then comes after the collector's timer signal was handled inside the read. */
static bool await_wake;

/* Is pid blocked in read(rfd, ...)? ("0 0xFD ..." in /proc/PID/syscall: the program's
 * read, not one of the collector's.) */
static bool in_read(pid_t pid, int rfd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/syscall", (int)pid);
    FILE *f = fopen(path, "r");
    unsigned nr = 1, fd = 0;
    bool yes = f && fscanf(f, "%u 0x%x", &nr, &fd) == 2 && nr == 0 && fd == (unsigned)rfd;
    if (f)
        fclose(f);
    return yes;
}

static void wait_for_wake(pid_t pid, int rfd, int64_t since, int64_t ns)
{
    long long base = -1;
    for (int i = 0; i < 60000 && base < 0; i++) {
        if (in_read(pid, rfd))
            base = proc_field(pid, "status", "voluntary_ctxt_switches:");
        else if (kill(pid, 0) != 0)
            return; /* gone */
        else
            sleep_ms(1);
    }
    int64_t left = since + ns - now_ns();
    if (left > 0)
        sleep_ms((long)(left / 1000000) + 1);
    for (int i = 0; i < 60000 && base >= 0; i++) {
        long long v = proc_field(pid, "status", "voluntary_ctxt_switches:");
        if (v < 0 || v > base) /* woken, or gone */
            return;
        sleep_ms(1);
    }
}

/* A child that sleeps `ns`, then writes a byte to fd (if >= 0; the parent reads rfd) or
 * sends SIGUSR1. */
static pid_t child_after(int64_t ns, int fd, int rfd)
{
    pid_t parent = getpid(), c = fork();
    if (c == 0) {
        int64_t t0 = now_ns();
        if (fd >= 0 && await_wake)
            wait_for_wake(parent, rfd, t0, ns);
        else {
            struct timespec ts = {0, (long)ns};
            nanosleep(&ts, NULL);
        }
        if (fd >= 0)
            (void)!write(fd, "x", 1);
        else
            kill(parent, SIGUSR1);
        _exit(0);
    }
    return c;
}

static const char *rc_str(int rc, int err)
{
    static char buf[64];
    snprintf(buf, sizeof buf, "rc %d%s%s", rc, rc < 0 ? " " : "",
             rc < 0 ? strerrorname_np(err) : "");
    return buf;
}

int main(int argc, char **argv)
{
    windows = fopen(argc > 1 ? argv[1] : "/dev/null", "w");
    await_wake = argc > 2 && strcmp(argv[2], "--await-wake") == 0;
    if (!windows)
        return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);

    pthread_t th;
    int64_t t0 = now_ns();
    pthread_create(&th, NULL, sleeper, NULL);
    struct timespec ts = {0, WAIT_NS};
    int rc = nanosleep(&ts, NULL), err = errno;
    void *other;
    pthread_join(th, &other);
    char buf[80];
    snprintf(buf, sizeof buf, "%s, other thread rc %d", rc_str(rc, err), (int)(intptr_t)other);
    report("nanosleep", t0, WAIT_NS, buf);

    int p[2];
    if (pipe(p) != 0)
        return 2;
    t0 = now_ns();
    pid_t c = child_after(WAIT_NS, p[1], p[0]);
    char byte = 0;
    ssize_t n = read(p[0], &byte, 1);
    snprintf(buf, sizeof buf, "read %zd byte %c", n, byte);
    report("read", t0, WAIT_NS, buf);
    waitpid(c, NULL, 0);

    t0 = now_ns();
    c = child_after(WAIT_NS, -1, -1);
    rc = pause();
    err = errno;
    snprintf(buf, sizeof buf, "%s, handler ran %d", rc_str(rc, err), (int)handled);
    report("pause", t0, 0, buf);
    waitpid(c, NULL, 0);

    t0 = now_ns();
    rc = poll(NULL, 0, (int)(WAIT_NS / 1000000));
    report("poll", t0, WAIT_NS, rc_str(rc, errno));

    t0 = now_ns();
    struct timeval tv = {0, WAIT_NS / 1000};
    fd_set r;
    FD_ZERO(&r);
    FD_SET(p[0], &r); /* nothing more comes */
    rc = select(p[0] + 1, &r, NULL, NULL, &tv);
    snprintf(buf, sizeof buf, "%s, left %ld.%06ld, set %d", rc_str(rc, errno), (long)tv.tv_sec,
             (long)tv.tv_usec, FD_ISSET(p[0], &r));
    report("select", t0, WAIT_NS, buf);

    t0 = now_ns();
    int ep = epoll_create1(0);
    struct epoll_event ev;
    rc = epoll_wait(ep, &ev, 1, (int)(WAIT_NS / 1000000));
    report("epoll_wait", t0, WAIT_NS, rc_str(rc, errno));

    t0 = now_ns();
    rc = usleep((useconds_t)(WAIT_NS / 1000));
    report("usleep", t0, WAIT_NS, rc_str(rc, errno));

    t0 = now_ns();
    struct timespec rel = {0, WAIT_NS}, rem = {-1, -1};
    rc = clock_nanosleep(CLOCK_REALTIME, 0, &rel, &rem);
    snprintf(buf, sizeof buf, "error %d, rem untouched %d", rc, rem.tv_sec == -1);
    report("clock_nanosleep", t0, WAIT_NS, buf);

    t0 = now_ns();
    sigset_t usr2;
    sigemptyset(&usr2);
    sigaddset(&usr2, SIGUSR2);
    sigprocmask(SIG_BLOCK, &usr2, NULL);
    rc = sigtimedwait(&usr2, NULL, &rel);
    report("sigtimedwait", t0, WAIT_NS, rc_str(rc, errno));

    t0 = now_ns();
    unsigned left = sleep(1);
    snprintf(buf, sizeof buf, "left %u", left);
    report("sleep", t0, 1000000000LL, buf);
    fclose(windows);
    return 0;
}
