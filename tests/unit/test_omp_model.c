/*
 * test_omp_model.c - the OpenMP state rules both hpanalyze and hpmerge apply
 * (model/omp_model.c): a worker's implicit barrier after its region's end is idle (for a
 * sample and for a traced interval), its encountering thread's is not; the initial
 * thread's samples without a state outside every region are serial work, other threads'
 * stay none; every state has the category the reports sum it in.
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
        {14, HPA_OMP_CAT_NONE, -1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        CHECK(hpa_omp_state_cat(cases[i].state) == cases[i].cat, "state %u: category %d",
              cases[i].state, (int)hpa_omp_state_cat(cases[i].state));
        CHECK(hpa_omp_state_wait(cases[i].state) == cases[i].wait, "state %u: wait kind %d",
              cases[i].state, hpa_omp_state_wait(cases[i].state));
    }
    CHECK_EQ(hpa_omp_sync_wait(HPC_OMP_SYNC_BARRIER_OTHER), HPA_OMP_W_EXPLICIT_BARRIER);
    CHECK_EQ(hpa_omp_mutex_wait(HPC_OMP_MUTEX_NEST_LOCK), HPA_OMP_W_LOCK);
    CHECK(strcmp(hpa_omp_state_name(HPC_OMP_STATE_IDLE), "idle") == 0, "idle's name");
}

int main(void)
{
    barrier_after_region();
    unreported_time();
    categories();
    return exp_test_done("test_omp_model");
}
