/*
 * test_omp_model.c - the OpenMP state rules both hpanalyze and hpmerge apply
 * (model/omp_model.c): a worker's implicit barrier after its region's end is idle (for a
 * sample and for a traced interval), its encountering thread's is not; the initial
 * thread's samples without a state outside every region are serial work, other threads'
 * stay none; every state has the category the reports sum it in; a sample inside an MPI
 * call is MPI's. The construct table names constructs as each language writes them, and
 * knows gcc's outlined bodies. One thread's timeline pairs tasks innermost first by
 * region or task id, keeps the thread's own times, and where the MPI wrapper's clock
 * disagrees with the OpenMP tool's moves the OpenMP events (counted), never the call.
 */
#include "exp_test.h"
#include "omp_model.h"

static void barrier_after_region(void)
{
    const hpa_omp_exec x = {.t_end = 1000, .enc_seq = 0};
    const unsigned B = HPC_OMP_STATE_IMPLICIT_BARRIER;
    /* worker (thread 1): wait inside the region, idle after its end */
    CHECK_EQ(hpa_omp_sample_state(B, 7, &x, 1, 999, HPA_OMP_THREAD_WORKER), B);
    CHECK_EQ(hpa_omp_sample_state(B, 7, &x, 1, 1000, HPA_OMP_THREAD_WORKER), B);
    CHECK_EQ(hpa_omp_sample_state(B, 7, &x, 1, 1001, HPA_OMP_THREAD_WORKER), HPC_OMP_STATE_IDLE);
    /* the encountering thread's barrier is the region's */
    CHECK_EQ(hpa_omp_sample_state(B, 7, &x, 0, 5000, HPA_OMP_THREAD_INITIAL), B);
    /* other waits, and work, are not changed after the end */
    CHECK_EQ(hpa_omp_sample_state(HPC_OMP_STATE_LOCK_WAIT, 7, &x, 1, 5000, 2),
             HPC_OMP_STATE_LOCK_WAIT);
    CHECK_EQ(hpa_omp_sample_state(HPC_OMP_STATE_WORK, 7, &x, 1, 5000, 2), HPC_OMP_STATE_WORK);
    /* unknown end or unknown region: as recorded */
    const hpa_omp_exec open = {.t_end = 0, .enc_seq = 0};
    CHECK_EQ(hpa_omp_sample_state(B, 7, &open, 1, 5000, 2), B);
    CHECK_EQ(hpa_omp_sample_state(B, 7, NULL, 1, 5000, 2), B);
    /* traced intervals: a worker's end is clipped to the region's, the encountering
     * thread's is not */
    CHECK_EQ(hpa_omp_region_time_end(&x, 1, 4000), 1000);
    CHECK_EQ(hpa_omp_region_time_end(&x, 1, 900), 900);
    CHECK_EQ(hpa_omp_region_time_end(&x, 0, 4000), 4000);
    CHECK_EQ(hpa_omp_region_time_end(&open, 1, 4000), 4000);
    CHECK_EQ(hpa_omp_region_time_end(NULL, 1, 4000), 4000);
}

static void unreported_time(void)
{
    const unsigned N = HPC_OMP_STATE_NONE;
    CHECK(hpa_omp_sample_unreported(N, 0), "no state, no region");
    CHECK(!hpa_omp_sample_unreported(N, 3), "no state in a region");
    CHECK(!hpa_omp_sample_unreported(HPC_OMP_STATE_SERIAL, 0), "a reported state");
    CHECK_EQ(hpa_omp_sample_state(N, 0, NULL, 0, 10, HPA_OMP_THREAD_INITIAL), HPC_OMP_STATE_SERIAL);
    CHECK_EQ(hpa_omp_sample_state(N, 0, NULL, 1, 10, HPA_OMP_THREAD_WORKER), N);
    CHECK_EQ(hpa_omp_sample_state(N, 0, NULL, 2, 10, HPA_OMP_THREAD_UNKNOWN), N);
    CHECK_EQ(hpa_omp_state_cat(hpa_omp_unreported_state(HPA_OMP_THREAD_INITIAL)), HPA_OMP_CAT_WORK);
    CHECK_EQ(hpa_omp_state_cat(hpa_omp_unreported_state(HPA_OMP_THREAD_WORKER)), HPA_OMP_CAT_NONE);
}

static void categories(void)
{
    static const struct {
        unsigned state;
        enum hpa_omp_cat cat;
        int wait;
    } cases[] = {
        {HPC_OMP_STATE_NONE, HPA_OMP_CAT_NONE, -1},
        {HPC_OMP_STATE_SERIAL, HPA_OMP_CAT_WORK, -1},
        {HPC_OMP_STATE_WORK, HPA_OMP_CAT_WORK, -1},
        {HPC_OMP_STATE_IMPLICIT_BARRIER, HPA_OMP_CAT_WAIT, HPA_OMP_W_IMPLICIT_BARRIER},
        {HPC_OMP_STATE_EXPLICIT_BARRIER, HPA_OMP_CAT_WAIT, HPA_OMP_W_EXPLICIT_BARRIER},
        {HPC_OMP_STATE_TASKWAIT, HPA_OMP_CAT_WAIT, HPA_OMP_W_TASKWAIT},
        {HPC_OMP_STATE_TASKGROUP, HPA_OMP_CAT_WAIT, HPA_OMP_W_TASKGROUP},
        {HPC_OMP_STATE_LOCK_WAIT, HPA_OMP_CAT_WAIT, HPA_OMP_W_LOCK},
        {HPC_OMP_STATE_CRITICAL_WAIT, HPA_OMP_CAT_WAIT, HPA_OMP_W_CRITICAL},
        {HPC_OMP_STATE_ORDERED_WAIT, HPA_OMP_CAT_WAIT, HPA_OMP_W_ORDERED},
        {HPC_OMP_STATE_ATOMIC_WAIT, HPA_OMP_CAT_WAIT, HPA_OMP_W_ATOMIC},
        {HPC_OMP_STATE_REDUCTION, HPA_OMP_CAT_WAIT, HPA_OMP_W_REDUCTION},
        {HPC_OMP_STATE_IDLE, HPA_OMP_CAT_IDLE, -1},
        {HPC_OMP_STATE_OVERHEAD, HPA_OMP_CAT_OVERHEAD, -1},
        {HPC_OMP_STATE_WORKSHARE_BARRIER, HPA_OMP_CAT_WAIT, HPA_OMP_W_WORKSHARE_BARRIER},
        {HPC_OMP_STATE_BARRIER, HPA_OMP_CAT_WAIT, HPA_OMP_W_BARRIER},
        {16, HPA_OMP_CAT_NONE, -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK(hpa_omp_state_cat(cases[i].state) == cases[i].cat, "state %u: category %d",
              cases[i].state, (int)hpa_omp_state_cat(cases[i].state));
        CHECK(hpa_omp_state_wait(cases[i].state) == cases[i].wait, "state %u: wait kind %d",
              cases[i].state, hpa_omp_state_wait(cases[i].state));
    }
    CHECK_EQ(hpa_omp_sync_wait(HPC_OMP_SYNC_BARRIER_OTHER), HPA_OMP_W_BARRIER);
    CHECK_EQ(hpa_omp_sync_wait(HPC_OMP_SYNC_EXPLICIT_BARRIER), HPA_OMP_W_EXPLICIT_BARRIER);
    CHECK_EQ(hpa_omp_sync_wait(HPC_OMP_SYNC_WORKSHARE_BARRIER), HPA_OMP_W_WORKSHARE_BARRIER);
    CHECK_EQ(hpa_omp_mutex_wait(HPC_OMP_MUTEX_NEST_LOCK), HPA_OMP_W_LOCK);
    CHECK(strcmp(hpa_omp_state_name(HPC_OMP_STATE_IDLE), "idle") == 0, "idle's name");
}

static void names(void)
{
    char buf[64];
    CHECK(strcmp(hpa_omp_construct_name(HPA_OC_LOOP, HPA_LANG_C, buf, sizeof(buf)),
                 "#pragma omp for") == 0,
          "C: %s", buf);
    CHECK(strcmp(hpa_omp_construct_name(HPA_OC_LOOP, HPA_LANG_FORTRAN, buf, sizeof(buf)),
                 "!$omp do") == 0,
          "Fortran: %s", buf);
    CHECK(strcmp(hpa_omp_construct_name(HPA_OC_PARALLEL, HPA_LANG_UNKNOWN, buf, sizeof(buf)),
                 "omp parallel") == 0,
          "unknown: %s", buf);
    CHECK(strcmp(hpa_omp_construct_name(HPA_OC_LOCK, HPA_LANG_C, buf, sizeof(buf)),
                 "omp_set_lock") == 0,
          "API call: %s", buf);
    CHECK(hpa_omp_sync_construct(HPC_OMP_SYNC_WORKSHARE_BARRIER) == HPA_OC_WORKSHARE_BARRIER,
          "workshare barrier");
    CHECK(hpa_omp_sync_construct(99) == HPA_OC_BARRIER_OTHER, "unknown sync kind");
    CHECK(hpa_omp_work_construct(99) == HPA_OC_LOOP, "unknown work kind");
    unsigned held;
    CHECK(hpa_omp_mutex_construct(HPC_OMP_MUTEX_CRITICAL, &held) == HPA_OC_CRITICAL &&
              held == HPA_OC_CRITICAL_SBLOCK,
          "critical and its block");
    CHECK(hpa_omp_construct(HPA_OC_COUNT + 3) == hpa_omp_construct(HPA_OC_NONE), "out of range");
    const char *f = hpa_omp_outlined_from("solve._omp_fn.3", buf, sizeof(buf));
    CHECK(f && strcmp(f, "solve") == 0, "gcc's C name: %s", f ? f : "(null)");
    f = hpa_omp_outlined_from("Calc(Domain&, int) [clone ._omp_fn.0]", buf, sizeof(buf));
    CHECK(f && strcmp(f, "Calc(Domain&, int)") == 0, "gcc's C++ name: %s", f ? f : "(null)");
    CHECK(!hpa_omp_outlined_from(".omp_outlined..2", buf, sizeof(buf)), "clang's says nothing");
    CHECK_EQ(hpa_omp_sample_cat(HPC_STATE_MPI | HPC_STATE_WITH_OMP(0, HPC_OMP_STATE_SERIAL)),
             HPA_OMP_CAT_MPI);
    CHECK_EQ(hpa_omp_sample_cat(HPC_STATE_WITH_OMP(0, HPC_OMP_STATE_SERIAL)), HPA_OMP_CAT_WORK);
}

/* ---- timeline */

static hpa_omp_item got[64];
static unsigned ngot;

static void collect(void *arg, const hpa_omp_item *it)
{
    (void)arg;
    if (ngot < 64)
        got[ngot++] = *it;
}

static void feed(hpa_omp_timeline *tl, unsigned kind, hpc_record r)
{
    r.kind = kind;
    hpa_omp_timeline_feed(tl, &r);
}

#define REC(field, ...) ((hpc_record){.u.field = {__VA_ARGS__}})

/* The item of kind k and construct c that came out n-th among those (0 first), or NULL. */
static const hpa_omp_item *item_of(unsigned k, unsigned c, unsigned n)
{
    for (unsigned i = 0; i < ngot; i++)
        if (got[i].kind == k && got[i].construct == c && n-- == 0)
            return &got[i];
    return NULL;
}

static void timeline_pairs(void)
{
    hpa_omp_timeline tl;
    ngot = 0;
    hpa_omp_timeline_init(&tl, collect, NULL);
    /* an outer region 1 on this thread, an inner region 2 inside, closed innermost first;
     * an explicit task 9 inside the inner one */
    feed(&tl, HPC_K_omp_parallel_begin,
         REC(omp_parallel_begin, .time = 100, .region = 1, .team_size = 2, .codeptr = 0x400));
    feed(&tl, HPC_K_omp_implicit_task,
         REC(omp_implicit_task, .time = 110, .endpoint = HPC_OMP_BEGIN, .region = 1,
             .team_size = 2));
    feed(&tl, HPC_K_omp_implicit_task,
         REC(omp_implicit_task, .time = 200, .endpoint = HPC_OMP_BEGIN, .region = 2, .team_size = 2,
             .thread_num = 1));
    feed(&tl, HPC_K_omp_task, REC(omp_task, .time = 210, .event = HPC_OMP_TASK_BEGIN, .task = 9));
    feed(&tl, HPC_K_omp_task, REC(omp_task, .time = 250, .event = HPC_OMP_TASK_END, .task = 9));
    feed(&tl, HPC_K_omp_sync,
         REC(omp_sync, .time_begin = 260, .time_end = 280, .kind = HPC_OMP_SYNC_IMPLICIT_BARRIER,
             .region = 2));
    feed(&tl, HPC_K_omp_implicit_task,
         REC(omp_implicit_task, .time = 300, .endpoint = HPC_OMP_END, .region = 2));
    feed(&tl, HPC_K_omp_mutex,
         REC(omp_mutex, .kind = HPC_OMP_MUTEX_CRITICAL, .time_request = 310, .time_acquired = 320,
             .time_released = 330, .region = 1));
    feed(&tl, HPC_K_omp_implicit_task,
         REC(omp_implicit_task, .time = 400, .endpoint = HPC_OMP_END, .region = 1));
    feed(&tl, HPC_K_omp_parallel_end, REC(omp_parallel_end, .time = 410, .region = 1));
    hpa_omp_timeline_end(&tl);
    const hpa_omp_item *inner = item_of(HPA_OMP_IT_CLOSE, HPA_OC_PARALLEL, 0);
    const hpa_omp_item *outer = item_of(HPA_OMP_IT_CLOSE, HPA_OC_PARALLEL, 1);
    CHECK(inner && inner->region == 2 && inner->begin == 200 && inner->end == 300 &&
              inner->thread_num == 1 && inner->team == 2,
          "inner implicit task [200, 300] of region 2");
    CHECK(outer && outer->region == 1 && outer->begin == 110 && outer->end == 400,
          "outer implicit task [110, 400] of region 1");
    const hpa_omp_item *task = item_of(HPA_OMP_IT_CLOSE, HPA_OC_TASK, 0);
    CHECK(task && task->id == 9 && task->begin == 210 && task->end == 250, "task 9 [210, 250]");
    const hpa_omp_item *join = item_of(HPA_OMP_IT_JOIN, HPA_OC_PARALLEL, 0);
    CHECK(join && join->begin == 100 && join->end == 410 && join->codeptr == 0x400,
          "the region from its fork to its join");
    const hpa_omp_item *crit = item_of(HPA_OMP_IT_SPAN, HPA_OC_CRITICAL, 0);
    CHECK(crit && crit->begin == 310 && crit->acquired == 320 && crit->end == 330 &&
              crit->wait == HPA_OMP_W_CRITICAL,
          "critical: waits [310, 320], holds [320, 330]");
    const hpa_omp_item *bar = item_of(HPA_OMP_IT_SPAN, HPA_OC_IMPLICIT_BARRIER, 0);
    CHECK(bar && bar->begin == 260 && bar->end == 280 && bar->region == 2, "the inner barrier");
    CHECK_EQ(tl.repaired + tl.closed_at_end + tl.unpaired, 0);
    CHECK_EQ(ngot, 10);
}

static void timeline_clocks(void)
{
    hpa_omp_timeline tl;
    ngot = 0;
    hpa_omp_timeline_init(&tl, collect, NULL);
    /* a region whose ends the OpenMP clock puts after the next MPI call begins (by the MPI
     * wrapper's clock): 1000 (barrier end), 1100 (task end), 2000 (join); the call
     * begins at 900 */
    feed(&tl, HPC_K_omp_parallel_begin,
         REC(omp_parallel_begin, .time = 100, .region = 1, .team_size = 2));
    feed(&tl, HPC_K_omp_implicit_task,
         REC(omp_implicit_task, .time = 110, .endpoint = HPC_OMP_BEGIN, .region = 1,
             .team_size = 2));
    feed(&tl, HPC_K_omp_sync,
         REC(omp_sync, .time_begin = 500, .time_end = 1000, .kind = HPC_OMP_SYNC_IMPLICIT_BARRIER,
             .region = 1));
    feed(&tl, HPC_K_omp_implicit_task,
         REC(omp_implicit_task, .time = 1100, .endpoint = HPC_OMP_END, .region = 1));
    feed(&tl, HPC_K_omp_parallel_end, REC(omp_parallel_end, .time = 2000, .region = 1));
    /* a sample inside the call (written before its record): releases nothing */
    feed(&tl, HPC_K_sample_clock, REC(sample_clock, .time = 5000));
    CHECK_EQ(ngot, 0);
    feed(&tl, HPC_K_mpi_call, REC(mpi_call, .time_enter = 900, .time_leave = 9000));
    CHECK_EQ(ngot, 5); /* the call gives them out */
    const hpa_omp_item *bar = item_of(HPA_OMP_IT_SPAN, HPA_OC_IMPLICIT_BARRIER, 0);
    const hpa_omp_item *task = item_of(HPA_OMP_IT_CLOSE, HPA_OC_PARALLEL, 0);
    const hpa_omp_item *join = item_of(HPA_OMP_IT_JOIN, HPA_OC_PARALLEL, 0);
    CHECK(bar && bar->begin == 500 && bar->end == 900 && bar->repaired, "barrier ends at 900");
    CHECK(task && task->begin == 110 && task->end == 900 && task->repaired, "task ends at 900");
    CHECK(join && join->end == 900, "join at 900");
    CHECK_EQ(tl.repaired, 3);
    CHECK_EQ(tl.max_shift_ns, 1100);
    /* the next region's fork, by the OpenMP clock, before the call's end: after it */
    feed(&tl, HPC_K_omp_parallel_begin, REC(omp_parallel_begin, .time = 8950, .region = 2));
    /* a critical that holds an MPI call it made stays as it was, but for its end */
    feed(&tl, HPC_K_mpi_call, REC(mpi_call, .time_enter = 20000, .time_leave = 30000));
    feed(&tl, HPC_K_omp_mutex,
         REC(omp_mutex, .kind = HPC_OMP_MUTEX_CRITICAL, .time_request = 19000,
             .time_acquired = 19500, .time_released = 29990));
    /* far apart (a real overlap, not clocks): left as recorded */
    feed(
        &tl, HPC_K_omp_sync,
        REC(omp_sync, .time_begin = 100, .time_end = 60000, .kind = HPC_OMP_SYNC_EXPLICIT_BARRIER));
    feed(&tl, HPC_K_mpi_call, REC(mpi_call, .time_enter = 40000, .time_leave = 41000));
    hpa_omp_timeline_end(&tl);
    const hpa_omp_item *fork = item_of(HPA_OMP_IT_FORK, HPA_OC_PARALLEL, 1);
    CHECK(fork && fork->begin == 9000, "fork moved to the call's end");
    const hpa_omp_item *crit = item_of(HPA_OMP_IT_SPAN, HPA_OC_CRITICAL, 0);
    CHECK(crit && crit->begin == 19000 && crit->acquired == 19500 && crit->end == 30000,
          "critical around a call: its end after the call's");
    const hpa_omp_item *far = item_of(HPA_OMP_IT_SPAN, HPA_OC_BARRIER, 0);
    CHECK(far && far->begin == 100 && far->end == 60000 && !far->repaired, "far: as recorded");
    CHECK_EQ(tl.repaired, 5);
    /* the region 2 never closed: joined at the stream's end (a trace's ThreadFork needs
     * its ThreadJoin), counted as closed there */
    CHECK_EQ(tl.closed_at_end, 1);
    const hpa_omp_item *closed = item_of(HPA_OMP_IT_JOIN, HPA_OC_PARALLEL, 1);
    CHECK(closed && closed->repaired && closed->begin >= 8950 && closed->begin <= 9000 &&
              closed->end >= 41000,
          "region 2 joined at the end, from its fork");
}

static void timeline_ends(void)
{
    hpa_omp_timeline tl;
    ngot = 0;
    hpa_omp_timeline_init(&tl, collect, NULL);
    feed(&tl, HPC_K_omp_implicit_task,
         REC(omp_implicit_task, .time = 10, .endpoint = HPC_OMP_END, .region = 4));
    feed(&tl, HPC_K_omp_implicit_task,
         REC(omp_implicit_task, .time = 20, .endpoint = HPC_OMP_BEGIN, .region = 5));
    feed(&tl, HPC_K_omp_task, REC(omp_task, .time = 30, .event = HPC_OMP_TASK_BEGIN, .task = 7));
    feed(&tl, HPC_K_thread_end, REC(thread_end, .time = 90));
    hpa_omp_timeline_end(&tl);
    CHECK_EQ(tl.unpaired, 1);
    CHECK_EQ(tl.closed_at_end, 2);
    const hpa_omp_item *task = item_of(HPA_OMP_IT_CLOSE, HPA_OC_TASK, 0);
    const hpa_omp_item *impl = item_of(HPA_OMP_IT_CLOSE, HPA_OC_PARALLEL, 0);
    CHECK(task && task->end == 90 && task->repaired, "open task closed at the thread's end");
    CHECK(impl && impl->end == 90 && impl->begin == 20 && impl->region == 5,
          "open implicit task closed at the thread's end");
    CHECK(task < impl, "innermost first");
}

int main(void)
{
    barrier_after_region();
    unreported_time();
    categories();
    names();
    timeline_pairs();
    timeline_clocks();
    timeline_ends();
    return exp_test_done("test_omp_model");
}
