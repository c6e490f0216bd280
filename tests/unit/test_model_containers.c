/*
 * test_model_containers.c - model/'s containers, which hpanalyze and hpmerge share: the
 * hash map against a reference array under random puts and deletes (backward-shift
 * deletion keeps every key findable), strings interned to dense ids, the byte buffer's
 * varints (experiment/codec.h) round-tripped at the edges and its bounded counts.
 */
#include "bytebuf.h"
#include "exp_test.h"
#include "strtab.h"
#include "u64map.h"

static void map_vs_reference(unsigned seed, size_t keyspace, size_t ops)
{
    uint64_t *ref = calloc(keyspace, sizeof(uint64_t)); /* 0 = absent, else value + 1 */
    hpa_u64map m = {0};
    srand(seed);
    size_t bad = 0;
    for (size_t i = 0; i < ops; i++) {
        uint64_t k = (uint64_t)(rand() % (int)keyspace) * 0x10001; /* spread, with collisions */
        size_t slot = k / 0x10001;
        if (rand() % 3 == 0) {
            bool had = hpa_u64map_del(&m, k);
            bad += had != (ref[slot] != 0);
            ref[slot] = 0;
        } else {
            uint64_t v = (uint64_t)rand();
            CHECK(hpa_u64map_put(&m, k, v) == 0, "put");
            ref[slot] = v + 1;
        }
    }
    size_t n = 0;
    for (size_t s = 0; s < keyspace; s++) {
        uint64_t v;
        bool got = hpa_u64map_get(&m, s * 0x10001, &v);
        bad += got != (ref[s] != 0) || (got && v + 1 != ref[s]);
        n += ref[s] != 0;
    }
    CHECK(bad == 0, "seed %u: %zu mismatches with the reference", seed, bad);
    CHECK_EQ(m.n, n);
    hpa_u64map_free(&m);
    free(ref);
}

static void varints(void)
{
    const uint64_t u[] = {0, 1, 127, 128, 16383, 16384, UINT64_MAX - 1, UINT64_MAX};
    const int64_t s[] = {0, -1, 1, INT64_MIN, INT64_MAX, -64, 63};
    hpa_buf b = {0};
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        hpa_buf_u64(&b, u[i]);
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        hpa_buf_s64(&b, s[i]);
    hpa_buf_str(&b, "name");
    for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++)
        CHECK_EQ(hpa_buf_get_u64(&b), u[i]);
    for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
        CHECK(hpa_buf_get_s64(&b) == s[i], "signed %zu", i);
    hpc_str str = hpa_buf_get_str(&b);
    CHECK(hpc_str_eq(str, "name") && !b.bad && !b.nomem, "string");
    hpa_buf_get_u64(&b);
    CHECK(b.bad, "reading past the end is flagged");
    hpa_buf_free(&b);
}

/* A count the bytes left can hold reads back; a larger one reads as 0 and is flagged. */
static void counts(void)
{
    hpa_buf b = {0};
    hpa_buf_u64(&b, 2);
    hpa_buf_u64(&b, 7);
    hpa_buf_u64(&b, 8);
    CHECK_EQ(hpa_buf_get_count(&b), 2);
    CHECK(!b.bad, "a count the bytes left hold");
    CHECK_EQ(hpa_buf_get_count(&b), 0);
    CHECK(b.bad, "a count beyond the bytes left is flagged");
    hpa_buf_free(&b);
}

/* Ids are dense in order of first intern; equal bytes (inner NULs included) are one id. */
static void strings(void)
{
    hpa_strtab t = {0};
    char name[32];
    for (unsigned i = 0; i < 5000; i++) {
        snprintf(name, sizeof name, "f%u", i % 1000);
        uint32_t id = hpa_strtab_cstr(&t, name);
        CHECK(id == i % 1000, "'%s': id %u", name, id);
    }
    CHECK_EQ(t.n, 1000);
    CHECK(strcmp(hpa_strtab_get(&t, 7), "f7") == 0, "string of id 7");
    CHECK_EQ(hpa_strtab_intern(&t, "a\0b", 3), 1000);
    CHECK_EQ(hpa_strtab_intern(&t, "a\0c", 3), 1001);
    CHECK_EQ(hpa_strtab_intern(&t, "a", 1), 1002);
    CHECK_EQ(hpa_strtab_intern(&t, "a\0b", 3), 1000);
    hpa_strtab_free(&t);
    CHECK(t.n == 0 && !t.strs, "freed table is empty");
}

int main(void)
{
    map_vs_reference(1, 100, 10000);
    map_vs_reference(2, 5000, 200000);
    map_vs_reference(3, 64, 100000);
    varints();
    counts();
    strings();
    return exp_test_done("test_model_containers");
}
