/*
 * dlopen_prog.c - dlopen the plugin libhpcplug.so by name (found through this program's
 * RUNPATH, $ORIGIN/plug, as without the collector), burn about 0.3 s of CPU in it,
 * dlclose it, burn 0.1 s in main. Exit 0 if the plugin loaded.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "burn.h"

int main(void)
{
    void *h = dlopen("libhpcplug.so", RTLD_NOW);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 1;
    }
    double (*work)(long) = (double (*)(long))dlsym(h, "hpcplug_work");
    double end = thread_cpu_s() + 0.3, x = 0;
    while (thread_cpu_s() < end)
        x += work(1000000);
    dlclose(h);
    burn_cpu(0.1);
    printf("plugin done %d\n", x > 0);
    return 0;
}
