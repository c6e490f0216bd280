/*
 * periodic.c - the sampler thread: periodic global sample points (-S) and the points
 * the -l / -y signals queued (control.h).
 *
 * Why a thread of our own: a sample point wants getrusage and a write under the
 * process-stream lock, neither of which belongs in a signal handler that may interrupt
 * the lock holder; and a timer signal aimed at a program thread would interrupt its
 * sleeps and blocking calls (nanosleep, poll, read on a terminal) once per period, which
 * the program would notice. The sampler instead sleeps on a futex until the next period
 * or until a signal handler posts a point. It is created with the real pthread_create,
 * so it is not followed (no thread stream, no samples, not a program thread in any
 * report), blocks every signal (the program's signals go to the program's threads), and
 * costs one wake-up per period. RUSAGE_SELF is the whole process's, whichever thread
 * asks. A fork child starts its own (hpc_process_begin); exec ends it with the image;
 * when the program's last thread ends, it ends too (last_thread.c).
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"
#include "real.h"

#define SAMPLER_STACK (256u * 1024)

static int quit; /* the program's threads are all gone */

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

/* Wait until `deadline` (CLOCK_MONOTONIC ns, 0 = none) or a post changes the wake word
 * from `seen`. */
static void wait_for(uint32_t seen, uint64_t deadline)
{
    struct timespec ts = {(time_t)(deadline / 1000000000u), (long)(deadline % 1000000000u)};
    syscall(SYS_futex, &hpc_control_wake, FUTEX_WAIT_BITSET_PRIVATE, seen, deadline ? &ts : NULL,
            NULL, FUTEX_BITSET_MATCH_ANY);
}

static void *sampler_main(void *arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8);
    prctl(PR_SET_NAME, "hpcollect-smpl", 0, 0, 0);
    uint64_t period = hpc_P.cfg.sample_ns;
    uint64_t next = period ? hpc_now_ns() + period : 0;
    for (;;) {
        uint32_t seen = __atomic_load_n(&hpc_control_wake, __ATOMIC_ACQUIRE);
        uint64_t now = hpc_now_ns();
        if (!next || now < next)
            wait_for(seen, next);
        now = hpc_now_ns();
        int due = next && now >= next;
        while (next && next <= now) /* a late wake-up skips periods, it does not burst */
            next += period;
        hpc_stream *s = hpc_proc_lock();
        if (!s)
            break;          /* collection ended in this process */
        if (!hpc_P.ended) { /* not between an exec's end point and the exec */
            hpc_control_drain_locked(s);
            if (due)
                hpc_control_write_point(s, now, HPC_SAMPLE_PERIODIC, "");
        }
        hpc_proc_unlock();
        if (__atomic_load_n(&quit, __ATOMIC_ACQUIRE))
            break;
    }
    return NULL;
}

void hpc_sampler_quit(void)
{
    __atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
    hpc_control_wake_sampler();
}

void hpc_sampler_start(void)
{
    const hpc_config *c = &hpc_P.cfg;
    __atomic_store_n(&quit, 0, __ATOMIC_RELEASE);
    if (!c->sample_ns && !c->sample_sig && !c->pause_sig)
        return;
    pthread_attr_t attr;
    pthread_t th;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, SAMPLER_STACK);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = hpc_real.pthread_create(&th, &attr, sampler_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0)
        fprintf(stderr,
                "hpcollect: cannot start the sampler thread (%s): no periodic sample "
                "points in process %ld; -l/-y points are written with the next other one\n",
                strerror(rc), (long)getpid());
}
