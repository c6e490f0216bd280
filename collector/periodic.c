/*
 * periodic.c - periodic global sample points (-S) and the points the -l / -y signals
 * queued (control.h), written without a thread of our own.
 *
 * A helper thread made every program multi-threaded: unshare(CLONE_NEWUSER) needs a
 * single-threaded caller and failed ("Invalid argument"), and chromium's zygote checks
 * that it has one thread before it forks and aborted. So the points are written by
 * whichever collector code runs next: a clock or counter sample (at the end of its
 * handler), a -l / -y delivery, a thread's start or end, and the process's end (which
 * writes the queued ones and the end point). A periodic point is therefore taken at the
 * first of these after its period is due (with -p off, or while the program sleeps, a
 * period can be longer than asked; its rusage is still exact at both ends). The writer
 * takes the process-stream lock with one attempt: a thread that finds it held (by itself,
 * interrupted, or by another) leaves the point to the next one.
 */
#include <stdio.h>

#include "collector.h"
#include "control.h"

static uint64_t next_due; /* CLOCK_MONOTONIC ns of the next periodic point, 0 = none */

void hpc_control_init(void)
{
    const hpc_config *c = &hpc_P.cfg;
    const char *abbrev = c->sample_sig ? sigabbrev_np(c->sample_sig) : NULL;
    hpc_control_queue_reset();
    snprintf(hpc_control_label, sizeof hpc_control_label, "%s%s", abbrev ? "SIG" : "",
             abbrev ? abbrev : "signal");
    if (c->pause_sig && c->start_paused)
        hpc_P.paused = 1;
}

void hpc_points_start(void)
{
    uint64_t period = hpc_P.cfg.sample_ns;
    __atomic_store_n(&next_due, period ? hpc_now_ns() + period : 0, __ATOMIC_RELAXED);
}

void hpc_points_catch_up(uint64_t now)
{
    uint64_t due = __atomic_load_n(&next_due, __ATOMIC_RELAXED);
    if ((!due || now < due) && !hpc_control_queued())
        return;
    hpc_stream *s = hpc_proc_trylock_once();
    if (!s)
        return;
    if (!hpc_P.ended) { /* not between an exec's end point and the exec */
        hpc_control_drain_locked(s);
        due = __atomic_load_n(&next_due, __ATOMIC_RELAXED);
        if (due && now >= due) {
            hpc_control_write_point(s, now, HPC_SAMPLE_PERIODIC, "");
            while (due <= now) /* a late point skips periods, it does not burst */
                due += hpc_P.cfg.sample_ns;
            __atomic_store_n(&next_due, due, __ATOMIC_RELAXED);
        }
    }
    hpc_proc_unlock();
}
