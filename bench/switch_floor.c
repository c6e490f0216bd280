/*
 * switch_floor.c - what the kernel charges per context switch for the per-thread perf
 * events a sampler keeps (bench/RESULTS.md, issue 24; not a test): two threads pinned to
 * one CPU yield to each other N times each, every yield a context switch, with one set of
 * events opened in each thread as the collector opens them (exclude_kernel, as
 * perf_event_paranoid 2 allows), and prints the process's CPU time per switch.
 *
 *     switch_floor N MODE
 *
 * MODE: none; count (a task-clock event, counting only); clock (task-clock sampling every
 * 10 ms, SIGPROF to the thread: the collector's clock); clock+page (the same with its user
 * page mapped: how the collector keeps it without a descriptor); switches (a dummy event
 * with context-switch records into an 8-page buffer: thread states); faults (a major-fault
 * event sampling every fault: thread states); all (clock+page, switches, faults: what
 * hpcollect -p on opens in each thread).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

static long rounds;
static const char *mode;

static void open_event(unsigned long long config, unsigned long long period, int switches,
                       int pages, int signal)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = config;
    a.sample_period = period;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.disabled = 1;
    a.context_switch = switches;
    if (switches) {
        a.sample_type = PERF_SAMPLE_TIME;
        a.sample_id_all = 1;
        a.use_clockid = 1;
        a.clockid = CLOCK_MONOTONIC;
    }
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        perror("switch_floor: perf_event_open");
        exit(1);
    }
    if (pages &&
        mmap(NULL, (size_t)pages * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED) {
        perror("switch_floor: mmap");
        exit(1);
    }
    if (signal) {
        struct f_owner_ex o = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
        if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 || fcntl(fd, F_SETSIG, SIGPROF) != 0 ||
            fcntl(fd, F_SETOWN_EX, &o) != 0) {
            perror("switch_floor: fcntl");
            exit(1);
        }
    }
    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

static void open_events(void)
{
    int all = strcmp(mode, "all") == 0;
    if (strcmp(mode, "count") == 0)
        open_event(PERF_COUNT_SW_TASK_CLOCK, 0, 0, 0, 0);
    if (strcmp(mode, "clock") == 0)
        open_event(PERF_COUNT_SW_TASK_CLOCK, 10000000, 0, 0, 1);
    if (strcmp(mode, "clock+page") == 0 || all)
        open_event(PERF_COUNT_SW_TASK_CLOCK, 10000000, 0, 1, 1);
    if (strcmp(mode, "switches") == 0 || all)
        open_event(PERF_COUNT_SW_DUMMY, 0, 1, 9, 0);
    if (strcmp(mode, "faults") == 0 || all)
        open_event(PERF_COUNT_SW_PAGE_FAULTS_MAJ, 1, 0, 0, 1);
}

static void *yielder(void *arg)
{
    open_events();
    for (long i = 0; i < rounds; i++)
        sched_yield();
    return arg;
}

static void on_sigprof(int sig)
{
    (void)sig;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: switch_floor N none|count|clock|clock+page|switches|faults|all\n");
        return 2;
    }
    rounds = atol(argv[1]);
    mode = argv[2];
    signal(SIGPROF, on_sigprof);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(0, &one);
    sched_setaffinity(0, sizeof one, &one);
    pthread_t t;
    pthread_create(&t, NULL, yielder, NULL);
    yielder(NULL);
    pthread_join(t, NULL);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
                 ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
    long sw = ru.ru_nvcsw + ru.ru_nivcsw;
    printf("%s %.3f us CPU per switch (%ld switches, %.3f s CPU)\n", mode, cpu / (double)sw * 1e6,
           sw, cpu);
    return 0;
}
