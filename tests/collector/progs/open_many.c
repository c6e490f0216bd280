/*
 * open_many [SOFT]...: how many files a program can open, with 4 threads of its own
 * alive (and running) meanwhile. Each SOFT is first set as RLIMIT_NOFILE's soft limit (setrlimit,
 * the hard limit kept), then /dev/null is opened until EMFILE; the count is printed and the files
 * closed again. Without SOFT, once at the limit it started with. On stderr: how many
 * descriptors it had open when it started (those its parent left open: the count it can
 * open alone is the limit less these).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static pthread_barrier_t started, settled, done;

/* A thread under hpcollect opens its thread-state events lazily: at its first clock sample
 * or at the end of a blocking call once its blocking calls took a clock interval
 * (collector/states.h). The 50 ms sleep is such a call: the events open before the count
 * starts, not while it runs (their descriptor is below the limit for an instant). */
static void *waiter(void *arg)
{
    pthread_barrier_wait(&started);
    struct timespec nap = {0, 50 * 1000 * 1000};
    nanosleep(&nap, NULL);
    pthread_barrier_wait(&settled);
    pthread_barrier_wait(&done);
    return arg;
}

static void count_files(void)
{
    int fds[4096], n = 0;
    while (n < 4096 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
        n++;
    int err = errno;
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    printf("soft limit %llu: opened %d, then %s\n", (unsigned long long)rl.rlim_cur, n,
           n < 4096 ? strerror(err) : "stopped");
    while (n > 0)
        close(fds[--n]);
}

/* Descriptors open below the soft limit (those above it take no place in it). */
static int open_at_start(void)
{
    struct rlimit rl;
    DIR *d = opendir("/proc/self/fd");
    if (!d || getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        int fd = atoi(e->d_name);
        n += e->d_name[0] != '.' && fd != dirfd(d) && (rlim_t)fd < rl.rlim_cur;
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    fprintf(stderr, "open at start %d\n", open_at_start());
    pthread_t t[4];
    pthread_barrier_init(&started, NULL, 5);
    pthread_barrier_init(&settled, NULL, 5);
    pthread_barrier_init(&done, NULL, 5);
    for (int i = 0; i < 4; i++)
        pthread_create(&t[i], NULL, waiter, NULL);
    pthread_barrier_wait(&started); /* counted once they run (their start is done) */
    pthread_barrier_wait(&settled);
    if (argc < 2)
        count_files();
    for (int a = 1; a < argc; a++) {
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        rl.rlim_cur = strtoul(argv[a], NULL, 10);
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
            printf("setrlimit %s: %s\n", argv[a], strerror(errno));
            continue;
        }
        count_files();
    }
    pthread_barrier_wait(&done);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    return 0;
}
