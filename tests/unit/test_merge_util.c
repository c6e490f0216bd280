/*
 * test_merge_util.c - hpmerge's containers (merge/util.c): the hash map against a
 * reference array under random puts and deletes (backward-shift deletion keeps every
 * key findable), varint round trips at the edges, UTF-8 cleaning of damaged names.
 */
#include "exp_test.h"
#include "util.h"

static void map_vs_reference(unsigned seed, size_t keyspace, size_t ops)
{
    uint64_t *ref = calloc(keyspace, sizeof(uint64_t)); /* 0 = absent, else value + 1 */
    mg_map m = {0};
    srand(seed);
    size_t bad = 0;
    for (size_t i = 0; i < ops; i++) {
        uint64_t k = (uint64_t)(rand() % (int)keyspace) * 0x10001; /* spread, with collisions */
        size_t slot = k / 0x10001;
        if (rand() % 3 == 0) {
            bool had = mg_map_del(&m, k);
            bad += had != (ref[slot] != 0);
            ref[slot] = 0;
        } else {
            uint64_t v = (uint64_t)rand();
            mg_map_put(&m, k, v);
            ref[slot] = v + 1;
        }
    }
    size_t n = 0;
    for (size_t s = 0; s < keyspace; s++) {
        uint64_t v;
        bool got = mg_map_get(&m, s * 0x10001, &v);
        bad += got != (ref[s] != 0) || (got && v + 1 != ref[s]);
        n += ref[s] != 0;
    }
    CHECK(bad == 0, "seed %u: %zu mismatches with the reference", seed, bad);
    CHECK_EQ(m.n, n);
    mg_map_free(&m);
    free(ref);
}

static void varints(void)
{
    const uint64_t u[] = {0, 1, 127, 128, 16383, 16384, UINT64_MAX - 1, UINT64_MAX};
    const int64_t s[] = {0, -1, 1, INT64_MIN, INT64_MAX, -64, 63};
    mg_buf b = {0};
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        mg_buf_u64(&b, u[i]);
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        mg_buf_s64(&b, s[i]);
    mg_buf_str(&b, "name");
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        CHECK_EQ(mg_buf_get_u64(&b), u[i]);
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        CHECK(mg_buf_get_s64(&b) == s[i], "signed %zu", i);
    char *str = mg_buf_get_str(&b);
    CHECK(strcmp(str, "name") == 0 && !b.bad, "string");
    free(str);
    mg_buf_get_u64(&b);
    CHECK(b.bad, "reading past the end is flagged");
    mg_buf_free(&b);
}

/* A count the bytes left can hold reads back; a larger one reads as 0 and is flagged. */
static void counts(void)
{
    mg_buf b = {0};
    mg_buf_u64(&b, 2);
    mg_buf_u64(&b, 7);
    mg_buf_u64(&b, 8);
    CHECK_EQ(mg_buf_get_count(&b), 2);
    CHECK(!b.bad, "a count the bytes left hold");
    CHECK_EQ(mg_buf_get_count(&b), 0);
    CHECK(b.bad, "a count beyond the bytes left is flagged");
    mg_buf_free(&b);
}

static void utf8(void)
{
    const struct {
        const char *in, *out;
    } cases[] = {
        {"plain", "plain"},
        {"caf\xc3\xa9", "caf\xc3\xa9"},
        {"\xe6\x97\xa5\xe6\x9c\xac", "\xe6\x97\xa5\xe6\x9c\xac"},
        {"bad\xe6x", "bad?x"},
        {"\xff\xfe", "??"},
        {"\xc0\xaf", "??"},      /* overlong */
        {"\xed\xa0\x80", "???"}, /* surrogate */
        {"\xf0\x9f\x98\x80!", "\xf0\x9f\x98\x80!"},
        {"cut\xf0\x9f", "cut??"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *c = mg_utf8_clean(cases[i].in);
        CHECK(strcmp(c, cases[i].out) == 0, "case %zu: '%s'", i, c);
        free(c);
    }
}

int main(void)
{
    map_vs_reference(1, 100, 10000);
    map_vs_reference(2, 5000, 200000);
    map_vs_reference(3, 64, 100000);
    varints();
    counts();
    utf8();
    return exp_test_done("test_merge_util");
}
