/*
 * test_states_window.c - the collector's settling of context-switch intervals against a
 * thread's own clocks (collector/sigsafe_states_window.c), as a table of cases with the totals
 * known: each case's states must add up to the window's off-CPU time, its Wait CPU to
 * the run delay, and the split follow the rules (overlap taken out per interval, the
 * delay after wakeups from the sleeps by their number, the rest outside them).
 */
#include <stdio.h>
#include <string.h>

#include "collector.h"

#define US   1000ull
#define MS   1000000ull
#define NONE UINT64_MAX

enum { W = HPC_MSTATE_WAIT_CPU, L = HPC_MSTATE_USER_LOCK, O = HPC_MSTATE_OTHER_WAIT };

typedef struct tcase {
    int line;
    const char *what;
    /* intervals read: raw ns and count, into acc (here) or pend (next sample) */
    uint64_t acc_ns[HPC_NMSTATES], pend_ns[HPC_NMSTATES];
    uint32_t acc_n[HPC_NMSTATES], pend_n[HPC_NMSTATES];
    bool lost, call_times;
    uint64_t off, delay;
    /* expected */
    uint64_t acc[HPC_NMSTATES], pend[HPC_NMSTATES], unseen;
} tcase;

static const tcase cases[] = {
    {__LINE__, "one sleep, 2 us of overlap, no delay", .acc_ns[O] = 10 * MS + 2 * US, .acc_n[O] = 1,
     .off = 10 * MS, .delay = 0, .acc[O] = 10 * MS},
    {__LINE__, "overlap shared per interval: 100 short sleeps and one long one",
     .acc_ns[O] = 100 * (50 * US + 3 * US), .acc_n[O] = 100, .pend_ns[O] = 20 * MS + 3 * US,
     .pend_n[O] = 1, .off = 100 * 50 * US + 20 * MS, .delay = NONE, .acc[O] = 5 * MS,
     .pend[O] = 20 * MS},
    {__LINE__, "preempted interval and wake delay: the delay leaves the sleeps for Wait CPU",
     .acc_ns[W] = 4 * MS, .acc_n[W] = 1, .acc_ns[L] = 6 * MS, .acc_n[L] = 2, .acc_ns[O] = 10 * MS,
     .acc_n[O] = 2, .off = 20 * MS, .delay = 4 * MS + 2 * MS, .acc[W] = 6 * MS,
     .acc[L] = 6 * MS - 1 * MS, .acc[O] = 10 * MS - 1 * MS},
    {__LINE__, "a delay larger than the sleeps: the sleeps give what they have",
     .acc_ns[O] = 1 * MS, .acc_n[O] = 1, .off = 1 * MS, .delay = 3 * MS, .acc[W] = 1 * MS},
    {__LINE__, "the run delay beyond the sleeps' intervals came outside them: at the sample",
     .acc_ns[O] = 5 * MS, .acc_n[O] = 1, .off = 9 * MS, .delay = 6 * MS, .acc[W] = 5 * MS,
     .pend[W] = 4 * MS},
    {__LINE__, "nothing read, time off the CPU: run delay, then steal time, all Wait CPU",
     .off = 7 * MS, .delay = 5 * MS, .pend[W] = 7 * MS},
    {__LINE__, "records lost: what no interval covers is unseen", .acc_ns[O] = 5 * MS,
     .acc_n[O] = 1, .lost = true, .off = 12 * MS, .delay = 0, .acc[O] = 5 * MS, .unseen = 7 * MS},
    {__LINE__, "call times holding CPU time: scaled down to the time off the CPU",
     .acc_ns[O] = 30 * MS, .acc_n[O] = 3, .acc_ns[L] = 10 * MS, .acc_n[L] = 1, .call_times = true,
     .off = 20 * MS, .delay = 0, .acc[O] = 15 * MS, .acc[L] = 5 * MS},
    {__LINE__, "call times: the run delay from the calls by number, the rest outside",
     .acc_ns[O] = 8 * MS, .acc_n[O] = 1, .call_times = true, .off = 20 * MS, .delay = 6 * MS,
     .acc[W] = 6 * MS, .acc[O] = 2 * MS, .pend[O] = 12 * MS},
    {__LINE__, "call times, nothing called: preemption and other sleeps at the next sample",
     .call_times = true, .off = 10 * MS, .delay = 4 * MS, .pend[W] = 4 * MS, .pend[O] = 6 * MS},
    {__LINE__, "unknown run delay (no schedstat): no wake delay moved", .acc_ns[O] = 6 * MS,
     .acc_n[O] = 1, .off = 6 * MS, .delay = NONE, .acc[O] = 6 * MS},
};

static int run(const tcase *c)
{
    hpc_states_window w;
    memset(&w, 0, sizeof w);
    memcpy(w.raw_acc, c->acc_ns, sizeof w.raw_acc);
    memcpy(w.raw_pend, c->pend_ns, sizeof w.raw_pend);
    memcpy(w.n_acc, c->acc_n, sizeof w.n_acc);
    memcpy(w.n_pend, c->pend_n, sizeof w.n_pend);
    w.lost = c->lost;
    w.call_times = c->call_times;
    uint64_t acc[HPC_NMSTATES] = {0}, pend[HPC_NMSTATES] = {0};
    uint64_t unseen = hpc_states_window_settle(&w, c->off, c->delay, acc, pend);
    int bad = 0;
    for (unsigned s = 0; s < HPC_NMSTATES; s++) {
        /* integer shares may round down by a nanosecond or so */
        long long da = (long long)acc[s] - (long long)c->acc[s];
        long long dp = (long long)pend[s] - (long long)c->pend[s];
        if (da < -2 || da > 2 || dp < -2 || dp > 2) {
            fprintf(stderr,
                    "tests/unit/test_states_window.c:%d: %s: state %u: acc %llu (want %llu), "
                    "pend %llu (want %llu)\n",
                    c->line, c->what, s, (unsigned long long)acc[s], (unsigned long long)c->acc[s],
                    (unsigned long long)pend[s], (unsigned long long)c->pend[s]);
            bad = 1;
        }
    }
    if (unseen != c->unseen) {
        fprintf(stderr, "tests/unit/test_states_window.c:%d: %s: unseen %llu (want %llu)\n",
                c->line, c->what, (unsigned long long)unseen, (unsigned long long)c->unseen);
        bad = 1;
    }
    printf("%s  %s\n", bad ? "FAIL" : "ok  ", c->what);
    return bad;
}

int main(void)
{
    int failed = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        failed += run(&cases[i]);
    return failed ? 1 : 0;
}
