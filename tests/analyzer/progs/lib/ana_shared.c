/* ana_shared.c - libana_shared.so for progs/libs.c: a function in a linked library. */
volatile double ana_shared_sink;

__attribute__((noinline)) void shared_work(long n)
{
    double s = 0;
    for (long i = 0; i < n; i++)
        s = s * 0.999999 + 1.0;
    ana_shared_sink += s;
}
