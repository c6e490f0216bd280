/*
 * test_exp_roundtrip.c - everything the writer writes, the reader reads back unchanged:
 * every record kind (driven by the schema table, so new kinds are covered without
 * editing this file) with extreme values, T going backwards, records crossing many chunk
 * boundaries, keep_fd=0 growth, and the printer on every kind.
 */
#include "exp_test.h"

enum pattern { ZERO, MAX, MIN, SMALL, BIG_STRING, ALL_BYTES, LENGTHS, NPATTERNS };

static char big[HPC_MAX_RECORD];
static char all_bytes[256];

/* Fill a record of kind k by the schema: pattern p, variant v (to vary T). */
static void fill(const hpc_kind_desc *k, hpc_record *rec, enum pattern p, unsigned v)
{
    memset(rec, 0, sizeof *rec);
    rec->kind = k->kind;
    uint8_t *base = (uint8_t *)&rec->u;
    unsigned ints = 0, strs = 0;
    for (unsigned i = 0; i < k->nfields; i++)
        (k->fields[i].type == 's' || k->fields[i].type == 'b') ? strs++ : ints++;
    bool big_done = false;
    for (unsigned i = 0; i < k->nfields; i++) {
        const hpc_field_desc *f = &k->fields[i];
        void *at = base + f->offset;
        uint64_t u = 0;
        int64_t s = 0;
        hpc_str str = {"", 0};
        switch (p) {
        case ZERO:
            break;
        case MAX:
            u = UINT64_MAX;
            s = INT64_MAX;
            str = (hpc_str){"x", 1};
            break;
        case MIN:
            u = v % 2 ? 0 : UINT64_MAX - 1;
            s = INT64_MIN;
            break;
        case SMALL:
            u = 1000 + i * 7 + v * 1000003; /* T rises by about 1 ms per record */
            s = -(int64_t)i - 1;
            str = (hpc_str){"hello, world", 12};
            break;
        case BIG_STRING:
            u = 1u << (i % 64);
            s = -(1ll << (i % 63));
            if (!big_done) {
                /* the first string takes what the record may hold (T counted at 10) */
                str = (hpc_str){big, (uint32_t)(HPC_MAX_RECORD - 10 * ints - 5 * strs)};
                big_done = true;
            }
            break;
        case ALL_BYTES:
            u = 1ull << 63;
            s = -1;
            str = (hpc_str){all_bytes, 256};
            break;
        case LENGTHS: /* varints of every length 1..10 over the fields and variants; the
                       * strings empty but in variant 1 (the writers' two ways) */
            u = (1ull << ((i * 7 + v * 3) % 64)) | (v + i);
            s = (int64_t)(u >> 1) * (i % 2 ? -1 : 1);
            if (v == 1)
                str = (hpc_str){"ab", 2};
            break;
        default:
            break;
        }
        if (f->type == 'T' && p == SMALL && v % 3 == 2)
            u -= 5000000; /* backwards */
        switch (f->type) {
        case 'S':
            memcpy(at, &s, sizeof s);
            break;
        case 's':
        case 'b':
            memcpy(at, &str, sizeof str);
            break;
        default:
            memcpy(at, &u, sizeof u);
        }
    }
}

/* Compare two decoded records field by field; report the first difference. */
static bool same(const hpc_kind_desc *k, const hpc_record *a, const hpc_record *b, const char *what)
{
    const uint8_t *x = (const uint8_t *)&a->u, *y = (const uint8_t *)&b->u;
    for (unsigned i = 0; i < k->nfields; i++) {
        const hpc_field_desc *f = &k->fields[i];
        if (f->type == 's' || f->type == 'b') {
            hpc_str s, t;
            memcpy(&s, x + f->offset, sizeof s);
            memcpy(&t, y + f->offset, sizeof t);
            if (s.n != t.n || (s.n && memcmp(s.p, t.p, s.n) != 0)) {
                CHECK(0, "%s: %s.%s: string of %u bytes differs (%u read)", what, k->name, f->name,
                      s.n, t.n);
                return false;
            }
        } else if (memcmp(x + f->offset, y + f->offset, 8) != 0) {
            uint64_t u, w;
            memcpy(&u, x + f->offset, 8);
            memcpy(&w, y + f->offset, 8);
            CHECK(0, "%s: %s.%s: wrote %" PRIu64 ", read %" PRIu64, what, k->name, f->name, u, w);
            return false;
        }
    }
    return true;
}

/* The generated writer for a kind, called through the record union. */
static int write_any(hpc_stream *s, const hpc_record *rec)
{
    switch (rec->kind) {
#define HPC_RECORD(name, id, fields)                                                               \
    case id:                                                                                       \
        return hpc_write_##name(s, &rec->u.name);
#include "schema.def"
#undef HPC_RECORD
    }
    return HPC_E_INVAL;
}

static void test_every_kind(enum hpc_stream_kind sk, uint32_t chunk, int keep_fd)
{
    const char *path = exp_test_path("every.hpe");
    hpc_stream s;
    REQUIRE(hpc_stream_create(&s, path, sk, 3, chunk, NULL, keep_fd) == 0, "create");
    static hpc_record written[255 * NPATTERNS * 3];
    size_t n = 0;
    for (unsigned v = 0; v < 3; v++)
        for (unsigned p = 0; p < NPATTERNS; p++)
            for (unsigned kind = 1; kind < 256; kind++) {
                const hpc_kind_desc *k = hpc_schema_kind(kind);
                if (!k)
                    continue;
                fill(k, &written[n], (enum pattern)p, v);
                int rc = write_any(&s, &written[n]);
                CHECK(rc == 0, "write %s pattern %u: %s", k->name, p, hpc_strerror(rc));
                if (rc == 0)
                    n++;
            }
    CHECK_EQ(hpc_stream_close(&s), 0);

    hpc_reader *r;
    hpc_diag d = {.prog = "test"};
    REQUIRE(hpc_reader_open(&r, path, NULL, &d) == 0, "open");
    CHECK_EQ(hpc_reader_kind(r), sk);
    CHECK_EQ(hpc_reader_stream_id(r), 3);
    hpc_record rec;
    size_t i = 0, schema = 0, nkinds = 0;
    for (unsigned kind = 1; kind < 256; kind++)
        nkinds += hpc_schema_kind(kind) != NULL;
    FILE *devnull = fopen("/dev/null", "w");
    while (hpc_reader_next(r, &rec)) {
        CHECK(hpc_record_print(devnull, &rec, r, HPC_PRINT_JSON) == 0, "print");
        CHECK(hpc_record_print(devnull, &rec, r, HPC_PRINT_TEXT) == 0, "print");
        if (schema < nkinds && (sk == HPC_STREAM_PROCESS || sk == HPC_STREAM_JOB)) {
            CHECK_EQ(rec.kind, HPC_K_schema);
            CHECK_EQ(rec.u.schema.kind, hpc_schema_kind((unsigned)rec.u.schema.kind)->kind);
            schema++;
            continue;
        }
        if (i >= n) {
            CHECK(0, "more records than written");
            break;
        }
        CHECK_EQ(rec.kind, written[i].kind);
        if (rec.kind == written[i].kind)
            same(hpc_schema_kind(rec.kind), &written[i], &rec, "round trip");
        i++;
    }
    fclose(devnull);
    CHECK_EQ(i, n);
    CHECK_EQ(hpc_reader_damaged(r), 0);
    CHECK_EQ(hpc_reader_unknown(r), 0);
    CHECK_EQ(d.warnings + d.errors, 0);
    CHECK_EQ(hpc_reader_stats(r)[HPC_STAT_RECORDS], n + schema);
    if (sk == HPC_STREAM_PROCESS)
        CHECK_EQ(schema, nkinds);
    /* rewind gives the same again */
    hpc_reader_rewind(r);
    size_t again = 0;
    while (hpc_reader_next(r, &rec))
        again++;
    CHECK_EQ(again, n + schema);
    hpc_reader_close(r);
}

static void test_many_chunks(int keep_fd)
{
    const char *path = exp_test_path("many.hpe");
    hpc_stream s;
    REQUIRE(hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 4096, NULL, keep_fd) == 0, "create");
    const uint64_t count = 200000;
    uint64_t t = 1ull << 50;
    for (uint64_t i = 0; i < count; i++) {
        t += 1000000 + (i * 7919) % 5000;
        hpc_rec_sample_clock r = {
            .time = t, .node = i % 300, .cpu_ns = 999000 + i % 2000, .cpu = i & 1};
        REQUIRE(hpc_write_sample_clock(&s, &r) == 0, "write %" PRIu64, i);
    }
    CHECK(s.win_off / 4096 > 500, "many chunks (%" PRIu64 ")", s.win_off / 4096);
    CHECK_EQ(hpc_stream_close(&s), 0);

    hpc_reader *r;
    REQUIRE(hpc_reader_open(&r, path, NULL, NULL) == 0, "open");
    hpc_record rec;
    uint64_t i = 0, bad = 0;
    t = 1ull << 50;
    while (hpc_reader_next(r, &rec)) {
        t += 1000000 + (i * 7919) % 5000;
        if (rec.kind != HPC_K_sample_clock || rec.u.sample_clock.time != t ||
            rec.u.sample_clock.node != i % 300 || rec.u.sample_clock.cpu_ns != 999000 + i % 2000)
            bad++;
        i++;
    }
    CHECK_EQ(i, count);
    CHECK_EQ(bad, 0);
    CHECK_EQ(hpc_reader_damaged(r), 0);
    hpc_reader_close(r);
}

static void test_varints(void)
{
    uint64_t v[] = {0, 1, 127, 128, 300, UINT64_MAX, 1ull << 63}, out[8];
    uint8_t buf[80];
    int n = hpc_varints_encode(buf, sizeof buf, v, 7);
    CHECK(n == 1 + 1 + 1 + 2 + 2 + 10 + 10, "encoded size %d", n);
    CHECK_EQ(hpc_varints_encode(buf, 5, v, 7), (uint64_t)-1);
    long m = hpc_varints_decode((hpc_str){(const char *)buf, (uint32_t)n}, out, 8);
    CHECK_EQ(m, 7);
    CHECK(memcmp(v, out, sizeof v) == 0, "values back");
    CHECK_EQ(hpc_varints_decode((hpc_str){(const char *)buf, (uint32_t)n - 1}, out, 8),
             (uint64_t)-1);
    buf[0] = 0xff;
    CHECK_EQ(hpc_varints_decode((hpc_str){(const char *)buf, 1}, out, 8), (uint64_t)-1);
}

static void test_str_helpers(void)
{
    char b[4];
    hpc_str s = {"hello", 5};
    CHECK(strcmp(hpc_str_copy(b, sizeof b, s), "hel") == 0, "copy truncates");
    CHECK(hpc_str_eq(s, "hello") && !hpc_str_eq(s, "hell") && !hpc_str_eq(s, "hello!"), "eq");
    CHECK(hpc_str_eq((hpc_str){NULL, 0}, ""), "empty eq");
}

int main(void)
{
    for (size_t i = 0; i < sizeof big; i++)
        big[i] = (char)('a' + i % 26);
    for (int i = 0; i < 256; i++)
        all_bytes[i] = (char)i;
    test_every_kind(HPC_STREAM_THREAD, 0, 1);
    test_every_kind(HPC_STREAM_PROCESS, 0, 1);
    test_every_kind(HPC_STREAM_THREAD, 128 * 1024, 0);
    test_many_chunks(1);
    test_many_chunks(0);
    test_varints();
    test_str_helpers();
    return exp_test_done("test_exp_roundtrip");
}
