/*
 * util.c - small helpers shared by the collector's files (all signal-safe).
 */
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "collector.h"
#include "control.h"

uint64_t hpc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t hpc_realtime_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void hpc_stat(hpc_thread_priv *t, enum hpc_stat s, uint64_t n)
{
    if (t && t->stream_ok)
        hpc_stream_stat_add(&t->pub.stream, s, n);
}

hpc_str hpc_cstr(const char *s)
{
    return (hpc_str){s, (uint32_t)strlen(s)};
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

void hpc_write_sample_point_locked(hpc_stream *s, unsigned reason, const char *label)
{
    hpc_control_drain_locked(s); /* points queued by -l / -y come first (control.h) */
    hpc_control_write_point(s, hpc_now_ns(), reason, label);
}
