/*
 * mpi_stats.c - MPI numbers shared by hpanalyze's mpi report and hpmerge's summary
 * (see mpi_stats.h).
 */
#include "mpi_stats.h"

#include <math.h>
#include <string.h>

static uint64_t min_u64(uint64_t a, uint64_t b)
{
    return a < b ? a : b;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

void hpa_mpi_sum_init(hpa_mpi_sum *s)
{
    memset(s, 0, sizeof *s);
    s->min_ns = s->msg_min = UINT64_MAX;
}

void hpa_mpi_sum_add(hpa_mpi_sum *s, uint64_t dur, const hpa_mpi_sum *d)
{
    s->calls++;
    s->time_ns += dur;
    s->min_ns = min_u64(s->min_ns, dur);
    s->max_ns = max_u64(s->max_ns, dur);
    s->sends += d->sends;
    s->bytes_sent += d->bytes_sent;
    s->recvs += d->recvs;
    s->bytes_recv += d->bytes_recv;
    s->other += d->sends == 0 && d->recvs == 0;
    s->coll_calls += d->coll_calls;
    s->coll_sent += d->coll_sent;
    s->coll_recv += d->coll_recv;
    s->msg_min = min_u64(s->msg_min, d->msg_min);
    s->msg_max = max_u64(s->msg_max, d->msg_max);
}

void hpa_mpi_sum_merge(hpa_mpi_sum *into, const hpa_mpi_sum *s)
{
    into->calls += s->calls;
    into->time_ns += s->time_ns;
    into->min_ns = min_u64(into->min_ns, s->min_ns);
    into->max_ns = max_u64(into->max_ns, s->max_ns);
    into->sends += s->sends;
    into->bytes_sent += s->bytes_sent;
    into->recvs += s->recvs;
    into->bytes_recv += s->bytes_recv;
    into->other += s->other;
    into->coll_calls += s->coll_calls;
    into->coll_sent += s->coll_sent;
    into->coll_recv += s->coll_recv;
    into->msg_min = min_u64(into->msg_min, s->msg_min);
    into->msg_max = max_u64(into->msg_max, s->msg_max);
}

void hpa_mpi_call_open(hpa_mpi_call *c, uint32_t fn, const hpc_rec_mpi_call *r)
{
    *c = (hpa_mpi_call){.open = true,
                        .fn = fn,
                        .enter = r->time_enter,
                        .leave = r->time_leave,
                        .site_pc = r->callsite,
                        .flags = r->flags};
    hpa_mpi_sum_init(&c->d);
}

bool hpa_mpi_call_p2p(hpa_mpi_call *c, const hpc_rec_mpi_p2p *p)
{
    if (!c->open || p->peer < 0)
        return false; /* MPI_PROC_NULL, or a request not yet matched: no message */
    switch (p->op) {
    case HPC_P2P_SEND:
    case HPC_P2P_ISEND:
        c->d.sends++;
        c->d.bytes_sent += p->bytes;
        c->d.msg_min = min_u64(c->d.msg_min, p->bytes);
        c->d.msg_max = max_u64(c->d.msg_max, p->bytes);
        return true;
    case HPC_P2P_RECV:
    case HPC_P2P_IRECV_COMPLETE:
        c->d.recvs++;
        c->d.bytes_recv += p->bytes;
        return false;
    }
    return false;
}

bool hpa_mpi_call_coll(hpa_mpi_call *c, const hpc_rec_mpi_coll *r)
{
    if (!c->open)
        return false;
    c->d.coll_calls++;
    c->d.coll_sent += r->bytes_sent;
    c->d.coll_recv += r->bytes_recv;
    return true;
}

uint64_t hpa_mpi_call_ns(const hpa_mpi_call *c)
{
    return c->leave > c->enter ? c->leave - c->enter : 0;
}

void hpa_mpi_window_init(hpa_mpi_window *w, const hpc_proc *p)
{
    memset(w, 0, sizeof *w);
    const hpc_record *r;
    if ((r = hpc_proc_next_of(p, HPC_K_mpi_init, &(size_t){0}))) {
        w->has_init = true;
        w->init_leave = r->u.mpi_init.time_leave;
    }
    if ((r = hpc_proc_next_of(p, HPC_K_mpi_finalize, &(size_t){0}))) {
        w->has_fin = true;
        w->fin_enter = r->u.mpi_finalize.time_enter;
    }
    if ((r = hpc_proc_next_of(p, HPC_K_mpi_abort, &(size_t){0}))) {
        w->aborted = true;
        w->abort_code = r->u.mpi_abort.errorcode;
        w->last = max_u64(w->last, r->u.mpi_abort.time);
    }
    if (p->has_end)
        w->last = max_u64(w->last, p->end.time);
}

void hpa_mpi_window_seen(hpa_mpi_window *w, uint64_t t)
{
    w->last = max_u64(w->last, t);
}

uint64_t hpa_mpi_app_ns(const hpa_mpi_window *w)
{
    if (!w->has_init)
        return 0;
    uint64_t end = w->has_fin ? w->fin_enter : w->last;
    return end > w->init_leave ? end - w->init_leave : 0;
}

bool hpa_mpi_is_lifecycle(const char *n)
{
    return !strcmp(n, "MPI_Init") || !strcmp(n, "MPI_Init_thread") || !strcmp(n, "MPI_Finalize");
}

void hpa_mpi_rank_add(hpa_mpi_sum *rank, hpa_mpi_window *w, const hpa_mpi_call *c, bool lifecycle)
{
    bool nested = c->flags & HPC_MPI_CALL_NESTED;
    bool in_window = !w->has_init || c->enter >= w->init_leave;
    w->last = max_u64(w->last, c->leave);
    hpa_mpi_sum_add(rank, nested || !in_window || lifecycle ? 0 : hpa_mpi_call_ns(c), &c->d);
}

void hpa_mpi_cov_add(hpa_mpi_cov_acc *a, const hpa_mpi_sum *rank)
{
    if (!rank->calls)
        return;
    double t = (double)rank->time_ns;
    a->sum += t;
    a->sq += t * t;
    a->n++;
}

double hpa_mpi_cov_of(const hpa_mpi_cov_acc *a)
{
    if (a->n < 2 || a->sum <= 0)
        return 0;
    double mean = a->sum / (double)a->n, var = a->sq / (double)a->n - mean * mean;
    return var > 0 ? sqrt(var) / mean : 0;
}

double hpa_mpi_cov(const hpa_mpi_sum *per_rank, size_t nranks)
{
    hpa_mpi_cov_acc a = {0};
    for (size_t k = 0; k < nranks; k++)
        hpa_mpi_cov_add(&a, &per_rank[k]);
    return hpa_mpi_cov_of(&a);
}
