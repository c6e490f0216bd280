/*
 * test_merge_order.c - hpmerge's two-pass time ordering (merge/order.c): whatever the
 * mix of in-order and early events, pass 2 emits exactly the input sorted by (time,
 * generation order), also when the side list spills into many runs that get compacted.
 */
#include "exp_test.h"
#include "order.h"

typedef struct sink {
    mg_ev *out;
    size_t n, cap;
} sink;

static void collect(void *ctx, const mg_ev *ev)
{
    sink *s = ctx;
    *MG_PUSH(s->out, s->n, s->cap) = *ev;
}

static int by_time(const void *pa, const void *pb)
{
    const mg_ev *a = pa, *b = pb;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return a->ord < b->ord ? -1 : a->ord > b->ord;
}

/* A stream like a thread's: mostly increasing, with early Enters reaching back up to
 * `reach` ns, and ties. */
static mg_ev *make_stream(size_t n, unsigned seed, uint64_t reach, unsigned early_pct)
{
    mg_ev *ev = mg_xcalloc(n, sizeof(mg_ev));
    uint64_t t = 1000000;
    srand(seed);
    for (size_t i = 0; i < n; i++) {
        t += (uint64_t)(rand() % 3); /* ties happen */
        uint64_t when = t;
        if ((unsigned)(rand() % 100) < early_pct)
            when = t - (uint64_t)(rand() % (int)reach);
        ev[i] = (mg_ev){.t = when, .ord = i, .type = MG_EV_ENTER, .a = (uint32_t)i};
    }
    return ev;
}

static void run_case(size_t n, unsigned seed, uint64_t reach, unsigned early_pct, size_t budget)
{
    mg_ev *in = make_stream(n, seed, reach, early_pct);
    mg_order o;
    sink s = {0};
    mg_order_init(&o, budget);
    for (size_t i = 0; i < n; i++)
        mg_order_pass1(&o, &in[i]);
    CHECK(mg_order_mid(&o, collect, &s) == 0, "mid: %s", o.err ? o.err : "");
    for (size_t i = 0; i < n; i++)
        mg_order_pass2(&o, &in[i]);
    uint64_t early = o.nearly, compactions = o.ncompactions;
    CHECK(mg_order_finish(&o) == 0, "finish");
    CHECK_EQ(s.n, n);
    mg_sort(in, n, sizeof(mg_ev), by_time);
    size_t bad = 0;
    for (size_t i = 0; i < n && i < s.n; i++)
        bad += in[i].t != s.out[i].t || in[i].ord != s.out[i].ord;
    CHECK(bad == 0, "n=%zu budget=%zu: %zu events out of place (early %" PRIu64 ")", n, budget, bad,
          early);
    if (budget && early > budget * 40)
        CHECK(compactions > 0, "runs were compacted (%" PRIu64 " early, budget %zu)", early,
              budget);
    free(in);
    free(s.out);
}

int main(void)
{
    run_case(0, 1, 10, 0, 0);
    run_case(1, 1, 10, 0, 0);
    run_case(1000, 2, 1, 0, 0);          /* sorted, with ties */
    run_case(1000, 3, 500, 30, 0);       /* in memory */
    run_case(20000, 4, 5000, 30, 64);    /* spilled runs */
    run_case(100000, 5, 100000, 20, 16); /* many runs, compacted repeatedly */
    run_case(50000, 6, 50, 90, 100);     /* mostly early */
    return exp_test_done("test_merge_order");
}
