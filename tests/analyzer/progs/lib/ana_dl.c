/* ana_dl.c - libana_dl.so for progs/libs.c: a function in a dlopen'd library. */
volatile double ana_dl_sink;

__attribute__((noinline)) void dl_work(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s = s * 0.999999 + 1.0;
    ana_dl_sink += s;
}
