/*
 * threads_fork A B C: the main thread touches A fresh pages in main_touch(), a pthread
 * touches B in thread_touch(), a fork child touches C in child_touch() (each one minor
 * fault per page, no huge pages). Counters follow threads and fork children as the clock
 * does, so each function's page-fault count is known in advance.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static long touch_pages(long pages)
{
    long page = sysconf(_SC_PAGESIZE);
    char *p = mmap(NULL, (size_t)(pages * page), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        exit(1);
    madvise(p, (size_t)(pages * page), MADV_NOHUGEPAGE);
    long sum = 0;
    for (long i = 0; i < pages; i++) {
        p[i * page] = (char)i;
        sum += p[i * page];
    }
    return sum;
}

__attribute__((noinline)) static long main_touch(long n)
{
    return touch_pages(n);
}

__attribute__((noinline)) static void *thread_touch(void *arg)
{
    return (void *)touch_pages((long)arg);
}

__attribute__((noinline)) static long child_touch(long n)
{
    return touch_pages(n);
}

int main(int argc, char **argv)
{
    long a = argc > 1 ? atol(argv[1]) : 10000, b = argc > 2 ? atol(argv[2]) : 10000;
    long c = argc > 3 ? atol(argv[3]) : 10000;
    pthread_t th;
    pthread_create(&th, NULL, thread_touch, (void *)b);
    pthread_join(th, NULL);
    main_touch(a);
    pid_t pid = fork();
    if (pid == 0) {
        child_touch(c);
        _exit(0);
    }
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
