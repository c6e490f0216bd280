/*
 * analyzer_gen.c - writes a large experiment for the hpanalyze benchmark
 * (bench/analyzer_bench.sh) with the experiment writer API.
 *
 *     analyzer_gen EXP [SAMPLES] [THREADS]      (default 10000000 samples, 4 threads)
 *
 * One process with THREADS threads. Each thread has a calling-context tree of about 3000
 * nodes, 4 to 24 frames deep, whose pcs lie in 64 functions of this executable (several pcs
 * per function, so symbolization sees thousands of distinct pcs, as real programs give);
 * samples pick a leaf at random with a skewed distribution (no long runs of one stack,
 * the loader's worst case), 1 ms of CPU each, on alternating cpus, at 1 ms intervals.
 * Deterministic: the same arguments write the same experiment (times apart).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "experiment.h"

/* 64 distinct functions with bodies long enough for several pcs each (a table of macro
 * expansions reads best as a table). */
volatile unsigned gen_sink;
/* clang-format off */
#define F(n)                                                                                       \
    __attribute__((noinline)) void gen_fn_##n(unsigned x)                                         \
    {                                                                                              \
        gen_sink += x * (n + 1);                                                                   \
        gen_sink ^= x >> 3;                                                                        \
        gen_sink += x * 7u + (n);                                                                  \
    }
#define F8(a) F(a##0) F(a##1) F(a##2) F(a##3) F(a##4) F(a##5) F(a##6) F(a##7)
F8(1) F8(2) F8(3) F8(4) F8(5) F8(6) F8(7) F8(8)
#define R(n) gen_fn_##n
#define R8(a) R(a##0), R(a##1), R(a##2), R(a##3), R(a##4), R(a##5), R(a##6), R(a##7)
static void (*const fns[64])(unsigned) = {R8(1), R8(2), R8(3), R8(4), R8(5), R8(6), R8(7), R8(8)};
/* clang-format on */

static void die(const char *what, int rc)
{
    fprintf(stderr, "analyzer_gen: %s: %s\n", what, hpc_strerror(rc));
    exit(1);
}
#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ < 0)                                                                               \
            die(#call, rc_);                                                                       \
    } while (0)

static hpc_str S(const char *s)
{
    return (hpc_str){s, (uint32_t)strlen(s)};
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The executable's load map entry (the only module the pcs use). */
static int main_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    if (info->dlpi_name[0] != 0)
        return 0;
    hpc_stream *ps = arg;
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    path[n > 0 ? n : 0] = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (ph->p_vaddr < lo)
            lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > hi)
            hi = ph->p_vaddr + ph->p_memsz;
    }
    hpc_rec_module_load r = {.time = now_ns(),
                             .id = 1,
                             .path = S(path),
                             .base = info->dlpi_addr + lo,
                             .size = hi - lo,
                             .bias = info->dlpi_addr,
                             .archived = S(""),
                             .flags = HPC_MODULE_MAIN};
    CHECK(hpc_write_module_load(ps, &r));
    return 1;
}

/* One thread: its tree, then its samples. */
static void thread(const char *dir, unsigned seq, uint64_t t0, uint64_t nsamples)
{
    char path[4200];
    hpc_stream t;
    snprintf(path, sizeof(path), "%s/t%u.hpe", dir, seq);
    CHECK(hpc_stream_create(&t, path, HPC_STREAM_THREAD, seq, 0, NULL, 1));
    hpc_rec_thread_begin b = {.time = t0,
                              .seq = seq,
                              .tid = 1000 + seq,
                              .parent_seq = seq ? 0 : -1,
                              .clock_source = HPC_CLOCK_PERF_TASK_CLOCK,
                              .name = S("")};
    CHECK(hpc_write_thread_begin(&t, &b));
    enum { NLEAVES = 600, MAXDEPTH = 24 };
    static uint32_t leaves[NLEAVES];
    uint32_t id = 0, stack[MAXDEPTH + 1];
    unsigned prev = 0;
    for (unsigned l = 0; l < NLEAVES; l++) {
        /* a path: share a random prefix of the previous one, then new frames */
        unsigned depth = 4 + (unsigned)(next() % (MAXDEPTH - 3));
        unsigned keep = (unsigned)(next() % depth);
        if (keep > prev)
            keep = prev;
        prev = depth;
        for (unsigned d = keep; d < depth; d++) {
            const char *fn = (const char *)(uintptr_t)fns[next() % 64];
            hpc_rec_cct_node n = {.id = ++id,
                                  .parent = d ? stack[d - 1] : 0,
                                  .pc = (uint64_t)(uintptr_t)(fn + 1 + next() % 8)};
            CHECK(hpc_write_cct_node(&t, &n));
            stack[d] = id;
        }
        leaves[l] = stack[depth - 1];
    }
    uint64_t time = t0;
    for (uint64_t i = 0; i < nsamples; i++) {
        uint64_t r = next();
        unsigned leaf = (unsigned)((r & 0xffff) * (r >> 16 & 0xffff) % (NLEAVES * 65536ull) /
                                   65536); /* skewed toward low indexes */
        time += 1000000;
        hpc_rec_sample_clock s = {.time = time,
                                  .node = leaves[leaf % NLEAVES],
                                  .cpu_ns = 1000000 - (r >> 40 & 0xfff),
                                  .cpu = i & 1};
        CHECK(hpc_write_sample_clock(&t, &s));
    }
    hpc_stream_stat_add(&t, HPC_STAT_SAMPLES, nsamples);
    hpc_rec_thread_end e = {.time = time, .cpu_ns = nsamples * 1000000};
    CHECK(hpc_write_thread_end(&t, &e));
    CHECK(hpc_stream_close(&t));
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: analyzer_gen EXP [SAMPLES] [THREADS]\n");
        return 2;
    }
    uint64_t nsamples = argc > 2 ? strtoull(argv[2], NULL, 10) : 10000000;
    unsigned nthreads = argc > 3 ? (unsigned)atoi(argv[3]) : 4;
    if (nthreads < 1 || nthreads > 256) {
        fprintf(stderr, "analyzer_gen: THREADS must be 1 to 256\n");
        return 2;
    }
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/main", argv[1]);
    if (mkdir(argv[1], 0777) || mkdir(dir, 0777)) {
        perror("analyzer_gen: mkdir");
        return 1;
    }
    uint64_t t0 = now_ns();
    hpc_stream ps;
    snprintf(path, sizeof(path), "%s/%s", dir, HPC_PROCESS_FILE);
    CHECK(hpc_stream_create(&ps, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1));
    static const char args[] = "analyzer_gen";
    hpc_rec_proc_begin pb = {.time = t0,
                             .real_time = (uint64_t)time(NULL) * 1000000000u,
                             .pid = (uint64_t)getpid(),
                             .name = S("main"),
                             .parent = S(""),
                             .rank = -1,
                             .world_size = -1,
                             .host = S("bench"),
                             .cwd = S("/"),
                             .exe = S(""),
                             .argv = {args, sizeof(args)},
                             .page_size = 4096,
                             .ncpus = 2,
                             .os = S("Linux"),
                             .version = S("bench")};
    CHECK(hpc_write_proc_begin(&ps, &pb));
    hpc_rec_settings st = {.clock_source = HPC_CLOCK_PERF_TASK_CLOCK,
                           .clock_interval_ns = 1000000,
                           .clock_note = S(""),
                           .omp_runtime = S(""),
                           .unwinder = S("")};
    CHECK(hpc_write_settings(&ps, &st));
    dl_iterate_phdr(main_module, &ps);
    uint64_t per = nsamples / nthreads;
    for (unsigned i = 0; i < nthreads; i++)
        thread(dir, i, t0, i + 1 < nthreads ? per : nsamples - per * (nthreads - 1));
    hpc_rec_proc_end pe = {.time = t0 + per * 1000000,
                           .reason = HPC_END_EXIT,
                           .utime_ns = nsamples * 1000000,
                           .nthreads = nthreads};
    CHECK(hpc_write_proc_end(&ps, &pe));
    CHECK(hpc_stream_close(&ps));
    for (int i = 0; i < 64; i++) /* keep every function */
        fns[i](1);
    return 0;
}
