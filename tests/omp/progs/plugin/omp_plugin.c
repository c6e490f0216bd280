/*
 * omp_plugin.c - a shared library with an OpenMP region, for tests/omp/progs/omp_dlopen.c:
 * opened with RTLD_LOCAL, its OpenMP runtime is outside the global scope (as Python
 * opens extension modules). Built by gcc (libgomp) and clang (libomp): ompt/module.mk.
 */
int plugin_run(int n)
{
    long sum = 0;
#pragma omp parallel for reduction(+ : sum) num_threads(2)
    for (int i = 0; i < n; i++)
        sum += i;
    return (int)(sum % 1000003);
}
