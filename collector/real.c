/*
 * real.c - resolve the next definitions of the functions the collector interposes.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "real.h"

hpc_real_fns hpc_real;
static volatile int resolved;

static void *next(const char *name)
{
    void *p = dlsym(RTLD_NEXT, name);
    if (!p) {
        static const char msg[] = "hpcollect: libc function not found: ";
        (void)!write(2, msg, sizeof msg - 1);
        (void)!write(2, name, __builtin_strlen(name));
        (void)!write(2, "\n", 1);
        abort();
    }
    return p;
}

void hpc_real_init(void)
{
    if (__atomic_load_n(&resolved, __ATOMIC_ACQUIRE))
        return;
    hpc_real_fns r;
    *(void **)&r.sigaction = next("sigaction");
    *(void **)&r.sigprocmask = next("sigprocmask");
    *(void **)&r.pthread_sigmask = next("pthread_sigmask");
    *(void **)&r.pthread_create = next("pthread_create");
    *(void **)&r.pthread_kill = next("pthread_kill");
    *(void **)&r.fork = next("fork");
    *(void **)&r.execve = next("execve");
    *(void **)&r.posix_spawn = next("posix_spawn");
    *(void **)&r.posix_spawnp = next("posix_spawnp");
    *(void **)&r.system = next("system");
    *(void **)&r.dlopen = next("dlopen");
    *(void **)&r.dlclose = next("dlclose");
    *(void **)&r.dl_iterate_phdr = next("dl_iterate_phdr");
    *(void **)&r._exit = next("_exit");
    *(void **)&r._Exit = next("_Exit");
    hpc_real = r;
    __atomic_store_n(&resolved, 1, __ATOMIC_RELEASE);
}
