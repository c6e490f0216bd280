/*
 * part.c - what one merge rank learned about its processes, as bytes for rank 0.
 *
 * A part holds, for each process the rank merged: its process-local definitions
 * (regions, communicators and teams, interrupt generators, metrics), its summary, and
 * per location the calling contexts, OpenMP team claims and thread summary; then the
 * problems the rank found. Rank 0 reads every part into its own job, which then equals
 * the job a serial merge would have built.
 */
#include "part.h"

#include <stdlib.h>
#include <string.h>

#define PART_MAGIC 0x4d475054u /* "MGPT" */

static void put_proc(hpa_buf *b, const mg_proc *p)
{
    hpa_buf_u64(b, p->index);
    hpa_buf_u64(b, p->nregions);
    for (size_t i = 0; i < p->nregions; i++) {
        const mg_region *r = &p->regions[i];
        hpa_buf_str(b, r->name);
        hpa_buf_str(b, r->file);
        hpa_buf_u64(b, r->line);
        hpa_buf_u64(b, r->role);
        hpa_buf_u64(b, r->paradigm);
    }
    hpa_buf_u64(b, p->ncomms);
    for (size_t i = 0; i < p->ncomms; i++) {
        const mg_comm *c = &p->comms[i];
        hpa_buf_u64(b, c->type);
        hpa_buf_u64(b, c->gid_root);
        hpa_buf_u64(b, c->gid_seq);
        hpa_buf_s64(b, c->parent);
        hpa_buf_u64(b, c->size);
        uint64_t nm = c->members ? c->size : 0;
        hpa_buf_u64(b, nm);
        for (uint64_t k = 0; k < nm; k++)
            hpa_buf_u64(b, c->members[k]);
        hpa_buf_str(b, c->name);
    }
    hpa_buf_u64(b, p->nigens);
    for (size_t i = 0; i < p->nigens; i++) {
        hpa_buf_str(b, p->igens[i].name);
        hpa_buf_u64(b, p->igens[i].mode);
        hpa_buf_u64(b, p->igens[i].period);
    }
    hpa_buf_u64(b, p->nmetrics);
    for (size_t i = 0; i < p->nmetrics; i++) {
        hpa_buf_str(b, p->metrics[i].name);
        hpa_buf_str(b, p->metrics[i].unit);
        hpa_buf_str(b, p->metrics[i].desc);
    }
    hpa_buf_u64(b, p->iofiles.n);
    for (uint32_t i = 0; i < p->iofiles.n; i++)
        hpa_buf_str(b, hpa_strtab_get(&p->iofiles, i));
    hpa_buf_u64(b, p->niohs);
    for (size_t i = 0; i < p->niohs; i++) {
        const mg_ioh *h = &p->iohs[i];
        hpa_buf_u64(b, h->file);
        hpa_buf_u64(b, h->parent);
        hpa_buf_u64(b, h->paradigm);
        hpa_buf_u64(b, h->found);
        hpa_buf_u64(b, h->guess);
        hpa_buf_u64(b, h->mode);
        hpa_buf_u64(b, h->status);
        hpa_buf_u64(b, h->creation);
    }
    mg_psum_write(b, &p->sum);
    hpa_buf_u64(b, p->nlocs);
    for (size_t i = 0; i < p->nlocs; i++) {
        const mg_loc *l = &p->locs[i];
        hpa_buf_u64(b, l->ncc);
        for (size_t k = 0; k < l->ncc; k++) {
            hpa_buf_u64(b, l->cc[k].parent);
            hpa_buf_u64(b, l->cc[k].region);
        }
        hpa_buf_u64(b, l->nclaims);
        for (size_t k = 0; k < l->nclaims; k++)
            hpa_buf_u64(b, l->claims[k]);
        mg_tsum_write(b, &l->sum);
    }
}

void mg_part_write(hpa_buf *b, const mg_job *job, size_t first_problem)
{
    hpa_buf_u64(b, PART_MAGIC);
    size_t n = 0;
    for (size_t i = 0; i < job->nprocs; i++)
        n += job->procs[i].mine;
    hpa_buf_u64(b, n);
    for (size_t i = 0; i < job->nprocs; i++)
        if (job->procs[i].mine)
            put_proc(b, &job->procs[i]);
    hpa_buf_u64(b, job->nproblems - first_problem);
    for (size_t i = first_problem; i < job->nproblems; i++)
        hpa_buf_str(b, job->problems[i]);
    hpa_buf_u64(b, job->records);
    hpa_buf_u64(b, job->events);
    mg_xbuf(b);
}

static void clear_defs(mg_proc *p)
{
    for (size_t i = 0; i < p->nregions; i++) {
        free(p->regions[i].name);
        free(p->regions[i].file);
    }
    p->nregions = 0;
    for (size_t i = 0; i < p->ncomms; i++) {
        free(p->comms[i].members);
        free(p->comms[i].name);
    }
    p->ncomms = 0;
    for (size_t i = 0; i < p->nigens; i++)
        free(p->igens[i].name);
    p->nigens = 0;
    for (size_t i = 0; i < p->nmetrics; i++) {
        free(p->metrics[i].name);
        free(p->metrics[i].unit);
        free(p->metrics[i].desc);
    }
    p->nmetrics = 0;
    p->niohs = 0;
    hpa_strtab_free(&p->iofiles);
    p->iofiles = (hpa_strtab){0};
}

static void get_proc(hpa_buf *b, mg_proc *p)
{
    clear_defs(p);
    size_t n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_region *r = MG_PUSH(p->regions, p->nregions, p->capregions);
        r->name = mg_xbuf_str(b);
        r->file = mg_xbuf_str(b);
        r->line = (uint32_t)hpa_buf_get_u64(b);
        r->role = (uint8_t)hpa_buf_get_u64(b);
        r->paradigm = (uint8_t)hpa_buf_get_u64(b);
    }
    n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_comm *c = MG_PUSH(p->comms, p->ncomms, p->capcomms);
        c->type = (uint8_t)hpa_buf_get_u64(b);
        c->gid_root = hpa_buf_get_u64(b);
        c->gid_seq = hpa_buf_get_u64(b);
        c->parent = hpa_buf_get_s64(b);
        c->size = (uint32_t)hpa_buf_get_u64(b);
        size_t nm = hpa_buf_get_count(b);
        c->members = nm ? mg_xcalloc(nm, sizeof(uint64_t)) : NULL;
        for (size_t k = 0; k < nm; k++)
            c->members[k] = hpa_buf_get_u64(b);
        if (nm != c->size && c->type == MG_COMM_MPI)
            b->bad = true;
        c->name = mg_xbuf_str(b);
    }
    n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_igen *g = MG_PUSH(p->igens, p->nigens, p->capigens);
        g->name = mg_xbuf_str(b);
        g->mode = (uint8_t)hpa_buf_get_u64(b);
        g->period = hpa_buf_get_u64(b);
    }
    n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_metric *m = MG_PUSH(p->metrics, p->nmetrics, p->capmetrics);
        m->name = mg_xbuf_str(b);
        m->unit = mg_xbuf_str(b);
        m->desc = mg_xbuf_str(b);
    }
    n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        char *path = mg_xbuf_str(b);
        mg_xcstr(&p->iofiles, path);
        free(path);
    }
    n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        mg_ioh *h = MG_PUSH(p->iohs, p->niohs, p->capiohs);
        h->file = (uint32_t)hpa_buf_get_u64(b);
        h->parent = (uint32_t)hpa_buf_get_u64(b);
        h->paradigm = (uint8_t)hpa_buf_get_u64(b);
        h->found = (uint8_t)hpa_buf_get_u64(b);
        h->guess = (uint8_t)hpa_buf_get_u64(b);
        h->mode = (uint8_t)hpa_buf_get_u64(b);
        h->status = (uint32_t)hpa_buf_get_u64(b);
        h->creation = (uint32_t)hpa_buf_get_u64(b);
    }
    mg_psum_read(b, &p->sum);
    n = hpa_buf_get_count(b);
    if (n != p->nlocs)
        b->bad = true;
    for (size_t i = 0; i < p->nlocs && !b->bad; i++) {
        mg_loc *l = &p->locs[i];
        size_t ncc = hpa_buf_get_count(b);
        l->ncc = 0;
        mg_grow((void **)&l->cc, &l->capcc, ncc + 1, sizeof(mg_ccnode));
        for (size_t k = 0; k < ncc; k++) {
            l->cc[k].parent = (uint32_t)hpa_buf_get_u64(b);
            l->cc[k].region = (uint32_t)hpa_buf_get_u64(b);
            l->cc[k].depth = 1;
            l->cc[k].func = 0;
        }
        l->ncc = ncc;
        size_t nc = hpa_buf_get_count(b);
        l->nclaims = 0;
        for (size_t k = 0; k < nc; k++)
            *MG_PUSH(l->claims, l->nclaims, l->capclaims) = hpa_buf_get_u64(b);
        mg_tsum_read(b, &l->sum);
    }
}

int mg_part_read(hpa_buf *b, mg_job *job)
{
    b->pos = 0;
    if (hpa_buf_get_u64(b) != PART_MAGIC)
        return -1;
    size_t n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        uint64_t index = hpa_buf_get_u64(b);
        if (index >= job->nprocs) {
            b->bad = true;
            break;
        }
        get_proc(b, &job->procs[index]);
    }
    n = hpa_buf_get_count(b);
    for (size_t i = 0; i < n && !b->bad; i++) {
        char *s = mg_xbuf_str(b);
        if (job->nproblems < 1000)
            *MG_PUSH(job->problems, job->nproblems, job->capproblems) = s;
        else {
            job->problems_dropped++;
            free(s);
        }
    }
    job->records += hpa_buf_get_u64(b);
    job->events += hpa_buf_get_u64(b);
    return b->bad ? -1 : 0;
}
