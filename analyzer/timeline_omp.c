/*
 * timeline_omp.c - the OpenMP layer of the timelines (timeline.h), named and paired by the
 * OpenMP model (model/omp_model.h), each at its own thread's times: "omp parallel" on the
 * encountering thread from fork to join (with the pragma's location), "omp implicit task"
 * on each team member, waits ("omp implicit barrier", "omp_set_lock wait", "omp critical
 * wait" ...: locks and critical sections until the thread got them), worksharing ("omp
 * for" ...), "omp masked", explicit tasks ("omp task"). libomp reports a worker's implicit
 * barrier and task end at the next fork: the slices say so; `omp` counts that time as idle.
 * Names are stable; instance ids (region, task, wait id) and counts are the slices' numbers.
 *
 * Sizes: one thread's timeline state and the forks of its open regions at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "omp_proc.h"
#include "timeline.h"
#include "u64map.h"

typedef struct fork_at {
    uint64_t time, team, codeptr, outlined, psource; /* a fork: what its slice reports */
} fork_at;

/* Where a fork's pragma is: hpa_omp_site reads DWARF, so each fork site of a process is
 * looked up once. */
typedef struct site_at {
    uint64_t outlined, psource;
    hpa_loc loc;
} site_at;

typedef struct omp_layer {
    hpa_timeline *tl;
    hpa_omp_timeline model; /* the thread's OpenMP items */
    const hpa_process *pr;  /* what the items belong to */
    bool open;
    hpa_u64map forks_map; /* fork's region id -> index into forks */
    fork_at *forks;
    size_t nforks, forks_cap;
    const hpa_process *sites_of; /* the process whose sites are cached */
    hpa_u64map site_ids;         /* codeptr -> index into sites */
    site_at *sites;
    size_t nsites;
} omp_layer;

static const char *const keys_region[] = {"region", NULL};
static const char *const keys_parallel[] = {"region", "team_size", NULL};
static const char *const keys_itask[] = {"region", "thread_num", NULL};
static const char *const keys_task[] = {"task", NULL};
static const char *const keys_wait[] = {"wait_id", NULL};
static const char *const keys_count[] = {"count", NULL};

static int layer_open(hpa_timeline *tl, void **state)
{
    omp_layer *L = calloc(1, sizeof *L);
    *state = L;
    if (!L)
        return HPC_E_NOMEM;
    L->tl = tl;
    return 0;
}

static void layer_close(void *state)
{
    omp_layer *L = state;
    hpa_u64map_free(&L->forks_map);
    free(L->forks);
    hpa_u64map_free(&L->site_ids);
    free(L->sites);
    free(L);
}

static void fork_put(omp_layer *L, const hpa_omp_item *it)
{
    if (L->nforks == L->forks_cap) {
        size_t cap = L->forks_cap ? 2 * L->forks_cap : 64;
        fork_at *v = realloc(L->forks, sizeof(*v) * cap);
        if (!v) {
            hpa_timeline_fail(L->tl, HPC_E_NOMEM);
            return;
        }
        L->forks = v;
        L->forks_cap = cap;
    }
    L->forks[L->nforks] =
        (fork_at){it->begin, it->team, it->fork.codeptr, it->fork.outlined, it->fork.psource};
    if (hpa_u64map_put(&L->forks_map, it->region, (uint32_t)L->nforks++))
        hpa_timeline_fail(L->tl, HPC_E_NOMEM);
}

static const fork_at *fork_get(omp_layer *L, uint64_t region)
{
    uint64_t k;
    if (!hpa_u64map_get(&L->forks_map, region, &k))
        return NULL;
    return &L->forks[k];
}

/* "omp for", "omp implicit barrier", "omp_set_lock" (the model's name of construct c),
 * or with " wait" its wait: made once, kept for the run (slices keep the pointer). */
static const char *omp_name(unsigned c, bool wait)
{
    static char names[HPA_OC_COUNT][2][64];
    c = c < HPA_OC_COUNT ? c : HPA_OC_NONE;
    char *n = names[c][wait];
    if (!n[0]) {
        hpa_omp_construct_name(c, HPA_LANG_UNKNOWN, n, sizeof(names[c][wait]) - 8);
        if (wait)
            strcat(n, " wait");
    }
    return n;
}

static void add(omp_layer *L, const char *name, const char *const *keys, uint64_t b, uint64_t e,
                int64_t v0, int64_t v1)
{
    hpa_tl_slice s = {.name = name, .keys = keys, .v = {v0, v1}};
    hpa_timeline_slice(L->tl, L->pr, hpa_timeline_layer_index(&hpa_tl_layer_omp), b, e, &s);
}

/* Where the pragma of fork f is (the model's site), looked up once per process and site. */
static hpa_loc fork_site(omp_layer *L, const fork_at *f)
{
    if (L->sites_of != L->pr) {
        hpa_u64map_free(&L->site_ids);
        L->nsites = 0;
        L->sites_of = L->pr;
    }
    uint64_t k;
    if (hpa_u64map_get(&L->site_ids, f->codeptr, &k) && L->sites[k].outlined == f->outlined &&
        L->sites[k].psource == f->psource)
        return L->sites[k].loc;
    hpa_loc loc = hpa_omp_site(hpa_timeline_profile(L->tl)->syms, L->pr->map, f->outlined,
                               f->codeptr, f->psource);
    site_at *v = realloc(L->sites, sizeof(*v) * (L->nsites + 1));
    if (v) {
        L->sites = v;
        v[L->nsites] = (site_at){f->outlined, f->psource, loc};
        if (hpa_u64map_put(&L->site_ids, f->codeptr, L->nsites) == 0)
            L->nsites++;
    }
    return loc;
}

/* The region's slice on its encountering thread, from fork to join, where the pragma is. */
static void parallel_slice(omp_layer *L, const hpa_omp_item *it)
{
    const fork_at *f = fork_get(L, it->region);
    if (!f)
        return;
    hpa_tl_slice s = {.name = omp_name(HPA_OC_PARALLEL, false),
                      .keys = keys_parallel,
                      .v = {(int64_t)it->region, (int64_t)f->team}};
    if (f->codeptr || f->outlined || f->psource) {
        s.site_key = "location";
        s.site = fork_site(L, f);
    }
    hpa_timeline_slice(L->tl, L->pr, hpa_timeline_layer_index(&hpa_tl_layer_omp), f->time, it->end,
                       &s);
}

/* One item of the thread's OpenMP timeline as a slice. */
static void item(void *arg, const hpa_omp_item *it)
{
    omp_layer *L = arg;
    switch (it->kind) {
    case HPA_OMP_IT_FORK:
        fork_put(L, it);
        return;
    case HPA_OMP_IT_JOIN:
        parallel_slice(L, it);
        return;
    case HPA_OMP_IT_OPEN:
        return;
    case HPA_OMP_IT_CLOSE:
        if (it->construct == HPA_OC_PARALLEL)
            add(L, "omp implicit task", keys_itask, it->begin, it->end, (int64_t)it->region,
                it->thread_num);
        else
            add(L, omp_name(it->construct, false), keys_task, it->begin, it->end, (int64_t)it->id,
                0);
        return;
    default:
        break;
    }
    switch (it->construct) {
    case HPA_OC_LOCK:
    case HPA_OC_NEST_LOCK:
    case HPA_OC_ATOMIC:
    case HPA_OC_CRITICAL:
    case HPA_OC_ORDERED: /* the wait: until the thread got it */
        if (it->acquired > it->begin)
            add(L, omp_name(it->construct, true), keys_wait, it->begin, it->acquired,
                (int64_t)it->id, 0);
        return;
    case HPA_OC_LOOP:
    case HPA_OC_SECTIONS:
    case HPA_OC_SINGLE:
    case HPA_OC_WORKSHARE:
    case HPA_OC_DISTRIBUTE:
    case HPA_OC_TASKLOOP:
    case HPA_OC_SCOPE:
        add(L, omp_name(it->construct, false), keys_count, it->begin, it->end, (int64_t)it->count,
            0);
        return;
    case HPA_OC_MASKED:
        add(L, omp_name(it->construct, false), NULL, it->begin, it->end, 0, 0);
        return;
    default: /* barriers, taskwait, taskgroup, reduction */
        add(L, omp_name(it->construct, false), keys_region, it->begin, it->end, (int64_t)it->region,
            0);
        return;
    }
}

static void layer_record(hpa_timeline *tl, void *state, const hpa_process *pr, const hpa_thread *t,
                         const hpc_record *rec)
{
    (void)tl;
    (void)t;
    omp_layer *L = state;
    if (!L->open) { /* the thread's timeline: from its first record to after its last */
        hpa_omp_timeline_init(&L->model, item, L);
        L->pr = pr;
        L->open = true;
    }
    if (rec->kind != HPC_K_mpi_p2p && rec->kind != HPC_K_mpi_coll)
        hpa_omp_timeline_feed(&L->model, rec); /* mpi_call too: the clocks rule */
}

static void layer_thread_end(hpa_timeline *tl, void *state, const hpa_process *pr,
                             const hpa_thread *t)
{
    (void)pr;
    (void)t;
    omp_layer *L = state;
    if (L->open) { /* its held items are slices too */
        hpa_omp_timeline_end(&L->model);
        hpa_tl_stats *st = hpa_timeline_counters(tl);
        st->omp_repaired += L->model.repaired;
        st->omp_closed += L->model.closed_at_end;
        if (L->model.max_shift_ns > st->omp_shift_ns)
            st->omp_shift_ns = L->model.max_shift_ns;
        L->open = false;
    }
    hpa_u64map_free(&L->forks_map);
    L->nforks = 0;
}

const hpa_tl_layer hpa_tl_layer_omp = {
    .key = "omp",
    .title = "OpenMP",
    .open = layer_open,
    .record = layer_record,
    .thread_end = layer_thread_end,
    .close = layer_close,
};
