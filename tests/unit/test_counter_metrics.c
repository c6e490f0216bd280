/*
 * test_counter_metrics.c - how hpanalyze shows counters, on an experiment written here
 * with the experiment writer (no collector, no PMU needed): a cycle counter of a 2 GHz
 * machine, multiplexed (it ran half the time it was enabled), and a page-fault counter.
 *   - cycles: 6e9 events in excl_cycles/incl_cycles, and as time, cycles_time = 3 s
 *   - page-faults: 300 events; overview says cycles were counted 50% of the time and
 *     page-faults all of it
 * Runs $HPC_BIN/hpanalyze (the test runner sets it) and checks its CSV and JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "experiment.h"

static int failures;

static void check(int ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "FAIL", what);
    failures += !ok;
}

static hpc_str S(const char *s)
{
    return (hpc_str){s, (uint32_t)strlen(s)};
}

static void write_experiment(const char *dir)
{
    char path[512];
    hpc_stream s;
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/%s", dir, HPC_PROCESS_FILE);
    if (hpc_stream_create(&s, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1) < 0)
        exit(2);
    hpc_rec_proc_begin b = {
        .time = 1000, .pid = 1, .name = S("main"), .rank = -1, .world_size = -1};
    hpc_write_proc_begin(&s, &b);
    hpc_rec_counter_def c0 = {.index = 0,
                              .name = S("cycles"),
                              .spec = S("cycles"),
                              .interval = 1000000,
                              .flags = HPC_COUNTER_HARDWARE | HPC_COUNTER_CYCLES,
                              .unit = S("cycles"),
                              .cpu_hz = 2000000000};
    hpc_rec_counter_def c1 = {.index = 1,
                              .name = S("page-faults"),
                              .spec = S("page-faults"),
                              .interval = 100,
                              .flags = HPC_COUNTER_SOFTWARE,
                              .unit = S("events")};
    hpc_write_counter_def(&s, &c0);
    hpc_write_counter_def(&s, &c1);
    hpc_rec_proc_end e = {.time = 5000000000ULL};
    hpc_write_proc_end(&s, &e);
    hpc_stream_close(&s);
    snprintf(path, sizeof path, "%s/t0.hpe", dir);
    if (hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 0, NULL, 1) < 0)
        exit(2);
    hpc_rec_thread_begin tb = {.time = 1000};
    hpc_write_thread_begin(&s, &tb);
    hpc_rec_cct_node n = {.id = 1, .parent = 0, .pc = 0x1234};
    hpc_write_cct_node(&s, &n);
    for (int i = 0; i < 3; i++) {
        hpc_rec_sample_counter sc = {.time = 2000 + (uint64_t)i,
                                     .node = 1,
                                     .counter = 0,
                                     .value = 2000000000,
                                     .enabled_ns = 200,
                                     .running_ns = 100};
        hpc_write_sample_counter(&s, &sc);
        hpc_rec_sample_counter pf = {.time = 3000 + (uint64_t)i,
                                     .node = 1,
                                     .counter = 1,
                                     .value = 100,
                                     .enabled_ns = 50,
                                     .running_ns = 50};
        hpc_write_sample_counter(&s, &pf);
    }
    hpc_stream_close(&s);
}

/* The value of column `key` in the <Total> row of `functions --format csv`. */
static double total_of(const char *exp, const char *key)
{
    char cmd[1024], line[4096], header[4096] = "";
    snprintf(cmd, sizeof cmd, "%s/hpanalyze --format csv %s functions", getenv("HPC_BIN"), exp);
    FILE *p = popen(cmd, "r");
    double v = -1;
    while (p && fgets(line, sizeof line, p)) {
        if (!strncmp(line, "name,", 5))
            strcpy(header, line);
        if (strncmp(line, "<Total>,", 8))
            continue;
        char *h = header, *f = line;
        for (;;) {
            size_t hl = strcspn(h, ",\n"), fl = strcspn(f, ",\n");
            if (hl == strlen(key) && !strncmp(h, key, hl))
                v = atof(f);
            if (!h[hl] || h[hl] == '\n' || !f[fl])
                break;
            h += hl + 1, f += fl + 1;
        }
    }
    if (p)
        pclose(p);
    return v;
}

static int overview_has(const char *exp, const char *text)
{
    char cmd[1024], line[4096];
    int found = 0;
    snprintf(cmd, sizeof cmd, "%s/hpanalyze %s overview", getenv("HPC_BIN"), exp);
    FILE *p = popen(cmd, "r");
    while (p && fgets(line, sizeof line, p))
        found |= strstr(line, text) != NULL;
    if (p)
        pclose(p);
    return found;
}

int main(void)
{
    if (!getenv("HPC_BIN")) {
        printf("skipped: HPC_BIN not set (run through tests/run-tests.sh)\n");
        return 77;
    }
    write_experiment("ctr.hpc");
    check(total_of("ctr.hpc", "incl_cycles") == 6e9, "cycles: 6e9 events");
    check(total_of("ctr.hpc", "incl_cycles_time_s") == 3.0, "cycles_time: 3 s at 2 GHz");
    check(total_of("ctr.hpc", "incl_page-faults") == 300, "page-faults: 300");
    check(overview_has("ctr.hpc", "multiplexed: counted 50.0% of the time"),
          "overview: cycles multiplexed, counted 50% of the time");
    check(overview_has("ctr.hpc", "[300] (counted all the time)"),
          "overview: page-faults counted all the time");
    return failures ? 1 : 0;
}
