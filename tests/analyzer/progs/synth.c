/*
 * synth.c - writes an experiment with known contents using the experiment writer API,
 * for analyzer tests that must not depend on the collector: the model, symbolization of
 * this PIE executable and of libc from a load map taken with dl_iterate_phdr, and the
 * arithmetic of every report.
 *
 *     synth EXP [--stale-build-id | --deep N | --faster | --as-collector | --huge-id ID]
 *
 * Contents (weights are exact; one sample = 1 ms of CPU):
 *   thread 0: main > caller_x > leaf_a   500 samples
 *             main > caller_x > leaf_b   200
 *             main > caller_y > leaf_b   100
 *             main > caller_y > leaf_c   200
 *             main > caller_y > qsort (libc)  50
 *             no stack                    10
 *   thread 1: main > rec > rec > rec     100  (recursion: rec inclusive counts once)
 * So thread 0 has 1060 ms: caller_x 700, caller_y 350; leaf_a 500, leaf_b 300, leaf_c 200.
 * proc_end says user+system = 1.160 s, the sampled total.
 * --faster: leaf_a has 250 samples instead of 500 (a second experiment to compare).
 * --deep N adds thread 2: a chain of N rec frames (deeper than any collector writes, as
 * damaged or hostile data may be) with 10 samples at its end.
 * --as-collector flags this executable as a collector library (its global functions are
 * then the collector's entry points, which views keep) and adds thread 2: 20 samples whose
 * only frame is internal_work (static: an internal function, which views hide), as a
 * leaf-only sample inside the collector's module scan is. Views must keep it.
 * --huge-id ID adds thread 2: node 1 (leaf_c) and node ID (leaf_a, a child of 1), 10
 * samples on each; an ID beyond what the file holds is damage, its samples "no stack".
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "experiment.h"

/* The functions whose addresses the samples use. noinline + a body keep them distinct. */
volatile int sink;
__attribute__((noinline)) void leaf_a(void)
{
    sink++;
}
__attribute__((noinline)) void leaf_b(void)
{
    sink += 2;
}
__attribute__((noinline)) void leaf_c(void)
{
    sink += 3;
}
__attribute__((noinline)) void caller_x(void)
{
    leaf_a();
    leaf_b();
}
__attribute__((noinline)) void caller_y(void)
{
    leaf_b();
    leaf_c();
}
__attribute__((noinline)) void rec(int n)
{
    if (n > 0)
        rec(n - 1);
    sink++;
}

static __attribute__((noinline)) void internal_work(void)
{
    sink += 4;
}

int main(int argc, char **argv);

static void die(const char *what, int rc)
{
    fprintf(stderr, "synth: %s: %s\n", what, hpc_strerror(rc));
    exit(1);
}
#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ < 0)                                                                               \
            die(#call, rc_);                                                                       \
    } while (0)

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static hpc_str S(const char *s)
{
    return (hpc_str){s, (uint32_t)strlen(s)};
}

/* ------------------------------------------------------------ load map */

typedef struct map_ctx {
    hpc_stream *ps;
    unsigned id;
    int stale;
    int as_collector;
} map_ctx;

static int build_id_of(struct dl_phdr_info *info, uint8_t *out, uint32_t *n)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const void *)p;
            const char *name = p + sizeof(*nh);
            const uint8_t *desc = (const uint8_t *)name + ((nh->n_namesz + 3) & ~3u);
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                nh->n_descsz <= 64) {
                memcpy(out, desc, nh->n_descsz);
                *n = nh->n_descsz;
                return 1;
            }
            p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
        }
    }
    return 0;
}

static int one_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    map_ctx *m = arg;
    (void)size;
    char path[4096];
    int main_exe = info->dlpi_name[0] == 0;
    if (main_exe) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
        if (n < 0)
            return 0;
        path[n] = 0;
    } else {
        snprintf(path, sizeof(path), "%s", info->dlpi_name);
    }
    if (!main_exe && path[0] != '/')
        return 0; /* the vdso: no file */
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
    uint8_t bid[64];
    uint32_t nbid = 0;
    build_id_of(info, bid, &nbid);
    if (m->stale && main_exe && nbid)
        bid[0] ^= 0xff; /* pretend the file was rebuilt since */
    hpc_rec_module_load r = {.time = now_ns(),
                             .id = ++m->id,
                             .path = S(path),
                             .base = info->dlpi_addr + lo,
                             .size = hi - lo,
                             .bias = info->dlpi_addr,
                             .build_id = {(char *)bid, nbid},
                             .archived = S(""),
                             .flags = (main_exe ? HPC_MODULE_MAIN : 0) |
                                      (main_exe && m->as_collector ? HPC_MODULE_COLLECTOR : 0)};
    CHECK(hpc_write_module_load(m->ps, &r));
    return 0;
}

/* ------------------------------------------------------------ threads */

/* libc's own qsort (a sanitizer runtime interposes its own in front of it). */
static uint64_t libc_qsort(void)
{
    void *h = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    void *f = h ? dlsym(h, "qsort") : NULL;
    if (!f) {
        fprintf(stderr, "synth: cannot find libc's qsort: %s\n", dlerror());
        exit(1);
    }
    return (uint64_t)(uintptr_t)f;
}

/* A pc inside f: the leaf pc for leaves, "return address - 1" style for callers. */
static uint64_t pc_in(void (*f)(void))
{
    return (uint64_t)(uintptr_t)f + 1;
}

static void samples(hpc_stream *t, uint64_t *time, uint64_t node, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        *time += 1000000;
        hpc_rec_sample_clock s = {.time = *time, .node = node, .cpu_ns = 1000000, .cpu = i & 1};
        CHECK(hpc_write_sample_clock(t, &s));
        hpc_stream_stat_add(t, HPC_STAT_SAMPLES, 1);
    }
}

static void node(hpc_stream *t, uint64_t id, uint64_t parent, uint64_t pc)
{
    hpc_rec_cct_node n = {.id = id, .parent = parent, .pc = pc};
    CHECK(hpc_write_cct_node(t, &n));
}

static unsigned leaf_a_samples = 500;

/* Create thread seq's stream t<seq>.hpe and write its thread_begin (parent: thread 0). */
static void thread_open(hpc_stream *t, const char *dir, uint32_t seq, uint64_t t0, const char *name)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/t%u.hpe", dir, seq);
    CHECK(hpc_stream_create(t, path, HPC_STREAM_THREAD, seq, 0, NULL, 1));
    hpc_rec_thread_begin b = {.time = t0,
                              .seq = seq,
                              .tid = (uint64_t)getpid() + seq,
                              .parent_seq = seq ? 0 : -1,
                              .clock_source = HPC_CLOCK_PERF_TASK_CLOCK,
                              .name = S(name)};
    CHECK(hpc_write_thread_begin(t, &b));
}

static void thread0(const char *dir, uint64_t t0)
{
    hpc_stream t;
    thread_open(&t, dir, 0, t0, "main");
    uint64_t time = t0;
    node(&t, 1, 0, (uint64_t)(uintptr_t)main + 1);
    node(&t, 2, 1, pc_in(caller_x));
    node(&t, 3, 2, pc_in(leaf_a));
    samples(&t, &time, 3, leaf_a_samples);
    node(&t, 4, 2, pc_in(leaf_b));
    samples(&t, &time, 4, 200);
    node(&t, 5, 1, pc_in(caller_y));
    node(&t, 6, 5, pc_in(leaf_b));
    samples(&t, &time, 6, 100);
    node(&t, 7, 5, pc_in(leaf_c));
    samples(&t, &time, 7, 200);
    node(&t, 8, 5, libc_qsort() + 1);
    samples(&t, &time, 8, 50);
    samples(&t, &time, 0, 10);
    hpc_rec_thread_end e = {
        .time = time, .cpu_ns = (560 + leaf_a_samples) * 1000000ull, .tail_cpu_ns = 0};
    CHECK(hpc_write_thread_end(&t, &e));
    hpc_stream_close(&t);
}

static void thread1(const char *dir, uint64_t t0)
{
    hpc_stream t;
    thread_open(&t, dir, 1, t0, "");
    uint64_t time = t0;
    uint64_t rec_pc = (uint64_t)(uintptr_t)rec + 1;
    node(&t, 1, 0, (uint64_t)(uintptr_t)main + 1);
    node(&t, 2, 1, rec_pc);
    node(&t, 3, 2, rec_pc);
    node(&t, 4, 3, rec_pc);
    samples(&t, &time, 4, 100);
    hpc_rec_thread_end e = {.time = time, .cpu_ns = 100000000};
    CHECK(hpc_write_thread_end(&t, &e));
    hpc_stream_close(&t);
}

static void thread_deep(const char *dir, uint64_t t0, long depth)
{
    hpc_stream t;
    thread_open(&t, dir, 2, t0, "");
    uint64_t time = t0;
    for (long i = 1; i <= depth; i++)
        node(&t, (uint64_t)i, (uint64_t)i - 1, (uint64_t)(uintptr_t)rec + 1);
    samples(&t, &time, (uint64_t)depth, 10);
    hpc_stream_close(&t);
}

/* A node id far beyond what the file holds (damage, or a hostile file) with 10 samples,
 * then 10 samples on a good node. */
static void thread_huge_id(const char *dir, uint64_t t0, uint64_t id)
{
    hpc_stream t;
    thread_open(&t, dir, 2, t0, "");
    uint64_t time = t0;
    node(&t, 1, 0, pc_in(leaf_c));
    node(&t, id, 1, pc_in(leaf_a));
    samples(&t, &time, id, 10);
    samples(&t, &time, 1, 10);
    hpc_stream_close(&t);
}

static void thread_collector(const char *dir, uint64_t t0)
{
    hpc_stream t;
    thread_open(&t, dir, 2, t0, "");
    uint64_t time = t0;
    node(&t, 1, 0, pc_in(internal_work));
    samples(&t, &time, 1, 20);
    hpc_stream_close(&t);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr,
                "usage: synth EXP [--stale-build-id | --deep N | --faster | --as-collector | "
                "--huge-id ID]\n");
        return 2;
    }
    const char *exp = argv[1];
    int stale = argc > 2 && strcmp(argv[2], "--stale-build-id") == 0;
    if (argc > 2 && strcmp(argv[2], "--faster") == 0)
        leaf_a_samples = 250;
    char dir[4096], path[4200];
    snprintf(dir, sizeof(dir), "%s/main", exp);
    if (mkdir(exp, 0777) || mkdir(dir, 0777)) {
        perror("synth: mkdir");
        return 1;
    }
    uint64_t t0 = now_ns();
    hpc_stream js, ps;
    snprintf(path, sizeof(path), "%s/%s", exp, HPC_JOB_FILE);
    CHECK(hpc_stream_create(&js, path, HPC_STREAM_JOB, 0, 0, NULL, 1));
    hpc_rec_job_begin jb = {.time = t0,
                            .real_time = (uint64_t)time(NULL) * 1000000000u,
                            .job_id = S(""),
                            .host = S("synth"),
                            .cwd = S("/"),
                            .argv = {"synth", 5},
                            .world_size = -1,
                            .version = S("synth")};
    CHECK(hpc_write_job_begin(&js, &jb));
    hpc_stream_close(&js);

    snprintf(path, sizeof(path), "%s/%s", dir, HPC_PROCESS_FILE);
    CHECK(hpc_stream_create(&ps, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1));
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    exe[n > 0 ? n : 0] = 0;
    static const char args[] = "synth\0EXP";
    hpc_rec_proc_begin pb = {.time = t0,
                             .real_time = jb.real_time,
                             .pid = (uint64_t)getpid(),
                             .ppid = (uint64_t)getppid(),
                             .name = S("main"),
                             .parent = S(""),
                             .descent = HPC_DESCENT_FOUNDER,
                             .rank = -1,
                             .world_size = -1,
                             .host = S("synth"),
                             .cwd = S("/"),
                             .exe = S(exe),
                             .argv = {args, sizeof(args)},
                             .page_size = 4096,
                             .ncpus = 2,
                             .os = S("Linux synth x86_64"),
                             .version = S("synth")};
    CHECK(hpc_write_proc_begin(&ps, &pb));
    hpc_rec_settings st = {.clock_source = HPC_CLOCK_PERF_TASK_CLOCK,
                           .clock_interval_ns = 1000000,
                           .clock_note = S(""),
                           .follow = 1,
                           .omp_runtime = S("auto"),
                           .unwinder = S("synth")};
    CHECK(hpc_write_settings(&ps, &st));
    map_ctx m = {.ps = &ps,
                 .stale = stale,
                 .as_collector = argc > 2 && strcmp(argv[2], "--as-collector") == 0};
    dl_iterate_phdr(one_module, &m);
    thread0(dir, t0);
    thread1(dir, t0);
    if (argc > 3 && strcmp(argv[2], "--deep") == 0)
        thread_deep(dir, t0, atol(argv[3]));
    if (m.as_collector)
        thread_collector(dir, t0);
    if (argc > 3 && strcmp(argv[2], "--huge-id") == 0)
        thread_huge_id(dir, t0, strtoull(argv[3], NULL, 10));
    hpc_rec_proc_end pe = {.time = t0 + 1200000000,
                           .reason = HPC_END_EXIT,
                           .status = 0,
                           .utime_ns = (650 + leaf_a_samples) * 1000000ull,
                           .stime_ns = 10000000,
                           .nthreads = 2};
    CHECK(hpc_write_proc_end(&ps, &pe));
    hpc_stream_close(&ps);
    internal_work();
    caller_x(); /* keep every function referenced */
    caller_y();
    rec(2);
    return 0;
}
