/*
 * omp_fork - an OpenMP program that forks after a parallel region; the child runs a
 * region of its own (tests/omp/test_omp_fork.sh).
 *
 * Parent: a region of 2 threads, each burning WORK of CPU; then fork. Child: a region of
 * 2 threads, each burning WORK, then exit. The parent waits for the child (and prints
 * the CPU time that wait took its main thread). So the
 * child's sub-experiment ran on the parent's OpenMP runtime, with the tool's OMPT state
 * inherited, and must say so (it records no runtime start of its own: the runtime
 * started before the fork).
 * Usage: omp_fork [work_us]   (default 100000)
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "omp_common.h"

__attribute__((noinline)) static void region(uint64_t work_ns)
{
#pragma omp parallel num_threads(2)
    burn_cpu(work_ns);
}

int main(int argc, char **argv)
{
    uint64_t work_ns = (argc > 1 ? strtoull(argv[1], NULL, 10) : 100000) * 1000ull;
    region(work_ns);
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        region(work_ns);
        exit(0);
    }
    /* the parent's CPU time in waitpid (the kernel's, when the child ends) is serial
     * code of its main thread, OpenMP work: measured, the test adds it to the expected */
    int status;
    double cpu0 = thread_cpu_s();
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    printf("omp_fork: child done, parent waited %.6f s of CPU\n", thread_cpu_s() - cpu0);
    return 0;
}
