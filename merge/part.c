/*
 * part.c - what one merge rank learned about its processes, as bytes for rank 0.
 *
 * A part, sent in pieces (mg_part_next), holds the member lists of the MPI communicators its
 * processes use, each once (a communicator's members record the same list), then, for each process
 * the rank merged: its process-local definitions (regions, communicators and teams, interrupt
 * generators, metrics), its summary, and per location the calling contexts, OpenMP team claims and
 * thread summary; then the problems the rank found. Rank 0 reads every part, a piece at a time:
 * each process comes as an mg_proc of its own (mg_job_entry_proc) whose definitions are unified
 * and whose summary is added as it comes (defs.h, summary.h), then let go of, as a serial merge
 * does with its own.
 */
#include "part.h"

#include <stdlib.h>
#include <string.h>

#define PART_MAGIC 0x4d475054u /* "MGPT" */

/* The job's member list id -> its number in this part + 1 (0: not in it yet). */
typedef struct part_lists {
    hpa_u64map index;
    uint32_t n;
} part_lists;

static void put_proc(hpa_buf *b, const mg_proc *p, hpa_u64map *lists)
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
        uint64_t list = 0;
        if (c->mlist != UINT32_MAX)
            hpa_u64map_get(lists, c->mlist, &list);
        hpa_buf_u64(b, list); /* its number in the part's lists + 1, 0 = none */
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
        hpa_buf_u64(b, p->metrics[i].scope);
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

enum piece_type { PIECE_LISTS, PIECE_PROCS, PIECE_TAIL };

void mg_part_writer_init(mg_part_writer *w, mg_job *job, size_t first_problem, size_t piece_bytes)
{
    *w = (mg_part_writer){.job = job, .first_problem = first_problem, .piece_bytes = piece_bytes};
}

void mg_part_writer_free(mg_part_writer *w)
{
    hpa_u64map_free(&w->lists);
}

/* The member lists the processes use, each once, in order of first use. */
static void put_lists(hpa_buf *b, mg_part_writer *w)
{
    const mg_job *job = w->job;
    uint32_t *order = NULL;
    size_t nlists = 0, caplists = 0;
    for (size_t i = 0; i < job->nprocs; i++)
        for (size_t k = 0; job->procs[i].mine && k < job->procs[i].ncomms; k++) {
            uint32_t id = job->procs[i].comms[k].mlist;
            if (id == UINT32_MAX || hpa_u64map_get(&w->lists, id, NULL))
                continue;
            *MG_PUSH(order, nlists, caplists) = id;
            mg_xput(&w->lists, id, nlists);
        }
    hpa_buf_u64(b, nlists);
    for (size_t l = 0; l < nlists; l++) {
        size_t n = job->member_lists.lens[order[l]] / sizeof(uint64_t);
        const uint64_t *m = (const uint64_t *)(const void *)job->member_lists.strs[order[l]];
        hpa_buf_u64(b, n);
        for (size_t k = 0; k < n; k++)
            hpa_buf_u64(b, m[k]);
    }
    free(order);
}

/* Processes from w->next on until the piece holds w->piece_bytes; each is let go of
 * (its definitions and summary) once in it: the piece holds it now. */
static void put_procs(hpa_buf *b, mg_part_writer *w)
{
    mg_job *job = w->job;
    size_t n = 0; /* at least one: the piece's head may hold piece_bytes already */
    for (; w->next < job->nprocs && (n == 0 || b->n < w->piece_bytes); w->next++) {
        mg_proc *p = &job->procs[w->next];
        if (!p->mine)
            continue;
        n++;
        hpa_buf_u64(b, 1); /* a process follows; 0 ends the piece */
        put_proc(b, p, &w->lists);
        mg_proc_drop_defs(p);
        mg_psum_free(&p->sum);
        for (size_t k = 0; k < p->nlocs; k++)
            mg_tsum_free(&p->locs[k].sum);
    }
    hpa_buf_u64(b, 0);
}

bool mg_part_next(mg_part_writer *w, hpa_buf *b)
{
    const mg_job *job = w->job;
    if (w->done)
        return false;
    hpa_buf_u64(b, PART_MAGIC);
    bool procs_left = false;
    for (size_t i = w->next; i < job->nprocs && !procs_left; i++)
        procs_left = job->procs[i].mine;
    if (!w->started) {
        w->started = true;
        hpa_buf_u64(b, PIECE_LISTS);
        put_lists(b, w);
    } else if (procs_left) {
        hpa_buf_u64(b, PIECE_PROCS);
        put_procs(b, w);
    } else {
        hpa_buf_u64(b, PIECE_TAIL);
        hpa_buf_u64(b, job->nproblems - w->first_problem);
        for (size_t i = w->first_problem; i < job->nproblems; i++)
            hpa_buf_str(b, job->problems[i]);
        hpa_buf_u64(b, job->records);
        hpa_buf_u64(b, job->events);
        w->done = true;
    }
    mg_xbuf(b);
    return true;
}

static void get_proc(hpa_buf *b, mg_job *job, mg_proc *p, const mg_part_reader *lists)
{
    mg_proc_drop_defs(p);
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
        uint64_t list = hpa_buf_get_u64(b);
        c->members = NULL;
        c->mlist = UINT32_MAX;
        if (list > lists->n)
            b->bad = true;
        else if (list) {
            c->mlist = lists->ids[list - 1];
            c->members = (const uint64_t *)(const void *)job->member_lists.strs[c->mlist];
            if (job->member_lists.lens[c->mlist] != (size_t)c->size * sizeof(uint64_t))
                b->bad = true;
        }
        if (!c->members && c->type == MG_COMM_MPI)
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
        m->scope = (uint8_t)hpa_buf_get_u64(b);
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

void mg_part_reader_free(mg_part_reader *r)
{
    free(r->ids);
    r->ids = NULL;
    r->n = 0;
}

/* The part's member lists, as the job's. */
static void get_lists(hpa_buf *b, mg_part_reader *r, mg_job *job)
{
    mg_part_reader_free(r);
    r->n = hpa_buf_get_count(b);
    r->ids = mg_xcalloc(r->n + 1, sizeof(uint32_t));
    uint64_t *m = NULL;
    size_t capm = 0;
    for (size_t l = 0; l < r->n && !b->bad; l++) {
        size_t nm = hpa_buf_get_count(b);
        mg_grow((void **)&m, &capm, nm + 1, sizeof(uint64_t));
        for (size_t k = 0; k < nm; k++)
            m[k] = hpa_buf_get_u64(b);
        if (nm > UINT32_MAX)
            b->bad = true;
        else
            mg_job_members(job, m, (uint32_t)nm, &r->ids[l]);
    }
    free(m);
}

static void get_tail(hpa_buf *b, mg_job *job)
{
    size_t n = hpa_buf_get_count(b);
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
}

int mg_part_read(mg_part_reader *r, hpa_buf *b, mg_job *job, int (*got)(mg_proc *p, void *ctx),
                 void *ctx)
{
    b->pos = 0;
    if (hpa_buf_get_u64(b) != PART_MAGIC)
        return -1;
    bool failed = false;
    uint64_t type = hpa_buf_get_u64(b);
    if (type == PIECE_LISTS) {
        get_lists(b, r, job);
    } else if (type == PIECE_PROCS) {
        for (uint64_t more; !b->bad && (more = hpa_buf_get_u64(b)) != 0;) {
            if (more != 1) {
                b->bad = true;
                break;
            }
            uint64_t index = hpa_buf_get_u64(b);
            if (index >= job->nentries) {
                b->bad = true;
                break;
            }
            mg_proc *p = mg_job_entry_proc(job, index);
            get_proc(b, job, p, r);
            if (b->bad) {
                mg_proc_free(p);
                free(p);
            } else if (got(p, ctx) != 0) {
                failed = true;
            }
        }
    } else if (type == PIECE_TAIL) {
        get_tail(b, job);
    } else {
        b->bad = true;
    }
    return b->bad ? -1 : failed ? -2 : 0;
}
