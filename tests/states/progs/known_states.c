/*
 * known_states.c - threads whose time goes into each thread state for known amounts, one
 * function per phase, and the ground truth of each phase as the kernel measured it:
 *
 *     phase FUNC thread WALL CPU UTIME STIME RUNDELAY MAJFLT TAIL_OFF
 *
 * (seconds, the calling thread's own clocks: CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID,
 * getrusage(RUSAGE_THREAD), /proc/thread-self/schedstat's run delay; TAIL_OFF: the time
 * spin_user was off the CPU in its last sampling interval, see there). Phases:
 *   spin_user     1.0 s of CPU in user mode
 *   sys_reads     0.5 s of system CPU: 1 MiB reads from /dev/zero, then 30 ms of user
 *   sleeper       1.0 s in nanosleep
 *   stopped       0.5 s stopped by SIGSTOP (a timer's SIGCONT continues it: the kernel
 *                 sends it while every thread is stopped), then 30 ms of user CPU
 *   lock_waiter   0.7 s blocked in pthread_mutex_lock: a helper holds the mutex
 *   contend       two threads pinned to one CPU, 0.5 s of CPU each: about 0.5 s each
 *                 runnable but not running
 *   touch_file    reads one byte per page of a file dropped from the page cache
 *                 (MADV_RANDOM: each page is a major fault that sleeps for its read)
 * Usage: known_states DIR (a directory for the scratch file).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "thread_clocks.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;

static __thread double tail_off; /* spin_user's: see there */

/* The thread's run delay at the end of its previous phase (0 before its first): the delay
 * between two phases (this report's own printing among it) is charged at the thread's
 * next clock sample, in the next phase, and the last column says how much it was. */
static __thread double last_end_delay;

static void report(const char *func, int thread, clocks a, clocks b)
{
    pthread_mutex_lock(&out_lock);
    printf("phase %s %d %.6f %.6f %.6f %.6f %.6f %.0f %.6f %.6f\n", func, thread, b.wall - a.wall,
           b.cpu - a.cpu, b.utime - a.utime, b.stime - a.stime, b.run_delay - a.run_delay,
           b.majflt - a.majflt, tail_off, a.run_delay - last_end_delay);
    last_end_delay = b.run_delay;
    tail_off = 0;
    fflush(stdout);
    pthread_mutex_unlock(&out_lock);
}

static volatile double sink;

static double thread_cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return ts_s(t);
}

/* Time off the CPU while computing is charged at the thread's next clock sample: what
 * the thread lost after its last sample in a phase lands in the next one. spin_user
 * measures that part for the test: its time off the CPU in its last TAIL_CPU of CPU time
 * (one sampling interval and some), from checkpoints taken every millisecond of CPU. */
#define TAIL_CPU 0.015
#define NCHECK   32

static double wall_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return ts_s(t);
}

__attribute__((noinline)) void spin_user(double s)
{
    double cpu = thread_cpu(), end = cpu + s, x = 1;
    double ck_cpu[NCHECK] = {cpu}, ck_wall[NCHECK] = {wall_now()};
    unsigned n = 1;
    while ((cpu = thread_cpu()) < end) {
        for (int i = 0; i < 20000; i++)
            x = x * 1.0000001 + 1e-9;
        if (cpu - ck_cpu[(n - 1) % NCHECK] >= 0.001) {
            ck_wall[n % NCHECK] = wall_now();
            ck_cpu[n++ % NCHECK] = thread_cpu();
        }
    }
    sink = x;
    double wall = wall_now();
    cpu = thread_cpu();
    unsigned k = n - 1; /* the latest checkpoint at least TAIL_CPU before the end */
    while (k > 0 && k + NCHECK > n && cpu - ck_cpu[k % NCHECK] < TAIL_CPU)
        k--;
    tail_off = (wall - ck_wall[k % NCHECK]) - (cpu - ck_cpu[k % NCHECK]);
}

/* user CPU for s seconds of the thread's CPU time */
static void spin_cpu(double s)
{
    double end = thread_cpu() + s, x = 1;
    while (thread_cpu() < end)
        for (int i = 0; i < 20000; i++)
            x = x * 1.0000001 + 1e-9;
    sink = x;
}

__attribute__((noinline)) void sys_reads(double s)
{
    static char buf[1 << 20];
    int fd = open("/dev/zero", O_RDONLY);
    struct rusage ru;
    do {
        for (int i = 0; i < 8; i++)
            if (read(fd, buf, sizeof buf) < 0)
                abort();
        getrusage(RUSAGE_THREAD, &ru);
    } while (tv_s(ru.ru_stime) < s);
    close(fd);
    /* 30 ms in user mode: unprivileged, the clock counts user time only, and this is
     * where the loop's kernel time then gets its sample (not at the thread's end, on
     * whatever stack was sampled last) */
    spin_cpu(0.030);
}

__attribute__((noinline)) void sleeper(double s)
{
    struct timespec t = {(time_t)s, (long)((s - (time_t)s) * 1e9)};
    while (nanosleep(&t, &t) != 0)
        ;
}

/* A stop is a sleep outside every call: charged at the next clock sample, which the 30 ms
 * of CPU after it bring here (as sys_reads does for its kernel time). */
__attribute__((noinline)) void stopped(double s)
{
    timer_t tm;
    struct sigevent ev = {.sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGCONT};
    struct itimerspec its = {.it_value = {(time_t)s, (long)((s - (time_t)s) * 1e9)}};
    if (timer_create(CLOCK_MONOTONIC, &ev, &tm) != 0 || timer_settime(tm, 0, &its, NULL) != 0)
        abort();
    raise(SIGSTOP);
    timer_delete(tm);
    spin_cpu(0.030);
}

static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static volatile int held;

static void *holder(void *arg)
{
    double s = *(double *)arg;
    pthread_mutex_lock(&m);
    held = 1;
    sleeper(s);
    pthread_mutex_unlock(&m);
    return NULL;
}

__attribute__((noinline)) void lock_waiter(void)
{
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
}

static void pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
}

static pthread_barrier_t start_contend;

__attribute__((noinline)) void contend(double s)
{
    spin_user(s);
}

static void *contender(void *arg)
{
    int id = (int)(long)arg;
    pin(0);
    pthread_barrier_wait(&start_contend);
    clocks a = clocks_now();
    contend(0.5);
    report("contend", id, a, clocks_now());
    return NULL;
}

__attribute__((noinline)) long touch_file(const char *dir, size_t mb)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/known_states.data", dir);
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        abort();
    static char block[1 << 20];
    memset(block, 7, sizeof block);
    for (size_t i = 0; i < mb; i++)
        if (write(fd, block, sizeof block) != sizeof block)
            abort();
    fsync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    size_t len = mb << 20;
    volatile char *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    madvise((void *)p, len, MADV_RANDOM);
    clocks a = clocks_now();
    long sum = 0;
    for (size_t off = 0; off < len; off += 4096)
        sum += p[off];
    report("touch_file", 0, a, clocks_now());
    munmap((void *)p, len);
    close(fd);
    unlink(path);
    return sum;
}

#define PHASE(name, call)                                                                          \
    do {                                                                                           \
        clocks a_ = clocks_now();                                                                  \
        call;                                                                                      \
        report(name, 0, a_, clocks_now());                                                         \
    } while (0)

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : ".";
    PHASE("spin_user", spin_user(1.0));
    PHASE("sys_reads", sys_reads(0.5));
    PHASE("sleeper", sleeper(1.0));
    PHASE("stopped", stopped(0.5));

    double hold = 0.7;
    pthread_t h;
    pthread_create(&h, NULL, holder, &hold);
    while (!held)
        sched_yield();
    PHASE("lock_waiter", lock_waiter());
    pthread_join(h, NULL);

    pthread_t c[2];
    pthread_barrier_init(&start_contend, NULL, 2);
    for (long i = 0; i < 2; i++)
        pthread_create(&c[i], NULL, contender, (void *)(i + 1));
    for (int i = 0; i < 2; i++)
        pthread_join(c[i], NULL);

    long sum = touch_file(dir, argc > 2 ? (size_t)atoi(argv[2]) : 16);
    printf("done %ld\n", sum);
    return 0;
}
