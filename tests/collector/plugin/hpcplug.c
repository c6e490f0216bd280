/* hpcplug.c - a plugin for dlopen_prog: CPU work inside a dlopen'ed library. */
double hpcplug_work(long n)
{
    double x = 1.0;
    for (long i = 0; i < n; i++)
        x = x * 1.0000001 + 1e-9;
    return x;
}
