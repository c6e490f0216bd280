/*
 * losses.c - what a process's experiment could not record, in words, for every place a
 * user looks: hpcollect's exit message, the `functions` header, hpmerge's problems and
 * summary (`statistics` lists the counts themselves). One list, so all say the same.
 *
 * From the stream headers' live statistics (summed over the process's streams, so they
 * are current even after SIGKILL) and the process's limit records:
 *   samples dropped at the size limit (-L; when it was reached), on a full disk, or
 *   because a file could not grow; trace events dropped; -l / -y points dropped;
 *   stacks cut (deeper than the unwinder keeps, or the call tree full); records torn
 *   by a writer that died; threads the collector could not follow.
 */
#include <stdio.h>
#include <string.h>

#include "experiment.h"

/* When the size limit was reached, ns after the process began; 0 if no record says. */
static uint64_t limit_time(const hpc_proc *p)
{
    size_t i = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_limit, &i));)
        if (r->u.limit.what == HPC_LIMIT_SIZE && p->has_begin && r->u.limit.time > p->begin.time)
            return r->u.limit.time - p->begin.time;
    return 0;
}

size_t hpc_proc_losses(const hpc_proc *p, hpc_loss *out, size_t cap)
{
    static const struct {
        enum hpc_stat stat;
        const char *what;
    } kinds[] = {
        {HPC_STAT_DROPPED_LIMIT, "samples not recorded: size limit (-L) reached"},
        {HPC_STAT_DISK_FULL, "samples not recorded: disk full"},
        {HPC_STAT_DROPPED_IO, "samples not recorded: a file could not grow"},
        {HPC_STAT_EVENTS_DROPPED, "trace events (MPI, OpenMP) not recorded"},
        {HPC_STAT_POINTS_DROPPED, "sample points not recorded"},
        {HPC_STAT_UNWIND_TRUNCATED, "stacks cut: deeper than the frames kept"},
        {HPC_STAT_CCT_FULL, "stacks cut: call tree full"},
        {HPC_STAT_TORN, "records torn: a writer died writing them"},
        {HPC_STAT_THREADS_UNRECORDED, "threads not recorded (their time is in no report)"},
    };
    size_t n = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        uint64_t c = p->stats[kinds[k].stat];
        if (!c)
            continue;
        if (n < cap)
            out[n] = (hpc_loss){kinds[k].stat, kinds[k].what, c,
                                kinds[k].stat == HPC_STAT_DROPPED_LIMIT ? limit_time(p) : 0};
        n++;
    }
    return n;
}

char *hpc_loss_text(const hpc_loss *l, char *buf, size_t cap)
{
    int n = snprintf(buf, cap, "%llu %s", (unsigned long long)l->count, l->what);
    if (l->after_ns && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " after %.3f s", (double)l->after_ns * 1e-9);
    return buf;
}
