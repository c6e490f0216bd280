/*
 * omp_dlopen - opens an OpenMP library with RTLD_LOCAL and runs its region: the program
 * itself links no OpenMP runtime, the library's is outside the global scope.
 * Usage: omp_dlopen LIBRARY   prints "sum N" (N = 499500 for 1000 iterations)
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    void *h = argc > 1 ? dlopen(argv[1], RTLD_NOW | RTLD_LOCAL) : NULL;
    int (*run)(int) = h ? (int (*)(int))dlsym(h, "plugin_run") : NULL;
    if (!run) {
        fprintf(stderr, "omp_dlopen: %s\n", dlerror());
        return 1;
    }
    printf("sum %d\n", run(1000));
    return 0;
}
