/*
 * test_exp_damage.c - the reader on damaged files: never a crash or a hang, the damage
 * named by file and offset, the good part kept.
 *
 *  - truncation at every byte offset of a thread stream (two chunks) and of a process
 *    stream: exactly the records that end before the cut come back, and a cut inside a
 *    record gives one warning at that record's offset;
 *  - one-bit flips in every header byte: a clear error or a readable file;
 *  - random byte flips in the records: every chunk without a flipped byte reads back
 *    exactly, every report names the file and an offset inside it; a reader limited to
 *    some kinds (hpc_reader_only) returns those records and counts the same damage;
 *  - a writer killed by SIGKILL: the prefix reads back in order; a record it was
 *    writing is counted as torn.
 */
#include <signal.h>
#include <sys/wait.h>

#include "exp_test.h"

struct log {
    const char *file;
    uint64_t size;
    unsigned n, bad_file, bad_offset;
    uint64_t first_offset;
    char first[600];
};

static void log_report(void *ctx, enum hpc_severity sev, const char *file, uint64_t off,
                       const char *msg, const char *src, int line)
{
    struct log *l = ctx;
    (void)sev;
    if (!l->n++) {
        l->first_offset = off;
        snprintf(l->first, sizeof l->first, "%s: offset %" PRIu64 ": %s [%s:%d]", file, off, msg,
                 src, line);
    }
    if (strcmp(file, l->file) != 0)
        l->bad_file++;
    if (off != HPC_NO_OFFSET && off >= l->size)
        l->bad_offset++;
}

/* What an intact stream holds: each record's offset, end and decoded form. */
struct orig {
    size_t n;
    hpc_record rec[4096];
    uint64_t end[4096];
    uint8_t *bytes;
    size_t size;
};

static void orig_load(struct orig *o, const char *path)
{
    hpc_reader *r;
    REQUIRE(hpc_reader_open(&r, path, NULL, NULL) == 0, "open %s", path);
    o->n = 0;
    while (o->n < 4096 && hpc_reader_next(r, &o->rec[o->n]))
        o->n++;
    hpc_reader_close(r);
    o->bytes = exp_test_slurp(path, &o->size);
    /* ends from the raw bytes: payload start + length */
    for (size_t i = 0; i < o->n; i++) {
        const uint8_t *p = o->bytes + o->rec[i].offset + 1;
        while (*p & 0x80)
            p++;
        o->end[i] = (uint64_t)(p + 1 - o->bytes) + o->rec[i].raw.n;
        o->rec[i].raw.p = (const char *)o->bytes + (o->end[i] - o->rec[i].raw.n);
    }
}

static bool same_record(const hpc_record *a, const hpc_record *b)
{
    if (a->kind != b->kind || a->offset != b->offset || a->raw.n != b->raw.n ||
        memcmp(a->raw.p, b->raw.p, a->raw.n) != 0)
        return false;
    const hpc_kind_desc *k = hpc_schema_kind(a->kind);
    for (unsigned i = 0; k && i < k->nfields; i++) {
        const hpc_field_desc *f = &k->fields[i];
        if (f->type != 's' && f->type != 'b' &&
            memcmp((const char *)&a->u + f->offset, (const char *)&b->u + f->offset, 8) != 0)
            return false;
    }
    return true;
}

static void make_thread_stream(const char *path)
{
    hpc_stream s;
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 1, 4096, NULL, 1) == 0, "create");
    hpc_rec_thread_begin tb = {
        .time = 1000000000, .seq = 1, .tid = 4242, .parent_seq = 0, .name = {"worker", 6}};
    hpc_write_thread_begin(&s, &tb);
    uint64_t t = tb.time;
    for (unsigned i = 0; i < 400; i++) {
        t += 1000000 + i;
        if (i % 50 == 7) {
            hpc_rec_cct_node c = {.id = i, .parent = i / 2, .pc = 0x401000 + i};
            hpc_write_cct_node(&s, &c);
        } else if (i % 97 == 3) {
            static char name[300];
            memset(name, 'n', sizeof name);
            hpc_rec_thread_begin big = {.time = t, .name = {name, 200 + i % 50}};
            hpc_write_thread_begin(&s, &big); /* 2-byte length */
        } else {
            hpc_rec_sample_clock c = {.time = t, .node = i % 9, .cpu_ns = 999999, .cpu = 1};
            hpc_write_sample_clock(&s, &c);
        }
    }
    REQUIRE(s.win_off >= 4096, "two chunks at least");
    hpc_stream_close(&s);
}

static void make_process_stream(const char *path)
{
    hpc_stream s;
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1) == 0, "create");
    hpc_rec_proc_begin b = {.time = 5, .pid = 77, .name = {"rank0", 5}, .rank = 0};
    hpc_write_proc_begin(&s, &b);
    hpc_rec_module_load m = {
        .time = 6, .id = 1, .path = {"/usr/lib/libc.so.6", 18}, .build_id = {"\x12\x34", 2}};
    hpc_write_module_load(&s, &m);
    hpc_rec_proc_end e = {.time = 7, .status = -1};
    hpc_write_proc_end(&s, &e);
    hpc_stream_close(&s);
}

static void test_truncation(const char *src, const char *name)
{
    static struct orig o;
    orig_load(&o, src);
    const char *cut = exp_test_path(name);
    unsigned failures = 0;
    for (size_t len = 0; len <= o.size && failures < 5; len++) {
        exp_test_spit(cut, o.bytes, len);
        struct log l = {.file = cut, .size = len};
        hpc_diag d = {.report = log_report, .ctx = &l};
        hpc_reader *r;
        int rc = hpc_reader_open(&r, cut, NULL, &d);
        if (len < HPC_HEADER_SIZE) {
            if (rc != HPC_E_FORMAT || l.n != 1 || l.bad_file) {
                CHECK(0, "cut at %zu: rc %d, %u reports (%s)", len, rc, l.n, l.first);
                failures++;
            }
            continue;
        }
        REQUIRE(rc == 0, "cut at %zu: open: %s (%s)", len, hpc_strerror(rc), l.first);
        size_t n = 0, expect = 0;
        bool inside = false;
        uint64_t cut_record = 0;
        for (size_t i = 0; i < o.n; i++) {
            if (o.end[i] <= len)
                expect++;
            else if (o.rec[i].offset < len) {
                inside = true;
                cut_record = o.rec[i].offset;
            }
        }
        hpc_record rec;
        bool same = true;
        while (hpc_reader_next(r, &rec)) {
            if (n >= o.n || !same_record(&rec, &o.rec[n]))
                same = false;
            n++;
        }
        bool ok = same && n == expect && hpc_reader_damaged(r) == (inside ? 1u : 0u) &&
                  l.n == (inside ? 1u : 0u) && !l.bad_file && !l.bad_offset &&
                  (!inside || l.first_offset == cut_record);
        if (!ok) {
            CHECK(0,
                  "%s cut at %zu: %zu records (expected %zu, same %d), damaged %" PRIu64
                  ", %u reports, first: %s",
                  name, len, n, expect, same, hpc_reader_damaged(r), l.n, l.first);
            failures++;
        }
        hpc_reader_close(r);
    }
    CHECK(failures == 0, "%s: truncation at each of %zu offsets", name, o.size + 1);
    free(o.bytes);
}

static void test_header_flips(const char *src)
{
    size_t size;
    uint8_t *b = exp_test_slurp(src, &size);
    const char *bad = exp_test_path("hdrflip.hpe");
    unsigned opened = 0, refused = 0;
    for (unsigned byte = 0; byte < 40 + 8 * HPC_STAT_COUNT_; byte++) { /* the used part */
        for (unsigned bit = 0; bit < 8; bit += 3) {
            b[byte] ^= (uint8_t)(1u << bit);
            exp_test_spit(bad, b, size);
            b[byte] ^= (uint8_t)(1u << bit);
            struct log l = {.file = bad, .size = size};
            hpc_diag d = {.report = log_report, .ctx = &l};
            hpc_reader *r;
            int rc = hpc_reader_open(&r, bad, NULL, &d);
            if (rc) {
                refused++;
                CHECK(l.n >= 1 && !l.bad_file, "byte %u: refused without a report", byte);
                continue;
            }
            opened++;
            hpc_record rec;
            unsigned n = 0;
            while (hpc_reader_next(r, &rec) && n < 100000)
                n++;
            CHECK(n < 100000 && !l.bad_file && !l.bad_offset, "byte %u bit %u", byte, bit);
            hpc_reader_close(r);
        }
    }
    CHECK(refused >= 8 + 2 + 4, "magic, major and chunk size flips refused (%u)", refused);
    CHECK(opened > 100, "stats and reserved bytes do not matter (%u)", opened);
    free(b);
}

static void test_random_flips(const char *src)
{
    static struct orig o;
    orig_load(&o, src);
    const char *bad = exp_test_path("flip.hpe");
    uint8_t *b = malloc(o.size);
    srand(12345);
    unsigned failures = 0, damaged_runs = 0;
    for (unsigned iter = 0; iter < 400 && failures < 5; iter++) {
        memcpy(b, o.bytes, o.size);
        unsigned nflips = 1 + iter % 3;
        uint64_t flipped_chunks = 0;
        for (unsigned k = 0; k < nflips; k++) {
            size_t at = HPC_HEADER_SIZE + (size_t)rand() % (o.size - HPC_HEADER_SIZE);
            b[at] = (uint8_t)(iter % 2 ? (unsigned)rand() : b[at] ^ (1u << (rand() % 8)));
            flipped_chunks |= 1ull << (at / 4096);
        }
        exp_test_spit(bad, b, o.size);
        struct log l = {.file = bad, .size = o.size};
        hpc_diag d = {.report = log_report, .ctx = &l};
        hpc_reader *r;
        REQUIRE(hpc_reader_open(&r, bad, NULL, &d) == 0, "open");
        hpc_record rec;
        size_t next = 0, n = 0, kept = 0, expect_kept = 0;
        for (size_t i = 0; i < o.n; i++)
            expect_kept += !(flipped_chunks >> (o.rec[i].offset / 4096) & 1);
        while (hpc_reader_next(r, &rec) && n < 100000) {
            n++;
            CHECK(rec.offset >= HPC_HEADER_SIZE && rec.offset < o.size, "offset in file");
            /* find the original record at this offset */
            while (next < o.n && o.rec[next].offset < rec.offset)
                next++;
            if (next < o.n && !(flipped_chunks >> (rec.offset / 4096) & 1)) {
                if (same_record(&rec, &o.rec[next]))
                    kept++;
            }
        }
        damaged_runs += hpc_reader_damaged(r) > 0;
        bool ok = n < 100000 && kept == expect_kept && !l.bad_file && !l.bad_offset &&
                  (hpc_reader_damaged(r) == 0 || l.n > 0);
        if (!ok) {
            CHECK(0, "flip run %u: kept %zu of %zu intact-chunk records, %u reports: %s", iter,
                  kept, expect_kept, l.n, l.first);
            failures++;
        }
        hpc_reader_close(r);
    }
    CHECK(damaged_runs > 50, "flips were noticed (%u runs)", damaged_runs);
    free(b);
    free(o.bytes);
}

/* What a read of path returns of the kinds a reader limited to cct_node (and
 * thread_begin) returns, its damage count and reports. */
struct kept {
    size_t n;
    hpc_record rec[4096];
    char raw[1 << 20]; /* the kept records' bytes: the reader's buffer goes at its close */
    size_t used;
    uint64_t damaged;
    unsigned reports;
    char first[600];
};

static void kept_read(struct kept *k, const char *path, uint64_t size, bool only)
{
    static const unsigned kinds[] = {HPC_K_cct_node};
    struct log l = {.file = path, .size = size};
    hpc_diag d = {.report = log_report, .ctx = &l};
    hpc_reader *r;
    hpc_record rec;
    REQUIRE(hpc_reader_open(&r, path, NULL, &d) == 0, "open");
    if (only)
        hpc_reader_only(r, kinds, 1);
    k->n = k->used = 0;
    while (hpc_reader_next(r, &rec) && k->n < 4096)
        if (rec.kind == HPC_K_cct_node || rec.kind == HPC_K_thread_begin) {
            REQUIRE(k->used + rec.raw.n <= sizeof k->raw, "kept records fit");
            memcpy(k->raw + k->used, rec.raw.p, rec.raw.n);
            rec.raw.p = k->raw + k->used;
            k->used += rec.raw.n;
            k->rec[k->n++] = rec;
        }
    k->damaged = hpc_reader_damaged(r);
    k->reports = l.n;
    memcpy(k->first, l.first, sizeof k->first);
    hpc_reader_close(r);
}

/*
 * hpc_reader_only on the same random flips: the records it returns are those a full read
 * returns of its kinds, with the same fields (thread_begin's time too, though the sample
 * records before it in its chunk are only walked), and it counts and reports the same
 * damage, that of the records it does not return included.
 */
static void test_only_flips(const char *src)
{
    static struct orig o;
    static struct kept all, only;
    orig_load(&o, src);
    const char *bad = exp_test_path("flip_only.hpe");
    uint8_t *b = malloc(o.size);
    srand(54321);
    unsigned failures = 0, damaged_runs = 0;
    for (unsigned iter = 0; iter < 400 && failures < 5; iter++) {
        memcpy(b, o.bytes, o.size);
        for (unsigned k = 0; k < 1 + iter % 3; k++) {
            size_t at = HPC_HEADER_SIZE + (size_t)rand() % (o.size - HPC_HEADER_SIZE);
            b[at] = (uint8_t)(iter % 2 ? (unsigned)rand() : b[at] ^ (1u << (rand() % 8)));
        }
        exp_test_spit(bad, b, o.size);
        kept_read(&all, bad, o.size, false);
        kept_read(&only, bad, o.size, true);
        damaged_runs += all.damaged > 0;
        bool same = all.n == only.n && all.damaged == only.damaged && all.reports == only.reports;
        for (size_t i = 0; same && i < all.n; i++)
            same = same_record(&all.rec[i], &only.rec[i]);
        if (!same) {
            CHECK(0,
                  "flip run %u: %zu records, %" PRIu64 " damaged, %u reports read whole; %zu, "
                  "%" PRIu64 ", %u read with hpc_reader_only (%s)",
                  iter, all.n, all.damaged, all.reports, only.n, only.damaged, only.reports,
                  only.first);
            failures++;
        }
    }
    kept_read(&only, src, o.size, true);
    size_t expect = 0;
    for (size_t i = 0; i < o.n; i++)
        expect += o.rec[i].kind == HPC_K_cct_node || o.rec[i].kind == HPC_K_thread_begin;
    CHECK(only.n == expect && expect > 8 && expect < o.n, "intact: %zu of %zu records kept", only.n,
          expect);
    CHECK(damaged_runs > 50, "flips were noticed (%u runs)", damaged_runs);
    free(b);
    free(o.bytes);
}

/* A child writes sample records numbered by node; the parent kills it. */
static void writer_child(const char *path, int progress_fd, uint64_t stop_at, uint32_t chunk)
{
    hpc_stream s;
    if (hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, chunk, NULL, 0) != 0)
        _exit(3);
    for (uint64_t i = 0;; i++) {
        hpc_rec_sample_clock c = {.time = 1000000 * i, .node = i, .cpu_ns = 1000};
        if (i == stop_at) {
            /* die between storing a record and committing it: payload and length
             * stored, kind byte still 0 */
            uint8_t *at = s.win + s.pos;
            at[2] = 0x55;
            at[3] = 0x66;
            at[1] = 2;
            kill(getpid(), SIGKILL);
        }
        if (hpc_write_sample_clock(&s, &c) != 0)
            _exit(4);
        if (progress_fd >= 0 && i % 1000 == 999)
            (void)!write(progress_fd, &i, sizeof i);
    }
}

static void check_killed_stream(const char *path, uint64_t min, uint64_t torn)
{
    struct log l = {.file = path, .size = (uint64_t)exp_test_file_size(path)};
    hpc_diag d = {.report = log_report, .ctx = &l};
    hpc_reader *r;
    REQUIRE(hpc_reader_open(&r, path, NULL, &d) == 0, "open killed stream");
    hpc_record rec;
    uint64_t n = 0, order = 0;
    while (hpc_reader_next(r, &rec))
        order += rec.kind != HPC_K_sample_clock || rec.u.sample_clock.node != n++ ||
                 rec.u.sample_clock.time != 1000000 * (n - 1);
    CHECK(n >= min, "killed writer: %" PRIu64 " records read, at least %" PRIu64, n, min);
    CHECK_EQ(order, 0);
    if (torn != UINT64_MAX) {
        CHECK_EQ(hpc_reader_torn(r), torn);
        CHECK_EQ(hpc_reader_damaged(r), torn);
        CHECK(!torn || strstr(l.first, "torn record"), "report: %s", l.first);
        CHECK_EQ(hpc_reader_stats(r)[HPC_STAT_RECORDS], n);
    } else {
        CHECK(hpc_reader_torn(r) <= 1, "at most the last record torn");
        uint64_t stat = hpc_reader_stats(r)[HPC_STAT_RECORDS];
        CHECK(stat == n || stat + 1 == n, "live stat %" PRIu64 " vs %" PRIu64 " read", stat, n);
    }
    hpc_reader_close(r);
}

/* Killed writers, with small chunks (the file ends at a chunk boundary) and with the
 * default chunk (the file ends inside a chunk, where its last growth step ended). */
static void test_sigkill(uint32_t chunk, uint64_t torn_at, uint64_t live_at)
{
    const char *torn = exp_test_path("torn.hpe");
    pid_t pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0)
        writer_child(torn, -1, torn_at, chunk);
    int st;
    waitpid(pid, &st, 0);
    REQUIRE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "child killed (status %d)", st);
    if (!chunk)
        CHECK(exp_test_file_size(torn) % (256 * 1024) != 0, "file ends inside a chunk (%lld)",
              (long long)exp_test_file_size(torn));
    check_killed_stream(torn, torn_at, 1);

    const char *live = exp_test_path("killed.hpe");
    int pfd[2];
    REQUIRE(pipe(pfd) == 0, "pipe");
    pid = fork();
    REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        close(pfd[0]);
        writer_child(live, pfd[1], UINT64_MAX, chunk);
    }
    close(pfd[1]);
    uint64_t done = 0;
    while (done < live_at && read(pfd[0], &done, sizeof done) == sizeof done)
        ;
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    close(pfd[0]);
    check_killed_stream(live, live_at, UINT64_MAX);
}

int main(void)
{
    const char *ts = exp_test_path("damage_thread.hpe");
    const char *ps = exp_test_path("damage_process.hpe");
    make_thread_stream(ts);
    make_process_stream(ps);
    test_truncation(ts, "cut_thread.hpe");
    test_truncation(ps, "cut_process.hpe");
    test_header_flips(ts);
    test_random_flips(ts);
    test_only_flips(ts);
    test_sigkill(4096, 30000, 20000);
    test_sigkill(0, 3000, 2000);
    return exp_test_done("test_exp_damage");
}
