/*
 * summary_rows.c - the summary as processes come (see summary_agg.h, mg_summary): each
 * process's rows go to an unlinked temporary file per kind, its numbers into the
 * job-wide view, and its summary is let go of. What rank 0 holds for the summary is then
 * the job-wide tables, not a summary per process (issue 25).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "summary_agg.h"

int mg_summary_begin(mg_summary *s, const mg_job *job, const char *dir)
{
    memset(s, 0, sizeof(*s));
    s->job = job;
    for (int i = 0; i < MG_NROWS; i++) {
        char *path = mg_xasprintf("%s/summary-rows.XXXXXX", dir);
        int fd = mkstemp(path);
        if (fd >= 0)
            unlink(path); /* gone with the merge, however it ends */
        s->rows[i] = fd >= 0 ? fdopen(fd, "w+") : NULL;
        if (!s->rows[i]) {
            fprintf(stderr, "%s: %s: %s\n", MG_PROG, path, hpc_errtext(HPC_E_IO, errno));
            if (fd >= 0)
                close(fd);
            free(path);
            mg_summary_end(s);
            return -1;
        }
        free(path);
    }
    mg_agg_init(&s->agg, job, s->rows[MG_ROWS_RANKS]);
    return 0;
}

void mg_summary_add(mg_summary *s, mg_proc *p)
{
    mg_summary_rows_text(s->rows, p);
    mg_summary_rows_json(s->rows[MG_ROWS_JSON], p, s->nadded == 0);
    mg_agg_add(&s->agg, p);
    s->nadded++;
    mg_psum_free(&p->sum);
    memset(&p->sum, 0, sizeof(p->sum));
    for (size_t k = 0; k < p->nlocs; k++)
        mg_tsum_free(&p->locs[k].sum);
}

int mg_summary_finish(mg_summary *s)
{
    return mg_agg_finish(&s->agg);
}

int mg_summary_copy(const mg_summary *s, enum mg_rows which, FILE *f)
{
    FILE *from = s->rows[which];
    char buf[65536];
    size_t n;
    fflush(from);
    rewind(from);
    while ((n = fread(buf, 1, sizeof(buf), from)) > 0)
        fwrite(buf, 1, n, f);
    return ferror(from) ? -1 : 0;
}

void mg_summary_end(mg_summary *s)
{
    for (int i = 0; i < MG_NROWS; i++)
        if (s->rows[i])
            fclose(s->rows[i]);
    mg_agg_free(&s->agg);
    memset(s, 0, sizeof(*s));
}
