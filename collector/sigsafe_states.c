/*
 * sigsafe_states.c - reading a thread's context-switch records and charging its time off
 * the CPU to call stacks (states.h; docs/thread-states.md). Everything here runs in the
 * thread itself, in a signal handler or in a blocking-call wrapper, and is signal-safe.
 *
 * Records, in the order the kernel writes them: SWITCH out (PREEMPT flag when the thread
 * was still runnable), SWITCH in, and a major-fault SAMPLE right after the sleep of the
 * fault it ended (the thread sleeps, runs again, finishes the fault). An interval from a
 * switch-out to its switch-in is:
 *   - preempted: Wait CPU;
 *   - followed by a fault sample: Text Page Fault when the faulting address is the
 *     instruction's own, else Data Page Fault;
 *   - otherwise a sleep of the innermost blocking call it began in (hpc_call.head <= its
 *     offset): User Lock or Other Wait; Other Wait outside every call.
 *
 * Where it is charged (acc: here, to the stack of what is reading now; pend: to the
 * thread's next clock sample) depends on who reads: a call's wrapper takes the
 * intervals inside it; a fault's handler the fault's sleep; a clock sample everything
 * (what happened inside a call it interrupted as the call's, the rest as its own).
 *
 * The intervals read go into a window first; before anything is written the window is
 * settled against the thread's own clocks (sigsafe_states_window.c: the records overshoot each
 * interval a little and miss run-queue delay after wakeups), which needs its CPU time
 * and schedstat (two system calls and a pread of its kept /proc file): done only when a state
 * is due, never for a thread that did not leave the CPU. A state's acc is written when
 * it reaches the clock interval, pend at every clock sample, and what is left at the
 * thread's end.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "collector.h"
#include "interpose.h"
#include "source.h"

#define REC_MAX 64 /* bytes of a record we read: switch 16, fault sample 32, lost 24 */

enum place { PLACE_CALL, PLACE_SAMPLE, PLACE_FAULT, PLACE_END };

typedef struct reading {
    enum place place;
    const hpc_call *call; /* PLACE_CALL: the call being left (in the thread's array) */
    bool fault_here;      /* PLACE_FAULT: a fault sleep was charged here */
} reading;

/* ------------------------------------------------------------------ the buffer */

static uint64_t now_head(const hpc_states *s)
{
    return __atomic_load_n(&s->rb->data_head, __ATOMIC_ACQUIRE);
}

static const unsigned char *data_of(const hpc_states *s)
{
    return (const unsigned char *)s->rb + s->data_off;
}

/* Copy n bytes at offset off of the circular data area. */
static void copy_out(const hpc_states *s, uint64_t off, void *dst, size_t n)
{
    const unsigned char *d = data_of(s);
    unsigned char *o = dst;
    for (size_t i = 0; i < n; i++)
        o[i] = d[(off + i) & s->mask];
}

static uint64_t u64_at(const unsigned char *p)
{
    uint64_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* --------------------------------------------------------------- classifying */

/* The state of a sleep that began at buffer offset off: the innermost call that had
 * begun by then decides. */
/* The threads library's locks: a sleep in them is User Lock (the reference's "user-mode
 * lock"); in its other waits (conditions, joins, barriers) Other Wait. */
unsigned hpc_blocking_state(uint64_t fn)
{
    const void *locks[] = {
        (void *)HPC_REAL(pthread_mutex_lock),
        (void *)HPC_REAL(pthread_mutex_timedlock),
        (void *)HPC_REAL(pthread_mutex_clocklock),
        (void *)HPC_REAL(pthread_rwlock_rdlock),
        (void *)HPC_REAL(pthread_rwlock_wrlock),
        (void *)HPC_REAL(pthread_rwlock_timedrdlock),
        (void *)HPC_REAL(pthread_rwlock_timedwrlock),
        (void *)HPC_REAL(pthread_rwlock_clockrdlock),
        (void *)HPC_REAL(pthread_rwlock_clockwrlock),
        (void *)HPC_REAL(sem_wait),
        (void *)HPC_REAL(sem_timedwait),
        (void *)HPC_REAL(sem_clockwait),
        (void *)HPC_REAL(pthread_spin_lock),
        (void *)HPC_REAL(mtx_lock),
        (void *)HPC_REAL(mtx_timedlock),
    };
    for (size_t i = 0; i < sizeof locks / sizeof locks[0]; i++)
        if (fn && (uint64_t)(uintptr_t)locks[i] == fn)
            return HPC_MSTATE_USER_LOCK;
    return HPC_MSTATE_OTHER_WAIT;
}

static unsigned call_state(const hpc_call *c)
{
    return c->state == HPC_STATES_BY_FN ? hpc_blocking_state(c->fn) : c->state;
}

static unsigned sleep_state(const hpc_states *s, uint64_t off)
{
    for (unsigned i = s->ncalls; i-- > 0;)
        if (s->calls[i].head <= off)
            return call_state(&s->calls[i]);
    return HPC_MSTATE_OTHER_WAIT;
}

static bool in_call(const hpc_states *s, uint64_t off)
{
    return s->ncalls && s->calls[0].head <= off;
}

/* Put an interval of ns in state st that began at offset off into the window, as
 * here (acc) or for the next clock sample (pend), as r says. */
static void charge(hpc_states *s, const reading *r, unsigned st, uint64_t ns, uint64_t off,
                   bool fault)
{
    bool here;
    switch (r->place) {
    case PLACE_CALL:
        here = off >= r->call->head;
        break;
    case PLACE_SAMPLE:
        here = in_call(s, off);
        break;
    case PLACE_FAULT:
        here = fault;
        break;
    default:
        here = false;
    }
    if (here) {
        s->win.raw_acc[st] += ns;
        s->win.n_acc[st]++;
    } else {
        s->win.raw_pend[st] += ns;
        s->win.n_pend[st]++;
    }
}

/* Sleeps read but not charged yet, outside every call: a major fault's sample may follow
 * them (a fault can sleep more than once: for its page's lock, for the read). */
#define HELD_MAX 8
typedef struct held {
    unsigned n;
    uint64_t ns[HELD_MAX], off[HELD_MAX];
} held;

static void flush_sleeps(hpc_states *s, const reading *r, held *h)
{
    for (unsigned i = 0; i < h->n; i++)
        charge(s, r, sleep_state(s, h->off[i]), h->ns[i], h->off[i], false);
    h->n = 0;
}

static void on_switch(hpc_states *s, const reading *r, held *h, uint16_t misc, uint64_t time,
                      uint64_t off)
{
    if (misc & PERF_RECORD_MISC_SWITCH_OUT) {
        s->out_time = time;
        s->out_seen = true;
        s->out_preempt = (misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT) != 0;
        s->out_off = off;
        return;
    }
    /* what came before the window began was the previous window's time off the CPU,
     * counted there though none of its records was read (close_window_read gave up) */
    uint64_t from = s->out_time > s->win_time ? s->out_time : s->win_time;
    if (!s->out_seen || time < from)
        return;
    uint64_t ns = time - from;
    s->out_seen = false;
    if (s->out_preempt) {
        charge(s, r, HPC_MSTATE_WAIT_CPU, ns, s->out_off, false);
        return;
    }
    if (in_call(s, s->out_off)) { /* a call's sleep: no fault's */
        flush_sleeps(s, r, h);
        charge(s, r, sleep_state(s, s->out_off), ns, s->out_off, false);
        return;
    }
    if (h->n == HELD_MAX)
        flush_sleeps(s, r, h);
    h->ns[h->n] = ns;
    h->off[h->n++] = s->out_off;
}

/* A major fault ended: the sleeps just read outside calls were its own. */
static void on_fault(hpc_states *s, reading *r, held *h, const unsigned char *body)
{
    uint64_t ip = u64_at(body), addr = u64_at(body + 16);
    unsigned st = addr >= ip && addr - ip < 16 ? HPC_MSTATE_TEXT_PF : HPC_MSTATE_DATA_PF;
    for (unsigned i = 0; i < h->n; i++)
        charge(s, r, st, h->ns[i], h->off[i], true);
    r->fault_here = r->fault_here || (h->n && r->place == PLACE_FAULT);
    h->n = 0;
}

/* Read every record the kernel wrote since the last read. */
static void read_records(hpc_thread_priv *t, reading *r)
{
    hpc_states *s = &t->st;
    if (!s->rb) /* call times: nothing to read */
        return;
    uint64_t head = now_head(s), tail = s->rb->data_tail;
    held h = {.n = 0};
    while (tail < head) {
        struct perf_event_header eh;
        copy_out(s, tail, &eh, sizeof eh);
        if (eh.size < sizeof eh || tail + eh.size > head) {
            tail = head; /* cannot happen with a sane kernel: give up on what is left */
            break;
        }
        unsigned char body[REC_MAX];
        size_t n = eh.size - sizeof eh < sizeof body ? eh.size - sizeof eh : sizeof body;
        copy_out(s, tail + sizeof eh, body, n);
        if (eh.type == PERF_RECORD_SWITCH && n >= 8)
            on_switch(s, r, &h, eh.misc, u64_at(body), tail);
        else if (eh.type == PERF_RECORD_SAMPLE && n >= 24)
            on_fault(s, r, &h, body);
        else if (eh.type == PERF_RECORD_LOST && n >= 16) {
            s->win.lost = true;
            hpc_stat(t, HPC_STAT_STATES_LOST, u64_at(body + 8));
            s->out_seen = false; /* its switch-in may be among the lost */
        }
        tail += eh.size;
    }
    flush_sleeps(s, r, &h);
    __atomic_store_n(&s->rb->data_tail, tail, __ATOMIC_RELEASE);
}

/* ------------------------------------------------------------ run-queue delay */

#define SCHEDSTAT "/proc/thread-self/schedstat"

/* Is the kept descriptor still the thread's schedstat (the program may have closed it
 * and reused the number)? */
static bool sched_kept(const hpc_states *s)
{
    struct stat st;
    return s->sched_kept && syscall(SYS_fstat, s->sched_fd, &st) == 0 &&
           (uint64_t)st.st_dev == s->sched_dev && (uint64_t)st.st_ino == s->sched_ino;
}

/* The thread's schedstat: time on a CPU, run delay, timeslices. Returns 0 or -1. */
static int read_schedstat(const hpc_states *s, uint64_t v[3])
{
    char buf[96];
    long n;
    if (sched_kept(s)) {
        n = syscall(SYS_pread64, s->sched_fd, buf, sizeof buf - 1, 0);
    } else {
        int fd = (int)syscall(SYS_openat, AT_FDCWD, SCHEDSTAT, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return -1;
        n = syscall(SYS_read, fd, buf, sizeof buf - 1);
        syscall(SYS_close, fd);
    }
    if (n <= 0)
        return -1;
    buf[n] = 0;
    const char *p = buf;
    for (int i = 0; i < 3; i++) {
        uint64_t x = 0;
        while (*p == ' ')
            p++;
        if (*p < '0' || *p > '9')
            return -1;
        while (*p >= '0' && *p <= '9')
            x = x * 10 + (uint64_t)(*p++ - '0');
        v[i] = x;
    }
    return 0;
}

static uint64_t run_delay_now(const hpc_states *s)
{
    uint64_t v[3];
    return read_schedstat(s, v) == 0 ? v[1] : UINT64_MAX;
}

/* A window of a thread whose calls are timed (the fallback, or lazy: states.h). */
static bool timed(const hpc_states *s)
{
    return s->source == HPC_STATES_CALL_TIMES || s->lazy;
}

uint64_t hpc_states_window_preset(hpc_thread_priv *t)
{
    hpc_states *s = &t->st;
    if (s->source == HPC_STATES_NONE)
        return hpc_now_ns();
    if (s->lazy) { /* from its creation: its clocks were 0 then (states.h) */
        memset(&s->win, 0, sizeof s->win);
        s->win.call_times = true;
        s->win_run_delay = s->win_cpu = 0;
        s->win_time = s->begin_time = hpc_now_ns();
        return s->win_time;
    }
    s->win_run_delay = run_delay_now(s);
    s->win_cpu = hpc_thread_cpu_ns();
    s->win_time = hpc_now_ns();
    s->win_preset = true;
    return s->win_time;
}

void hpc_states_window_open(hpc_thread_priv *t)
{
    hpc_states *s = &t->st;
    memset(&s->win, 0, sizeof s->win);
    s->win.call_times = timed(s);
    if (s->win_preset) { /* thread_begin read its clocks */
        s->win_preset = false;
        return;
    }
    s->win_time = hpc_now_ns();
    s->win_cpu = hpc_thread_cpu_ns();
    s->win_run_delay = run_delay_now(s);
}

/* Settle the window into acc and pend (sigsafe_states_window.c) and open the next. now and cpu
 * are the thread's clocks, read by the caller. */
/* Did the thread ever leave the CPU (rusage: voluntary or involuntary switches)? */
static bool ever_switched(hpc_states *s)
{
    if (!s->end_ru_final)
        s->end_ru_ok = getrusage(RUSAGE_THREAD, &s->end_ru) == 0;
    return !s->end_ru_ok || s->end_ru.ru_nvcsw || s->end_ru.ru_nivcsw;
}

/* The run delay at the end of a lazy thread's window without a read of its schedstat
 * when it never left the CPU: none in its life then, and nothing in its calls slept (they
 * were CPU time); what its clocks say was off the CPU is steal, Wait CPU as the records
 * would have it (the window becomes an empty one of records). Else its schedstat. */
static uint64_t lazy_run_delay(hpc_states *s)
{
    if (ever_switched(s))
        return run_delay_now(s);
    memset(&s->win, 0, sizeof s->win);
    return s->win_run_delay;
}

static uint64_t window_run_delay(hpc_states *s)
{
    return s->lazy ? lazy_run_delay(s) : run_delay_now(s);
}

static void settle_window(hpc_thread_priv *t, uint64_t now, uint64_t cpu, uint64_t rd)
{
    hpc_states *s = &t->st;
    uint64_t wall = now - s->win_time, used = cpu > s->win_cpu ? cpu - s->win_cpu : 0;
    uint64_t delay = rd != UINT64_MAX && s->win_run_delay != UINT64_MAX && rd >= s->win_run_delay
                         ? rd - s->win_run_delay
                         : UINT64_MAX;
    s->unseen +=
        hpc_states_window_settle(&s->win, wall > used ? wall - used : 0, delay, s->acc, s->pend);
    memset(&s->win, 0, sizeof s->win);
    s->win.call_times = timed(s);
    s->win_time = now;
    s->win_cpu = cpu;
    s->win_run_delay = rd;
}

static void close_window(hpc_thread_priv *t, uint64_t now, uint64_t cpu)
{
    settle_window(t, now, cpu, window_run_delay(&t->st));
}

/* tests: HPCOLLECT_DEBUG_STATES_GAP, once per thread, at a blocking call's end */
static void debug_gap(hpc_states *s, const reading *r)
{
    if (hpc_P.cfg.debug_states_gap <= 0 || s->gap_done || r->place != PLACE_CALL)
        return;
    s->gap_done = true;
    hpc_debug_sleep_ms(hpc_P.cfg.debug_states_gap);
}

/* A window that ends where records were just read (r): its end, the thread's clocks and
 * schedstat, must see the same switches as the records. A switch between the read and
 * those reads (a preemption there, on a loaded machine) is in one and not the other:
 * time off the CPU that no record covered (charged as steal time), then in the next
 * window an interval longer than that window's time off the CPU, the excess taken out of
 * each of its intervals (a holder's 0.7 s sleep lost 0.23 s of its Other Wait, one
 * suite run in 40 at load 6), or a run delay its time does not hold, moved from its
 * sleeps to Wait CPU. So the records are read again until none came in during the end's
 * reads (a few times at most). Returns the window's end. */
static uint64_t close_window_read(hpc_thread_priv *t, reading *r)
{
    hpc_states *s = &t->st;
    uint64_t now, cpu, rd;
    debug_gap(s, r);
    for (int tries = 0;; tries++) {
        now = hpc_now_ns();
        cpu = hpc_thread_cpu_ns();
        rd = window_run_delay(s);
        if (!s->rb || tries == 3 || now_head(s) == s->rb->data_tail)
            break;
        read_records(t, r);
    }
    settle_window(t, now, cpu, rd);
    return now;
}

/* A lazy thread's events open now (states.h): the window of its timed calls so far ends
 * here (now, cpu: its clocks, read by the caller) and is settled; the next one starts
 * here too, its run delay from just after the opening (the records begin then: a
 * preemption in between is off-CPU time no record covers, Wait CPU at the next sample).
 * Calls in progress began before the buffer's first record: their head is its start.
 * Where the events cannot be had the thread goes on with call times. Signal-safe, with
 * the thread's handlers kept out of its states (reading, or inside one). */
static void upgrade(hpc_thread_priv *t, uint64_t now, uint64_t cpu)
{
    hpc_states *s = &t->st;
    close_window(t, now, cpu);
    s->lazy = false;
    s->end_ru_ok = false; /* read for that window: not its end's */
    if (s->source == HPC_STATES_PERF_SWITCH) {
        if (hpc_states_events_open(s, true) != 0)
            s->source = HPC_STATES_CALL_TIMES;
        else /* the clock's perf event may be open already: its number is its own */
            hpc_states_fault_avoid(s, t->perf_fd, t->perf_fd_prev);
        for (unsigned i = 0; s->rb && i < s->ncalls; i++)
            s->calls[i].head = 0;
    }
    s->win.call_times = timed(s);
    s->win_run_delay = run_delay_now(s);
}

static bool window_empty(const hpc_states *s)
{
    for (unsigned st = 0; st < HPC_NMSTATES; st++)
        if (s->win.n_acc[st] || s->win.n_pend[st])
            return false;
    return !s->win.lost;
}

/* ------------------------------------------------------------------ writing */

static void write_state(hpc_thread_priv *t, unsigned st, uint64_t ns, uint64_t node, unsigned how,
                        uint64_t now)
{
    t->st.last_node[st] = node;
    t->st.written |= 1u << st;
    if (!hpc_recording_at(now)) {
        hpc_stat(t, HPC_STAT_STATES_LOST, 1);
        return;
    }
    hpc_rec_sample_state r = {
        .time = now,
        .node = node,
        .mstate = st,
        .ns = ns,
        .how = how,
        .state = t->pub.state,
        .region = t->pub.region,
        .mpi_fn = t->pub.mpi_fn,
    };
    int err = hpc_write_sample_state(&t->pub.stream, &r);
    if (err == HPC_E_LIMIT)
        hpc_limit_reached();
    if (err)
        hpc_stat(t, HPC_STAT_STATES_LOST, 1);
}

/* Could a state's acc reach the interval once the window is settled? */
/* A state is due when it reaches the interval, or the first time it has time at all
 * (one unwind per state and thread: what remains at the thread's end then has a stack
 * where that state happened, in a short run too). */
static bool state_due(const hpc_states *s, unsigned st, uint64_t ns)
{
    return ns && (ns >= hpc_P.cfg.clock_ns || !(s->written >> st & 1));
}

static bool acc_due(const hpc_states *s)
{
    for (unsigned st = 0; st < HPC_NMSTATES; st++)
        if (state_due(s, st, s->acc[st] + s->win.raw_acc[st]))
            return true;
    return false;
}

/* Write every acc that reached the interval (all of them when `all`) at node. */
static void write_acc(hpc_thread_priv *t, uint64_t node, uint64_t now, bool all, unsigned how)
{
    hpc_states *s = &t->st;
    for (unsigned st = 0; st < HPC_NMSTATES; st++) {
        if (!s->acc[st] || (!all && !state_due(s, st, s->acc[st])))
            continue;
        write_state(t, st, s->acc[st], node, how, now);
        s->acc[st] = 0;
    }
}

static void write_pend(hpc_thread_priv *t, uint64_t node, uint64_t now, unsigned how)
{
    hpc_states *s = &t->st;
    for (unsigned st = 0; st < HPC_NMSTATES; st++) {
        if (!s->pend[st])
            continue;
        write_state(t, st, s->pend[st], node, how, now);
        s->pend[st] = 0;
    }
}

/* ------------------------------------------------------------ the readers */

static uint64_t tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

uint64_t hpc_states_sys_ns(hpc_thread_priv *t, uint64_t cpu_ns)
{
    hpc_states *s = &t->st;
    struct rusage ru;
    /* win_time: states were on, and their events may be gone already (the tail sample at
     * a thread's end comes after hpc_states_stop) */
    if (s->source == HPC_STATES_NONE && !s->win_time)
        return 0;
    if (s->end_ru_final)
        ru = s->end_ru;
    else if (getrusage(RUSAGE_THREAD, &ru) != 0)
        return 0;
    uint64_t st = tv_ns(ru.ru_stime);
    uint64_t sys = st > s->stime_ns ? st - s->stime_ns : 0;
    s->stime_ns = st;
    return sys < cpu_ns ? sys : cpu_ns;
}

void hpc_states_at_sample(hpc_thread_priv *t, uint64_t node, uint64_t now, uint64_t cpu)
{
    hpc_states *s = &t->st;
    if (s->source == HPC_STATES_NONE || s->reading) /* the thread was reading: next time */
        return;
    if (s->lazy) /* its first sample: its events from now on */
        upgrade(t, hpc_now_ns(), hpc_thread_cpu_ns());
    reading r = {.place = PLACE_SAMPLE};
    read_records(t, &r);
    /* the window ends after the records read (the sample's clocks were read before its
     * unwind: a preemption since is in the records) */
    if (!window_empty(s) || s->win.call_times) /* call times: what happened outside calls */
        close_window_read(t, &r);
    (void)cpu;
    write_pend(t, node, now, HPC_STATE_AT_SAMPLE);
    if (s->unseen) {
        write_state(t, HPC_MSTATE_OTHER_WAIT, s->unseen, node, HPC_STATE_UNSEEN, now);
        s->unseen = 0;
    }
    write_acc(t, node, now, false, HPC_STATE_AT_CALL);
    s->last_sample_node = node;
}

bool hpc_states_is_fault(const hpc_thread_priv *t, const siginfo_t *si)
{
    return t && t->st.fault_sig_fd >= 0 && si->si_code == POLL_IN &&
           si->si_fd == t->st.fault_sig_fd;
}

void hpc_states_fault(hpc_thread_priv *t, void *ucontext)
{
    hpc_states *s = &t->st;
    if (!s->rb || t->in_handler || t->pub.busy || s->reading)
        return; /* read later: the fault's sleep then counts as an ordinary one */
    t->in_handler = 1;
    hpcollect_write_begin(&t->pub);
    reading r = {.place = PLACE_FAULT};
    read_records(t, &r);
    if (r.fault_here && acc_due(s)) {
        uint64_t now = close_window_read(t, &r);
        t->masked = 1;
        hpc_sample_mask(&t->sample_mask);
        int n = hpc_unwind_signal(t, ucontext, t->pcs, HPC_MAX_DEPTH);
        t->masked = 0;
        int err = 0;
        uint64_t node = hpc_cct_insert(t, t->pcs, n, &err);
        if (!err)
            write_acc(t, node, now, false, HPC_STATE_AT_CALL);
    }
    hpcollect_write_end(&t->pub);
    t->in_handler = 0;
}

/* ------------------------------------------------------------ blocking calls */

/* hpc_states_call_begin for a thread without its events (call times, the fallback): the
 * call's start is a clock read. Out of line: the way with events makes no call. */
static __attribute__((noinline)) hpc_thread_priv *call_begin_timed(hpc_thread_priv *t,
                                                                   unsigned *slot, unsigned n)
{
    hpc_states *s = &t->st;
    s->calls[n].head = hpc_now_ns();
    *slot = n;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->ncalls = n + 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (s->rb) /* a sample opened the events (upgrade) before it was counted */
        s->calls[n].head = 0;
    return t;
}

hpc_thread_priv *hpc_states_call_begin(unsigned *slot, unsigned state, void *fn)
{
    hpc_thread_priv *t = hpc_self();
    if (!t || t->st.source == HPC_STATES_NONE || t->pub.busy || t->in_handler ||
        hpc_guard_held()) /* the collector's own call (interpose.h) */
        return NULL;
    hpc_states *s = &t->st;
    /* this frame's CFA: ordered as the frames are, without a frame pointer */
    uintptr_t here = (uintptr_t)__builtin_dwarf_cfa();
    unsigned n = s->ncalls;
    while (n && s->calls[n - 1].sp <= here) /* left by a longjmp */
        n--;
    if (n == HPC_MAX_CALLS) {
        s->ncalls = n;
        return NULL;
    }
    hpc_call *c = &s->calls[n]; /* not counted yet: a sample meanwhile does not read it */
    c->fn = (uint64_t)(uintptr_t)fn;
    c->sp = here;
    c->state = state;
    if (__builtin_expect(!s->rb, 0))
        return call_begin_timed(t, slot, n);
    c->head = now_head(s);
    *slot = n;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->ncalls = n + 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    return t;
}

/* The call's stack: the real function, the wrapper (the outermost frame of ours: the
 * entry point the program called, by its name), then the program's frames; as a clock
 * sample inside the real function would have it. Returns its CCT node (0 if none). */
static __attribute__((noinline)) uint64_t call_node(hpc_thread_priv *t, const hpc_call *c)
{
    int n = hpc_unwind_here_slots(t, 0, t->pcs + 1, NULL, HPC_MAX_DEPTH - 1);
    int ours = 0;
    while (ours < n && hpc_pc_ours(t->pcs[1 + ours]))
        ours++;
    if (ours == 0)
        return 0;                  /* not called through a wrapper: nothing sensible to show */
    uint64_t *pcs = t->pcs + ours; /* the wrapper's frame */
    if (c->fn == (uint64_t)(uintptr_t)HPC_STATES_PROGRAM)
        pcs++; /* the program's frames only (an OpenMP tool callback's caller) */
    else if (c->fn)
        *--pcs = c->fn;
    int err = 0;
    uint64_t node = hpc_cct_insert(t, pcs, (int)(t->pcs + n + 1 - pcs), &err);
    return err ? 0 : node;
}

/* Reading and settling keep the thread's own signal handlers out of the states (reading),
 * not out of its stream: the stream is busy only while a record is written, so that a
 * fatal signal that comes meanwhile (mpirun's SIGTERM to a rank yielding in MPI_Recv,
 * which blocks at every yield) still finds it free to write the call the rank dies in. */
static void reading_begin(hpc_states *s)
{
    s->reading = 1;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

static void reading_end(hpc_states *s)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->reading = 0;
}

static __attribute__((noinline)) void leave_call(hpc_thread_priv *t, const hpc_call *c)
{
    HPC_GUARD_SCOPE;
    reading_begin(&t->st);
    reading r = {.place = PLACE_CALL, .call = c};
    read_records(t, &r);
    if (acc_due(&t->st)) {
        uint64_t now = close_window_read(t, &r);
        hpcollect_write_begin(&t->pub);
        uint64_t node = call_node(t, c);
        write_acc(t, node, now, false, HPC_STATE_AT_CALL);
        hpcollect_write_end(&t->pub);
    }
    reading_end(&t->st);
}

/* Call times (the fallback): a call long enough to have blocked is an interval. */
#define CALL_TIMES_MIN_NS 10000

/* (reading, taken by the caller) */
static __attribute__((noinline)) void leave_timed_call(hpc_thread_priv *t, const hpc_call *c,
                                                       uint64_t ns)
{
    HPC_GUARD_SCOPE;
    hpc_states *s = &t->st;
    unsigned st = call_state(c);
    s->win.raw_acc[st] += ns;
    s->win.n_acc[st]++;
    if (acc_due(s)) {
        uint64_t now = hpc_now_ns();
        close_window(t, now, hpc_thread_cpu_ns());
        hpcollect_write_begin(&t->pub);
        write_acc(t, call_node(t, c), now, false, HPC_STATE_AT_CALL);
        hpcollect_write_end(&t->pub);
    }
    /* a lazy thread that blocked a clock interval's worth opens its events as its first
     * sample would (a thread that blocks and hardly computes may never take one), and
     * takes its clock's perf event: it lives long enough for it, and its CPU timer may
     * never fire where the kernel's tick keeps missing it (source.h, hpc_clock_check) */
    if (s->lazy && (s->lazy_ns += ns) >= hpc_P.cfg.clock_ns) {
        upgrade(t, hpc_now_ns(), hpc_thread_cpu_ns());
        hpc_clock_check(t);
    }
}

/* hpc_states_call_end's slow ways: the call slept (events), or call times (the fallback).
 * errno kept. */
static __attribute__((noinline)) void call_end_slow(hpc_thread_priv *t, const hpc_call *c)
{
    hpc_states *s = &t->st;
    int saved = errno;
    if (s->rb) {
        leave_call(t, c);
    } else {
        reading_begin(s); /* no sample opens the events meanwhile (upgrade) */
        uint64_t ns = hpc_now_ns() - c->head;
        if (!s->rb && ns >= CALL_TIMES_MIN_NS)
            leave_timed_call(t, c, ns);
        reading_end(s);
    }
    errno = saved;
}

void hpc_states_call_end(hpc_thread_priv *t, unsigned slot)
{
    hpc_states *s = &t->st;
    if (s->ncalls <= slot || s->source == HPC_STATES_NONE)
        return; /* dropped meanwhile (a nested call judged it left), or states stopped */
    const hpc_call *c = &s->calls[slot];
    /* it slept (the events moved on), or no events: the slow ways */
    if (!t->pub.busy && !t->in_handler && (!s->rb || now_head(s) != c->head))
        call_end_slow(t, c);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    s->ncalls = slot;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* ------------------------------------------------------------------ the start */

void hpc_states_here(hpc_thread_priv *t)
{
    hpc_states *s = &t->st;
    if (s->source == HPC_STATES_NONE || t->pub.busy || t->in_handler)
        return;
    HPC_GUARD_SCOPE;
    hpcollect_write_begin(&t->pub);
    reading r = {.place = PLACE_END};
    read_records(t, &r);
    uint64_t now = close_window_read(t, &r);
    int n = hpc_unwind_here_slots(t, 0, t->pcs, NULL, HPC_MAX_DEPTH);
    int err = 0;
    uint64_t node = n ? hpc_cct_insert(t, t->pcs, n, &err) : 0;
    node = err ? 0 : node;
    write_acc(t, node, now, true, HPC_STATE_AT_SAMPLE);
    write_pend(t, node, now, HPC_STATE_AT_SAMPLE);
    hpcollect_write_end(&t->pub);
}

/* ------------------------------------------------------------------ the end */

/* A lazy thread's account at its start, written at its end: its counters at its creation
 * (all 0; the collector's start of the thread, a few us of CPU, is then in its life's
 * figures, as in its clock samples), at thread_begin's time. */
static void write_account_zero(hpc_thread_priv *t)
{
    hpc_rec_thread_account a = {.time = t->st.begin_time};
    hpc_write_thread_account(&t->pub.stream, &a);
}

void hpc_states_write_account(hpc_thread_priv *t)
{
    struct rusage ru;
    uint64_t v[3] = {0, 0, 0};
    hpc_states *s = &t->st;
    memset(&ru, 0, sizeof ru);
    if (s->begin_time && s->end_ru_ok) /* read a moment ago, at the end of its window */
        ru = s->end_ru;
    else
        getrusage(RUSAGE_THREAD, &ru);
    if (s->begin_time) { /* lazy: its end, its start account still to write */
        write_account_zero(t);
        /* the clocks its last window read (finish, just before): its run time is the
         * thread's CPU clock (both the scheduler's sum_exec_runtime), its run delay the
         * schedstat read or 0 for a thread that never left the CPU (lazy_run_delay) */
        v[0] = s->win_cpu;
        v[1] = s->win_run_delay;
        v[2] = 1 + (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
        s->begin_time = 0;
    } else {
        read_schedstat(s, v);
    }
    hpc_rec_thread_account a = {
        .time = hpc_now_ns(),
        .utime_ns = tv_ns(ru.ru_utime),
        .stime_ns = tv_ns(ru.ru_stime),
        .run_ns = v[0],
        .run_delay_ns = v[1],
        .timeslices = v[2],
        .minflt = (uint64_t)ru.ru_minflt,
        .majflt = (uint64_t)ru.ru_majflt,
        .nvcsw = (uint64_t)ru.ru_nvcsw,
        .nivcsw = (uint64_t)ru.ru_nivcsw,
    };
    hpc_write_thread_account(&t->pub.stream, &a);
}

/* What is settled and not written yet at the thread's end: each state where it was last
 * written (else at node), the pending time at node. */
static void write_left(hpc_thread_priv *t, uint64_t node, uint64_t now)
{
    hpc_states *s = &t->st;
    for (unsigned st = 0; st < HPC_NMSTATES; st++) {
        if (s->acc[st])
            write_state(t, st, s->acc[st], s->last_node[st] ? s->last_node[st] : node,
                        HPC_STATE_AT_END, now);
        s->acc[st] = 0;
    }
    write_pend(t, node, now, HPC_STATE_AT_END);
    if (s->unseen)
        write_state(t, HPC_MSTATE_OTHER_WAIT, s->unseen, 0, HPC_STATE_UNSEEN, now);
    s->unseen = 0;
}

void hpc_states_end(hpc_thread_priv *t)
{
    hpc_states *s = &t->st;
    s->ncalls = 0;
    if (s->source == HPC_STATES_NONE || s->lazy)
        return; /* lazy: no records; its one window is settled at the very end (finish) */
    reading r = {.place = PLACE_END};
    read_records(t, &r);
    uint64_t now = close_window_read(t, &r);
    write_left(t, s->last_sample_node, now);
}

void hpc_states_end_usage(hpc_thread_priv *t)
{
    hpc_states *s = &t->st;
    if (!s->lazy || !s->win_time) /* (its events are released already: source NONE) */
        return;
    s->end_ru_ok = s->end_ru_final = getrusage(RUSAGE_THREAD, &s->end_ru) == 0;
}

bool hpc_states_finish(hpc_thread_priv *t, uint64_t now, uint64_t cpu)
{
    hpc_states *s = &t->st;
    if (!s->win_time)
        return false;
    if (s->lazy) { /* no sample: its life in one window, charged where its CPU tail went */
        close_window(t, now, cpu);
        write_left(t, hpc_tail_node_known(t), now);
        s->win_time = 0;
        return true;
    }
    memset(&s->win, 0, sizeof s->win); /* nothing to read: the events are gone */
    close_window(t, now, cpu);
    write_pend(t, s->last_sample_node, now, HPC_STATE_AT_END);
    s->win_time = 0;
    return true;
}
