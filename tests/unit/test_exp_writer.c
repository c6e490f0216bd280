/*
 * test_exp_writer.c - the stream writer, checked byte by byte against the format that
 * experiment.h describes (independently of the reader): header fields, record framing,
 * T deltas, the chunk rule, budget refusal, keep_fd=0 growth, close truncation, growth
 * in steps inside a chunk with the pages of each step faulted in ahead of the writes.
 */
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include "codec.h"
#include "exp_test.h"

static uint64_t le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static const uint8_t *varint(const uint8_t *p, uint64_t *v)
{
    *v = 0;
    for (unsigned s = 0;; s += 7) {
        *v |= (uint64_t)(*p & 0x7f) << s;
        if (!(*p++ & 0x80))
            return p;
    }
}

/* Walk a stream by the chunk rule; count committed records and check their kinds. */
static uint64_t raw_count(const uint8_t *b, size_t n, uint32_t cs, unsigned kind, int *bad)
{
    uint64_t count = 0;
    for (uint64_t chunk = 0; chunk < n; chunk += cs) {
        uint64_t pos = chunk ? chunk : HPC_HEADER_SIZE, end = chunk + cs < n ? chunk + cs : n;
        while (pos < end) {
            uint64_t len;
            if (b[pos] == 0)
                break; /* end of chunk */
            if (b[pos] != kind)
                (*bad)++;
            const uint8_t *p = varint(b + pos + 1, &len);
            pos = (uint64_t)(p - b) + len;
            count++;
        }
        if (pos > end)
            (*bad)++;
    }
    return count;
}

static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    while (d && readdir(d))
        n++;
    closedir(d);
    return n;
}

/* The test's own LEB128 of v into out; returns its length. */
static unsigned leb128(uint64_t v, uint8_t *out)
{
    unsigned n = 0;
    do {
        out[n++] = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
        v >>= 7;
    } while (v);
    return n;
}

/* codec.h's encoders against leb128 for values of every bit length (each 2^k - 1, 2^k,
 * 2^k + a pattern): the same bytes, the same length; hpc_varint_put stores nothing past
 * the varint, hpc_varint_put_wide only zeros within the first 8 bytes. */
static void test_varints(void)
{
    for (unsigned k = 0; k < 64; k++) {
        uint64_t base = 1ull << k;
        uint64_t vals[] = {base - 1, base, base | (0x5a5a5a5a5a5a5a5aull & (base - 1)), ~0ull >> k};
        for (unsigned j = 0; j < sizeof vals / sizeof vals[0]; j++) {
            uint64_t v = vals[j];
            uint8_t want[16], a[16], w[16];
            unsigned n = leb128(v, want);
            memset(a, 0xaa, sizeof a);
            memset(w, 0xaa, sizeof w);
            unsigned na = (unsigned)(hpc_varint_put(a, v) - a);
            unsigned nw = (unsigned)(hpc_varint_put_wide(w, v) - w);
            CHECK(na == n && memcmp(a, want, n) == 0, "hpc_varint_put(%" PRIu64 ")", v);
            CHECK(nw == n && memcmp(w, want, n) == 0, "hpc_varint_put_wide(%" PRIu64 ")", v);
            CHECK_EQ(hpc_varint_len(v), n);
            bool untouched = true, zeros = true;
            for (unsigned i = n; i < sizeof a; i++) {
                untouched &= a[i] == 0xaa;
                zeros &= w[i] == (i < 8 ? 0 : 0xaa) || w[i] == 0xaa;
            }
            CHECK(untouched, "hpc_varint_put(%" PRIu64 ") stored past the varint", v);
            CHECK(zeros, "hpc_varint_put_wide(%" PRIu64 ") stored more than zeros", v);
        }
    }
}

static void test_header_and_encoding(void)
{
    const char *path = exp_test_path("w1.hpe");
    hpc_stream s;
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 7, 4096, NULL, 1) == 0, "create");
    hpc_rec_sample_clock r = {.time = 1000, .node = 5, .cpu_ns = 1000000, .cpu = 1};
    CHECK_EQ(hpc_write_sample_clock(&s, &r), 0);
    r.time = 2000;
    r.node = 300;
    CHECK_EQ(hpc_write_sample_clock(&s, &r), 0);
    r.time = 1990; /* backwards */
    CHECK_EQ(hpc_write_sample_clock(&s, &r), 0);
    CHECK_EQ(hpc_stream_close(&s), 0);

    size_t n;
    uint8_t *b = exp_test_slurp(path, &n);
    REQUIRE(b && n > HPC_HEADER_SIZE, "read back");
    CHECK(memcmp(b, "HPCEXP\r\n", 8) == 0, "magic");
    CHECK_EQ(le(b + 8, 2), HPC_FORMAT_MAJOR);
    CHECK_EQ(le(b + 12, 2), HPC_STREAM_THREAD);
    CHECK_EQ(le(b + 14, 2), HPC_HEADER_SIZE);
    CHECK_EQ(le(b + 16, 4), 4096);
    CHECK_EQ(le(b + 20, 4), 7);
    CHECK_EQ(le(b + 24, 8), hpc_schema_hash());
    CHECK(le(b + 32, 8) != 0, "creation time set");
    CHECK_EQ(le(b + 40 + 8 * HPC_STAT_RECORDS, 8), 3);
    CHECK_EQ(le(b + 40 + 8 * HPC_STAT_BYTES, 8), n);

    /* kind, length, time delta 1000 (zigzag 2000), node 5, cpu_ns, cpu 1, state..mpi_fn 0,
     * sys_ns 0 */
    static const uint8_t rec1[] = {22, 11, 0xd0, 0x0f, 5, 0xc0, 0x84, 0x3d, 1, 0, 0, 0, 0};
    static const uint8_t rec2[] = {22, 12, 0xd0, 0x0f, 0xac, 0x02, 0xc0, 0x84, 0x3d, 1, 0, 0, 0, 0};
    static const uint8_t rec3[] = {22, 11, 19, 0xac, 0x02, 0xc0, 0x84, 0x3d, 1, 0, 0, 0, 0};
    CHECK(n == HPC_HEADER_SIZE + sizeof rec1 + sizeof rec2 + sizeof rec3, "size %zu", n);
    CHECK(memcmp(b + HPC_HEADER_SIZE, rec1, sizeof rec1) == 0, "first sample bytes");
    CHECK(memcmp(b + HPC_HEADER_SIZE + sizeof rec1, rec2, sizeof rec2) == 0, "second sample bytes");
    CHECK(memcmp(b + HPC_HEADER_SIZE + sizeof rec1 + sizeof rec2, rec3, sizeof rec3) == 0,
          "backwards time: zigzag -10 = 19");
    free(b);
}

static void test_chunks(int keep_fd)
{
    const char *path = exp_test_path(keep_fd ? "w2.hpe" : "w3.hpe");
    hpc_stream s;
    int fds = open_fds();
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 4096, NULL, keep_fd) == 0, "create");
    CHECK(keep_fd ? s.fd >= 0 : s.fd == -1, "fd kept only with keep_fd (fd %d)", s.fd);
    const uint64_t count = 20000;
    for (uint64_t i = 0; i < count; i++) {
        hpc_rec_cct_node r = {.id = i, .parent = i / 2, .pc = 0x400000 + i * 16};
        if (hpc_write_cct_node(&s, &r) != 0) {
            CHECK(0, "write %" PRIu64 " failed", i);
            break;
        }
    }
    CHECK(s.win_off >= 4096 * 30, "crossed many chunks (at %" PRIu64 ")", s.win_off);
    CHECK_EQ(open_fds(), fds + (keep_fd ? 1 : 0));
    uint64_t written = s.win_off + s.pos;
    CHECK_EQ(hpc_stream_close(&s), 0);
    CHECK_EQ(open_fds(), fds);
    CHECK_EQ(exp_test_file_size(path), written);

    size_t n;
    int bad = 0;
    uint8_t *b = exp_test_slurp(path, &n);
    CHECK_EQ(raw_count(b, n, 4096, 21, &bad), count);
    CHECK_EQ(bad, 0);
    CHECK_EQ(le(b + 40 + 8 * HPC_STAT_REMAPS, 8), s.win_off / 4096);
    free(b);
}

/* Is the page at p mapped in this process's page table (not only in the page cache)?
 * -1 if /proc/self/pagemap cannot tell. */
static int page_present(const void *p)
{
    int fd = open("/proc/self/pagemap", O_RDONLY);
    uint64_t e = 0;
    off_t at = (off_t)((uintptr_t)p / 4096 * 8);
    int n = fd >= 0 ? (int)pread(fd, &e, sizeof e, at) : -1;
    if (fd >= 0)
        close(fd);
    return n == (int)sizeof e ? (int)(e >> 63) : -1;
}

/* Pages of [from, to) of s's window present in the page table. */
static int pages_present(const hpc_stream *s, uint32_t from, uint32_t to)
{
    int n = 0;
    for (uint32_t off = from; off < to; off += 4096)
        n += page_present(s->win + off) == 1;
    return n;
}

/* A stream with the default 256 KiB chunk starts as a 16 KiB file and doubles, up to a
 * chunk per step; each step's pages are mapped before any record goes there (that is
 * the point: no page fault inside a record), nothing past the file's end is. */
static void test_steps(void)
{
    const char *path = exp_test_path("w7.hpe");
    hpc_stream s;
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 0, NULL, 0) == 0, "create");
    CHECK_EQ(s.chunk_size, 256 * 1024);
    CHECK_EQ(exp_test_file_size(path), 16384);
    CHECK_EQ(s.lim, 16384);
#ifdef MADV_POPULATE_WRITE
    int prefault = page_present(s.win) >= 0 && madvise(s.win, 4096, MADV_POPULATE_WRITE) == 0;
#else
    int prefault = 0;
#endif
    if (prefault) {
        CHECK_EQ(pages_present(&s, 0, 16384), 4);
        CHECK_EQ(pages_present(&s, 16384, 65536), 0);
    } else {
        fprintf(stderr, "note: no MADV_POPULATE_WRITE or pagemap: pre-faulting not checked\n");
    }
    uint64_t sizes[16] = {16384}, records = 0;
    int nsizes = 1, ahead = 1;
    for (uint64_t i = 0; s.win_off < 256 * 1024 || s.pos < 4096; i++) {
        hpc_rec_cct_node r = {.id = i, .parent = i / 2, .pc = 0x400000 + i * 16};
        uint32_t lim = s.lim;
        uint64_t off = s.win_off;
        if (hpc_write_cct_node(&s, &r) != 0) {
            CHECK(0, "write %" PRIu64 " failed", i);
            break;
        }
        records++;
        if (s.lim != lim || s.win_off != off) {
            REQUIRE(nsizes < 16, "too many steps");
            sizes[nsizes++] = (uint64_t)exp_test_file_size(path);
            if (prefault)
                ahead &= pages_present(&s, s.pos & ~4095u, s.lim) ==
                         (int)((s.lim - (s.pos & ~4095u)) / 4096);
        }
    }
    CHECK(ahead, "every step's pages were faulted in when it was made");
    static const uint64_t want[] = {16384, 32768, 65536, 131072, 262144, 524288};
    CHECK_EQ(nsizes, 6);
    for (int i = 0; i < nsizes && i < 6; i++)
        CHECK(sizes[i] == want[i], "step %d: file size %" PRIu64 ", want %" PRIu64, i, sizes[i],
              want[i]);
    CHECK_EQ(s.lim, 256 * 1024);
    uint64_t written = s.win_off + s.pos;
    CHECK_EQ(hpc_stream_close(&s), 0);
    CHECK_EQ(exp_test_file_size(path), written);
    size_t n;
    int bad = 0;
    uint8_t *b = exp_test_slurp(path, &n);
    CHECK_EQ(raw_count(b, n, 256 * 1024, 21, &bad), records);
    CHECK_EQ(bad, 0);
    CHECK_EQ(le(b + 40 + 8 * HPC_STAT_REMAPS, 8), 1);
    free(b);
}

static void test_budget(void)
{
    hpc_budget budget = {.limit = HPC_HEADER_SIZE + 100};
    hpc_stream s;
    const char *path = exp_test_path("w4.hpe");
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 0, &budget, 0) == 0, "create");
    CHECK_EQ(budget.used, HPC_HEADER_SIZE);
    hpc_rec_sample_clock r = {.time = 1, .node = 1};
    int ok = 0, err = 0;
    for (int i = 0; i < 50; i++) {
        r.time += 1000000;
        err = hpc_write_sample_clock(&s, &r);
        if (err)
            break;
        ok++;
    }
    CHECK_EQ(err, HPC_E_LIMIT);
    CHECK(budget.exceeded == 1, "exceeded set");
    CHECK(budget.used <= budget.limit, "used %" PRIu64 " within limit", budget.used);
    CHECK(ok > 3 && ok < 20, "some records fit (%d)", ok);
    hpc_rec_thread_end small = {.time = r.time};
    CHECK_EQ(hpc_write_thread_end(&s, &small), budget.used + 5 <= budget.limit ? 0 : HPC_E_LIMIT);
    uint64_t written = s.win_off + s.pos;
    CHECK_EQ(written, budget.used);
    CHECK_EQ(hpc_stream_close(&s), 0);
    CHECK_EQ(exp_test_file_size(path), written);
    /* The refused record left nothing behind. */
    size_t n;
    uint8_t *b = exp_test_slurp(path, &n);
    int bad = 0;
    CHECK_EQ(raw_count(b, n, 256 * 1024, 22, &bad), ok);
    CHECK_EQ(bad, 0);
    free(b);
}

/* Four threads, four streams, one budget: the limit holds exactly under contention. */
struct budget_writer {
    hpc_budget *budget;
    char path[1200];
    uint64_t written, refused;
};

static void *budget_thread(void *arg)
{
    struct budget_writer *w = arg;
    hpc_stream s;
    int rc = hpc_stream_create(&s, w->path, HPC_STREAM_THREAD, 0, 4096, w->budget, 0);
    if (rc == HPC_E_LIMIT)
        w->refused = 1000; /* a late thread: the others spent the budget */
    if (rc)
        return NULL;
    hpc_rec_sample_clock r = {.time = 1};
    for (unsigned i = 0; w->refused < 1000; i++) {
        r.time += 1000 + i % 3000; /* records of varying size */
        r.node = i;
        int rc = hpc_write_sample_clock(&s, &r);
        if (rc == HPC_E_LIMIT)
            w->refused++;
        else if (rc != 0)
            break;
    }
    w->written = s.win_off + s.pos;
    hpc_stream_close(&s);
    return NULL;
}

static void test_budget_threads(void)
{
    hpc_budget budget = {.limit = 1000000};
    struct budget_writer w[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (struct budget_writer){.budget = &budget};
        snprintf(w[i].path, sizeof w[i].path, "%s/budget%d.hpe", exp_test_dir(), i);
        pthread_create(&t[i], NULL, budget_thread, &w[i]);
    }
    uint64_t sum = 0, files = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        CHECK_EQ(w[i].refused, 1000);
        sum += w[i].written;
        long size = exp_test_file_size(w[i].path);
        files += size > 0 ? (uint64_t)size : 0;
    }
    CHECK(budget.exceeded, "exceeded");
    CHECK(budget.used <= budget.limit, "used %" PRIu64 " <= limit", budget.used);
    CHECK(budget.used > budget.limit - 100, "limit used up (%" PRIu64 ")", budget.used);
    /* every charged byte is in a file and every byte in a file was charged, except the
     * zero tails of full chunks */
    CHECK(sum >= budget.used && sum - budget.used < 4 * 300 * 20,
          "written %" PRIu64 " vs used %" PRIu64, sum, budget.used);
    CHECK_EQ(files, sum);

    /* A stream whose header the budget cannot hold is not made. */
    hpc_budget small = {.limit = 2000}; /* SCHEMA records take about 3 KB */
    hpc_stream s;
    const char *path = exp_test_path("nobudget.hpe");
    CHECK_EQ(hpc_stream_create(&s, path, HPC_STREAM_PROCESS, 0, 0, &small, 1), HPC_E_LIMIT);
    CHECK(exp_test_file_size(path) < 0, "no file left");
    CHECK(small.used == 0 && small.exceeded, "nothing charged, exceeded set");
    small = (hpc_budget){.limit = 100};
    CHECK_EQ(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 0, &small, 1), HPC_E_LIMIT);
    CHECK(exp_test_file_size(path) < 0 && small.used == 0, "thread stream refused too");
}

static void test_errors(void)
{
    hpc_stream s;
    const char *path = exp_test_path("w5.hpe");
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 4096, NULL, 1) == 0, "create");
    static char big[70000];
    hpc_rec_thread_begin tb = {.name = {big, 5000}};
    CHECK_EQ(hpc_write_thread_begin(&s, &tb), HPC_E_TOOBIG); /* larger than a 4 KiB chunk */
    tb.name.n = 3000;
    CHECK_EQ(hpc_write_thread_begin(&s, &tb), 0);
    CHECK_EQ(hpc_write_thread_begin(&s, &tb), 0); /* goes to the next chunk */
    CHECK_EQ(s.win_off, 4096);
    hpc_stream_close(&s);
    CHECK_EQ(hpc_write_thread_begin(&s, &tb), HPC_E_CLOSED);
    CHECK_EQ(hpc_stream_close(&s), 0);

    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 0, NULL, 1) == 0, "create");
    tb.name.n = sizeof big;
    CHECK_EQ(hpc_write_thread_begin(&s, &tb), HPC_E_TOOBIG);
    tb.name.n = HPC_MAX_RECORD - 100;
    CHECK_EQ(hpc_write_thread_begin(&s, &tb), 0);
    hpc_stream_close(&s);

    CHECK_EQ(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 5000, NULL, 1), HPC_E_INVAL);
    CHECK_EQ(hpc_stream_create(&s, "/nonexistent/dir/x.hpe", HPC_STREAM_THREAD, 0, 0, NULL, 1),
             HPC_E_IO);
    CHECK_EQ(errno, ENOENT);
    CHECK(strcmp(hpc_strerror(HPC_E_LIMIT), "size limit reached") == 0, "strerror");
    CHECK(strcmp(hpc_errname(HPC_E_TOOBIG), "HPC_E_TOOBIG") == 0, "errname");
    CHECK(strcmp(hpc_errname(-99), "HPC_E_UNKNOWN") == 0, "errname unknown");
    CHECK(strcmp(hpc_stat_name(HPC_STAT_DROPPED_LIMIT), "dropped_limit") == 0, "stat name");
}

static void test_schema_records(void)
{
    hpc_stream s;
    const char *path = exp_test_path("w6.hpe");
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1) == 0, "create");
    hpc_stream_close(&s);
    size_t n;
    uint8_t *b = exp_test_slurp(path, &n);
    int bad = 0;
    unsigned kinds = 0;
    for (unsigned k = 1; k < 256; k++)
        kinds += hpc_schema_kind(k) != NULL;
    CHECK_EQ(raw_count(b, n, 256 * 1024, HPC_K_schema, &bad), kinds);
    CHECK_EQ(bad, 0);
    /* first SCHEMA record: kind 1 "schema" "kind:U name:STR fields:STR" */
    const char *text = "kind:U name:STR fields:STR";
    const uint8_t *r = b + HPC_HEADER_SIZE;
    CHECK(r[0] == 1 && r[2] == 1 && r[3] == 6 && memcmp(r + 4, "schema", 6) == 0 &&
              r[10] == strlen(text) && memcmp(r + 11, text, strlen(text)) == 0,
          "schema record of the schema kind");
    free(b);
}

static void test_paths(void)
{
    char out[64];
    CHECK_EQ(hpc_path_thread(out, sizeof out, "/x/rank0", 12), strlen("/x/rank0/t12.hpe"));
    CHECK(strcmp(out, "/x/rank0/t12.hpe") == 0, "thread path %s", out);
    CHECK_EQ(hpc_path_join(out, sizeof out, "a", "process.hpe"), 13);
    CHECK_EQ(hpc_path_join(out, 8, "a", "process.hpe"), HPC_E_INVAL);
    char name[64];
    CHECK_EQ(hpc_layout_subexp(name, sizeof name, exp_test_dir(), "rank0"), 0);
    CHECK(strcmp(name, "rank0") == 0, "first subexp %s", name);
    CHECK_EQ(hpc_layout_subexp(name, sizeof name, exp_test_dir(), "rank0"), 0);
    CHECK(strcmp(name, "rank0_2") == 0, "second subexp %s", name);
    CHECK_EQ(hpc_layout_subexp(name, sizeof name, exp_test_dir(), "../x"), HPC_E_INVAL);
}

int main(void)
{
    test_varints();
    test_header_and_encoding();
    test_chunks(1);
    test_chunks(0);
    test_steps();
    test_budget();
    test_budget_threads();
    test_errors();
    test_schema_records();
    test_paths();
    return exp_test_done("test_exp_writer");
}
