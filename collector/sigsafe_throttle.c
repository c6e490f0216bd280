/*
 * sigsafe_throttle.c - sample handlers keep to a share of their thread's CPU time.
 *
 * A sample costs an unwind, which grows with the stack: a 400-deep stack took about
 * 120 us here, so at `-p 50u` each handler ran longer than the interval, the next signal
 * was pending as it returned, and the program never got on (a 3 s job ran for minutes).
 * perf bounds its own interrupt handlers the same way (perf_cpu_time_max_percent, 25%
 * by default, lowering perf_event_max_sample_rate).
 *
 * Each thread has a token bucket, in ns of handler time: it earns HPCOLLECT_THROTTLE_PCT
 * percent of the thread's CPU time (handlers included) and each recorded sample spends
 * what its handler took. A signal that finds less than the average cost of a sample in
 * the bucket is skipped at once (a clock read and a few loads) and counted in
 * HPC_STAT_THROTTLED; nothing it stood for is lost, since a clock sample weighs the
 * thread's CPU time since the previous recorded one, and a counter sample the count
 * since then. The effective interval thus grows to about cost / share while handlers
 * are expensive and comes back when they are cheap again. The bucket holds at most
 * 50 ms of earnings (or two samples), so a long quiet stretch cannot pay for a burst.
 *
 * Skipping keeps the handlers' share, but each signal still costs its delivery (a timer
 * interrupt and a signal frame: about 50 us on this virtual machine, so `-p 50u` alone
 * took the whole CPU). So the clock's own interval follows: doubled from the asked one
 * while the mean cost of a sample needs a longer interval to stay within the share,
 * back down when it needs a quarter of the interval (source.h: set_period).
 * The handlers' total goes into thread_end (handler_cpu_ns). All signal-safe.
 */
#include "collector.h"
#include "source.h"

#define MAX_INTERVAL_NS 1000000000ull

#define CAP_NS 50000000ll

/* Spendable handler time after earning on the thread's CPU time up to `cpu`. */
static void earn(hpc_thread_priv *t, uint64_t cpu)
{
    unsigned pct = hpc_P.cfg.throttle_pct;
    if (cpu > t->thr_seen_ns) {
        t->thr_tokens += (int64_t)((cpu - t->thr_seen_ns) * pct / 100);
        t->thr_seen_ns = cpu;
    }
    int64_t cap = CAP_NS * (int64_t)pct / 100;
    if (cap < 2 * t->thr_cost_ns)
        cap = 2 * t->thr_cost_ns;
    if (t->thr_tokens > cap)
        t->thr_tokens = cap;
}

/* The clock's interval: the asked one doubled until the mean sample costs at most the
 * share of it; raised at once, lowered once it is four times what is needed. */
static void adapt_interval(hpc_thread_priv *t)
{
    uint64_t asked = hpc_P.cfg.clock_ns, now = hpc_clock_period(t);
    if (!asked || !now)
        return;
    uint64_t need = (uint64_t)t->thr_cost_ns * 100 / hpc_P.cfg.throttle_pct, level = asked;
    while (level < need && level < MAX_INTERVAL_NS)
        level *= 2;
    if (level > now || level * 4 <= now) {
        hpc_clock_set_period(t, level);
        if (level > now && hpc_clock_period(t) == level)
            hpc_stat(t, HPC_STAT_INTERVAL_RAISED, 1);
    }
}

bool hpc_throttle_skip(hpc_thread_priv *t, uint64_t cpu)
{
    if (!hpc_P.cfg.throttle_pct)
        return false;
    earn(t, cpu);
    if (t->thr_tokens >= t->thr_cost_ns)
        return false;
    hpc_stat(t, HPC_STAT_THROTTLED, 1);
    return true;
}

void hpc_throttle_spent(hpc_thread_priv *t, uint64_t cpu_at_entry)
{
    uint64_t cpu = hpc_thread_cpu_ns();
    int64_t cost = cpu > cpu_at_entry ? (int64_t)(cpu - cpu_at_entry) : 0;
    t->handler_ns += (uint64_t)cost;
    if (!hpc_P.cfg.throttle_pct)
        return;
    earn(t, cpu);
    t->thr_tokens -= cost;
    /* the mean of the recent samples: one expensive stack does not stop sampling for long */
    t->thr_cost_ns = t->thr_cost_ns ? t->thr_cost_ns + (cost - t->thr_cost_ns) / 8 : cost;
    adapt_interval(t);
}
