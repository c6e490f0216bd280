/*
 * sigsafe_control.c - the -l and -y signals, and the queue of sample points they ask
 * for (control.h says why points are queued).
 *
 * The queue is a ring of QUEUE_SLOTS entries with many producers (signal handlers in any
 * thread) and one consumer at a time (whoever holds the process-stream lock). A producer
 * claims slot `head` with a compare-and-swap, fills it and publishes it by storing its
 * sequence number; the consumer stops at the first slot not yet published (its producer
 * was interrupted: the next drain takes it). A producer that finds the ring full waits
 * for the lock once to drain it (drain_waiting); if it cannot (the ring filled while
 * its own thread holds the lock), the point is dropped and counted; the drain adds the
 * count to
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

/* The last point written (under the lock): points go to process.hpe in time order,
 * which is how the analyzer numbers periods, but a point queued by one thread may carry
 * a time or rusage read a moment before those of a point another thread wrote first.
 * Such a point is written at the later instant (microseconds apart), so that no period
 * is negative. */
static hpc_usage last_usage;
static uint64_t last_time;

static pending_point queue[QUEUE_SLOTS];
static uint64_t queue_head, queue_tail;
static uint64_t queue_dropped;
char hpc_control_label[32];

void hpc_control_queue_reset(void)
{
    memset(queue, 0, sizeof queue);
    queue_head = queue_tail = queue_dropped = 0;
    memset(&last_usage, 0, sizeof last_usage);
    last_time = 0;
}

bool hpc_control_queued(void)
{
    return __atomic_load_n(&queue_head, __ATOMIC_ACQUIRE) !=
           __atomic_load_n(&queue_tail, __ATOMIC_ACQUIRE);
}

/* The ring is full: wait for the lock (bounded, hpc_proc_trylock) and write it out,
 * unless this thread holds the lock itself (then nothing can drain it until it unlocks).
 * A holder that is another thread finishes in microseconds, unless the machine took it
 * off the CPU: threads raising -l signals in a tight loop filled the ring then. */
static bool drain_waiting(void)
{
    hpc_stream *s = hpc_proc_trylock();
    if (!s)
        return false;
    hpc_control_drain_locked(s);
    hpc_proc_unlock_quiet();
    return true;
}

void hpc_control_post(unsigned reason, const char *label, uint64_t time)
{
    /* the rusage first: a slot claimed but not yet published holds up the drain */
    hpc_usage usage;
    hpc_get_usage(&usage);
    uint64_t h = __atomic_load_n(&queue_head, __ATOMIC_RELAXED);
    bool waited = false;
    do {
        while (h - __atomic_load_n(&queue_tail, __ATOMIC_ACQUIRE) >= QUEUE_SLOTS) {
            if (waited || !drain_waiting()) {
                __atomic_add_fetch(&queue_dropped, 1, __ATOMIC_RELAXED);
                return;
            }
            waited = true;
            h = __atomic_load_n(&queue_head, __ATOMIC_RELAXED);
        }
    } while (!__atomic_compare_exchange_n(&queue_head, &h, h + 1, true, __ATOMIC_ACQ_REL,
                                          __ATOMIC_RELAXED));
    pending_point *p = &queue[h % QUEUE_SLOTS];
    p->time = time;
    p->reason = reason;
    p->label = label;
    p->usage = usage;
    __atomic_store_n(&p->seq, h + 1, __ATOMIC_RELEASE);
    hpc_points_catch_up(hpc_now_ns());
}

static uint64_t at_least(uint64_t v, uint64_t floor)
{
    return v > floor ? v : floor;
}

static void write_point_usage(hpc_stream *s, uint64_t time, unsigned reason, const char *label,
                              const hpc_usage *u)
{
    hpc_usage *l = &last_usage;
    last_time = at_least(time, last_time);
    l->utime_ns = at_least(u->utime_ns, l->utime_ns);
    l->stime_ns = at_least(u->stime_ns, l->stime_ns);
    l->minflt = at_least(u->minflt, l->minflt);
    l->majflt = at_least(u->majflt, l->majflt);
    l->inblock = at_least(u->inblock, l->inblock);
    l->oublock = at_least(u->oublock, l->oublock);
    l->nvcsw = at_least(u->nvcsw, l->nvcsw);
    l->nivcsw = at_least(u->nivcsw, l->nivcsw);
    l->maxrss_kb = at_least(u->maxrss_kb, l->maxrss_kb);
    hpc_rec_sample_point r = {
        .time = last_time,
        .index = __atomic_fetch_add(&hpc_P.sample_index, 1, __ATOMIC_RELAXED),
        .reason = reason,
        .label = hpc_cstr(label ? label : ""),
        .utime_ns = l->utime_ns,
        .stime_ns = l->stime_ns,
        .minflt = l->minflt,
        .majflt = l->majflt,
        .inblock = l->inblock,
        .oublock = l->oublock,
        .nvcsw = l->nvcsw,
        .nivcsw = l->nivcsw,
        .maxrss_kb = l->maxrss_kb,
    };
    if (hpc_write_sample_point(s, &r) != 0) /* a full disk, or the size limit */
        hpc_stream_stat_add(s, HPC_STAT_POINTS_DROPPED, 1);
}

void hpc_control_write_point(hpc_stream *s, uint64_t time, unsigned reason, const char *label)
{
    hpc_usage u;
    hpc_get_usage(&u);
    write_point_usage(s, time, reason, label, &u);
}

void hpc_control_write_point_at(hpc_stream *s, uint64_t time, unsigned reason, const char *label,
                                const hpc_usage *u)
{
    hpc_control_drain_locked(s);
    write_point_usage(s, time, reason, label, u);
}

void hpc_write_sample_point_locked(hpc_stream *s, unsigned reason, const char *label)
{
    hpc_control_drain_locked(s); /* points queued by -l / -y come first */
    hpc_control_write_point(s, hpc_now_ns(), reason, label);
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
        hpc_gate_update();
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
