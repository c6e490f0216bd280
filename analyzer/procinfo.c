/*
 * procinfo.c - shared process facts for header and statistics.
 */
#include "procinfo.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void hpa_argv_line(hpc_str argv, char *buf, size_t cap)
{
    size_t n = 0;
    for (uint32_t i = 0; i < argv.n && n + 1 < cap; i++)
        buf[n++] = argv.p[i] ? argv.p[i] : ' ';
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = 0;
}

const char *hpa_clock_source_name(uint64_t src)
{
    switch (src) {
    case HPC_CLOCK_PERF_TASK_CLOCK:
        return "perf_event task-clock";
    case HPC_CLOCK_POSIX_CPU_TIMER:
        return "POSIX CPU-time timer";
    case HPC_CLOCK_NONE:
        return "none";
    default:
        return "unknown";
    }
}

void hpa_end_text(const hpc_proc *p, char *buf, size_t cap)
{
    if (p->has_launcher_exit) {
        const hpc_rec_launcher_exit *l = &p->launcher_exit;
        if (l->exited)
            snprintf(buf, cap, "exit status %lld", (long long)l->status);
        else
            snprintf(buf, cap, "killed by signal %lld (SIG%s)%s", (long long)l->status,
                     sigabbrev_np((int)l->status) ? sigabbrev_np((int)l->status) : "?",
                     l->core_dumped ? ", core dumped" : "");
    } else if (p->has_end) {
        const hpc_rec_proc_end *e = &p->end;
        switch (e->reason) {
        case HPC_END_EXIT:
            snprintf(buf, cap, "exit status %lld", (long long)e->status);
            break;
        case HPC_END_EXEC:
            snprintf(buf, cap, "replaced by exec");
            break;
        case HPC_END_SIGNAL:
            snprintf(buf, cap, "fatal signal %lld (SIG%s)", (long long)e->status,
                     sigabbrev_np((int)e->status) ? sigabbrev_np((int)e->status) : "?");
            break;
        case HPC_END_MPI_ABORT:
            snprintf(buf, cap, "MPI_Abort with error code %lld", (long long)e->status);
            break;
        default:
            snprintf(buf, cap, "ended (reason %llu)", (unsigned long long)e->reason);
        }
    } else if (p->launcher_killed) {
        const hpc_rec_launcher_begin *l = &p->launcher_begin;
        const char *sig = l->death_signal < 65 ? sigabbrev_np((int)l->death_signal) : NULL;
        snprintf(
            buf, cap,
            "killed with its launcher: hpcollect (pid %llu) was killed while the program ran%s%s",
            (unsigned long long)l->launcher_pid, sig ? "; the kernel sent the program SIG" : "",
            sig ? sig : "");
    } else {
        snprintf(buf, cap, "unknown (no end record: killed or still running)");
    }
}

hpa_os_cpu hpa_proc_os_cpu(const hpc_proc *p)
{
    hpa_os_cpu c = {0};
    if (p->os_cpu_known)
        c = (hpa_os_cpu){true, p->os_user_ns, p->os_sys_ns, p->os_cpu_source};
    return c;
}

double hpa_proc_duration(const hpc_proc *p)
{
    if (!p->has_begin)
        return 0;
    uint64_t end = p->has_end ? p->end.time : p->has_launcher_exit ? p->launcher_exit.time : 0;
    size_t i = 0;
    if (!end) /* killed: the last sample point is the last time known */
        for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_sample_point, &i));)
            end = r->u.sample_point.time > end ? r->u.sample_point.time : end;
    return end > p->begin.time ? (double)(end - p->begin.time) * 1e-9 : 0;
}

void hpa_start_text(const hpc_proc *p, char *buf, size_t cap)
{
    time_t t = (time_t)(p->begin.real_time / 1000000000u);
    struct tm tm;
    if (!p->has_begin || !localtime_r(&t, &tm) || !strftime(buf, cap, "%a %b %e %H:%M:%S %Y", &tm))
        snprintf(buf, cap, "(unknown)");
}

const char *hpa_sample_reason_name(uint64_t reason)
{
    static const char *const names[] = {
        [HPC_SAMPLE_START] = "start",   [HPC_SAMPLE_PERIODIC] = "periodic",
        [HPC_SAMPLE_SIGNAL] = "signal", [HPC_SAMPLE_API] = "api",
        [HPC_SAMPLE_PAUSE] = "pause",   [HPC_SAMPLE_RESUME] = "resume",
        [HPC_SAMPLE_END] = "end",
    };
    return reason < sizeof(names) / sizeof(names[0]) && names[reason] ? names[reason] : "other";
}
