/*
 * share.c - what merge rank r > 0 needs of the job before it merges its processes, as
 * bytes from rank 0 (issue 25).
 *
 * Rank 0 opens the whole job (lean), puts its processes in job order and shares them out
 * (run.c); every other merge rank then opens only its share, each process alone from its
 * directory, instead of every process of the job: what a merge rank holds of the job
 * falls as 1/K, and the job's files are read twice in all instead of K times. A share
 * holds the job-wide facts a merge rank uses (the world size; the command, the archive's
 * description; the missing ranks, whose peers' messages the summary counts) and, for each
 * of its processes, its place in job order (index, location group, rank), its name and
 * host, and its directory (none for a placeholder).
 */
#include "share.h"

#include <stdlib.h>
#include <string.h>

#define SHARE_MAGIC 0x4d475348u /* "MGSH" */

void mg_share_write(hpa_buf *b, const mg_job *job, const int *owner, int r)
{
    hpa_buf_u64(b, SHARE_MAGIC);
    hpa_buf_s64(b, job->world_size);
    hpa_buf_str(b, job->command);
    size_t nmissing = 0;
    for (size_t i = 0; i < job->nentries; i++)
        nmissing += job->entries[i].exp_proc < 0;
    hpa_buf_u64(b, nmissing);
    for (size_t i = 0; i < job->nentries; i++)
        if (job->entries[i].exp_proc < 0)
            hpa_buf_u64(b, (uint64_t)job->entries[i].rank);
    size_t n = 0;
    for (size_t i = 0; i < job->nentries; i++)
        n += owner[i] == r;
    hpa_buf_u64(b, n);
    for (size_t i = 0; i < job->nentries; i++) {
        const mg_entry *e = &job->entries[i];
        if (owner[i] != r)
            continue;
        hpa_buf_u64(b, i);
        hpa_buf_u64(b, e->group);
        hpa_buf_s64(b, e->rank);
        hpa_buf_str(b, e->name);
        hpa_buf_str(b, hpa_strtab_get(&job->hosts, e->host));
        hpa_buf_u64(b, e->exp_proc >= 0);
        if (e->exp_proc >= 0)
            hpa_buf_str(b, job->exp->procs[e->exp_proc].dir);
    }
    mg_xbuf(b);
}

int mg_share_read(hpa_buf *b, mg_share *s)
{
    memset(s, 0, sizeof(*s));
    b->pos = 0;
    if (hpa_buf_get_u64(b) != SHARE_MAGIC)
        return -1;
    s->world_size = hpa_buf_get_s64(b);
    s->command = mg_xbuf_str(b);
    size_t n = hpa_buf_get_count(b);
    s->missing = mg_xcalloc(n + 1, sizeof(uint64_t));
    for (size_t k = 0; k < n && !b->bad; k++)
        s->missing[s->nmissing++] = hpa_buf_get_u64(b);
    n = hpa_buf_get_count(b);
    s->procs = mg_xcalloc(n + 1, sizeof(mg_share_proc));
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_share_proc *sp = &s->procs[s->nprocs++];
        sp->index = (uint32_t)hpa_buf_get_u64(b);
        sp->group = hpa_buf_get_u64(b);
        sp->rank = hpa_buf_get_s64(b);
        sp->name = mg_xbuf_str(b);
        sp->host = mg_xbuf_str(b);
        sp->dir = hpa_buf_get_u64(b) ? mg_xbuf_str(b) : NULL;
    }
    if (b->bad) {
        mg_share_free(s);
        return -1;
    }
    return 0;
}

void mg_share_free(mg_share *s)
{
    for (size_t i = 0; i < s->nprocs; i++) {
        free(s->procs[i].name);
        free(s->procs[i].host);
        free(s->procs[i].dir);
    }
    free(s->procs);
    free(s->missing);
    free(s->command);
    memset(s, 0, sizeof(*s));
}
