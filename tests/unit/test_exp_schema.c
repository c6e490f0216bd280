/*
 * test_exp_schema.c - files written by another version of the schema still read:
 * a record with an extra field, one with a field missing, fields in another order, a
 * field whose type changed (ignored, reported once), a kind this reader does not know
 * (returned raw, counted, printed from the file's description, and its T field still
 * advances the time base), and a thread stream without SCHEMA records decoded through
 * schema_from. The files are built byte by byte here, as another writer would.
 */
#include <sys/stat.h>

#include "exp_test.h"

/* ---- a raw writer: header, SCHEMA records and records, by hand */

struct raw {
    uint8_t b[8192];
    size_t n;
    uint64_t tb;
};

static void put(struct raw *w, const void *p, size_t n)
{
    memcpy(w->b + w->n, p, n);
    w->n += n;
}

static void put_u(struct raw *w, uint64_t v)
{
    do {
        uint8_t c = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v)
            c |= 0x80;
        put(w, &c, 1);
    } while (v);
}

static void put_s(struct raw *w, int64_t v)
{
    put_u(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void put_t(struct raw *w, uint64_t t)
{
    put_s(w, (int64_t)(t - w->tb));
    w->tb = t;
}

static void put_str(struct raw *w, const char *s)
{
    put_u(w, strlen(s));
    put(w, s, strlen(s));
}

static void header(struct raw *w, enum hpc_stream_kind kind, uint64_t hash)
{
    memset(w, 0, sizeof *w);
    memcpy(w->b, "HPCEXP\r\n", 8);
    w->b[8] = 1;  /* major */
    w->b[10] = 7; /* minor: a newer writer */
    w->b[12] = (uint8_t)kind;
    w->b[14] = 0, w->b[15] = 1; /* header size 256 */
    w->b[17] = 0x10;            /* chunk size 4096 */
    memcpy(w->b + 24, &hash, 8);
    w->n = 256;
}

/* A record: the payload goes to a scratch raw, then kind + length + payload. */
static struct raw payload;

static void begin(void)
{
    uint64_t tb = payload.tb;
    payload.n = 0;
    payload.tb = tb;
}

static void end(struct raw *w, unsigned kind)
{
    uint8_t k = (uint8_t)kind;
    put(w, &k, 1);
    put_u(w, payload.n);
    put(w, payload.b, payload.n);
}

static void schema(struct raw *w, unsigned kind, const char *name, const char *fields)
{
    begin();
    put_u(&payload, kind);
    put_str(&payload, name);
    put_str(&payload, fields);
    end(w, HPC_K_schema);
}

static const char *save(struct raw *w, const char *name)
{
    const char *path = exp_test_path(name);
    exp_test_spit(path, w->b, w->n);
    return path;
}

/* ---- the other writer's files */

static void other_schema(struct raw *w)
{
    /* sample_clock with two fields appended */
    schema(w, HPC_K_sample_clock, "sample_clock",
           "time:T node:U cpu_ns:U cpu:U state:U region:U mpi_fn:U weight:U note:STR");
    /* cct_node without its last field */
    schema(w, HPC_K_cct_node, "cct_node", "id:U parent:U");
    /* thread_begin reordered, tid retyped */
    schema(w, HPC_K_thread_begin, "thread_begin", "seq:U name:STR time:T tid:S");
    /* a kind from the future */
    schema(w, 99, "gpu_kernel", "when:T grid:U kernel:STR");
}

static void sample(struct raw *w, uint64_t t, uint64_t node)
{
    begin();
    put_t(&payload, t);
    put_u(&payload, node);
    put_u(&payload, 1000); /* cpu_ns */
    put_u(&payload, 1);    /* cpu */
    put_u(&payload, 0);
    put_u(&payload, 0);
    put_u(&payload, 0);
    put_u(&payload, 12345);            /* weight (extra) */
    put_str(&payload, "extra string"); /* note (extra) */
    end(w, HPC_K_sample_clock);
}

static void other_records(struct raw *w)
{
    payload.tb = 0;
    begin();
    put_u(&payload, 3);
    put_str(&payload, "worker-3");
    put_t(&payload, 5000000000);
    put_s(&payload, -77);
    end(w, HPC_K_thread_begin);

    sample(w, 5001000000, 7);

    begin();
    put_t(&payload, 5002000000);
    put_u(&payload, 256);
    put_str(&payload, "saxpy");
    end(w, 99);

    sample(w, 5003000000, 8); /* its delta is from the unknown record's time */

    begin();
    put_u(&payload, 42);
    put_u(&payload, 41);
    end(w, HPC_K_cct_node);
}

struct log {
    unsigned n;
    char all[2000];
};

static void log_report(void *ctx, enum hpc_severity sev, const char *file, uint64_t off,
                       const char *msg, const char *src, int line)
{
    struct log *l = ctx;
    (void)sev, (void)file, (void)src, (void)line;
    size_t used = strlen(l->all);
    snprintf(l->all + used, sizeof l->all - used, "[%" PRIu64 "] %s\n", off, msg);
    l->n++;
}

static void check_other_records(hpc_reader *r, bool with_thread_begin)
{
    hpc_record rec;
    char *printed = NULL;
    size_t printed_n = 0;
    FILE *mem = open_memstream(&printed, &printed_n);
    unsigned n = 0, samples = 0;
    while (hpc_reader_next(r, &rec)) {
        if (rec.kind == HPC_K_schema)
            continue;
        n++;
        hpc_record_print(mem, &rec, r, HPC_PRINT_TEXT);
        fputc('\n', mem);
        switch (rec.kind) {
        case HPC_K_thread_begin:
            CHECK_EQ(rec.u.thread_begin.seq, 3);
            CHECK(hpc_str_eq(rec.u.thread_begin.name, "worker-3"), "name by name");
            CHECK_EQ(rec.u.thread_begin.time, 5000000000);
            CHECK_EQ(rec.u.thread_begin.tid, 0);        /* retyped: ignored */
            CHECK_EQ(rec.u.thread_begin.parent_seq, 0); /* missing */
            break;
        case HPC_K_sample_clock:
            samples++;
            CHECK_EQ(rec.u.sample_clock.time, samples == 1 ? 5001000000 : 5003000000);
            CHECK_EQ(rec.u.sample_clock.node, samples == 1 ? 7 : 8);
            CHECK_EQ(rec.u.sample_clock.cpu_ns, 1000);
            CHECK_EQ(rec.u.sample_clock.cpu, 1);
            break;
        case HPC_K_cct_node:
            CHECK_EQ(rec.u.cct_node.id, 42);
            CHECK_EQ(rec.u.cct_node.parent, 41);
            CHECK_EQ(rec.u.cct_node.pc, 0); /* missing field */
            break;
        case 99:
            CHECK(rec.raw.n > 0, "unknown kind returned raw");
            break;
        default:
            CHECK(0, "unexpected kind %u", rec.kind);
        }
    }
    fclose(mem);
    CHECK_EQ(n, with_thread_begin ? 5 : 4);
    CHECK_EQ(samples, 2);
    CHECK_EQ(hpc_reader_unknown(r), 1);
    CHECK_EQ(hpc_reader_damaged(r), 0);
    CHECK(strstr(printed, "gpu_kernel @") && strstr(printed, "kernel=\"saxpy\"") &&
              strstr(printed, "grid=256") && strstr(printed, "when=+"),
          "unknown kind printed from the file's description:\n%s", printed);
    free(printed);
}

/* ---- a lean process's threads: read without its schema when it is the built-in one */

/* Copy file src to dir/name. */
static void copy_to(const char *src, const char *dir, const char *name)
{
    size_t n = 0;
    uint8_t *b = exp_test_slurp(src, &n);
    char path[1400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    exp_test_spit(path, b, n);
    free(b);
}

/* What reading thread stream t of a process gives: records, counts, reports. */
struct thread_read {
    unsigned n, reports;
    uint64_t sum, unknown, damaged;
    char first[2000];
};

static void thread_read(const hpc_proc *p, const hpc_thread_file *t, struct thread_read *out)
{
    struct log l = {0};
    hpc_diag d = {.report = log_report, .ctx = &l};
    hpc_reader *r;
    memset(out, 0, sizeof *out);
    if (hpc_thread_open(&r, p, t, &d) != 0)
        return;
    hpc_record rec;
    while (hpc_reader_next(r, &rec)) {
        out->n++;
        out->sum = out->sum * 31 + rec.kind * 7 + rec.offset;
        if (rec.kind == HPC_K_sample_clock)
            out->sum += rec.u.sample_clock.time + rec.u.sample_clock.node;
        if (rec.kind == HPC_K_cct_node)
            out->sum += rec.u.cct_node.id * 3 + rec.u.cct_node.pc;
    }
    out->unknown = hpc_reader_unknown(r);
    out->damaged = hpc_reader_damaged(r);
    hpc_reader_close(r);
    out->reports = l.n;
    memcpy(out->first, l.all, sizeof out->first);
}

/*
 * A process directory with process.hpe and t0.hpe copied from proc and thread, opened
 * whole (its schema reader open) and slim (none: hpc_thread_open reads process.hpe again,
 * or not at all when its schema is the built-in one and the thread's hash is ours): the
 * thread reads the same records with the same reports.
 */
static void check_lean_thread(const char *name, const char *proc, const char *thread, bool builtin)
{
    const char *dir = exp_test_path(name);
    REQUIRE(mkdir(dir, 0755) == 0, "mkdir %s", dir);
    copy_to(proc, dir, "process.hpe");
    copy_to(thread, dir, "t0.hpe");
    hpc_diag quiet = {.quiet = 1};
    hpc_exp *whole, *slim;
    REQUIRE(hpc_exp_open(&whole, dir, &quiet) == 0 && whole->nprocs == 1, "open %s", dir);
    REQUIRE(hpc_exp_open_slim(&slim, dir, &quiet) == 0 && slim->nprocs == 1, "slim %s", dir);
    const hpc_proc *pw = &whole->procs[0], *ps = &slim->procs[0];
    CHECK(ps->schema_builtin == builtin, "%s: schema_builtin %d", name, ps->schema_builtin);
    CHECK(!ps->schema && ps->nthreads == 1 && pw->nthreads == 1, "%s: slim, one thread", name);
    struct thread_read a, b;
    thread_read(pw, &pw->threads[0], &a);
    thread_read(ps, &ps->threads[0], &b);
    CHECK((a.n > 0 || a.reports > 0) && a.n == b.n && a.sum == b.sum && a.unknown == b.unknown &&
              a.damaged == b.damaged && a.reports == b.reports && !strcmp(a.first, b.first),
          "%s: read with its process's schema: %u records, %llu unknown, %u reports (%s); "
          "lean: %u, %llu, %u (%s)",
          name, a.n, (unsigned long long)a.unknown, a.reports, a.first, b.n,
          (unsigned long long)b.unknown, b.reports, b.first);
    hpc_exp_close(whole);
    hpc_exp_close(slim);
}

/* A process and a thread stream written by this library (the built-in schema). */
static void write_builtin(const char *proc, const char *thread)
{
    hpc_stream s;
    REQUIRE(hpc_stream_create(&s, proc, HPC_STREAM_PROCESS, 0, 0, NULL, 1) == 0, "create");
    hpc_rec_proc_begin pb = {.time = 5, .pid = 77, .name = {"p", 1}, .rank = -1};
    hpc_write_proc_begin(&s, &pb);
    hpc_stream_close(&s);
    REQUIRE(hpc_stream_create(&s, thread, HPC_STREAM_THREAD, 0, 0, NULL, 1) == 0, "create");
    hpc_rec_thread_begin tb = {.time = 1000, .seq = 0, .tid = 4242, .parent_seq = -1};
    hpc_write_thread_begin(&s, &tb);
    for (unsigned i = 0; i < 50; i++) {
        hpc_rec_cct_node c = {.id = i + 1, .parent = i, .pc = 0x401000 + i};
        hpc_write_cct_node(&s, &c);
        hpc_rec_sample_clock sc = {.time = 2000 + 1000 * i, .node = i + 1, .cpu_ns = 999};
        hpc_write_sample_clock(&s, &sc);
    }
    hpc_stream_close(&s);
}

static void test_lean_threads(const char *other_proc, const char *other_thread)
{
    const char *proc = exp_test_path("builtin_process.hpe");
    const char *thread = exp_test_path("builtin_thread.hpe");
    write_builtin(proc, thread);
    check_lean_thread("lean_builtin", proc, thread, true);
    /* the built-in process schema, a thread of another hash: read with process.hpe */
    check_lean_thread("lean_mixed", proc, other_thread, true);
    check_lean_thread("lean_other", other_proc, other_thread, false);
    check_lean_thread("lean_other_proc", other_proc, thread, false);
}

int main(void)
{
    /* A process stream of the other writer: its own SCHEMA records, then records. */
    struct raw *w = calloc(1, sizeof *w);
    header(w, HPC_STREAM_PROCESS, 0x1234567);
    other_schema(w);
    other_records(w);
    const char *proc = save(w, "other_process.hpe");

    struct log l = {0};
    hpc_diag d = {.report = log_report, .ctx = &l};
    hpc_reader *pr;
    REQUIRE(hpc_reader_open(&pr, proc, NULL, &d) == 0, "open: %s", l.all);
    CHECK(l.n == 1 && strstr(l.all, "field tid of thread_begin is S in this file but U here"),
          "one report of the retyped field:\n%s", l.all);
    check_other_records(pr, true);
    CHECK(hpc_reader_schema_kind(pr, 99) && hpc_reader_schema_kind(pr, 99)->nfields == 3,
          "the file's description of kind 99");
    CHECK_EQ(l.n, 1);

    /* The same SCHEMA records again (the next process of a job): the first file's kinds,
     * shared (reader_schema.c keeps the last parsed), not parsed again; the retyped field
     * is reported again and the records read the same. */
    struct log l2 = {0};
    d.ctx = &l2;
    hpc_reader *pr2;
    REQUIRE(hpc_reader_open(&pr2, proc, NULL, &d) == 0, "open again: %s", l2.all);
    CHECK(l2.n == 1 && strstr(l2.all, "field tid of thread_begin is S in this file but U here"),
          "the retyped field reported again:\n%s", l2.all);
    CHECK(hpc_reader_schema_kind(pr2, 99) == hpc_reader_schema_kind(pr, 99),
          "the second file shares the first's description of kind 99");
    check_other_records(pr2, true);
    hpc_reader_close(pr2);
    d.ctx = &l;

    /* A thread stream of the other writer: no SCHEMA records, the other hash. */
    header(w, HPC_STREAM_THREAD, 0x1234567);
    payload.tb = 0;
    sample(w, 5001000000, 7);
    begin();
    put_t(&payload, 5002000000);
    put_u(&payload, 256);
    put_str(&payload, "saxpy");
    end(w, 99);
    sample(w, 5003000000, 8);
    begin();
    put_u(&payload, 42);
    put_u(&payload, 41);
    end(w, HPC_K_cct_node);
    const char *thread = save(w, "other_thread.hpe");

    hpc_reader *tr;
    struct log tl = {0};
    d.ctx = &tl;
    REQUIRE(hpc_reader_open(&tr, thread, pr, &d) == 0, "open with schema_from");
    CHECK_EQ(tl.n, 1); /* the retyped field, again */
    check_other_records(tr, false);
    hpc_reader_close(tr);

    /* Without its schema, the built-in one decodes the known kinds' known fields; the
     * unknown kind cannot be walked, so it comes back raw, and the reader says so. */
    struct log nl = {0};
    d.ctx = &nl;
    REQUIRE(hpc_reader_open(&tr, thread, NULL, &d) == 0, "open without schema");
    CHECK(strstr(nl.all, "written with another schema"), "warned: %s", nl.all);
    hpc_record rec;
    unsigned n = 0;
    while (hpc_reader_next(tr, &rec)) {
        n++;
        if (rec.kind == HPC_K_sample_clock && n == 1)
            CHECK_EQ(rec.u.sample_clock.time, 5001000000);
        if (rec.kind == HPC_K_cct_node)
            CHECK(rec.u.cct_node.id == 42 && rec.u.cct_node.pc == 0, "cct_node by built-in");
    }
    CHECK_EQ(n, 4);
    CHECK_EQ(hpc_reader_unknown(tr), 1);
    CHECK_EQ(hpc_reader_damaged(tr), 0);
    hpc_reader_close(tr);

    /* A thread stream shares its schema_from's kinds: it reads on after that reader (and
     * the process reader it came from) closed. */
    struct log sl = {0};
    d.ctx = &sl;
    REQUIRE(hpc_reader_open(&tr, thread, pr, &d) == 0, "open with schema_from, again");
    CHECK(hpc_reader_schema_kind(tr, 99) == hpc_reader_schema_kind(pr, 99),
          "the thread stream shares its process's description of kind 99");
    hpc_reader_close(pr);
    check_other_records(tr, false);
    hpc_reader_close(tr);
    test_lean_threads(proc, thread);
    free(w);
    return exp_test_done("test_exp_schema");
}
