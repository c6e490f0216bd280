/*
 * sigsafe_util.c - what every handler path needs: the clocks, the process's rusage, the
 * calling thread's state, and the statistics that count every sample lost (STYLE.md
 * practice 7). Signal-safe, every function (sigsafe.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"

__thread hpc_thread_priv *hpc_tls_self __attribute__((tls_model("initial-exec")));
static uint32_t next_seq; /* the next thread sequence number */

uint64_t hpc_now_ns(void)
{
    return hpc_now_ns_inline();
}

uint64_t hpc_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* tests' debug waits (HPCOLLECT_DEBUG_*): ms milliseconds asleep, whatever signals come */
void hpc_debug_sleep_ms(int ms)
{
    struct timespec w = {ms / 1000, (long)(ms % 1000) * 1000000L};
    if (ms > 0)
        while (syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, &w, &w) != 0 && errno == EINTR)
            ;
}

uint64_t hpc_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
    return (uint64_t)tv.tv_sec * 1000000000ULL + (uint64_t)tv.tv_usec * 1000ULL;
}

void hpc_get_usage(hpc_usage *u)
{
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    getrusage(RUSAGE_SELF, &ru);
    u->utime_ns = tv_ns(ru.ru_utime);
    u->stime_ns = tv_ns(ru.ru_stime);
    u->maxrss_kb = (uint64_t)ru.ru_maxrss;
    u->minflt = (uint64_t)ru.ru_minflt;
    u->majflt = (uint64_t)ru.ru_majflt;
    u->nvcsw = (uint64_t)ru.ru_nvcsw;
    u->nivcsw = (uint64_t)ru.ru_nivcsw;
    u->inblock = (uint64_t)ru.ru_inblock;
    u->oublock = (uint64_t)ru.ru_oublock;
}

/* ------------------------------------------------------------- thread state */

void hpc_set_self(hpc_thread_priv *t)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    hpc_tls_self = t;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

uint32_t hpc_threads_take_seq(void)
{
    return __atomic_fetch_add(&next_seq, 1, __ATOMIC_RELAXED);
}

uint32_t hpc_threads_seen(void)
{
    return __atomic_load_n(&next_seq, __ATOMIC_RELAXED);
}

void hpc_threads_reset_seq(uint32_t next)
{
    __atomic_store_n(&next_seq, next, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------- statistics */

void hpc_stat(hpc_thread_priv *t, enum hpc_stat s, uint64_t n)
{
    if (t && t->stream_ok)
        hpc_stream_stat_add(&t->pub.stream, s, n);
}

void hpc_stat_write_failed(hpc_thread_priv *t, int err)
{
    if (err == HPC_E_LIMIT) {
        hpc_stat(t, HPC_STAT_DROPPED_LIMIT, 1);
        hpc_limit_reached();
    } else if (err == HPC_E_IO && (errno == ENOSPC || errno == EDQUOT)) {
        hpc_stat(t, HPC_STAT_DISK_FULL, 1); /* no record can say it: the disk is full */
    } else {
        hpc_stat(t, HPC_STAT_DROPPED_IO, 1);
    }
}
