/*
 * signal_floor.c - the floor under any per-thread clock sampler here: the same perf_event
 * task-clock setup the collector uses (F_SETSIG SIGPROF to this thread), an empty
 * handler, and cpu_bound's loop. Its CPU time minus the plain run's is what the kernel
 * alone costs (timer interrupt, overflow, signal delivery, sigreturn).
 *
 *     signal_floor PERIOD_NS UNITS [nosig]      (PERIOD_NS 0 = no event)
 *
 * nosig: the same event and period, but no signal is asked for: what the timer and the
 * overflow cost without the signal's delivery and return.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile long signals;
static volatile double sink;

static void on_prof(int sig)
{
    (void)sig;
    signals++;
}

static int arm(long period, int with_signal)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    a.sample_period = (unsigned long)period;
    a.disabled = 1;
    a.wakeup_events = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, 0);
    if (fd < 0)
        return -1;
    struct f_owner_ex o = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
    signal(SIGPROF, on_prof);
    if (with_signal && (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) || fcntl(fd, F_SETSIG, SIGPROF) ||
                        fcntl(fd, F_SETOWN_EX, &o)))
        return -1;
    if (ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    long period = argc > 1 ? atol(argv[1]) : 1000000;
    int units = argc > 2 ? atoi(argv[2]) : 40;
    int with_signal = !(argc > 3 && strcmp(argv[3], "nosig") == 0);
    if (period > 0 && arm(period, with_signal) != 0) {
        perror("perf_event_open");
        return 1;
    }
    for (int u = 0; u < units; u++) {
        double x = 1.0;
        for (long i = 0; i < 10000000; i++)
            x = x * 1.0000001 + 1e-9;
        sink += x;
    }
    printf("%ld\n", signals);
    return 0;
}
