/*
 * omp_timeline.c - one thread's OpenMP records as items (omp_model.h): tasks paired,
 * intervals complete, times the thread's own, the clock rule between MPI calls and
 * OpenMP events applied and counted.
 *
 * Sizes: a few open tasks (nesting depth), at most HPA_OMP_HOLD held items; the state is
 * one struct per thread being read, no allocation.
 */
#include <string.h>

#include "omp_model.h"

void hpa_omp_timeline_init(hpa_omp_timeline *tl, hpa_omp_emit_fn emit, void *arg)
{
    memset(tl, 0, sizeof(*tl));
    tl->emit = emit;
    tl->arg = arg;
}

/* ------------------------------------------------------------ held items */

static void release(hpa_omp_timeline *tl, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        tl->emit(tl->arg, &tl->held[i]);
    memmove(tl->held, tl->held + n, (tl->nheld - n) * sizeof(tl->held[0]));
    tl->nheld -= n;
}

/* Give out the held items no later MPI call can need to move: a call recorded after them
 * began after the thread's newest OpenMP time, up to the clocks' difference. */
static void settle(hpa_omp_timeline *tl)
{
    unsigned k = 0;
    while (k < tl->nheld && tl->held[k].end + HPA_OMP_SKEW_NS < tl->newest)
        k++;
    release(tl, k);
}

static void hold(hpa_omp_timeline *tl, hpa_omp_item *it)
{
    if (it->end < it->begin) { /* damaged: an interval that ends before it begins */
        it->end = it->begin;
        it->repaired = 1;
        tl->repaired++;
    }
    if (it->acquired < it->begin || it->acquired > it->end)
        it->acquired = it->acquired < it->begin ? it->begin : it->end;
    if (tl->nheld == HPA_OMP_HOLD)
        release(tl, 1);
    tl->held[tl->nheld++] = *it;
    if (it->end > tl->newest)
        tl->newest = it->end;
    if (it->end > tl->last)
        tl->last = it->end;
    settle(tl);
}

/* Move time *t of item it to `to` (the clock rule), counting the move. */
static void move(hpa_omp_timeline *tl, hpa_omp_item *it, uint64_t *t, uint64_t to, bool *moved)
{
    uint64_t d = *t > to ? *t - to : to - *t;
    if (d == 0)
        return;
    if (d > tl->max_shift_ns)
        tl->max_shift_ns = d;
    *t = to;
    it->repaired = 1;
    *moved = true;
}

/* Times after `enter`, by no more than the clocks can differ, move back to it. */
static void lower(hpa_omp_timeline *tl, hpa_omp_item *it, uint64_t enter)
{
    bool moved = false;
    uint64_t *times[] = {&it->begin, &it->acquired, &it->end};
    for (unsigned i = 0; i < 3; i++)
        if (*times[i] > enter && *times[i] - enter <= HPA_OMP_SKEW_NS)
            move(tl, it, times[i], enter, &moved);
    if (moved)
        tl->repaired++;
}

/* The begin times of open tasks move with their OPEN items. */
static void lower_open(hpa_omp_timeline *tl, uint64_t enter)
{
    for (unsigned i = 0; i < tl->nimpl && i < HPA_OMP_NEST; i++)
        if (tl->impl[i].t > enter && tl->impl[i].t - enter <= HPA_OMP_SKEW_NS)
            tl->impl[i].t = enter;
    for (unsigned i = 0; i < tl->nexpl && i < HPA_OMP_NEST; i++)
        if (tl->expl[i].t > enter && tl->expl[i].t - enter <= HPA_OMP_SKEW_NS)
            tl->expl[i].t = enter;
    for (unsigned i = 0; i < tl->nfork && i < HPA_OMP_NEST; i++)
        if (tl->forks[i].t > enter && tl->forks[i].t - enter <= HPA_OMP_SKEW_NS)
            tl->forks[i].t = enter;
}

/* An MPI call [enter, leave], recorded after every held item: none of them can lie
 * inside it, so whatever does lies there by the clocks' difference. */
static void call(hpa_omp_timeline *tl, uint64_t enter, uint64_t leave)
{
    for (unsigned i = 0; i < tl->nheld; i++)
        lower(tl, &tl->held[i], enter);
    lower_open(tl, enter);
    release(tl, tl->nheld);
    tl->mpi_enter = enter;
    tl->mpi_leave = leave > enter ? leave : enter;
    if (tl->mpi_leave > tl->last)
        tl->last = tl->mpi_leave;
}

/* An OpenMP item recorded after the last MPI call: its own events (a point, a begin
 * inside the call) lie after the call's end; an interval that began before the call
 * holds it and only ends after it. */
static void after_call(hpa_omp_timeline *tl, hpa_omp_item *it)
{
    uint64_t L = tl->mpi_leave;
    if (L == 0)
        return;
    bool moved = false;
    bool own_begin = it->kind != HPA_OMP_IT_CLOSE && it->kind != HPA_OMP_IT_JOIN;
    if (own_begin && it->begin >= tl->mpi_enter && it->begin < L &&
        L - it->begin <= HPA_OMP_SKEW_NS)
        move(tl, it, &it->begin, L, &moved);
    if (it->acquired >= tl->mpi_enter && it->acquired < L && L - it->acquired <= HPA_OMP_SKEW_NS)
        move(tl, it, &it->acquired, L, &moved);
    if (it->end < L && L - it->end <= HPA_OMP_SKEW_NS)
        move(tl, it, &it->end, L, &moved);
    if (moved)
        tl->repaired++;
}

static void put(hpa_omp_timeline *tl, hpa_omp_item *it)
{
    after_call(tl, it);
    hold(tl, it);
}

/* ------------------------------------------------------------ pairing */

static hpa_omp_item item(unsigned kind, unsigned construct, uint64_t begin, uint64_t end)
{
    return (hpa_omp_item){.kind = (uint8_t)kind,
                          .construct = (uint8_t)construct,
                          .wait = hpa_omp_construct(construct)->wait,
                          .begin = begin,
                          .acquired = begin,
                          .end = end};
}

static void fork_begin(hpa_omp_timeline *tl, const hpc_rec_omp_parallel_begin *r)
{
    hpa_omp_item it = item(HPA_OMP_IT_FORK, HPA_OC_PARALLEL, r->time, r->time);
    it.region = r->region;
    it.codeptr = r->codeptr;
    it.team = r->team_size < UINT32_MAX ? (uint32_t)r->team_size : 0;
    it.fork = *r;
    put(tl, &it);
    if (tl->nfork < HPA_OMP_NEST)
        tl->forks[tl->nfork].region = r->region, tl->forks[tl->nfork].t = it.begin,
        tl->forks[tl->nfork].codeptr = r->codeptr;
    tl->nfork++;
}

static void fork_end(hpa_omp_timeline *tl, const hpc_rec_omp_parallel_end *r)
{
    hpa_omp_item it = item(HPA_OMP_IT_JOIN, HPA_OC_PARALLEL, 0, r->time);
    it.region = r->region;
    unsigned kept = tl->nfork < HPA_OMP_NEST ? tl->nfork : HPA_OMP_NEST;
    for (unsigned i = kept; i-- > 0;) {
        if (tl->forks[i].region != r->region)
            continue;
        it.begin = it.acquired = tl->forks[i].t;
        it.codeptr = tl->forks[i].codeptr;
        memmove(&tl->forks[i], &tl->forks[i + 1], (kept - i - 1) * sizeof(tl->forks[0]));
        tl->nfork--;
        break;
    }
    if (it.begin == 0)
        it.begin = it.acquired = it.end;
    put(tl, &it);
}

static void implicit_task(hpa_omp_timeline *tl, const hpc_rec_omp_implicit_task *r)
{
    if (r->endpoint == HPC_OMP_BEGIN) {
        hpa_omp_item it = item(HPA_OMP_IT_OPEN, HPA_OC_PARALLEL, r->time, r->time);
        it.region = r->region;
        it.team = r->team_size < UINT32_MAX ? (uint32_t)r->team_size : 0;
        it.thread_num = r->thread_num < UINT32_MAX ? (uint32_t)r->thread_num : 0;
        put(tl, &it);
        if (tl->nimpl < HPA_OMP_NEST)
            tl->impl[tl->nimpl].region = r->region, tl->impl[tl->nimpl].t = it.begin,
            tl->impl[tl->nimpl].team = it.team, tl->impl[tl->nimpl].thread_num = it.thread_num;
        tl->nimpl++;
        return;
    }
    if (r->endpoint != HPC_OMP_END)
        return;
    if (tl->nimpl == 0) {
        tl->unpaired++;
        return;
    }
    if (tl->nimpl > HPA_OMP_NEST) { /* the innermost were too deep to keep */
        tl->nimpl--;
        return;
    }
    /* the region's own task (the end names it), else the innermost */
    unsigned i = tl->nimpl - 1;
    for (unsigned k = tl->nimpl; k-- > 0;)
        if (r->region != 0 && tl->impl[k].region == r->region) {
            i = k;
            break;
        }
    hpa_omp_item it = item(HPA_OMP_IT_CLOSE, HPA_OC_PARALLEL, tl->impl[i].t, r->time);
    it.region = tl->impl[i].region;
    it.team = tl->impl[i].team;
    it.thread_num = tl->impl[i].thread_num;
    memmove(&tl->impl[i], &tl->impl[i + 1], (tl->nimpl - i - 1) * sizeof(tl->impl[0]));
    tl->nimpl--;
    put(tl, &it);
}

static void explicit_task(hpa_omp_timeline *tl, const hpc_rec_omp_task *r)
{
    if (r->event == HPC_OMP_TASK_BEGIN) {
        hpa_omp_item it = item(HPA_OMP_IT_OPEN, HPA_OC_TASK, r->time, r->time);
        it.id = r->task;
        it.codeptr = r->codeptr;
        put(tl, &it);
        if (tl->nexpl < HPA_OMP_NEST)
            tl->expl[tl->nexpl].task = r->task, tl->expl[tl->nexpl].t = it.begin;
        tl->nexpl++;
        return;
    }
    if (r->event != HPC_OMP_TASK_END)
        return;
    if (tl->nexpl > HPA_OMP_NEST) {
        tl->nexpl--;
        return;
    }
    for (unsigned i = tl->nexpl; i-- > 0;) {
        if (tl->expl[i].task != r->task)
            continue;
        hpa_omp_item it = item(HPA_OMP_IT_CLOSE, HPA_OC_TASK, tl->expl[i].t, r->time);
        it.id = r->task;
        memmove(&tl->expl[i], &tl->expl[i + 1], (tl->nexpl - i - 1) * sizeof(tl->expl[0]));
        tl->nexpl--;
        put(tl, &it);
        return;
    }
    tl->unpaired++;
}

static void span(hpa_omp_timeline *tl, unsigned construct, uint64_t b, uint64_t e, uint64_t region,
                 uint64_t codeptr)
{
    hpa_omp_item it = item(HPA_OMP_IT_SPAN, construct, b, e);
    it.region = region;
    it.codeptr = codeptr;
    put(tl, &it);
}

static void mutex(hpa_omp_timeline *tl, const hpc_rec_omp_mutex *r)
{
    unsigned held;
    unsigned c = hpa_omp_mutex_construct(r->kind, &held);
    /* request 0: acquired before the tool knew (it kept too many held); acquired 0 too:
     * only the release is known */
    uint64_t acq = r->time_acquired ? r->time_acquired : r->time_released;
    uint64_t req = r->time_request ? r->time_request : acq;
    hpa_omp_item it = item(HPA_OMP_IT_SPAN, c, req, r->time_released);
    it.acquired = acq;
    it.region = r->region;
    it.codeptr = r->codeptr;
    it.id = r->wait_id;
    put(tl, &it);
}

void hpa_omp_timeline_feed(hpa_omp_timeline *tl, const hpc_record *r)
{
    switch (r->kind) {
    case HPC_K_omp_parallel_begin:
        fork_begin(tl, &r->u.omp_parallel_begin);
        break;
    case HPC_K_omp_parallel_end:
        fork_end(tl, &r->u.omp_parallel_end);
        break;
    case HPC_K_omp_implicit_task:
        implicit_task(tl, &r->u.omp_implicit_task);
        break;
    case HPC_K_omp_task:
        explicit_task(tl, &r->u.omp_task);
        break;
    case HPC_K_omp_sync: {
        const hpc_rec_omp_sync *s = &r->u.omp_sync;
        span(tl, hpa_omp_sync_construct(s->kind), s->time_begin, s->time_end, s->region,
             s->codeptr);
        break;
    }
    case HPC_K_omp_mutex:
        mutex(tl, &r->u.omp_mutex);
        break;
    case HPC_K_omp_work: {
        const hpc_rec_omp_work *w = &r->u.omp_work;
        hpa_omp_item it =
            item(HPA_OMP_IT_SPAN, hpa_omp_work_construct(w->kind), w->time_begin, w->time_end);
        it.region = w->region;
        it.codeptr = w->codeptr;
        it.count = w->count;
        put(tl, &it);
        break;
    }
    case HPC_K_omp_masked: {
        const hpc_rec_omp_masked *m = &r->u.omp_masked;
        span(tl, HPA_OC_MASKED, m->time_begin, m->time_end, m->region, m->codeptr);
        break;
    }
    case HPC_K_mpi_call:
        call(tl, r->u.mpi_call.time_enter, r->u.mpi_call.time_leave);
        break;
    case HPC_K_sample_clock:
        if (r->u.sample_clock.time > tl->last)
            tl->last = r->u.sample_clock.time;
        break;
    case HPC_K_sample_counter:
        if (r->u.sample_counter.time > tl->last)
            tl->last = r->u.sample_counter.time;
        break;
    case HPC_K_thread_end:
        if (r->u.thread_end.time > tl->last)
            tl->last = r->u.thread_end.time;
        break;
    default:
        break;
    }
}

void hpa_omp_timeline_end(hpa_omp_timeline *tl)
{
    unsigned n = tl->nexpl < HPA_OMP_NEST ? tl->nexpl : HPA_OMP_NEST;
    for (unsigned i = n; i-- > 0;) {
        hpa_omp_item it = item(HPA_OMP_IT_CLOSE, HPA_OC_TASK, tl->expl[i].t, tl->last);
        it.id = tl->expl[i].task;
        it.repaired = 1;
        tl->closed_at_end++;
        hold(tl, &it);
    }
    n = tl->nimpl < HPA_OMP_NEST ? tl->nimpl : HPA_OMP_NEST;
    for (unsigned i = n; i-- > 0;) {
        hpa_omp_item it = item(HPA_OMP_IT_CLOSE, HPA_OC_PARALLEL, tl->impl[i].t, tl->last);
        it.region = tl->impl[i].region;
        it.team = tl->impl[i].team;
        it.thread_num = tl->impl[i].thread_num;
        it.repaired = 1;
        tl->closed_at_end++;
        hold(tl, &it);
    }
    /* a parallel region whose end was lost (a damaged or cut stream): joined at the end,
     * innermost first, as the trace's fork needs its join */
    n = tl->nfork < HPA_OMP_NEST ? tl->nfork : HPA_OMP_NEST;
    for (unsigned i = n; i-- > 0;) {
        hpa_omp_item it = item(HPA_OMP_IT_JOIN, HPA_OC_PARALLEL, tl->forks[i].t, tl->last);
        it.region = tl->forks[i].region;
        it.codeptr = tl->forks[i].codeptr;
        it.repaired = 1;
        tl->closed_at_end++;
        hold(tl, &it);
    }
    tl->nexpl = tl->nimpl = tl->nfork = 0;
    release(tl, tl->nheld);
}
