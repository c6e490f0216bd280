/*
 * short_threads.c - threads too short for a clock sample, and their time off the CPU
 * (thread states of a thread that opens its events lazily: collector/states.h). One
 * after another:
 *   N short threads  1 ms of CPU in short_burn, 3 ms in nanosleep in short_nap, 1 ms of
 *                    CPU: no clock sample (10 ms of CPU) and no state event ever opened
 *   8 nappers        15 ms asleep in long_nap (its calls take a clock interval: the
 *                    events open at its end), 1 ms of CPU, 5 ms asleep in late_nap
 *   8 burners        30 ms of CPU in long_burn (clock samples: the events open at the
 *                    first), 5 ms asleep in burner_nap
 * Prints, per sleeping function, the nanosleep calls' total wall time as the threads
 * measured it around each call (`nap FUNC SECONDS CALLS`), and each kind's CPU time, as
 * its threads measured it at their ends (`cpu START_ROUTINE SECONDS`).
 * Usage: short_threads N.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { SHORT_NAP, LONG_NAP, LATE_NAP, BURNER_NAP, NNAPS };
static const char *const nap_names[NNAPS] = {"short_nap", "long_nap", "late_nap", "burner_nap"};
enum { SHORT, NAPPER, BURNER, NKINDS };
static const char *const kind_names[NKINDS] = {"short_thread", "napper", "burner"};
/* The threads run one at a time (created and joined): no lock needed for the sums. */
static double nap_wall[NNAPS], cpu[NKINDS];
/* the burners' time off the CPU inside long_burn (wall - CPU): a preemption after a
 * burner's last sample is left at its end, below an interval, and goes where its state
 * was last written (burner_nap's sleep, in the fallback) */
static double burn_off;
static int nap_calls[NNAPS];
static volatile double sink;

static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void burn(double s)
{
    double end = now(CLOCK_THREAD_CPUTIME_ID) + s;
    while (now(CLOCK_THREAD_CPUTIME_ID) < end)
        for (int i = 0; i < 1000; i++)
            sink += i;
}

static void nap(int which, double s)
{
    struct timespec d = {0, (long)(s * 1e9)};
    double t0 = now(CLOCK_MONOTONIC);
    nanosleep(&d, NULL);
    nap_wall[which] += now(CLOCK_MONOTONIC) - t0;
    nap_calls[which]++;
}

__attribute__((noinline)) void short_burn(double s)
{
    burn(s);
}

__attribute__((noinline)) void burner_nap(double s)
{
    nap(BURNER_NAP, s);
}

__attribute__((noinline)) void long_burn(double s)
{
    burn(s);
}

__attribute__((noinline)) void short_nap(double s)
{
    nap(SHORT_NAP, s);
}

__attribute__((noinline)) void long_nap(double s)
{
    nap(LONG_NAP, s);
}

__attribute__((noinline)) void late_nap(double s)
{
    nap(LATE_NAP, s);
}

__attribute__((noinline)) void *short_thread(void *arg)
{
    short_burn(0.001);
    short_nap(0.003);
    short_burn(0.001);
    cpu[SHORT] += now(CLOCK_THREAD_CPUTIME_ID);
    return arg;
}

__attribute__((noinline)) void *napper(void *arg)
{
    long_nap(0.015);
    short_burn(0.001);
    late_nap(0.005);
    cpu[NAPPER] += now(CLOCK_THREAD_CPUTIME_ID);
    return arg;
}

__attribute__((noinline)) void *burner(void *arg)
{
    double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_THREAD_CPUTIME_ID);
    long_burn(0.030);
    burn_off += (now(CLOCK_MONOTONIC) - w0) - (now(CLOCK_THREAD_CPUTIME_ID) - c0);
    burner_nap(0.005);
    cpu[BURNER] += now(CLOCK_THREAD_CPUTIME_ID);
    return arg;
}

static void run(void *(*fn)(void *), int n)
{
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, fn, NULL) != 0) {
            perror("pthread_create");
            exit(1);
        }
        pthread_join(t, NULL);
    }
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    run(short_thread, n);
    run(napper, 8);
    run(burner, 8);
    for (int i = 0; i < NNAPS; i++)
        printf("nap %s %.6f %d\n", nap_names[i], nap_wall[i], nap_calls[i]);
    for (int i = 0; i < NKINDS; i++)
        printf("cpu %s %.6f\n", kind_names[i], cpu[i]);
    printf("off long_burn %.6f\n", burn_off);
    return 0;
}
