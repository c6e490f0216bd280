/*
 * cancel_stdio.c - threads cancelled inside stdio: N times a thread writes to a shared
 * FILE in a loop (fprintf and fflush are cancellation points) and main cancels it after
 * 1 ms, joins it and writes to the same FILE. glibc's cleanup handler must release the
 * FILE's lock as the thread unwinds; if it does not, main waits for the lock forever (a
 * watchdog then prints "stdio lock left held after cancel N" and exits 2). Prints
 * "cancelled N" and exits 0. Usage: cancel_stdio [N] (default 100)
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *out;
static volatile int round_now;

static void *writer(void *arg)
{
    (void)arg;
    for (;;) {
        fprintf(out, "writer\n");
        fflush(out);
    }
    return NULL;
}

static void on_alarm(int sig)
{
    char msg[80];
    (void)sig;
    snprintf(msg, sizeof msg, "stdio lock left held after cancel %d\n", round_now);
    write(1, msg, strlen(msg));
    _exit(2);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 100;
    out = fopen("/dev/null", "w");
    signal(SIGALRM, on_alarm);
    for (int i = 0; i < n; i++) {
        pthread_t th;
        round_now = i;
        alarm(10);
        pthread_create(&th, NULL, writer, NULL);
        usleep(1000);
        pthread_cancel(th);
        pthread_join(th, NULL);
        fprintf(out, "main %d\n", i);
        fflush(out);
    }
    alarm(0);
    printf("cancelled %d\n", n);
    return 0;
}
