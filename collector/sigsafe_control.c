/*
 * sigsafe_control.c - the -l and -y signals, and the queue of sample points they ask
 * for (control.h says why points are queued).
 *
 * The queue is a ring of QUEUE_SLOTS entries with many producers (signal handlers in any
 * thread) and one consumer at a time (whoever holds the process-stream lock). A producer
 * claims slot `head` with a compare-and-swap, fills it and publishes it by storing its
 * sequence number; the consumer stops at the first slot not yet published (its producer
 * was interrupted: the next drain takes it). A full ring drops the point (64 deliveries
 * within one wake-up of the sampler) and counts it; the drain adds the count to
 * process.hpe's HPC_STAT_POINTS_DROPPED (a handler may not touch that stream: its
 * holder may be the thread it interrupted, closing it).
 */
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"

#define QUEUE_SLOTS 64u

typedef struct pending_point {
    uint64_t seq; /* published: claim index + 1 */
    uint64_t time;
    unsigned reason;
    const char *label;
    hpc_usage usage; /* at the delivery: the period ends there */
} pending_point;

static pending_point queue[QUEUE_SLOTS];
static uint64_t queue_head, queue_tail;
static uint64_t queue_dropped;
char hpc_control_label[32];

void hpc_control_queue_reset(void)
{
    memset(queue, 0, sizeof queue);
    queue_head = queue_tail = queue_dropped = 0;
}

bool hpc_control_queued(void)
{
    return __atomic_load_n(&queue_head, __ATOMIC_ACQUIRE) !=
           __atomic_load_n(&queue_tail, __ATOMIC_ACQUIRE);
}

void hpc_control_post(unsigned reason, const char *label, uint64_t time)
{
    uint64_t h = __atomic_load_n(&queue_head, __ATOMIC_RELAXED);
    do {
        if (h - __atomic_load_n(&queue_tail, __ATOMIC_ACQUIRE) >= QUEUE_SLOTS) {
            __atomic_add_fetch(&queue_dropped, 1, __ATOMIC_RELAXED);
            return;
        }
    } while (!__atomic_compare_exchange_n(&queue_head, &h, h + 1, true, __ATOMIC_ACQ_REL,
                                          __ATOMIC_RELAXED));
    pending_point *p = &queue[h % QUEUE_SLOTS];
    p->time = time;
    p->reason = reason;
    p->label = label;
    hpc_get_usage(&p->usage);
    __atomic_store_n(&p->seq, h + 1, __ATOMIC_RELEASE);
    hpc_points_catch_up(hpc_now_ns());
}

static void write_point_usage(hpc_stream *s, uint64_t time, unsigned reason, const char *label,
                              const hpc_usage *u)
{
    hpc_rec_sample_point r = {
        .time = time,
        .index = __atomic_fetch_add(&hpc_P.sample_index, 1, __ATOMIC_RELAXED),
        .reason = reason,
        .label = hpc_cstr(label ? label : ""),
        .utime_ns = u->utime_ns,
        .stime_ns = u->stime_ns,
        .minflt = u->minflt,
        .majflt = u->majflt,
        .inblock = u->inblock,
        .oublock = u->oublock,
        .nvcsw = u->nvcsw,
        .nivcsw = u->nivcsw,
        .maxrss_kb = u->maxrss_kb,
    };
    hpc_write_sample_point(s, &r);
}

void hpc_control_write_point(hpc_stream *s, uint64_t time, unsigned reason, const char *label)
{
    hpc_usage u;
    hpc_get_usage(&u);
    write_point_usage(s, time, reason, label, &u);
}

void hpc_control_drain_locked(hpc_stream *s)
{
    uint64_t t = __atomic_load_n(&queue_tail, __ATOMIC_RELAXED);
    while (t != __atomic_load_n(&queue_head, __ATOMIC_ACQUIRE)) {
        pending_point *p = &queue[t % QUEUE_SLOTS];
        if (__atomic_load_n(&p->seq, __ATOMIC_ACQUIRE) != t + 1)
            break;
        write_point_usage(s, p->time, p->reason, p->label, &p->usage);
        __atomic_store_n(&queue_tail, ++t, __ATOMIC_RELEASE);
    }
    uint64_t dropped = __atomic_exchange_n(&queue_dropped, 0, __ATOMIC_RELAXED);
    if (dropped)
        hpc_stream_stat_add(s, HPC_STAT_POINTS_DROPPED, dropped);
}

bool hpc_control_signal(int sig)
{
    const hpc_config *c = &hpc_P.cfg;
    if (sig == c->pause_sig && sig) {
        int paused = __atomic_xor_fetch(&hpc_P.paused, 1, __ATOMIC_ACQ_REL);
        hpc_control_post(paused ? HPC_SAMPLE_PAUSE : HPC_SAMPLE_RESUME, paused ? "pause" : "resume",
                         hpc_now_ns());
        return true;
    }
    if (sig == c->sample_sig && sig) {
        hpc_control_post(HPC_SAMPLE_SIGNAL, hpc_control_label, hpc_now_ns());
        return true;
    }
    return false;
}
