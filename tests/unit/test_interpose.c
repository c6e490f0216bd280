/*
 * test_interpose.c - the generated wrapper of a traced call (collector/interpose.h,
 * HPC_TRACED_WRAPPER and HPC_TRACED_VOID_WRAPPER), instantiated for two made-up functions
 * with the layer's collaborators replaced: tracer off, one real call and nothing else;
 * on, one real call, the tracer's part sees its result and arguments, and errno is the
 * real call's even when the tracer's part changes it; a call the layer refuses to trace
 * (hpc_trace_begin false) goes straight to the real function, and so does a call from the
 * collector's own code (its return address in our range, HPC_CALLER_OURS); the call's end
 * time and leaf (the real function) are set before the tracer's part runs.
 */
#include "exp_test.h"
#include "interpose.h"

/* The layer's collaborators, as the test wants them. */
int hpc_real_ready = 1;
void hpc_real_resolve(void) {}
hpc_tracer_cfg hpc_tracers[HPC_TRACER_COUNT_];
uintptr_t hpc_own_lo, hpc_own_hi;
int hpc_trace_tsc; /* 0: the trace clock is hpc_now_ns, below */
static int begin_answer = 1, begins;
static uint64_t clock_now; /* the wrapper reads the call's end once */
uint64_t hpc_now_ns(void)
{
    return clock_now += 1000;
}
struct hpc_thread_priv *hpc_states_call_begin(unsigned *slot, unsigned state, void *fn)
{
    (void)slot, (void)state, (void)fn;
    return NULL; /* thread states off */
}
void hpc_states_call_end(struct hpc_thread_priv *t, unsigned slot)
{
    (void)t, (void)slot;
}
bool hpc_trace_begin_slow(hpc_trace *c, unsigned kind, struct hpc_thread_priv *known)
{
    (void)known;
    begins++;
    c->kind = kind;
    return begin_answer;
}

/* The real functions: count calls, set errno like a failing call. */
static int real_calls;
static long real_sum(int a, long b)
{
    real_calls++;
    errno = EAGAIN;
    return a + b;
}
static void real_note(int a)
{
    real_calls++;
    errno = EINTR;
    (void)a;
}
#undef HPC_REAL
#define HPC_REAL(name) real_##name

/* The tracers' parts. */
static int traced, seen_a;
static long seen_r;
static uint64_t seen_end, seen_leaf;
static void hpc_trace_sum(hpc_trace *c, long r, int a, long b)
{
    (void)b;
    seen_end = c->end, seen_leaf = c->leaf;
    traced++, seen_r = r, seen_a = a;
    errno = 0; /* the wrapper must give the caller the real call's errno */
}
static void hpc_trace_note(hpc_trace *c, int a)
{
    (void)c;
    traced++, seen_a = a;
    errno = 0;
}

HPC_TRACED_WRAPPER(sum, long, (int a, long b), 0, (a, b))
HPC_TRACED_VOID_WRAPPER(note, (int a), 0, (a))

int main(void)
{
    /* off: the real call only, the layer not even asked */
    CHECK_EQ(sum(2, 40), 42);
    CHECK(real_calls == 1 && traced == 0 && begins == 0, "off: %d real, %d traced, %d asked",
          real_calls, traced, begins);
    /* on */
    hpc_tracers[0].on = true;
    errno = 0;
    CHECK_EQ(sum(3, 4), 7);
    CHECK(errno == EAGAIN, "errno %d: the real call's expected", errno);
    CHECK(real_calls == 2 && traced == 1 && seen_r == 7 && seen_a == 3, "on: %d real, %d traced",
          real_calls, traced);
    CHECK(seen_end == clock_now && seen_leaf == (uint64_t)(uintptr_t)real_sum,
          "the call's end %llu (clock %llu) and leaf set before the tracer's part",
          (unsigned long long)seen_end, (unsigned long long)clock_now);
    note(9);
    CHECK(errno == EINTR && real_calls == 3 && traced == 2 && seen_a == 9, "void: errno %d", errno);
    /* on, but the layer refuses (guard held, thread not followed, paused) */
    begin_answer = 0;
    CHECK_EQ(sum(1, 1), 2);
    note(1);
    CHECK(real_calls == 5 && traced == 2 && begins == 4, "refused: %d real, %d traced", real_calls,
          traced);
    /* on, and the layer would trace, but the caller is the collector's own code */
    begin_answer = 1;
    hpc_own_lo = 0, hpc_own_hi = UINTPTR_MAX;
    CHECK_EQ(sum(1, 2), 3);
    note(2);
    CHECK(real_calls == 7 && traced == 2, "our own calls: %d real, %d traced", real_calls, traced);
    return exp_test_done("test_interpose");
}
