/*
 * periodic.c - the sample points' start in a process: -l / -y's label and start state,
 * the first periodic point's time and the points timer (sigsafe_points.c says how points
 * are written without a thread of our own, and writes them). NOT signal-safe.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"
#include "source.h"

void hpc_control_init(void)
{
    const hpc_config *c = &hpc_P.cfg;
    const char *abbrev = c->sample_sig ? sigabbrev_np(c->sample_sig) : NULL;
    hpc_control_queue_reset();
    hpc_points_forget();
    snprintf(hpc_control_label, sizeof hpc_control_label, "%s%s", abbrev ? "SIG" : "",
             abbrev ? abbrev : "signal");
    if (c->pause_sig && c->start_paused)
        hpc_P.paused = 1;
    hpc_gate_update();
}

void hpc_points_start(void)
{
    uint64_t period = hpc_P.cfg.sample_ns;
    uint64_t first = period ? hpc_now_ns() + period : 0;
    if (!period) {
        hpc_points_schedule(0, 0, false);
        return;
    }
    /* To this thread, not the process: a process-directed SIGPROF pending in the shared
     * set makes the kernel drop the program's own ITIMER_PROF signals (a standard signal
     * already pending there is not queued again): own_itimer lost 20-38 of its 50 at
     * -S 0.01, and a toy program with a 10 ms CLOCK_MONOTONIC timer 40 of 50. A thread's
     * own pending set is apart from the process's. */
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_THREAD_ID;
    ev.sigev_notify_thread_id = (pid_t)syscall(SYS_gettid);
    ev.sigev_signo = HPC_CLOCK_SIGNAL;
    ev.sigev_value.sival_ptr = (void *)(uintptr_t)HPC_POINTS_COOKIE;
    int id;
    if (syscall(SYS_timer_create, CLOCK_MONOTONIC, &ev, &id) != 0) {
        /* only blocked threads lose: running ones and sleeping ones still write points */
        fprintf(stderr,
                "hpcollect: no timer for the periodic sample points of process %ld (%m): "
                "they come with the next sample or sleep instead\n",
                (long)getpid());
        hpc_points_schedule(first, 0, false);
        return;
    }
    hpc_points_schedule(first, id, true);
}
