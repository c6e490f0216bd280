/*
 * mkjob.c - writes a synthetic MPI+OpenMP job experiment with known contents through the
 * experiment writer API, for hpmerge's tests and benchmarks (no collector, no mpirun).
 *
 *     mkjob EXP [--ranks N] [--threads T] [--iters I] [--samples S] [--bytes B]
 *               [--offset-ns D] [--drift-ppm P] [--missing R] [--kill R] [--damage R]
 *               [--counters] [--contexts N] [--skew-ns K] [--expect FILE]
 *
 * Every rank runs the same global timeline; rank r's clock reads global + r*D plus
 * r*P ppm of drift, and its clock_offset records say so (at MPI_Init and MPI_Finalize),
 * so a correct merge puts every event back at its global time.
 *
 * One iteration i (period S + 8 ms) on rank r:
 *   OpenMP parallel region (team of T, region id i+1): thread t works S - t samples
 *     (at least 1) in an omp_work loop, then waits in the implicit barrier for the
 *     others: max(S - t... ) - its work, one wait sample per ms.
 *   thread 0, MPI (comm ids differ per rank, as they may in real runs):
 *     MPI_Sendrecv   send B bytes to r+1, receive B from r-1 (tag i); one clock sample
 *                    inside the call (MPI state)
 *     MPI_Irecv      from r-1, request 1000+i;   MPI_Isend  to r+1, request 2000+i
 *     MPI_Waitall    completes both
 *     MPI_Allreduce  on MPI_COMM_WORLD, 8 bytes each way
 *     MPI_Bcast      on the even/odd split of the world, root 0, B/2 bytes
 *     MPI_Barrier    on a dup of the world
 *   with --counters, thread 0 also takes one page-faults counter sample of 7 events.
 * Ground truth for every count goes to --expect FILE as JSON.
 *
 * --contexts N: rank 0's main thread also has N calling contexts in a 5-ary tree under
 * synth_main: context j (id 6 + j) is a child of j == 0 ? N_MAIN : context (j - 1) / 5,
 * in function FIVE[(j - 1) % 5] (j = 0: synth_main), so no two siblings share a
 * function and every context is a distinct path; one clock sample (1 ms, no state) at
 * every 500th context and at the last, before the first iteration.
 *
 * --skew-ns K: thread 0's MPI calls are stamped by another clock than its OpenMP events,
 * K ns behind (as the MPI wrapper's TSC clock may be): each iteration's first MPI call
 * begins K ns before the parallel region it follows has ended by the OpenMP clock. The
 * recorded MPI times are the truth (expect: "skewed_items", the OpenMP items that end
 * after that call begins: the implicit barrier, the implicit task and the join, per
 * iteration).
 *
 * Fault injection: --missing R leaves rank R out (no directory: it died before
 * starting); --kill R stops rank R halfway without end records, as SIGKILL would
 * (launcher_exit says signal 9); --damage R overwrites bytes in the middle of rank R's
 * t0.hpe. Other ranks still talk to such a rank, so their messages to and from it lack
 * a partner.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"

#define MS 1000000ull
#define T0 1000000000000ull /* global start: 1000 s */

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        if (rc_ != 0) {                                                                            \
            fprintf(stderr, "mkjob: %s: %s (line %d)\n", #call, hpc_strerror(rc_), __LINE__);      \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define S(str) ((hpc_str){(str), (uint32_t)strlen(str)})

/* Functions whose addresses the samples use; symbolization must find these names. */
volatile int sink;
__attribute__((noinline)) void synth_main(void)
{
    sink++;
}
__attribute__((noinline)) void synth_compute(void)
{
    sink += 2;
}
__attribute__((noinline)) void synth_exchange(void)
{
    sink += 3;
}
__attribute__((noinline)) void synth_worker(void)
{
    sink += 4;
}
__attribute__((noinline)) void synth_kernel(void)
{
    sink += 5;
}

static uint64_t pc_in(void (*f)(void))
{
    return (uint64_t)(uintptr_t)f + 1;
}

typedef struct opts {
    const char *exp, *expect;
    unsigned ranks, threads, iters, samples;
    uint64_t bytes;
    int64_t offset_ns;
    double drift_ppm;
    int missing, kill, damage;
    int counters;
    unsigned contexts;
    uint64_t skew_ns;
} opts;

enum fn {
    FN_SENDRECV = 1,
    FN_IRECV,
    FN_ISEND,
    FN_WAITALL,
    FN_ALLREDUCE,
    FN_BCAST,
    FN_BARRIER,
    FN_COMM_SPLIT,
    FN_COMM_DUP
};

/* Per-rank ground truth. */
typedef struct truth {
    uint64_t sends, recvs, bytes_sent, bytes_recv, mpi_calls, other_calls;
    uint64_t samples, samples_mpi, counter_samples, counter_value, colls, coll_bytes_sent;
    uint64_t *work_samples, *wait_samples; /* per thread */
    uint64_t first_send_global;
    uint64_t iters_done;
    uint64_t omp_regions;
    uint64_t records;
} truth;

static const opts *O;

/* Rank r's clock at global time g. */
static uint64_t local_of(unsigned r, uint64_t g)
{
    int64_t drift = (int64_t)((double)(g - T0) * r * O->drift_ppm / 1e6);
    return g + (uint64_t)((int64_t)r * O->offset_ns + drift);
}

typedef struct thr {
    hpc_stream s;
    unsigned rank, seq;
    truth *tr;
} thr;

static void write_clock_sample(thr *t, uint64_t g, uint64_t node, unsigned state, uint64_t region,
                               uint64_t mpi_fn)
{
    hpc_rec_sample_clock s = {.time = local_of(t->rank, g),
                              .node = node,
                              .cpu_ns = MS,
                              .cpu = t->seq & 1,
                              .state = state,
                              .region = region,
                              .mpi_fn = mpi_fn};
    CHECK(hpc_write_sample_clock(&t->s, &s));
    hpc_stream_stat_add(&t->s, HPC_STAT_SAMPLES, 1);
    t->tr->samples++;
    t->tr->records++;
}

static void rec_done(thr *t)
{
    t->tr->records++;
}

/* ------------------------------------------------------------ process.hpe */

typedef struct map_ctx {
    hpc_stream *ps;
    int done;
} map_ctx;

static int main_module(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    map_ctx *m = arg;
    if (m->done || info->dlpi_name[0] != 0)
        return 0;
    m->done = 1;
    char path[4096];
    ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
    if (n < 0)
        return 0;
    path[n] = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            if (ph->p_vaddr < lo)
                lo = ph->p_vaddr;
            if (ph->p_vaddr + ph->p_memsz > hi)
                hi = ph->p_vaddr + ph->p_memsz;
        }
    }
    hpc_rec_module_load r = {.time = 0,
                             .id = 1,
                             .path = S(path),
                             .base = info->dlpi_addr + lo,
                             .size = hi - lo,
                             .bias = info->dlpi_addr,
                             .archived = S(""),
                             .flags = HPC_MODULE_MAIN};
    CHECK(hpc_write_module_load(m->ps, &r));
    return 0;
}

static uint64_t comm_id(unsigned r, unsigned k)
{
    return 10 + 3 * r + k; /* process-local ids differ from rank to rank */
}

static void write_comm(hpc_stream *ps, uint64_t t, uint64_t id, unsigned kind, uint64_t parent,
                       const uint64_t *members, unsigned n, unsigned my_rank, uint64_t gid_root,
                       uint64_t gid_seq, const char *name)
{
    uint8_t buf[8192];
    int len = hpc_varints_encode(buf, sizeof(buf), members, n);
    if (len < 0) {
        fprintf(stderr, "mkjob: too many ranks for a comm record\n");
        exit(1);
    }
    hpc_rec_mpi_comm c = {.time = t,
                          .id = id,
                          .kind = kind,
                          .parent = parent,
                          .size = n,
                          .rank = my_rank,
                          .gid_root = gid_root,
                          .gid_seq = gid_seq,
                          .members = {(const char *)buf, (uint32_t)len},
                          .remote = {"", 0},
                          .name = S(name)};
    CHECK(hpc_write_mpi_comm(ps, &c));
}

static void write_process(const char *dir, unsigned r, uint64_t g_end, bool killed)
{
    const opts *o = O;
    char path[8400];
    hpc_stream ps;
    snprintf(path, sizeof(path), "%s/%s", dir, HPC_PROCESS_FILE);
    CHECK(hpc_stream_create(&ps, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1));
    char name[32];
    snprintf(name, sizeof(name), "rank%u", r);
    static const char argv[] = "./solver\0-n\0"
                               "100";
    hpc_rec_proc_begin b = {.time = local_of(r, T0 - MS),
                            .real_time = 1700000000000000000ull,
                            .pid = 4000 + r,
                            .ppid = 1,
                            .name = S(name),
                            .parent = S(""),
                            .descent = HPC_DESCENT_FOUNDER,
                            .rank = r,
                            .world_size = o->ranks,
                            .host = S(r % 2 ? "node-b" : "node-a"),
                            .cwd = S("/tmp"),
                            .exe = S("/tmp/solver"),
                            .argv = {argv, sizeof(argv)},
                            .page_size = 4096,
                            .ncpus = 2,
                            .os = S("Linux"),
                            .version = S("mkjob")};
    CHECK(hpc_write_proc_begin(&ps, &b));
    hpc_rec_settings st = {.clock_source = HPC_CLOCK_PERF_TASK_CLOCK,
                           .clock_interval_ns = MS,
                           .mpi_trace = 1,
                           .omp_runtime = S("auto"),
                           .unwinder = S("synthetic")};
    CHECK(hpc_write_settings(&ps, &st));
    map_ctx m = {&ps, 0};
    dl_iterate_phdr(main_module, &m);
    if (o->counters) {
        hpc_rec_counter_def cd = {.index = 0,
                                  .name = S("page-faults"),
                                  .spec = S("page-faults"),
                                  .perf_type = 1,
                                  .perf_config = 2,
                                  .interval = 7,
                                  .flags = HPC_COUNTER_SOFTWARE,
                                  .unit = S("events")};
        CHECK(hpc_write_counter_def(&ps, &cd));
    }
    static const struct {
        unsigned id;
        const char *name;
        unsigned family, coll;
    } fns[] = {{FN_SENDRECV, "MPI_Sendrecv", HPC_MPI_P2P, 0},
               {FN_IRECV, "MPI_Irecv", HPC_MPI_P2P, 0},
               {FN_ISEND, "MPI_Isend", HPC_MPI_P2P, 0},
               {FN_WAITALL, "MPI_Waitall", HPC_MPI_WAIT, 0},
               {FN_ALLREDUCE, "MPI_Allreduce", HPC_MPI_COLL, HPC_COLL_ALLREDUCE},
               {FN_BCAST, "MPI_Bcast", HPC_MPI_COLL, HPC_COLL_BCAST},
               {FN_BARRIER, "MPI_Barrier", HPC_MPI_COLL, HPC_COLL_BARRIER},
               {FN_COMM_SPLIT, "MPI_Comm_split", HPC_MPI_COMM, 0},
               {FN_COMM_DUP, "MPI_Comm_dup", HPC_MPI_COMM, 0}};
    for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
        hpc_rec_mpi_fn f = {fns[i].id, S(fns[i].name), fns[i].family, fns[i].coll};
        CHECK(hpc_write_mpi_fn(&ps, &f));
    }
    hpc_rec_mpi_init mi = {.time_enter = local_of(r, T0 - MS / 2),
                           .time_leave = local_of(r, T0),
                           .rank = r,
                           .size = o->ranks,
                           .thread_level = -1,
                           .processor = S(name),
                           .library = S("synthetic MPI")};
    CHECK(hpc_write_mpi_init(&ps, &mi));
    hpc_rec_clock_offset co = {0, local_of(r, T0), (int64_t)(T0 - local_of(r, T0)), 1000};
    CHECK(hpc_write_clock_offset(&ps, &co));
    /* communicators: world, self, split by parity, dup of world */
    uint64_t *world = calloc(o->ranks, sizeof(uint64_t)),
             *half = calloc(o->ranks, sizeof(uint64_t));
    unsigned nhalf = 0, my_half = 0;
    for (unsigned k = 0; k < o->ranks; k++) {
        world[k] = k;
        if (k % 2 == r % 2) {
            if (k == r)
                my_half = nhalf;
            half[nhalf++] = k;
        }
    }
    uint64_t tc = local_of(r, T0);
    write_comm(&ps, tc, comm_id(r, 0), HPC_COMM_WORLD, 0, world, o->ranks, r, 0, 0,
               "MPI_COMM_WORLD");
    uint64_t self = r;
    write_comm(&ps, tc, comm_id(r, 1), HPC_COMM_SELF, 0, &self, 1, 0, r, 1, "MPI_COMM_SELF");
    write_comm(&ps, tc, comm_id(r, 2), HPC_COMM_SPLIT, comm_id(r, 0), half, nhalf, my_half, half[0],
               2, "");
    write_comm(&ps, tc, 9, HPC_COMM_DUP, comm_id(r, 0), world, o->ranks, r, 0, 3, "");
    free(world);
    free(half);
    if (!killed) {
        hpc_rec_clock_offset c1 = {1, local_of(r, g_end), (int64_t)(g_end - local_of(r, g_end)),
                                   1000};
        CHECK(hpc_write_clock_offset(&ps, &c1));
        hpc_rec_mpi_finalize mf = {local_of(r, g_end), local_of(r, g_end + 1000)};
        CHECK(hpc_write_mpi_finalize(&ps, &mf));
        hpc_rec_proc_end pe = {.time = local_of(r, g_end + MS),
                               .reason = HPC_END_EXIT,
                               .status = 0,
                               .utime_ns = 0,
                               .stime_ns = 0,
                               .maxrss_kb = 1000,
                               .nthreads = o->threads};
        CHECK(hpc_write_proc_end(&ps, &pe));
    }
    CHECK(hpc_stream_close(&ps));
    snprintf(path, sizeof(path), "%s/%s", dir, HPC_LAUNCHER_FILE);
    CHECK(hpc_stream_create(&ps, path, HPC_STREAM_LAUNCHER, 0, 0, NULL, 1));
    hpc_rec_launcher_exit le = {.time = local_of(r, g_end + 2 * MS),
                                .pid = 4000 + r,
                                .exited = !killed,
                                .status = killed ? 9 : 0};
    CHECK(hpc_write_launcher_exit(&ps, &le));
    CHECK(hpc_stream_close(&ps));
}

/* ------------------------------------------------------------ threads */

enum node { N_MAIN = 1, N_COMPUTE, N_EXCHANGE, N_WORKER, N_KERNEL };

static void thread_begin(thr *t, const char *dir, unsigned seq, uint64_t g)
{
    char path[8400];
    snprintf(path, sizeof(path), "%s/t%u.hpe", dir, seq);
    CHECK(hpc_stream_create(&t->s, path, HPC_STREAM_THREAD, seq, 0, NULL, 1));
    t->seq = seq;
    hpc_rec_thread_begin b = {.time = local_of(t->rank, g),
                              .seq = seq,
                              .tid = 5000 + seq,
                              .parent_seq = seq ? 0 : -1,
                              .clock_source = 1,
                              .name = S(seq ? "worker" : "main")};
    CHECK(hpc_write_thread_begin(&t->s, &b));
    rec_done(t);
    const struct {
        uint64_t id, parent;
        void (*f)(void);
    } nodes[] = {{N_MAIN, 0, synth_main},
                 {N_COMPUTE, N_MAIN, synth_compute},
                 {N_EXCHANGE, N_MAIN, synth_exchange},
                 {N_WORKER, 0, synth_worker},
                 {N_KERNEL, N_WORKER, synth_kernel}};
    for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++) {
        hpc_rec_cct_node n = {nodes[i].id, nodes[i].parent, pc_in(nodes[i].f)};
        CHECK(hpc_write_cct_node(&t->s, &n));
        rec_done(t);
    }
}

/* --contexts: the tree described at the top, and its samples. */
static void many_contexts(thr *t, uint64_t g)
{
    static void (*const five[5])(void) = {synth_main, synth_compute, synth_exchange, synth_worker,
                                          synth_kernel};
    unsigned n = O->contexts, k = 0;
    for (unsigned j = 0; j < n; j++) {
        hpc_rec_cct_node c = {6 + j, j ? 6 + (j - 1) / 5 : N_MAIN,
                              pc_in(j ? five[(j - 1) % 5] : synth_main)};
        CHECK(hpc_write_cct_node(&t->s, &c));
        rec_done(t);
    }
    for (unsigned j = 0; j < n; j++)
        if (j % 500 == 499 || j == n - 1)
            write_clock_sample(t, g + 100 + 50 * (uint64_t)k++, 6 + j, 0, 0, 0);
}

static void thread_end(thr *t, uint64_t g, bool killed)
{
    if (!killed) {
        hpc_rec_thread_end e = {local_of(t->rank, g), t->tr->samples * MS, 0};
        CHECK(hpc_write_thread_end(&t->s, &e));
        rec_done(t);
    }
    CHECK(hpc_stream_close(&t->s));
}

/* One OpenMP parallel region on thread t; returns the region's end (global). */
static uint64_t omp_region(thr *t, uint64_t g, unsigned i)
{
    const opts *o = O;
    unsigned r = t->rank, T = o->threads, S = o->samples;
    uint64_t region = i + 1;
    unsigned work = S > t->seq ? S - t->seq : 1, most = S;
    unsigned wait = most - work;
    if (t->seq == 0) {
        hpc_rec_omp_parallel_begin pb = {local_of(r, g),       region,   0, T, 0,
                                         pc_in(synth_compute), N_COMPUTE};
        CHECK(hpc_write_omp_parallel_begin(&t->s, &pb));
        rec_done(t);
        t->tr->omp_regions++;
    }
    uint64_t tb = g + 1000 + t->seq * 100;
    hpc_rec_omp_implicit_task it = {local_of(r, tb), 1, region, T, t->seq};
    CHECK(hpc_write_omp_implicit_task(&t->s, &it));
    rec_done(t);
    uint64_t wb = g + 2000, we = wb + work * MS;
    uint64_t node = t->seq ? N_KERNEL : N_COMPUTE;
    for (unsigned k = 0; k < work; k++)
        write_clock_sample(t, wb + k * MS + MS / 2, node, HPC_STATE_WITH_OMP(0, HPC_OMP_STATE_WORK),
                           region, 0);
    t->tr->work_samples[t->seq] += work;
    hpc_rec_omp_work w = {HPC_OMP_WORK_LOOP,   local_of(r, wb), local_of(r, we), region, 100,
                          pc_in(synth_compute)};
    CHECK(hpc_write_omp_work(&t->s, &w));
    rec_done(t);
    uint64_t be = wb + most * MS + 500;
    for (unsigned k = 0; k < wait; k++)
        write_clock_sample(t, we + k * MS + MS / 2, node,
                           HPC_STATE_WITH_OMP(0, HPC_OMP_STATE_IMPLICIT_BARRIER), region, 0);
    t->tr->wait_samples[t->seq] += wait;
    hpc_rec_omp_sync sy = {local_of(r, we), local_of(r, be), HPC_OMP_SYNC_IMPLICIT_BARRIER, region,
                           pc_in(synth_compute)};
    CHECK(hpc_write_omp_sync(&t->s, &sy));
    rec_done(t);
    uint64_t te = be + 100 + t->seq * 10;
    hpc_rec_omp_implicit_task ie = {local_of(r, te), 2, region, 0, t->seq};
    CHECK(hpc_write_omp_implicit_task(&t->s, &ie));
    rec_done(t);
    uint64_t pe = be + 1000;
    if (t->seq == 0) {
        hpc_rec_omp_parallel_end e = {local_of(r, pe), region};
        CHECK(hpc_write_omp_parallel_end(&t->s, &e));
        rec_done(t);
    }
    return pe;
}

static void mpi_call(thr *t, unsigned fn, uint64_t ge, uint64_t gl, uint64_t comm)
{
    hpc_rec_mpi_call c = {
        fn, local_of(t->rank, ge), local_of(t->rank, gl), pc_in(synth_exchange), comm, 0};
    CHECK(hpc_write_mpi_call(&t->s, &c));
    rec_done(t);
    t->tr->mpi_calls++;
}

static void p2p(thr *t, uint64_t g, unsigned op, uint64_t comm, int64_t peer, int64_t tag,
                uint64_t bytes, uint64_t req)
{
    hpc_rec_mpi_p2p p = {local_of(t->rank, g), op, comm, peer, peer, tag, bytes, req};
    CHECK(hpc_write_mpi_p2p(&t->s, &p));
    rec_done(t);
    if (op == HPC_P2P_SEND || op == HPC_P2P_ISEND) {
        t->tr->sends++;
        t->tr->bytes_sent += bytes;
        if (!t->tr->first_send_global)
            t->tr->first_send_global = g;
    } else if (op == HPC_P2P_RECV || op == HPC_P2P_IRECV_COMPLETE) {
        t->tr->recvs++;
        t->tr->bytes_recv += bytes;
    }
}

static void coll(thr *t, uint64_t gb, uint64_t ge, unsigned op, uint64_t comm, int64_t root,
                 uint64_t sent, uint64_t recv)
{
    hpc_rec_mpi_coll c = {local_of(t->rank, gb), local_of(t->rank, ge), op, comm, root, sent, recv};
    CHECK(hpc_write_mpi_coll(&t->s, &c));
    rec_done(t);
    t->tr->colls++;
    t->tr->coll_bytes_sent += sent;
    t->tr->other_calls++;
}

/* The MPI part of iteration i on thread 0 of rank r, from global time g. */
static void mpi_phase(thr *t, uint64_t g, unsigned i)
{
    const opts *o = O;
    unsigned r = t->rank, N = o->ranks;
    int64_t right = (r + 1) % N, left = (r + N - 1) % N;
    uint64_t world = comm_id(r, 0), B = o->bytes;
    /* MPI_Sendrecv with a sample inside: the sample is written before the call record */
    uint64_t e = g;
    write_clock_sample(t, e + MS, N_EXCHANGE, HPC_STATE_MPI, 0, FN_SENDRECV);
    t->tr->samples_mpi++;
    mpi_call(t, FN_SENDRECV, e, e + 2 * MS, world);
    p2p(t, e + 100, HPC_P2P_SEND, world, right, i, B, 0);
    p2p(t, e + 3 * MS / 2, HPC_P2P_RECV, world, left, i, B, 0);
    e += 2 * MS + 1000;
    mpi_call(t, FN_IRECV, e, e + 10000, world);
    p2p(t, e + 5000, HPC_P2P_IRECV_REQUEST, world, left, i, 0, 1000 + i);
    t->tr->other_calls++; /* a request is not a receive */
    e += 20000;
    mpi_call(t, FN_ISEND, e, e + 10000, world);
    p2p(t, e + 5000, HPC_P2P_ISEND, world, right, i, B, 2000 + i);
    e += 20000;
    mpi_call(t, FN_WAITALL, e, e + 2 * MS, world);
    p2p(t, e + MS, HPC_P2P_IRECV_COMPLETE, world, left, i, B, 1000 + i);
    p2p(t, e + MS + 1000, HPC_P2P_ISEND_COMPLETE, world, right, i, B, 2000 + i);
    e += 2 * MS + 1000;
    mpi_call(t, FN_ALLREDUCE, e, e + 500000, world);
    coll(t, e + 1000, e + 499000, HPC_COLL_ALLREDUCE, world, -1, 8, 8);
    e += 501000;
    bool root = r < 2; /* comm rank 0 of each half */
    mpi_call(t, FN_BCAST, e, e + 300000, comm_id(r, 2));
    coll(t, e + 1000, e + 299000, HPC_COLL_BCAST, comm_id(r, 2), 0, root ? B / 2 : 0,
         root ? 0 : B / 2);
    e += 301000;
    mpi_call(t, FN_BARRIER, e, e + 200000, 9);
    coll(t, e + 1000, e + 199000, HPC_COLL_BARRIER, 9, -1, 0, 0);
    if (o->counters) {
        hpc_rec_sample_counter sc = {
            .time = local_of(r, e + 250000), .node = N_EXCHANGE, .counter = 0, .value = 7};
        CHECK(hpc_write_sample_counter(&t->s, &sc));
        rec_done(t);
        t->tr->counter_samples++;
        t->tr->counter_value += 7;
    }
}

static uint64_t period(void)
{
    return (O->samples + 8) * MS;
}

static void write_rank(unsigned r, truth *tr)
{
    const opts *o = O;
    char dir[4200];
    snprintf(dir, sizeof(dir), "%s/rank%u", o->exp, r);
    if (mkdir(dir, 0777) != 0) {
        fprintf(stderr, "mkjob: %s: %s\n", dir, strerror(errno));
        exit(1);
    }
    bool killed = (int)r == o->kill;
    unsigned iters = killed ? o->iters / 2 : o->iters;
    uint64_t g_end = T0 + (uint64_t)o->iters * period() + MS;
    write_process(dir, r, g_end, killed);
    for (unsigned seq = 0; seq < o->threads; seq++) {
        thr t = {.rank = r, .tr = tr};
        thread_begin(&t, dir, seq, T0 + seq * 1000);
        if (r == 0 && seq == 0 && o->contexts)
            many_contexts(&t, T0);
        for (unsigned i = 0; i < iters; i++) {
            uint64_t g = T0 + MS + (uint64_t)i * period();
            uint64_t pe = omp_region(&t, g, i);
            if (seq == 0)
                mpi_phase(&t, o->skew_ns ? pe - o->skew_ns : pe + 1000, i);
        }
        thread_end(&t, g_end, killed);
    }
    tr->iters_done = iters;
}

static void damage(unsigned r)
{
    char path[8400];
    snprintf(path, sizeof(path), "%s/rank%u/t0.hpe", O->exp, r);
    int fd = open(path, O_RDWR);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        perror(path);
        exit(1);
    }
    uint8_t junk[64];
    memset(junk, 0xee, sizeof(junk));
    if (pwrite(fd, junk, sizeof(junk), st.st_size / 2) != (ssize_t)sizeof(junk)) {
        perror(path);
        exit(1);
    }
    close(fd);
}

static void write_job(void)
{
    char path[8400];
    snprintf(path, sizeof(path), "%s/%s", O->exp, HPC_JOB_FILE);
    hpc_stream js;
    CHECK(hpc_stream_create(&js, path, HPC_STREAM_JOB, 0, 0, NULL, 1));
    static const char argv[] = "hpcollect\0./solver\0-n\0"
                               "100";
    hpc_rec_job_begin jb = {.time = T0 - 2 * MS,
                            .real_time = 1700000000000000000ull,
                            .job_id = S("synthetic"),
                            .host = S("node-a"),
                            .cwd = S("/tmp"),
                            .argv = {argv, sizeof(argv)},
                            .world_size = O->ranks,
                            .version = S("mkjob")};
    CHECK(hpc_write_job_begin(&js, &jb));
    CHECK(hpc_stream_close(&js));
}

static void write_expect(truth *tr)
{
    FILE *f = fopen(O->expect, "w");
    if (!f) {
        perror(O->expect);
        exit(1);
    }
    fprintf(f,
            "{\"ranks\": %u, \"threads\": %u, \"iters\": %u, \"samples\": %u, \"bytes\": %llu,\n"
            " \"offset_ns\": %lld, \"drift_ppm\": %g, \"missing\": %d, \"killed\": %d,\n"
            " \"t0\": %llu, \"period\": %llu, \"skew_ns\": %llu, \"per_rank\": [\n",
            O->ranks, O->threads, O->iters, O->samples, (unsigned long long)O->bytes,
            (long long)O->offset_ns, O->drift_ppm, O->missing, O->kill, (unsigned long long)T0,
            (unsigned long long)period(), (unsigned long long)O->skew_ns);
    for (unsigned r = 0; r < O->ranks; r++) {
        truth *t = &tr[r];
        fprintf(f,
                "  {\"rank\": %u, \"present\": %s, \"iters\": %llu, \"sends\": %llu, "
                "\"receives\": %llu, \"bytes_sent\": %llu, \"bytes_received\": %llu, "
                "\"mpi_calls\": %llu, \"other_calls\": %llu, \"samples\": %llu, "
                "\"samples_mpi\": %llu, \"counter_samples\": %llu, \"counter_value\": %llu, "
                "\"collectives\": %llu, \"coll_bytes_sent\": %llu, \"omp_regions\": %llu, "
                "\"records\": %llu, \"first_send_global\": %llu, \"work_samples\": [",
                r, (int)r == O->missing ? "false" : "true", (unsigned long long)t->iters_done,
                (unsigned long long)t->sends, (unsigned long long)t->recvs,
                (unsigned long long)t->bytes_sent, (unsigned long long)t->bytes_recv,
                (unsigned long long)t->mpi_calls, (unsigned long long)t->other_calls,
                (unsigned long long)t->samples, (unsigned long long)t->samples_mpi,
                (unsigned long long)t->counter_samples, (unsigned long long)t->counter_value,
                (unsigned long long)t->colls, (unsigned long long)t->coll_bytes_sent,
                (unsigned long long)t->omp_regions, (unsigned long long)t->records,
                (unsigned long long)t->first_send_global);
        for (unsigned k = 0; k < O->threads; k++)
            fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)t->work_samples[k]);
        fprintf(f, "], \"wait_samples\": [");
        for (unsigned k = 0; k < O->threads; k++)
            fprintf(f, "%s%llu", k ? ", " : "", (unsigned long long)t->wait_samples[k]);
        fprintf(f, "]}%s\n", r + 1 < O->ranks ? "," : "");
    }
    fprintf(f, "]}\n");
    fclose(f);
}

static void usage(void)
{
    fprintf(stderr, "usage: mkjob EXP [--ranks N] [--threads T] [--iters I] [--samples S] "
                    "[--bytes B] [--offset-ns D] [--drift-ppm P] [--missing R] [--kill R] "
                    "[--damage R] [--counters] [--contexts N] [--skew-ns K] [--expect FILE]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static opts o = {.ranks = 4,
                     .threads = 2,
                     .iters = 10,
                     .samples = 4,
                     .bytes = 1024,
                     .missing = -1,
                     .kill = -1,
                     .damage = -1};
    static const struct option lo[] = {
        {"ranks", 1, NULL, 'n'},     {"threads", 1, NULL, 't'},  {"iters", 1, NULL, 'i'},
        {"samples", 1, NULL, 's'},   {"bytes", 1, NULL, 'b'},    {"offset-ns", 1, NULL, 'o'},
        {"drift-ppm", 1, NULL, 'd'}, {"missing", 1, NULL, 'm'},  {"kill", 1, NULL, 'k'},
        {"damage", 1, NULL, 'x'},    {"counters", 0, NULL, 'c'}, {"expect", 1, NULL, 'e'},
        {"contexts", 1, NULL, 'C'},  {"skew-ns", 1, NULL, 'w'},  {NULL, 0, NULL, 0}};
    int c;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        switch (c) {
        case 'n':
            o.ranks = (unsigned)atoi(optarg);
            break;
        case 't':
            o.threads = (unsigned)atoi(optarg);
            break;
        case 'i':
            o.iters = (unsigned)atoi(optarg);
            break;
        case 's':
            o.samples = (unsigned)atoi(optarg);
            break;
        case 'b':
            o.bytes = strtoull(optarg, NULL, 10);
            break;
        case 'o':
            o.offset_ns = strtoll(optarg, NULL, 10);
            break;
        case 'd':
            o.drift_ppm = atof(optarg);
            break;
        case 'm':
            o.missing = atoi(optarg);
            break;
        case 'k':
            o.kill = atoi(optarg);
            break;
        case 'x':
            o.damage = atoi(optarg);
            break;
        case 'c':
            o.counters = 1;
            break;
        case 'e':
            o.expect = optarg;
            break;
        case 'C':
            o.contexts = (unsigned)atoi(optarg);
            break;
        case 'w':
            o.skew_ns = strtoull(optarg, NULL, 10);
            break;
        default:
            usage();
        }
    }
    if (optind + 1 != argc || o.ranks < 2 || o.threads < 1 || o.samples < 1 || o.iters < 1)
        usage();
    o.exp = argv[optind];
    O = &o;
    if (mkdir(o.exp, 0777) != 0) {
        fprintf(stderr, "mkjob: %s: %s\n", o.exp, strerror(errno));
        return 1;
    }
    write_job();
    truth *tr = calloc(o.ranks, sizeof(truth));
    for (unsigned r = 0; r < o.ranks; r++) {
        tr[r].work_samples = calloc(o.threads, sizeof(uint64_t));
        tr[r].wait_samples = calloc(o.threads, sizeof(uint64_t));
        if ((int)r != o.missing)
            write_rank(r, &tr[r]);
    }
    if (o.damage >= 0)
        damage((unsigned)o.damage);
    if (o.expect)
        write_expect(tr);
    for (unsigned r = 0; r < o.ranks; r++) {
        free(tr[r].work_samples);
        free(tr[r].wait_samples);
    }
    free(tr);
    return 0;
}
