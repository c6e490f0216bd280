/*
 * test_exp_open.c - hpc_exp_open on a synthetic job written with the writer:
 * two processes (rank1 written first, so sorting matters) of three threads each
 * (t0, t2, t10: numeric order), a process that ended early, damaged and foreign
 * directories next to them. Checks ranks, order, thread lists, summed stats, loaded
 * records with their strings, ended_early, and the errors for non-experiments.
 */
#include "exp_test.h"

static char job[1200];

struct report_log {
    unsigned n;
    char text[16][600];
};

static void log_report(void *ctx, enum hpc_severity sev, const char *file, uint64_t off,
                       const char *msg, const char *src, int line)
{
    struct report_log *l = ctx;
    (void)sev, (void)src, (void)line;
    if (l->n < 16)
        snprintf(l->text[l->n], sizeof l->text[0], "%s: offset %" PRIu64 ": %s", file, off, msg);
    l->n++;
}

static bool log_has(const struct report_log *l, const char *a, const char *b)
{
    for (unsigned i = 0; i < l->n && i < 16; i++)
        if (strstr(l->text[i], a) && strstr(l->text[i], b))
            return true;
    return false;
}

#define S(lit) ((hpc_str){lit, sizeof lit - 1})

static void write_process(const char *name, int rank, bool ended, bool killed)
{
    char dir[1300], path[1400], sub[64];
    REQUIRE(hpc_layout_subexp(sub, sizeof sub, job, name) == 0, "subexp %s", name);
    snprintf(dir, sizeof dir, "%s/%s", job, sub);
    hpc_stream s;
    snprintf(path, sizeof path, "%s/process.hpe", dir);
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1) == 0, "create");
    hpc_rec_proc_begin b = {.time = 1000,
                            .pid = 100 + (uint64_t)rank,
                            .rank = -1,
                            .world_size = 2,
                            .name = {name, (uint32_t)strlen(name)},
                            .exe = S("/bin/solver"),
                            .argv = S("solver\0-n\0"
                                      "4")};
    hpc_write_proc_begin(&s, &b);
    hpc_rec_settings st = {.clock_source = HPC_CLOCK_PERF_TASK_CLOCK,
                           .clock_interval_ns = 1000000,
                           .unwinder = S("libunwind")};
    hpc_write_settings(&s, &st);
    for (unsigned m = 1; m <= 3; m++) {
        hpc_rec_module_load ml = {.time = 1000 + m,
                                  .id = m,
                                  .path = S("/lib/libm.so.6"),
                                  .base = 0x7f0000000000 + m * 0x100000};
        hpc_write_module_load(&s, &ml);
    }
    hpc_rec_mpi_init mi = {
        .time_enter = 2000, .time_leave = 3000, .rank = (uint64_t)rank, .size = 2};
    hpc_write_mpi_init(&s, &mi);
    if (ended) {
        hpc_rec_proc_end e = {.time = 9000, .reason = HPC_END_EXIT, .nthreads = 3};
        hpc_write_proc_end(&s, &e);
    }
    hpc_stream_stat_add(&s, HPC_STAT_BLOCKED, 1);
    hpc_stream_close(&s);

    if (killed) {
        snprintf(path, sizeof path, "%s/launcher.hpe", dir);
        REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_LAUNCHER, 0, 0, NULL, 1) == 0, "l");
        hpc_rec_launcher_exit le = {
            .time = 9999, .pid = 100 + (uint64_t)rank, .exited = 0, .status = 9};
        hpc_write_launcher_exit(&s, &le);
        hpc_stream_close(&s);
    }

    static const uint32_t seqs[] = {10, 0, 2};
    for (unsigned t = 0; t < 3; t++) {
        REQUIRE(hpc_path_thread(path, sizeof path, dir, seqs[t]) > 0, "path");
        REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_THREAD, seqs[t], 0, NULL, 0) == 0, "thread");
        for (unsigned i = 0; i < 5 + seqs[t]; i++) {
            hpc_rec_sample_clock sc = {.time = 5000 + i, .node = 1, .cpu_ns = 1000};
            hpc_write_sample_clock(&s, &sc);
            hpc_stream_stat_add(&s, HPC_STAT_SAMPLES, 1);
        }
        hpc_stream_close(&s);
    }
}

static void make_job(void)
{
    snprintf(job, sizeof job, "%s/solver.1.hpc", exp_test_dir());
    REQUIRE(mkdir(job, 0755) == 0, "mkdir %s", job);
    char path[1300];
    snprintf(path, sizeof path, "%s/job.hpe", job);
    hpc_stream s;
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_JOB, 0, 0, NULL, 1) == 0, "job");
    hpc_rec_job_begin jb = {.time = 1,
                            .job_id = S("ompi-42"),
                            .host = S("node1"),
                            .world_size = 2,
                            .version = S("0.1.0")};
    hpc_write_job_begin(&s, &jb);
    hpc_stream_close(&s);

    write_process("rank1", 1, false, true);
    write_process("rank0", 0, true, false);

    /* Things that are no processes, or broken ones. */
    snprintf(path, sizeof path, "%s/otf2", job);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/rank7", job);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/rank7/process.hpe", job);
    exp_test_spit(path, (const uint8_t *)"", 0);
    snprintf(path, sizeof path, "%s/rank8", job);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/rank8/t0.hpe", job);
    exp_test_spit(path, (const uint8_t *)"garbage", 7);
    snprintf(path, sizeof path, "%s/summary.txt", job);
    exp_test_spit(path, (const uint8_t *)"x", 1);
}

static void check_proc(const hpc_proc *p, int rank, bool early)
{
    char name[16];
    snprintf(name, sizeof name, "rank%d", rank);
    CHECK(strcmp(p->name, name) == 0, "name %s, expected %s", p->name, name);
    CHECK_EQ(p->rank, rank);
    CHECK_EQ(p->ended_early, early);
    CHECK(p->has_begin, "has proc_begin");
    CHECK(hpc_str_eq(p->begin.name, name), "begin.name");
    CHECK(hpc_str_eq(p->begin.exe, "/bin/solver"), "begin.exe");
    CHECK(p->begin.argv.n == 11 && memcmp(p->begin.argv.p,
                                          "solver\0-n\0"
                                          "4",
                                          11) == 0,
          "argv with NULs");
    CHECK_EQ(p->begin.pid, 100 + rank);
    CHECK(hpc_str_eq(p->settings.unwinder, "libunwind"), "settings");
    CHECK_EQ(p->has_end, !early);
    CHECK_EQ(p->has_launcher_exit, early);
    REQUIRE(p->nthreads == 3, "3 threads in %s, found %zu", p->name, p->nthreads);
    CHECK(p->threads[0].seq == 0 && p->threads[1].seq == 2 && p->threads[2].seq == 10,
          "threads sorted by number: %u %u %u", p->threads[0].seq, p->threads[1].seq,
          p->threads[2].seq);
    CHECK(strstr(p->threads[2].path, "/t10.hpe") != NULL, "thread path %s", p->threads[2].path);
    CHECK_EQ(p->stats[HPC_STAT_SAMPLES], 5 + 7 + 15);
    CHECK_EQ(p->stats[HPC_STAT_BLOCKED], 1);
    size_t i = 0, n = 0;
    const hpc_record *r;
    uint64_t id = 0;
    while ((r = hpc_proc_next_of(p, HPC_K_module_load, &i))) {
        n++;
        CHECK_EQ(r->u.module_load.id, ++id);
        CHECK(hpc_str_eq(r->u.module_load.path, "/lib/libm.so.6"), "module path");
    }
    CHECK_EQ(n, 3);
    /* the thread streams read with the process's schema */
    hpc_reader *tr;
    REQUIRE(hpc_reader_open(&tr, p->threads[1].path, p->schema, NULL) == 0, "thread open");
    hpc_record rec;
    n = 0;
    while (hpc_reader_next(tr, &rec))
        n += rec.kind == HPC_K_sample_clock;
    CHECK_EQ(n, 7);
    hpc_reader_close(tr);
}

static void test_job(void)
{
    struct report_log log = {0};
    hpc_diag d = {.report = log_report, .ctx = &log};
    hpc_exp *e;
    REQUIRE(hpc_exp_open(&e, job, &d) == 0, "open job");
    CHECK(e->has_job && hpc_str_eq(e->job.job_id, "ompi-42"), "job record");
    CHECK_EQ(e->job.world_size, 2);
    REQUIRE(e->nprocs == 2, "2 processes, found %zu", e->nprocs);
    check_proc(&e->procs[0], 0, false);
    check_proc(&e->procs[1], 1, true);
    CHECK(log_has(&log, "rank7", "empty"), "empty process.hpe reported");
    CHECK(log_has(&log, "rank8/process.hpe", "missing"), "missing process.hpe reported");
    CHECK(!log_has(&log, "otf2", ""), "otf2/ is not reported");
    hpc_exp_close(e);

    /* One sub-experiment on its own. */
    char sub[1300];
    snprintf(sub, sizeof sub, "%s/rank1", job);
    REQUIRE(hpc_exp_open(&e, sub, &d) == 0, "open sub-experiment");
    REQUIRE(e->nprocs == 1, "one process");
    check_proc(&e->procs[0], 1, true);
    CHECK(!e->has_job, "no job record for a lone sub-experiment");
    hpc_exp_close(e);
}

static void test_not_experiments(void)
{
    struct report_log log = {0};
    hpc_diag d = {.report = log_report, .ctx = &log};
    hpc_exp *e = (hpc_exp *)1;
    CHECK_EQ(hpc_exp_open(&e, exp_test_path("nonexistent.hpc"), &d), HPC_E_NOTFOUND);
    CHECK(e == NULL, "out cleared");
    CHECK(log_has(&log, "nonexistent.hpc", "no such experiment"), "message: %s", log.text[0]);
    char plain[1300];
    snprintf(plain, sizeof plain, "%s/plain", exp_test_dir());
    mkdir(plain, 0755);
    CHECK_EQ(hpc_exp_open(&e, plain, &d), HPC_E_NOTFOUND);
    CHECK(log_has(&log, "plain", "not an experiment"), "message: %s", log.text[1]);
    CHECK_EQ(hpc_exp_open(&e, job, NULL) == 0, 1);
    hpc_exp_close(e);
    hpc_exp_close(NULL);
}

int main(void)
{
    make_job();
    test_job();
    test_not_experiments();
    return exp_test_done("test_exp_open");
}
