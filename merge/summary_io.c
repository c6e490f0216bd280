/*
 * summary_io.c - the job's traced I/O (-i) for the summary: model/io_stats.c's numbers
 * (hpanalyze's ioactivity has the same), read from the experiment when any process
 * traced I/O, and each process's totals over its files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "summary.h"

static bool traced(const hpc_exp *e)
{
    for (size_t i = 0; i < e->nprocs; i++)
        if (e->procs[i].settings.io_trace)
            return true;
    return false;
}

bool mg_summary_io(const mg_job *job, mg_io *out)
{
    memset(out, 0, sizeof *out);
    const hpc_exp *e = job->exp;
    if (!e || !traced(e))
        return false;
    const hpc_proc **procs = mg_xcalloc(e->nprocs + 1, sizeof *procs);
    for (size_t i = 0; i < e->nprocs; i++)
        procs[i] = &e->procs[i];
    int rc = hpa_io_load(&out->io, procs, NULL, (uint32_t)e->nprocs, NULL, NULL, job->diag);
    free(procs);
    if (rc) {
        fprintf(stderr, "hpmerge: I/O records: %s\n", hpc_strerror(rc));
        return false;
    }
    out->procs = mg_xcalloc(e->nprocs + 1, sizeof *out->procs);
    out->nprocs = e->nprocs;
    uint32_t nfiles = 0;
    out->order = hpa_io_files_by_time(&out->io, &nfiles);
    if (!out->order)
        mg_out_of_memory(sizeof *out->order * (out->io.nfiles + 1));
    out->nfiles = nfiles;
    for (uint32_t k = 0; k < out->nfiles; k++) {
        const hpa_io_file *f = &out->io.files[out->order[k]];
        if (f->nshares > 1)
            out->shared++;
        else
            out->single++;
        for (uint32_t k = 0; k < f->nshares; k++) {
            hpa_io_sum *t = &out->procs[f->shares[k].proc], *s = &f->shares[k].s;
            for (unsigned c = 0; c < HPA_IO_NCLASS; c++) {
                t->ns[c] += s->ns[c];
                t->bytes[c] += s->bytes[c];
                t->count[c] += s->count[c];
            }
        }
    }
    return true;
}

void mg_summary_io_free(mg_io *m)
{
    hpa_io_free(&m->io);
    free(m->procs);
    free(m->order);
    memset(m, 0, sizeof *m);
}

const char *mg_summary_io_label(const mg_job *job, uint32_t proc, char *buf, size_t cap)
{
    const hpc_proc *p = &job->exp->procs[proc];
    if (p->rank >= 0)
        snprintf(buf, cap, "rank %d", p->rank);
    else
        snprintf(buf, cap, "%s", p->name);
    return buf;
}

uint32_t mg_summary_io_slowest(const hpa_io_file *f)
{
    uint32_t best = 0;
    for (uint32_t i = 1; i < f->nshares; i++)
        if (hpa_io_ns(&f->shares[i].s) > hpa_io_ns(&f->shares[best].s))
            best = i;
    return best;
}
