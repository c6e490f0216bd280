/*
 * test_exp_schema.c - files written by another version of the schema still read:
 * a record with an extra field, one with a field missing, fields in another order, a
 * field whose type changed (ignored, reported once), a kind this reader does not know
 * (returned raw, counted, printed from the file's description, and its T field still
 * advances the time base), and a thread stream without SCHEMA records decoded through
 * schema_from. The files are built byte by byte here, as another writer would.
 */
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
    free(w);
    return exp_test_done("test_exp_schema");
}
