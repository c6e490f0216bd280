/*
 * point_burst SIG N: raise signal SIG N times in a row while hpcollect's sampler thread
 * cannot run, so that at most the 64 slots of the -l queue hold points and the other
 * N - 64 deliveries are dropped (and counted). The sampler thread ("hpcollect-smpl") and
 * this thread are put on CPU 0, and this thread runs SCHED_FIFO during the burst: a
 * normal thread never preempts it there. Prints "raised N"; exits 77 with the reason
 * when the sampler thread is not found or real-time scheduling is not allowed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* tid of the thread named `name` in this process, or -1 */
static pid_t thread_named(const char *name)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    pid_t found = -1;
    while (d && found < 0 && (e = readdir(d))) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof comm, f) && strncmp(comm, name, strlen(name)) == 0)
            found = atoi(e->d_name);
        fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    int sig = argc > 1 ? atoi(argv[1]) : SIGUSR2, n = argc > 2 ? atoi(argv[2]) : 200;
    pid_t sampler = -1;
    for (int i = 0; i < 2000 && sampler < 0; i++) { /* it names itself once it runs */
        sampler = thread_named("hpcollect-smpl");
        if (sampler < 0)
            usleep(1000);
    }
    if (sampler < 0) {
        printf("no sampler thread\n");
        return 77;
    }
    cpu_set_t cpu0;
    CPU_ZERO(&cpu0);
    CPU_SET(0, &cpu0);
    struct sched_param fifo = {.sched_priority = 1}, normal = {.sched_priority = 0};
    if (sched_setaffinity(sampler, sizeof cpu0, &cpu0) != 0 ||
        sched_setaffinity(0, sizeof cpu0, &cpu0) != 0 ||
        sched_setscheduler(0, SCHED_FIFO, &fifo) != 0) {
        printf("cannot run SCHED_FIFO on CPU 0: %s\n", strerror(errno));
        return 77;
    }
    for (int i = 0; i < n; i++)
        raise(sig);
    sched_setscheduler(0, SCHED_OTHER, &normal);
    printf("raised %d\n", n);
    return 0;
}
