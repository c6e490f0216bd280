/*
 * bigtext.c - libbigtext.so for tests/states/test_text_faults.sh: NFUNCS functions, each
 * alone on its own 4 KiB page of code, so calling them one after the other touches a new
 * text page each time (a major fault when the file is not in the page cache).
 */
#define NFUNCS 512

#define FN(n)                                                                                      \
    __attribute__((noinline, aligned(4096))) int bigtext_##n(int x)                                \
    {                                                                                              \
        return x * 3 + n;                                                                          \
    }
/* clang-format off */
#define FN8(n) FN(n##0) FN(n##1) FN(n##2) FN(n##3) FN(n##4) FN(n##5) FN(n##6) FN(n##7)
#define FN64(n) FN8(n##0) FN8(n##1) FN8(n##2) FN8(n##3) FN8(n##4) FN8(n##5) FN8(n##6) FN8(n##7)
FN64(1) FN64(2) FN64(3) FN64(4) FN64(5) FN64(6) FN64(7) FN64(0)

#undef FN
#define FN(n) bigtext_##n,
typedef int (*fn_t)(int);
static const fn_t table[] = {FN64(1) FN64(2) FN64(3) FN64(4) FN64(5) FN64(6) FN64(7) FN64(0)};
/* clang-format on */

/* The functions, in address order (text_faults calls them in a copy of this file). */
const fn_t *bigtext_table(unsigned *n)
{
    *n = sizeof table / sizeof table[0];
    return table;
}

/* Call every function once, in address order; returns a checksum. */
int bigtext_all(int x)
{
    int s = 0;
    for (unsigned i = 0; i < sizeof table / sizeof table[0]; i++)
        s += table[i](x);
    return s;
}
