/*
 * defs.c - unify local definitions into global ones and write them (see defs.h).
 */
#include "defs.h"

#include "iodefs.h"

#include <stdlib.h>
#include <string.h>

typedef struct gregion {
    uint32_t name, file, line;
    uint8_t role, paradigm;
} gregion;

typedef struct gcc {
    uint32_t region;
    uint32_t parent; /* OTF2_UNDEFINED_CALLING_CONTEXT for roots */
} gcc;

typedef struct gig {
    uint32_t name;
    uint8_t mode;
    uint64_t period;
} gig;

typedef struct gmetric {
    uint32_t name, unit, desc;
    uint8_t scope; /* enum mg_metric_scope */
} gmetric;

/* A process's metric of MG_METRIC_PROCESS: a MetricInstance of its class, recorded by the
 * process's first location, scoped to its location group (as Score-P's scoped sampling
 * sets). Its global id follows the classes'. */
typedef struct ginstance {
    uint32_t cls;
    uint64_t recorder, group;
    uint32_t proc, local; /* the process and its local id, mapped to the instance */
} ginstance;

typedef struct ggroup {
    uint32_t name;
    uint8_t type, paradigm;
    uint32_t n;
    uint64_t *members;
} ggroup;

typedef struct gcomm {
    uint32_t name, group;
    uint32_t parent; /* OTF2_UNDEFINED_COMM if none */
    uint8_t paradigm;
} gcomm;

typedef struct gioh {
    uint32_t name, file; /* file: OTF2_UNDEFINED_IO_FILE if none */
    uint32_t parent;     /* OTF2_UNDEFINED_IO_HANDLE if none */
    uint8_t paradigm;    /* enum hpc_io_paradigm - 1 = the IoParadigm's id */
    bool precreated;
    uint8_t mode;
    uint32_t status;
} gioh;

typedef struct gdefs {
    mg_job *job;
    hpa_strtab strs;
    hpa_strtab region_keys;
    gregion *regions;
    size_t nregions, capregions;
    hpa_u64map cc_by_key;
    gcc *ccs;
    size_t nccs, capccs;
    hpa_strtab ig_keys;
    gig *igs;
    size_t nigs, capigs;
    hpa_strtab metric_keys;
    gmetric *metrics;
    size_t nmetrics, capmetrics;
    ginstance *instances;
    size_t ninstances, capinstances;
    hpa_strtab group_keys;
    ggroup *groups;
    size_t ngroups, capgroups;
    hpa_strtab comm_keys;
    gcomm *comms;
    size_t ncomms, capcomms;
    uint32_t mpi_locations; /* COMM_LOCATIONS group of MPI, UINT32_MAX if none */
    uint32_t omp_locations; /* of OpenMP */
    uint32_t self_comm;     /* UINT32_MAX until needed */
    uint64_t nworld;        /* MPI ranks in the COMM_LOCATIONS group */
    bool used_par[32];
    /* per process and per location maps: local id -> global id */
    uint64_t **region_map, **comm_map, **ig_map, **metric_map;
    uint64_t **cc_map; /* indexed by location number in job order */
    /* I/O (-i): files unified by path (one file system for the job), handles per process */
    hpa_strtab file_keys;
    uint32_t *file_names;
    size_t nfile_names, capfile_names;
    gioh *iohs;
    size_t niohs, capiohs;
    bool used_io_par[HPC_IO_MPIIO];
    uint64_t **iofile_map, **ioh_map;
    /* processes are added in job order: the next one's index and first location number */
    size_t next, next_loc;
    size_t nlocs;
    /* what the global definitions need of a process once it is let go of (rank 0 holds
     * entries, not mg_procs: job.h): its locations' names and events, by location number */
    hpa_strtab loc_names;
    uint32_t *loc_name;
    uint64_t *loc_events;
    uint64_t t_first, t_last; /* the events' time range; t_first > t_last: none yet */
    bool have_real;           /* the first process with a real time: it and its begin */
    uint64_t real_time, real_begin;
    /* processes with a metric instance, whose mapping tables are written at the end */
    struct kept {
        mg_proc *p;
        size_t first_loc;
    } * kept;
    size_t nkept, capkept;
} gdefs;

/* OTF2 strings are UTF-8: names from damaged streams are cleaned first. */
static uint32_t str(gdefs *g, const char *s)
{
    char *clean = mg_utf8_clean(s ? s : "");
    uint32_t id = mg_xcstr(&g->strs, clean);
    free(clean);
    return id;
}

/* Intern a key built from parts, each followed by a NUL. */
static uint32_t key_of(hpa_strtab *t, const void *bytes, size_t n)
{
    return mg_xintern(t, bytes, n);
}

/* ------------------------------------------------------------ regions */

static uint32_t region_id(gdefs *g, const mg_region *r)
{
    hpa_buf k = {0};
    hpa_buf_str(&k, r->name);
    hpa_buf_str(&k, r->file);
    hpa_buf_u64(&k, r->line);
    hpa_buf_u64(&k, r->role);
    hpa_buf_u64(&k, r->paradigm);
    mg_xbuf(&k);
    uint32_t id = key_of(&g->region_keys, k.p, k.n);
    hpa_buf_free(&k);
    if (id == g->nregions) {
        gregion *gr = MG_PUSH(g->regions, g->nregions, g->capregions);
        *gr = (gregion){str(g, r->name), str(g, r->file), r->line, r->role, r->paradigm};
        if (r->paradigm < 32)
            g->used_par[r->paradigm] = true;
    }
    return id;
}

/* ------------------------------------------------------------ groups and comms */

static uint32_t group_id(gdefs *g, const char *name, uint8_t type, uint8_t paradigm,
                         const uint64_t *members, uint32_t n)
{
    hpa_buf k = {0};
    hpa_buf_u64(&k, type);
    hpa_buf_u64(&k, paradigm);
    hpa_buf_u64(&k, n);
    for (uint32_t i = 0; i < n; i++)
        hpa_buf_u64(&k, members[i]);
    mg_xbuf(&k);
    uint32_t id = key_of(&g->group_keys, k.p, k.n);
    hpa_buf_free(&k);
    if (id == g->ngroups) {
        ggroup *gg = MG_PUSH(g->groups, g->ngroups, g->capgroups);
        *gg = (ggroup){str(g, name), type, paradigm, n, NULL};
        if (n) {
            gg->members = mg_xmalloc(n * sizeof(uint64_t));
            memcpy(gg->members, members, n * sizeof(uint64_t));
        }
    }
    return id;
}

/* The group of an MPI communicator's members, keyed by the job's id of the list (each
 * distinct list has one): no key as long as the list per process and communicator. */
static uint32_t members_group_id(gdefs *g, const mg_comm *c)
{
    uint64_t key[3] = {UINT64_MAX, OTF2_GROUP_TYPE_COMM_GROUP, c->mlist};
    uint32_t id = key_of(&g->group_keys, key, sizeof(key));
    if (id == g->ngroups) {
        ggroup *gg = MG_PUSH(g->groups, g->ngroups, g->capgroups);
        *gg = (ggroup){str(g, ""), OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, c->size, NULL};
        if (c->size) {
            gg->members = mg_xmalloc(c->size * sizeof(uint64_t));
            memcpy(gg->members, c->members, c->size * sizeof(uint64_t));
        }
    }
    return id;
}

/* Get or create the comm with this key; *fresh says whether it was created. */
static uint32_t comm_slot(gdefs *g, const void *key, size_t n, bool *fresh)
{
    uint32_t id = key_of(&g->comm_keys, key, n);
    *fresh = id == g->ncomms;
    if (*fresh) {
        gcomm *c = MG_PUSH(g->comms, g->ncomms, g->capcomms);
        *c = (gcomm){0, 0, OTF2_UNDEFINED_COMM, 0};
    }
    return id;
}

static void need_mpi_locations(gdefs *g)
{
    if (g->mpi_locations != UINT32_MAX)
        return;
    mg_job *job = g->job;
    g->nworld = job->world_size > 0 ? (uint64_t)job->world_size : 0;
    uint64_t *m = mg_xcalloc(g->nworld + 1, sizeof(uint64_t));
    for (size_t i = 0; i < job->nentries; i++) {
        const mg_entry *e = &job->entries[i];
        if (e->group < g->nworld && e->nlocs)
            m[e->group] = (e->group << 32) | e->seqs[0];
    }
    g->mpi_locations = group_id(g, "MPI_COMM_WORLD locations", OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                OTF2_PARADIGM_MPI, m, (uint32_t)g->nworld);
    free(m);
}

static uint32_t mpi_comm_id(gdefs *g, mg_proc *p, const mg_comm *c)
{
    bool fresh;
    if (c->type == MG_COMM_SELF) {
        uint32_t id = comm_slot(g, "SELF", 4, &fresh);
        if (fresh) {
            need_mpi_locations(g);
            g->comms[id].name = str(g, "MPI_COMM_SELF");
            g->comms[id].group =
                group_id(g, "MPI_COMM_SELF", OTF2_GROUP_TYPE_COMM_SELF, OTF2_PARADIGM_MPI, NULL, 0);
            g->comms[id].paradigm = OTF2_PARADIGM_MPI;
        }
        return id;
    }
    /* (gid_root, gid_seq) names the communicator in every member; its members (the job's
     * id of their list) are part of the key too, so a damaged record in one process
     * cannot give the others' events a group they do not fit */
    uint64_t key[5] = {1, c->gid_root, c->gid_seq, c->size, c->mlist};
    uint32_t id = comm_slot(g, key, sizeof(key), &fresh);
    if (fresh) {
        need_mpi_locations(g);
        for (uint32_t k = 0; k < c->size; k++)
            if (c->members[k] >= g->nworld) {
                mg_job_problem(g->job,
                               "process %s: communicator %s lists world rank %llu beyond "
                               "the job's %llu ranks; members dropped",
                               p->name, c->name, (unsigned long long)c->members[k],
                               (unsigned long long)g->nworld);
                g->comms[id].name = str(g, c->name);
                g->comms[id].group =
                    group_id(g, c->name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI, NULL, 0);
                g->comms[id].paradigm = OTF2_PARADIGM_MPI;
                return id;
            }
        g->comms[id].name = str(g, c->name);
        g->comms[id].group = members_group_id(g, c);
        g->comms[id].paradigm = OTF2_PARADIGM_MPI;
    }
    return id;
}

/* Index of each location in the OpenMP COMM_LOCATIONS group = its number in job order. */
static void need_omp_locations(gdefs *g)
{
    if (g->omp_locations != UINT32_MAX)
        return;
    mg_job *job = g->job;
    uint64_t *m = mg_xcalloc(g->nlocs + 1, sizeof(uint64_t));
    size_t n = 0;
    for (size_t i = 0; i < job->nentries; i++)
        for (size_t k = 0; k < job->entries[i].nlocs; k++)
            m[n++] = (job->entries[i].group << 32) | job->entries[i].seqs[k];
    g->omp_locations = group_id(g, "OpenMP threads", OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                OTF2_PARADIGM_OPENMP, m, (uint32_t)n);
    free(m);
}

static uint32_t team_comm_id(gdefs *g, mg_proc *p, const mg_comm *c, size_t first_loc)
{
    bool fresh;
    uint64_t key[3] = {2, p->group, c->size};
    uint32_t id = comm_slot(g, key, sizeof(key), &fresh);
    if (!fresh)
        return id;
    need_omp_locations(g);
    /* thread number i of the team: the first location that reported it */
    uint64_t *m = mg_xmalloc((c->size + 1) * sizeof(uint64_t));
    uint64_t none = UINT64_MAX;
    for (uint32_t i = 0; i < c->size; i++)
        m[i] = none;
    for (size_t l = 0; l < p->nlocs; l++)
        for (size_t k = 0; k < p->locs[l].nclaims; k++) {
            uint64_t claim = p->locs[l].claims[k];
            uint32_t size = (uint32_t)(claim >> 32), num = (uint32_t)claim;
            if (size == c->size && num < size && m[num] == none)
                m[num] = first_loc + l;
        }
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->size; i++)
        if (m[i] != none)
            m[n++] = m[i];
    char name[128];
    snprintf(name, sizeof(name), "%s %s", p->name, c->name);
    g->comms[id].name = str(g, name);
    g->comms[id].group = group_id(g, "", OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_OPENMP, m, n);
    g->comms[id].paradigm = OTF2_PARADIGM_OPENMP;
    free(m);
    return id;
}

static void unify_comms(gdefs *g, mg_proc *p, size_t first_loc)
{
    uint64_t *map = g->comm_map[p->index] = mg_xcalloc(p->ncomms + 1, sizeof(uint64_t));
    for (size_t i = 0; i < p->ncomms; i++) {
        const mg_comm *c = &p->comms[i];
        map[i] = c->type == MG_COMM_OMP ? team_comm_id(g, p, c, first_loc) : mpi_comm_id(g, p, c);
    }
    /* parents, once all of this process's comms have global ids */
    for (size_t i = 0; i < p->ncomms; i++) {
        const mg_comm *c = &p->comms[i];
        gcomm *gc = &g->comms[map[i]];
        if (c->parent >= 0 && (size_t)c->parent < p->ncomms && gc->parent == OTF2_UNDEFINED_COMM &&
            map[c->parent] != map[i])
            gc->parent = (uint32_t)map[c->parent];
    }
}

/* ------------------------------------------------------------ the rest */

static uint32_t cc_id(gdefs *g, uint32_t parent, uint32_t region)
{
    uint64_t key = ((uint64_t)(parent + 1) << 32) | region; /* parent UNDEFINED + 1 = 0 */
    uint64_t *slot = mg_xslot(&g->cc_by_key, key, UINT64_MAX);
    if (*slot == UINT64_MAX) {
        *slot = g->nccs;
        *MG_PUSH(g->ccs, g->nccs, g->capccs) = (gcc){region, parent};
    }
    return (uint32_t)*slot;
}

static void unify_location(gdefs *g, mg_proc *p, mg_loc *l, size_t lnum)
{
    uint64_t *map = g->cc_map[lnum] = mg_xcalloc(l->ncc + 1, sizeof(uint64_t));
    const uint64_t *rmap = g->region_map[p->index];
    for (size_t k = 0; k < l->ncc; k++) {
        const mg_ccnode *c = &l->cc[k];
        uint32_t region = c->region < p->nregions ? (uint32_t)rmap[c->region] : 0;
        uint32_t parent =
            c->parent && c->parent < k ? (uint32_t)map[c->parent] : OTF2_UNDEFINED_CALLING_CONTEXT;
        map[k] = cc_id(g, parent, region);
    }
}

/* A process's I/O files (by path, job-wide) and handles (its own, in its order). */
static void unify_io(gdefs *g, mg_proc *p)
{
    uint64_t *fmap = g->iofile_map[p->index] = mg_xcalloc(p->iofiles.n + 1, sizeof(uint64_t));
    for (uint32_t i = 0; i < p->iofiles.n; i++) {
        const char *path = hpa_strtab_get(&p->iofiles, i);
        uint32_t id = fmap[i] = mg_xcstr(&g->file_keys, path);
        if (id == g->nfile_names)
            *MG_PUSH(g->file_names, g->nfile_names, g->capfile_names) = str(g, path);
    }
    uint64_t *hmap = g->ioh_map[p->index] = mg_xcalloc(p->niohs + 1, sizeof(uint64_t));
    size_t base = g->niohs;
    for (size_t i = 0; i < p->niohs; i++) {
        const mg_ioh *h = &p->iohs[i];
        uint8_t paradigm;
        bool pre;
        mg_io_defined(h, &paradigm, &pre);
        bool file = h->file < p->iofiles.n;
        /* readers resolve a parent as they read the child: only earlier handles can be one */
        uint32_t parent = h->parent < i ? (uint32_t)(base + h->parent) : OTF2_UNDEFINED_IO_HANDLE;
        hmap[i] = g->niohs;
        *MG_PUSH(g->iohs, g->niohs, g->capiohs) =
            (gioh){.name = file ? g->file_names[fmap[h->file]] : str(g, "<unknown file>"),
                   .file = file ? (uint32_t)fmap[h->file] : OTF2_UNDEFINED_IO_FILE,
                   .parent = parent,
                   .paradigm = (uint8_t)(paradigm - 1),
                   .precreated = pre,
                   .mode = h->mode,
                   .status = h->status};
    }
    if (p->iofiles.n || p->niohs) /* the I/O paradigms: all three, IoDeleteFile names them too */
        for (size_t i = 0; i < HPC_IO_MPIIO; i++)
            g->used_io_par[i] = true;
}

static void unify_process(gdefs *g, mg_proc *p, size_t first_loc)
{
    uint64_t *rmap = g->region_map[p->index] = mg_xcalloc(p->nregions + 1, sizeof(uint64_t));
    for (size_t i = 0; i < p->nregions; i++)
        rmap[i] = region_id(g, &p->regions[i]);
    uint64_t *imap = g->ig_map[p->index] = mg_xcalloc(p->nigens + 1, sizeof(uint64_t));
    for (size_t i = 0; i < p->nigens; i++) {
        hpa_buf k = {0};
        hpa_buf_str(&k, p->igens[i].name);
        hpa_buf_u64(&k, p->igens[i].mode);
        hpa_buf_u64(&k, p->igens[i].period);
        mg_xbuf(&k);
        uint32_t id = imap[i] = key_of(&g->ig_keys, k.p, k.n);
        hpa_buf_free(&k);
        if (id == g->nigs)
            *MG_PUSH(g->igs, g->nigs, g->capigs) =
                (gig){str(g, p->igens[i].name), p->igens[i].mode, p->igens[i].period};
    }
    uint64_t *mmap = g->metric_map[p->index] = mg_xcalloc(p->nmetrics + 1, sizeof(uint64_t));
    for (size_t i = 0; i < p->nmetrics; i++) {
        hpa_buf k = {0};
        hpa_buf_str(&k, p->metrics[i].name);
        hpa_buf_str(&k, p->metrics[i].unit);
        hpa_buf_u64(&k, p->metrics[i].scope);
        mg_xbuf(&k);
        uint32_t id = mmap[i] = key_of(&g->metric_keys, k.p, k.n);
        hpa_buf_free(&k);
        if (id == g->nmetrics)
            *MG_PUSH(g->metrics, g->nmetrics, g->capmetrics) =
                (gmetric){str(g, p->metrics[i].name), str(g, p->metrics[i].unit),
                          str(g, p->metrics[i].desc), p->metrics[i].scope};
        if (p->metrics[i].scope == MG_METRIC_PROCESS && p->nlocs)
            *MG_PUSH(g->instances, g->ninstances, g->capinstances) =
                (ginstance){id, p->locs[0].id, p->group, p->index, (uint32_t)i};
    }
    unify_comms(g, p, first_loc);
    unify_io(g, p);
    for (size_t l = 0; l < p->nlocs; l++)
        unify_location(g, p, &p->locs[l], first_loc + l);
}

/* What the global definitions need of p once it is let go of (gdefs). */
static void keep_facts(gdefs *g, const mg_proc *p, size_t first_loc)
{
    for (size_t k = 0; k < p->nlocs; k++) {
        const mg_tsum *t = &p->locs[k].sum;
        g->loc_name[first_loc + k] = mg_xcstr(&g->loc_names, t->name ? t->name : "");
        g->loc_events[first_loc + k] = t->events;
        if (t->events == 0)
            continue;
        if (t->t_first < g->t_first)
            g->t_first = t->t_first;
        if (t->t_last > g->t_last)
            g->t_last = t->t_last;
    }
    uint64_t real = g->job->entries[p->index].real_time;
    if (!g->have_real && real) { /* proc_begin's (job.h) */
        g->have_real = true;
        g->real_time = real;
        g->real_begin = p->sum.t_begin;
    }
}

/* ------------------------------------------------------------ writing */

#define CHECK(call)                                                                                \
    do {                                                                                           \
        OTF2_ErrorCode rc_ = (call);                                                               \
        if (rc_ != OTF2_SUCCESS) {                                                                 \
            fprintf(stderr, "%s: writing OTF2 definitions: %s: %s\n", MG_PROG,                     \
                    OTF2_Error_GetName(rc_), OTF2_Error_GetDescription(rc_));                      \
            return -1;                                                                             \
        }                                                                                          \
    } while (0)

/* Realtime (ns since the epoch) of the global offset, from the first process that has
 * both clocks; OTF2_UNDEFINED_TIMESTAMP if none has. */
static uint64_t realtime_of(const gdefs *g, uint64_t t0)
{
    const mg_job *job = g->job;
    if (g->have_real) {
        int64_t d = (int64_t)(g->real_begin - t0);
        return g->real_time - (uint64_t)d;
    }
    if (job->real_time)
        return job->real_time;
    return OTF2_UNDEFINED_TIMESTAMP;
}

static int write_paradigms(gdefs *g, OTF2_GlobalDefWriter *w)
{
    static const struct {
        uint8_t par;
        const char *name;
        uint8_t cls;
    } pars[] = {{OTF2_PARADIGM_MEASUREMENT_SYSTEM, "hpcollect", OTF2_PARADIGM_CLASS_PROCESS},
                {OTF2_PARADIGM_SAMPLING, "Sampling", OTF2_PARADIGM_CLASS_PROCESS},
                {OTF2_PARADIGM_MPI, "MPI", OTF2_PARADIGM_CLASS_PROCESS},
                {OTF2_PARADIGM_OPENMP, "OpenMP", OTF2_PARADIGM_CLASS_THREAD_FORK_JOIN},
                {OTF2_PARADIGM_PTHREAD, "POSIX threads", OTF2_PARADIGM_CLASS_THREAD_CREATE_WAIT}};
    for (size_t i = 0; i < sizeof(pars) / sizeof(pars[0]); i++)
        if (g->used_par[pars[i].par])
            CHECK(OTF2_GlobalDefWriter_WriteParadigm(w, pars[i].par, str(g, pars[i].name),
                                                     pars[i].cls));
    return 0;
}

/* Strings must exist before the definitions that use them are written: build all
 * location-side strings first, then write strings, then everything else. */
#define WCHECK(call)                                                                               \
    do {                                                                                           \
        OTF2_ErrorCode rc_ = (call);                                                               \
        if (rc_ != OTF2_SUCCESS) {                                                                 \
            fprintf(stderr, "%s: writing OTF2 definitions: %s: %s\n", MG_PROG,                     \
                    OTF2_Error_GetName(rc_), OTF2_Error_GetDescription(rc_));                      \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* The machine's name in the system tree: the host when the job ran on one, else what
 * the hosts' names share before their numbers ("node" for node01, node02), else
 * "cluster". */
static char *machine_name(const hpa_strtab *hosts)
{
    if (hosts->n == 0)
        return mg_xstrdup("localhost");
    const char *first = hpa_strtab_get(hosts, 0);
    if (hosts->n == 1)
        return mg_xstrdup(first[0] ? first : "localhost");
    size_t n = strlen(first);
    for (size_t h = 1; h < hosts->n; h++) {
        const char *s = hpa_strtab_get(hosts, (uint32_t)h);
        size_t k = 0;
        while (k < n && s[k] == first[k])
            k++;
        n = k;
    }
    while (n && strchr("0123456789-_.", first[n - 1]))
        n--;
    return n ? mg_xstrndup(first, n) : mg_xstrdup("cluster");
}

static int write_global(gdefs *g, OTF2_GlobalDefWriter *w)
{
    mg_job *job = g->job;
    bool events = g->t_first <= g->t_last;
    uint64_t t0 = events ? g->t_first : 0, t1 = events ? g->t_last : 0;
    /* names of the system tree, groups and locations */
    hpa_strtab hosts = {0};
    for (size_t i = 0; i < job->nentries; i++)
        mg_xcstr(&hosts, hpa_strtab_get(&job->hosts, job->entries[i].host));
    char *mname = machine_name(&hosts);
    uint32_t machine = str(g, mname), cls_machine = str(g, "machine"), cls_node = str(g, "node");
    free(mname);
    uint32_t *host_name = mg_xcalloc(hosts.n + 1, sizeof(uint32_t));
    for (size_t h = 0; h < hosts.n; h++)
        host_name[h] = str(g, hpa_strtab_get(&hosts, h));
    uint32_t *group_name = mg_xcalloc(job->nentries + 1, sizeof(uint32_t));
    for (size_t i = 0; i < job->nentries; i++) {
        const mg_entry *e = &job->entries[i];
        char name[256];
        if (e->rank >= 0 && (uint64_t)e->rank == e->group)
            snprintf(name, sizeof(name), "rank %lld%s", (long long)e->rank,
                     e->exp_proc < 0 ? " (missing)" : "");
        else
            snprintf(name, sizeof(name), "%s", e->name);
        group_name[i] = str(g, name);
    }
    uint32_t *loc_name = mg_xcalloc(g->nlocs + 1, sizeof(uint32_t));
    for (size_t n = 0; n < g->nlocs; n++)
        loc_name[n] = str(g, hpa_strtab_get(&g->loc_names, g->loc_name[n]));
    g->used_par[OTF2_PARADIGM_MEASUREMENT_SYSTEM] = true;
    str(g, "hpcollect");
    str(g, "Sampling");
    str(g, "MPI");
    str(g, "OpenMP");
    str(g, "POSIX threads");
    static const struct {
        const char *id, *name;
        uint8_t cls, flags;
    } io_pars[] = {
        [HPC_IO_POSIX - 1] = {"POSIX", "POSIX I/O", OTF2_IO_PARADIGM_CLASS_SERIAL,
                              OTF2_IO_PARADIGM_FLAG_OS},
        [HPC_IO_ISOC - 1] = {"ISOC", "ISO C I/O", OTF2_IO_PARADIGM_CLASS_SERIAL,
                             OTF2_IO_PARADIGM_FLAG_NONE},
        [HPC_IO_MPIIO - 1] = {"MPI-IO", "MPI I/O", OTF2_IO_PARADIGM_CLASS_PARALLEL,
                              OTF2_IO_PARADIGM_FLAG_NONE},
    };
    uint32_t io_par_id[HPC_IO_MPIIO], io_par_name[HPC_IO_MPIIO];
    for (size_t i = 0; i < HPC_IO_MPIIO; i++) {
        io_par_id[i] = str(g, io_pars[i].id);
        io_par_name[i] = str(g, io_pars[i].name);
    }
    uint32_t sync_attr = str(g, "sync object"),
             sync_attr_desc = str(g, "the address of the object a wait waited for (hpcollect -s)");

    int rc = -1;
    WCHECK(OTF2_GlobalDefWriter_WriteClockProperties(w, 1000000000, t0, t1 - t0 + 1,
                                                     realtime_of(g, t0)));
    for (size_t i = 0; i < g->strs.n; i++)
        WCHECK(OTF2_GlobalDefWriter_WriteString(w, (uint32_t)i, hpa_strtab_get(&g->strs, i)));
    if (write_paradigms(g, w))
        goto out;
    WCHECK(OTF2_GlobalDefWriter_WriteAttribute(w, MG_ATTR_SYNC_OBJECT, sync_attr, sync_attr_desc,
                                               OTF2_TYPE_UINT64));
    WCHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, 0, machine, cls_machine,
                                                    OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    WCHECK(OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(w, 0, OTF2_SYSTEM_TREE_DOMAIN_MACHINE));
    for (size_t h = 0; h < hosts.n; h++) {
        WCHECK(OTF2_GlobalDefWriter_WriteSystemTreeNode(w, (uint32_t)h + 1, host_name[h], cls_node,
                                                        0));
        WCHECK(OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
            w, (uint32_t)h + 1, OTF2_SYSTEM_TREE_DOMAIN_SHARED_MEMORY));
    }
    for (size_t i = 0; i < job->nentries; i++) {
        const mg_entry *e = &job->entries[i];
        uint32_t node = mg_xcstr(&hosts, hpa_strtab_get(&job->hosts, e->host)) + 1;
        WCHECK(OTF2_GlobalDefWriter_WriteLocationGroup(w, e->group, group_name[i],
                                                       OTF2_LOCATION_GROUP_TYPE_PROCESS, node,
                                                       OTF2_UNDEFINED_LOCATION_GROUP));
    }
    for (size_t i = 0, n = 0; i < job->nentries; i++)
        for (size_t k = 0; k < job->entries[i].nlocs; k++, n++) {
            const mg_entry *e = &job->entries[i];
            WCHECK(OTF2_GlobalDefWriter_WriteLocation(w, (e->group << 32) | e->seqs[k], loc_name[n],
                                                      OTF2_LOCATION_TYPE_CPU_THREAD,
                                                      g->loc_events[n], e->group));
        }
    for (size_t i = 0; i < g->nregions; i++) {
        gregion *r = &g->regions[i];
        WCHECK(OTF2_GlobalDefWriter_WriteRegion(w, (uint32_t)i, r->name, r->name, 0, r->role,
                                                r->paradigm, OTF2_REGION_FLAG_NONE, r->file,
                                                r->line, r->line));
    }
    for (size_t i = 0; i < g->nccs; i++)
        WCHECK(OTF2_GlobalDefWriter_WriteCallingContext(w, (uint32_t)i, g->ccs[i].region,
                                                        OTF2_UNDEFINED_SOURCE_CODE_LOCATION,
                                                        g->ccs[i].parent));
    for (size_t i = 0; i < g->nigs; i++)
        WCHECK(OTF2_GlobalDefWriter_WriteInterruptGenerator(
            w, (uint32_t)i, g->igs[i].name, g->igs[i].mode, OTF2_BASE_DECIMAL,
            g->igs[i].mode == OTF2_INTERRUPT_GENERATOR_MODE_TIME ? -9 : 0, g->igs[i].period));
    for (size_t i = 0; i < g->ngroups; i++) {
        ggroup *gg = &g->groups[i];
        WCHECK(OTF2_GlobalDefWriter_WriteGroup(w, (uint32_t)i, gg->name, gg->type, gg->paradigm,
                                               OTF2_GROUP_FLAG_NONE, gg->n, gg->members));
    }
    for (size_t i = 0; i < g->ncomms; i++) {
        gcomm *c = &g->comms[i];
        /* readers resolve a parent when they read the child: only earlier comms can be one
         * (a later parent means damaged data put the parent's first record elsewhere) */
        uint32_t parent = c->parent < i ? c->parent : OTF2_UNDEFINED_COMM;
        WCHECK(OTF2_GlobalDefWriter_WriteComm(w, (uint32_t)i, c->name, c->group, parent,
                                              OTF2_COMM_FLAG_NONE));
    }
    for (size_t i = 0; i < HPC_IO_MPIIO; i++)
        if (g->used_io_par[i])
            WCHECK(OTF2_GlobalDefWriter_WriteIoParadigm(w, (uint32_t)i, io_par_id[i],
                                                        io_par_name[i], io_pars[i].cls,
                                                        io_pars[i].flags, 0, NULL, NULL, NULL));
    for (size_t i = 0; i < g->nfile_names; i++)
        WCHECK(OTF2_GlobalDefWriter_WriteIoRegularFile(w, (uint32_t)i, g->file_names[i], 0));
    for (size_t i = 0; i < g->niohs; i++) {
        const gioh *h = &g->iohs[i];
        WCHECK(OTF2_GlobalDefWriter_WriteIoHandle(w, (uint32_t)i, h->name, h->file, h->paradigm,
                                                  h->precreated ? OTF2_IO_HANDLE_FLAG_PRE_CREATED
                                                                : OTF2_IO_HANDLE_FLAG_NONE,
                                                  OTF2_UNDEFINED_COMM, h->parent));
        if (h->precreated)
            WCHECK(OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState(w, (uint32_t)i, h->mode,
                                                                     h->status));
    }
    for (size_t i = 0; i < g->nmetrics; i++) {
        gmetric *m = &g->metrics[i];
        OTF2_MetricMemberRef member = (uint32_t)i;
        bool proc = m->scope == MG_METRIC_PROCESS;
        WCHECK(OTF2_GlobalDefWriter_WriteMetricMember(
            w, member, m->name, m->desc, OTF2_METRIC_TYPE_OTHER,
            proc ? OTF2_METRIC_ABSOLUTE_POINT : OTF2_METRIC_ACCUMULATED_START, OTF2_TYPE_UINT64,
            OTF2_BASE_DECIMAL, 0, m->unit));
        WCHECK(OTF2_GlobalDefWriter_WriteMetricClass(
            w, (uint32_t)i, 1, &member, proc ? OTF2_METRIC_ASYNCHRONOUS : OTF2_METRIC_SYNCHRONOUS,
            proc ? OTF2_RECORDER_KIND_ABSTRACT : OTF2_RECORDER_KIND_CPU));
    }
    for (size_t i = 0; i < g->ninstances; i++) {
        const ginstance *in = &g->instances[i];
        WCHECK(OTF2_GlobalDefWriter_WriteMetricInstance(w, (uint32_t)(g->nmetrics + i), in->cls,
                                                        in->recorder, OTF2_SCOPE_LOCATION_GROUP,
                                                        in->group));
    }
    rc = 0;
out:
    hpa_strtab_free(&hosts);
    free(host_name);
    free(group_name);
    free(loc_name);
    return rc;
}

/* Bytes of a dense OTF2 id map of n ids below max_id (a compressed number: a length
 * byte and the value's significant bytes), with room for the record's header. */
static uint64_t map_bytes(size_t n, uint64_t max_id)
{
    unsigned b = 1;
    while (b < 8 && max_id >> (8 * b))
        b++;
    return 64 + (uint64_t)n * (1 + b);
}

uint64_t mg_defs_cc_count(const mg_job *job)
{
    uint64_t nccs = 0;
    for (size_t i = 0; i < job->nprocs; i++)
        for (size_t k = 0; k < job->procs[i].nlocs; k++)
            nccs += job->procs[i].locs[k].ncc;
    return nccs;
}

uint64_t mg_defs_need(const mg_job *job, uint64_t nccs)
{
    uint64_t need = 0;
    uint64_t max_id = nccs > UINT32_MAX ? UINT32_MAX : nccs; /* global ids: at most all */
    for (size_t i = 0; i < job->nprocs; i++) {
        const mg_proc *p = &job->procs[i];
        size_t most = p->nregions > p->ncomms ? p->nregions : p->ncomms;
        if (p->niohs > most)
            most = p->niohs;
        if (p->iofiles.n > most)
            most = p->iofiles.n;
        if (map_bytes(most, UINT32_MAX) > need)
            need = map_bytes(most, UINT32_MAX);
        for (size_t k = 0; k < p->nlocs; k++)
            if (map_bytes(p->locs[k].ncc, max_id) > need)
                need = map_bytes(p->locs[k].ncc, max_id);
    }
    return need;
}

uint64_t mg_defs_chunk_size(uint64_t need, size_t nlocs)
{
    if (map_bytes(nlocs, UINT64_MAX) > need) /* a group of all locations (OTF2: 10 per) */
        need = map_bytes(nlocs, UINT64_MAX);
    need += 4096; /* the chunk's own header and a margin */
    uint64_t size = OTF2_CHUNK_SIZE_MIN;
    while (size < need && size < OTF2_CHUNK_SIZE_MAX)
        size *= 2;
    return size;
}

static int write_map(OTF2_DefWriter *dw, OTF2_MappingType type, const uint64_t *map, size_t n)
{
    if (n == 0)
        return 0;
    OTF2_IdMap *m = OTF2_IdMap_CreateFromUint64Array(n, map, false);
    if (!m) {
        fprintf(stderr, "%s: out of memory for an OTF2 mapping table\n", MG_PROG);
        return -1;
    }
    OTF2_ErrorCode rc = OTF2_DefWriter_WriteMappingTable(dw, type, m);
    OTF2_IdMap_Free(m);
    CHECK(rc);
    return 0;
}

/* The kinds of a location's mapping tables, in the order they are written: the process's
 * maps (the first MG_PROC_MAPS, shared by its locations), then the location's own. */
static const OTF2_MappingType map_types[] = {
    OTF2_MAPPING_REGION,         OTF2_MAPPING_COMM,    OTF2_MAPPING_INTERRUPT_GENERATOR,
    OTF2_MAPPING_METRIC,         OTF2_MAPPING_IO_FILE, OTF2_MAPPING_IO_HANDLE,
    OTF2_MAPPING_CALLING_CONTEXT};
#define MG_NMAPS     (sizeof(map_types) / sizeof(map_types[0]))
#define MG_PROC_MAPS (MG_NMAPS - 1)

/* One location's mapping tables (name: for a message, its stream or NULL). */
static int write_location(OTF2_Archive *a, uint64_t id, const uint64_t *const map[MG_NMAPS],
                          const size_t n[MG_NMAPS], const char *name)
{
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(a, id);
    if (!dw) {
        fprintf(stderr, "%s: cannot open the OTF2 definition writer of location %llu\n", MG_PROG,
                (unsigned long long)id);
        return -1;
    }
    if (n[MG_NMAPS - 1] > MG_MAX_LOCATION_CCS) { /* the regions added more than their half */
        char where[64];
        if (!name)
            snprintf(where, sizeof where, "location %llu", (unsigned long long)id);
        fprintf(stderr,
                "%s: %s: %zu calling contexts, more than one OTF2 mapping table holds (%zu)\n",
                MG_PROG, name ? name : where, n[MG_NMAPS - 1], MG_MAX_LOCATION_CCS);
    }
    for (size_t m = 0; m < MG_NMAPS; m++)
        if (write_map(dw, map_types[m], map[m], n[m]))
            return -1;
    CHECK(OTF2_Archive_CloseDefWriter(a, dw));
    return 0;
}

/* Process p's maps: its own, and its locations' from first_loc on (their number in job
 * order). */
static void proc_maps(const gdefs *g, const mg_proc *p, const uint64_t *map[MG_NMAPS],
                      size_t n[MG_NMAPS])
{
    size_t i = p->index;
    const uint64_t *m[MG_PROC_MAPS] = {g->region_map[i], g->comm_map[i],   g->ig_map[i],
                                       g->metric_map[i], g->iofile_map[i], g->ioh_map[i]};
    size_t k[MG_PROC_MAPS] = {p->nregions, p->ncomms,    p->nigens,
                              p->nmetrics, p->iofiles.n, p->niohs};
    for (size_t j = 0; j < MG_PROC_MAPS; j++) {
        map[j] = m[j];
        n[j] = k[j];
    }
}

/* Process p's locations' mapping tables (first_loc: the number of its first location in
 * job order). */
static int write_mappings(gdefs *g, OTF2_Archive *a, mg_proc *p, size_t first_loc)
{
    const uint64_t *map[MG_NMAPS];
    size_t n[MG_NMAPS];
    proc_maps(g, p, map, n);
    for (size_t k = 0; k < p->nlocs; k++) {
        mg_loc *l = &p->locs[k];
        map[MG_NMAPS - 1] = g->cc_map[first_loc + k];
        n[MG_NMAPS - 1] = l->ncc;
        if (write_location(a, l->id, map, n, l->path))
            return -1;
    }
    return 0;
}

/* The same tables as bytes for the merge rank that merged p, which writes them
 * (mg_defs_write_maps): rank 0 then opens no definition writer of that rank's locations. */
static void put_mappings(gdefs *g, mg_proc *p, size_t first_loc, hpa_buf *b)
{
    const uint64_t *map[MG_NMAPS];
    size_t n[MG_NMAPS];
    proc_maps(g, p, map, n);
    hpa_buf_u64(b, 1); /* a process follows */
    for (size_t m = 0; m < MG_PROC_MAPS; m++) {
        hpa_buf_u64(b, n[m]);
        for (size_t k = 0; k < n[m]; k++)
            hpa_buf_u64(b, map[m][k]);
    }
    hpa_buf_u64(b, p->nlocs);
    for (size_t k = 0; k < p->nlocs; k++) {
        const uint64_t *cc = g->cc_map[first_loc + k];
        hpa_buf_u64(b, p->locs[k].id);
        hpa_buf_u64(b, p->locs[k].ncc);
        for (size_t c = 0; c < p->locs[k].ncc; c++)
            hpa_buf_u64(b, cc[c]);
    }
}

int mg_defs_write_maps(OTF2_Archive *a, hpa_buf *b)
{
    int rc = 0;
    b->pos = 0;
    while (rc == 0 && !b->bad && b->pos < b->n) {
        if (hpa_buf_get_u64(b) != 1) {
            b->bad = true;
            break;
        }
        uint64_t *map[MG_NMAPS] = {0};
        size_t n[MG_NMAPS] = {0};
        for (size_t m = 0; m < MG_PROC_MAPS && !b->bad; m++) {
            n[m] = hpa_buf_get_count(b);
            map[m] = mg_xcalloc(n[m] + 1, sizeof(uint64_t));
            for (size_t k = 0; k < n[m]; k++)
                map[m][k] = hpa_buf_get_u64(b);
        }
        size_t nlocs = hpa_buf_get_count(b);
        for (size_t l = 0; l < nlocs && rc == 0 && !b->bad; l++) {
            uint64_t id = hpa_buf_get_u64(b);
            n[MG_NMAPS - 1] = hpa_buf_get_count(b);
            map[MG_NMAPS - 1] = mg_xcalloc(n[MG_NMAPS - 1] + 1, sizeof(uint64_t));
            for (size_t k = 0; k < n[MG_NMAPS - 1]; k++)
                map[MG_NMAPS - 1][k] = hpa_buf_get_u64(b);
            if (!b->bad)
                rc = write_location(a, id, (const uint64_t *const *)map, n, NULL);
            free(map[MG_NMAPS - 1]);
            map[MG_NMAPS - 1] = NULL;
        }
        for (size_t m = 0; m < MG_NMAPS; m++)
            free(map[m]);
    }
    return rc ? -1 : b->bad ? -2 : 0;
}

/* Let go of process p's maps (its mapping tables are written). */
static void free_maps(gdefs *g, const mg_proc *p, size_t first_loc)
{
    size_t i = p->index;
    uint64_t **maps[] = {&g->region_map[i], &g->comm_map[i],   &g->ig_map[i],
                         &g->metric_map[i], &g->iofile_map[i], &g->ioh_map[i]};
    for (size_t m = 0; m < sizeof(maps) / sizeof(maps[0]); m++) {
        free(*maps[m]);
        *maps[m] = NULL;
    }
    for (size_t k = 0; k < p->nlocs; k++) {
        free(g->cc_map[first_loc + k]);
        g->cc_map[first_loc + k] = NULL;
    }
}

static void gdefs_free(gdefs *g, size_t nlocs)
{
    mg_job *job = g->job;
    for (size_t i = 0; i < job->nentries; i++) {
        free(g->region_map[i]);
        free(g->comm_map[i]);
        free(g->ig_map[i]);
        free(g->metric_map[i]);
        free(g->iofile_map[i]);
        free(g->ioh_map[i]);
    }
    for (size_t i = 0; i < nlocs; i++)
        free(g->cc_map[i]);
    free(g->region_map);
    free(g->comm_map);
    free(g->ig_map);
    free(g->metric_map);
    free(g->iofile_map);
    free(g->ioh_map);
    free(g->cc_map);
    hpa_strtab_free(&g->file_keys);
    free(g->file_names);
    free(g->iohs);
    hpa_strtab_free(&g->strs);
    hpa_strtab_free(&g->region_keys);
    hpa_strtab_free(&g->ig_keys);
    hpa_strtab_free(&g->metric_keys);
    hpa_strtab_free(&g->group_keys);
    hpa_strtab_free(&g->comm_keys);
    hpa_u64map_free(&g->cc_by_key);
    free(g->regions);
    free(g->ccs);
    free(g->igs);
    free(g->metrics);
    free(g->instances);
    for (size_t i = 0; i < g->ngroups; i++)
        free(g->groups[i].members);
    free(g->groups);
    free(g->comms);
    hpa_strtab_free(&g->loc_names);
    free(g->loc_name);
    free(g->loc_events);
    free(g->kept);
}

mg_defs *mg_defs_begin(mg_job *job)
{
    gdefs *g = mg_xcalloc(1, sizeof(gdefs));
    *g = (gdefs){.job = job,
                 .mpi_locations = UINT32_MAX,
                 .omp_locations = UINT32_MAX,
                 .self_comm = UINT32_MAX};
    mg_xcstr(&g->strs, ""); /* string 0 */
    g->nlocs = mg_job_nlocs(job);
    size_t n = job->nentries + 1;
    g->region_map = mg_xcalloc(n, sizeof(uint64_t *));
    g->comm_map = mg_xcalloc(n, sizeof(uint64_t *));
    g->ig_map = mg_xcalloc(n, sizeof(uint64_t *));
    g->metric_map = mg_xcalloc(n, sizeof(uint64_t *));
    g->iofile_map = mg_xcalloc(n, sizeof(uint64_t *));
    g->ioh_map = mg_xcalloc(n, sizeof(uint64_t *));
    g->cc_map = mg_xcalloc(g->nlocs + 1, sizeof(uint64_t *));
    g->loc_name = mg_xcalloc(g->nlocs + 1, sizeof(uint32_t));
    g->loc_events = mg_xcalloc(g->nlocs + 1, sizeof(uint64_t));
    g->t_first = UINT64_MAX;
    return g;
}

int mg_defs_add(mg_defs *g, mg_proc *p, OTF2_Archive *a, hpa_buf *maps)
{
    if (p->index != g->next) {
        fprintf(stderr, "%s: process %u unified out of job order (expected %zu)\n", MG_PROG,
                p->index, g->next);
        return -1;
    }
    size_t first_loc = g->next_loc, ninstances = g->ninstances;
    if (p->nlocs != g->job->entries[p->index].nlocs || first_loc + p->nlocs > g->nlocs) {
        fprintf(stderr, "%s: process %u has %zu locations, its entry %u\n", MG_PROG, p->index,
                p->nlocs, g->job->entries[p->index].nlocs);
        return -1;
    }
    unify_process(g, p, first_loc);
    keep_facts(g, p, first_loc);
    g->next++;
    g->next_loc += p->nlocs;
    if (g->ninstances != ninstances) { /* an instance's id follows all metric classes */
        *MG_PUSH(g->kept, g->nkept, g->capkept) = (struct kept){p, first_loc};
        return 1;
    }
    int rc = 0;
    if (maps)
        put_mappings(g, p, first_loc, maps);
    else
        rc = write_mappings(g, a, p, first_loc);
    free_maps(g, p, first_loc);
    mg_proc_drop_defs(p);
    return rc;
}

int mg_defs_end(mg_defs *g, OTF2_Archive *a)
{
    mg_job *job = g->job;
    int rc = 0;
    if (g->next != job->nentries) {
        fprintf(stderr, "%s: %zu of %zu processes unified\n", MG_PROG, g->next, job->nentries);
        rc = -1;
    }
    for (size_t i = 0; i < g->ninstances; i++) /* instances' ids follow the classes' */
        g->metric_map[g->instances[i].proc][g->instances[i].local] = g->nmetrics + i;
    for (size_t i = 0; i < g->nkept && rc == 0; i++) /* kept for their metric instances */
        rc = write_mappings(g, a, g->kept[i].p, g->kept[i].first_loc);
    if (rc == 0) {
        OTF2_GlobalDefWriter *w = OTF2_Archive_GetGlobalDefWriter(a);
        if (!w) {
            fprintf(stderr, "%s: cannot open the OTF2 global definition writer\n", MG_PROG);
            rc = -1;
        } else {
            rc = write_global(g, w);
            if (rc == 0 && OTF2_Archive_CloseGlobalDefWriter(a, w) != OTF2_SUCCESS)
                rc = -1;
        }
    }
    mg_defs_discard(g);
    return rc;
}

void mg_defs_discard(mg_defs *g)
{
    if (!g)
        return;
    gdefs_free(g, g->nlocs);
    free(g);
}
