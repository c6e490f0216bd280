/*
 * test_merge_util.c - hpmerge's helpers (merge/util.c): UTF-8 cleaning of damaged names.
 * Its containers are model/'s (test_model_containers.c).
 */
#include "exp_test.h"
#include "util.h"

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
    utf8();
    return exp_test_done("test_merge_util");
}
