/*
 * exp_open.c - open a job experiment (or one sub-experiment) for analysis: load each
 * process's process.hpe and launcher.hpe records, list its thread streams, sum the live
 * stats of all its streams, and derive its rank and whether it ended early.
 *
 * Sizes: a job has 1..thousands of processes; a process.hpe holds ~100 schema records,
 * the load map and MPI definitions (KB to a few MB); thread streams are only listed and
 * their headers read, so opening stays cheap whatever the samples weigh.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "header_layout.h"
#include "reader_internal.h"

#define DIAG(d, sev, file, ...)                                                                    \
    hpc_diag_report((d), (sev), (file), HPC_NO_OFFSET, __FILE__, __LINE__, __VA_ARGS__)
/* What the user named is no experiment at all: an error about their input, not damage our
 * reader found, so the message carries no source line of ours. */
#define NOT_AN_EXP(d, file, ...)                                                                   \
    hpc_diag_report((d), HPC_ERROR, (file), HPC_NO_OFFSET, NULL, 0, __VA_ARGS__)

/* hpc_exp and the memory its job record points into. */
typedef struct exp_impl {
    hpc_exp pub;
    void *job_mem;
} exp_impl;

static char *path_cat(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = malloc(a + b + 2);
    if (p) {
        memcpy(p, dir, a);
        p[a] = '/';
        memcpy(p + a + 1, name, b + 1);
    }
    return p;
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static bool exists(const char *dir, const char *name)
{
    char *p = path_cat(dir, name);
    struct stat st;
    bool ok = p && stat(p, &st) == 0;
    free(p);
    return ok;
}

/* "t<digits>.hpe" -> seq; false for anything else. */
static bool thread_file_seq(const char *name, uint32_t *seq)
{
    if (name[0] != 't' || name[1] < '0' || name[1] > '9')
        return false;
    uint64_t v = 0;
    const char *p = name + 1;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > UINT32_MAX)
            return false;
    }
    if (strcmp(p, ".hpe") != 0)
        return false;
    *seq = (uint32_t)v;
    return true;
}

static int thread_cmp(const void *a, const void *b)
{
    const hpc_thread_file *x = a, *y = b;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Compare names with digit runs as numbers: rank2 < rank10, main.f2 < main.f10. */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (*a >= '0' && *a <= '9' && *b >= '0' && *b <= '9') {
            const char *ea = a, *eb = b;
            while (*a == '0')
                a++;
            while (*b == '0')
                b++;
            for (ea = a; *ea >= '0' && *ea <= '9'; ea++)
                ;
            for (eb = b; *eb >= '0' && *eb <= '9'; eb++)
                ;
            if (ea - a != eb - b)
                return ea - a < eb - b ? -1 : 1;
            int c = strncmp(a, b, (size_t)(ea - a));
            if (c)
                return c;
            a = ea;
            b = eb;
            continue;
        }
        if (*a != *b)
            return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return *a ? 1 : *b ? -1 : 0;
}

static int proc_cmp(const void *a, const void *b)
{
    const hpc_proc *x = a, *y = b;
    if ((x->rank >= 0) != (y->rank >= 0))
        return x->rank >= 0 ? -1 : 1;
    if (x->rank >= 0 && x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return natural_cmp(x->name, y->name);
}

/* Add a stream header's live stats to sum; false if the header is not one. */
static bool header_stats_add(const char *path, uint64_t *sum, hpc_diag *d)
{
    uint8_t h[HPC_HEADER_SIZE];
    int fd = hpc_open_regular(path, NULL);
    ssize_t n = fd >= 0 ? pread(fd, h, sizeof h, 0) : -1;
    if (fd >= 0)
        close(fd);
    if (n < HPC_HDR_MIN_SIZE || memcmp(h, HPC_MAGIC, 8) != 0 ||
        hpc_le_get(h + HPC_HDR_MAJOR, 2) != HPC_FORMAT_MAJOR) {
        DIAG(d, HPC_WARNING, path,
             n == 0 ? "empty thread stream; left out" : "no valid stream header; left out");
        return false;
    }
    /* the stats the header holds, and the file too (a short file is read, not trusted) */
    unsigned ns = hpc_hdr_nstats(hpc_le_get(h + HPC_HDR_SIZE, 2)), in_file = hpc_hdr_nstats(n);
    for (unsigned i = 0; i < ns && i < in_file; i++)
        sum[i] += hpc_le_get(h + HPC_HDR_STATS + 8 * i, 8);
    return true;
}

/* List t<seq>.hpe of a process, sorted, adding their stats. */
/* The threads that continue other threads' streams (thread_life records): an entry
 * each, in the stream's file. Stats are not added again (one header per file). */
static int lives_add(hpc_proc *p, size_t *cap, hpc_diag *d)
{
    size_t files = p->nthreads, i = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_thread_life, &i));) {
        const hpc_rec_thread_life *l = &r->u.thread_life;
        const char *path = NULL;
        for (size_t f = 0; f < files && !path; f++)
            if (p->threads[f].seq == l->stream && p->threads[f].offset == 0)
                path = p->threads[f].path;
        if (!path || l->seq > UINT32_MAX) {
            DIAG(d, HPC_WARNING, p->dir,
                 "thread %llu continues stream t%llu.hpe, which is not there: left out",
                 (unsigned long long)l->seq, (unsigned long long)l->stream);
            continue;
        }
        if (p->nthreads == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            hpc_thread_file *t = realloc(p->threads, *cap * sizeof *t);
            if (!t)
                return HPC_E_NOMEM;
            p->threads = t;
        }
        char *dup = strdup(path);
        if (!dup)
            return HPC_E_NOMEM;
        p->threads[p->nthreads++] = (hpc_thread_file){(uint32_t)l->seq, dup, l->offset};
    }
    return 0;
}

static int threads_list(hpc_proc *p, hpc_diag *d)
{
    DIR *dir = opendir(p->dir);
    if (!dir)
        return HPC_E_IO;
    size_t cap = 0;
    struct dirent *e;
    int rc = 0;
    while ((e = readdir(dir))) {
        uint32_t seq;
        if (!thread_file_seq(e->d_name, &seq))
            continue;
        char *path = path_cat(p->dir, e->d_name);
        if (!path) {
            rc = HPC_E_NOMEM;
            break;
        }
        if (!header_stats_add(path, p->stats, d)) {
            free(path);
            continue;
        }
        if (p->nthreads == cap) {
            cap = cap ? 2 * cap : 16;
            hpc_thread_file *t = realloc(p->threads, cap * sizeof *t);
            if (!t) {
                free(path);
                rc = HPC_E_NOMEM;
                break;
            }
            p->threads = t;
        }
        p->threads[p->nthreads++] = (hpc_thread_file){seq, path, 0};
    }
    closedir(dir);
    if (rc == 0)
        rc = lives_add(p, &cap, d);
    if (p->nthreads)
        qsort(p->threads, p->nthreads, sizeof *p->threads, thread_cmp);
    return rc;
}

/* Move a record's payload to dst and point its strings there. */
static void record_rebase(hpc_record *rec, char *dst)
{
    const char *old = rec->raw.p;
    if (rec->raw.n)
        memcpy(dst, old, rec->raw.n);
    rec->raw.p = dst;
    const hpc_kind_desc *k = hpc_schema_kind(rec->kind);
    for (unsigned i = 0; k && i < k->nfields; i++) {
        if (k->fields[i].type != 's' && k->fields[i].type != 'b')
            continue;
        hpc_str *s = (hpc_str *)(void *)((char *)&rec->u + k->fields[i].offset);
        s->p = s->n ? dst + (s->p - old) : dst;
    }
}

/*
 * Load every record of the given readers into p->records (one allocation: the record
 * array followed by the payloads, which the strings point into).
 */
static int records_load(hpc_proc *p, hpc_reader **readers, unsigned nreaders)
{
    size_t n = 0, bytes = 0;
    hpc_record rec;
    for (unsigned i = 0; i < nreaders; i++) {
        hpc_diag *d = readers[i]->diag;
        readers[i]->diag = &(hpc_diag){.quiet = 1}; /* reported in the second pass */
        while (hpc_reader_next(readers[i], &rec)) {
            n++;
            bytes += rec.raw.n;
        }
        readers[i]->diag = d;
        hpc_reader_rewind(readers[i]);
        readers[i]->reports = 0;
        readers[i]->damaged = readers[i]->torn = readers[i]->unknown = 0;
        memset(readers[i]->unknown_seen, 0, sizeof readers[i]->unknown_seen);
    }
    hpc_record *recs = malloc(n * sizeof *recs + bytes + 1);
    if (!recs)
        return HPC_E_NOMEM;
    char *payload = (char *)(recs + n);
    size_t k = 0;
    for (unsigned i = 0; i < nreaders; i++) {
        while (k < n && hpc_reader_next(readers[i], &recs[k])) {
            record_rebase(&recs[k], payload);
            payload += recs[k].raw.n;
            k++;
        }
    }
    p->records = recs;
    p->nrecords = k;
    return 0;
}

/* Facts derived from the records: begin, settings, end, rank, ended_early. */
static uint64_t minus(uint64_t a, uint64_t b)
{
    return a > b ? a - b : 0;
}

/* hpc_proc's os_* fields (experiment.h). */
static void os_cpu_derive(hpc_proc *p)
{
    uint64_t u0 = p->has_begin ? p->begin.utime_ns : 0, s0 = p->has_begin ? p->begin.stime_ns : 0;
    if (p->has_end) {
        p->os_user_ns = minus(p->end.utime_ns, u0);
        p->os_sys_ns = minus(p->end.stime_ns, s0);
        p->os_cpu_source = "proc_end";
    } else if (p->has_launcher_exit) {
        p->os_user_ns = minus(p->launcher_exit.utime_ns, u0);
        p->os_sys_ns = minus(p->launcher_exit.stime_ns, s0);
        p->os_cpu_source = "launcher";
    } else {
        return;
    }
    p->os_cpu_known = true;
}

static void proc_derive(hpc_proc *p)
{
    bool has_mpi_init = false, aborted = false, has_launcher_begin = false;
    p->rank = -1;
    p->has_begin = p->has_end = p->has_launcher_exit = false; /* derived again: unload */
    for (size_t i = 0; i < p->nrecords; i++) {
        const hpc_record *r = &p->records[i];
        switch (r->kind) {
        case HPC_K_proc_begin:
            if (!p->has_begin)
                p->begin = r->u.proc_begin;
            p->has_begin = true;
            break;
        case HPC_K_settings:
            p->settings = r->u.settings; /* the last one holds */
            break;
        case HPC_K_proc_end:
            p->end = r->u.proc_end;
            p->has_end = true;
            break;
        case HPC_K_launcher_exit:
            p->launcher_exit = r->u.launcher_exit;
            p->has_launcher_exit = true;
            break;
        case HPC_K_launcher_begin:
            p->launcher_begin = r->u.launcher_begin;
            has_launcher_begin = true;
            break;
        case HPC_K_mpi_init:
            if (!has_mpi_init && r->u.mpi_init.rank <= INT32_MAX)
                p->rank = (int)r->u.mpi_init.rank;
            has_mpi_init = true;
            break;
        case HPC_K_mpi_abort:
            aborted = true;
            break;
        }
    }
    if (!has_mpi_init && p->has_begin && p->begin.rank >= 0 && p->begin.rank <= INT32_MAX)
        p->rank = (int)p->begin.rank;
    p->launcher_killed = has_launcher_begin && !p->has_launcher_exit;
    p->ended_early = !p->has_end || p->end.reason == HPC_END_SIGNAL ||
                     p->end.reason == HPC_END_MPI_ABORT || aborted ||
                     (p->has_launcher_exit && !p->launcher_exit.exited);
    os_cpu_derive(p);
}

static void proc_free(hpc_proc *p)
{
    hpc_reader_close(p->schema);
    for (size_t i = 0; i < p->nthreads; i++)
        free(p->threads[i].path);
    free(p->threads);
    free(p->records);
    free(p->dir);
    free(p->name);
    memset(p, 0, sizeof *p);
}

static void stats_add(uint64_t *sum, const hpc_reader *r)
{
    for (unsigned i = 0; i < HPC_NSTATS; i++)
        sum[i] += r->stats[i];
    sum[HPC_STAT_TORN] += r->torn;
}

/* Open process.hpe (its schema reader stays open in p->schema) and launcher.hpe, and load
 * their records into p->records; add their live stats to p->stats when stats. */
static int proc_records_open(hpc_proc *p, hpc_diag *d, bool stats)
{
    char *pp = path_cat(p->dir, HPC_PROCESS_FILE), *lp = path_cat(p->dir, HPC_LAUNCHER_FILE);
    hpc_reader *launcher = NULL;
    int rc = 0;
    if (!pp || !lp) {
        rc = HPC_E_NOMEM;
        goto out;
    }
    rc = hpc_reader_open(&p->schema, pp, NULL, d);
    if (rc) {
        DIAG(d, HPC_WARNING, p->dir, "process %s left out: %s", p->name, hpc_strerror(rc));
        goto out;
    }
    if (exists(p->dir, HPC_LAUNCHER_FILE) && hpc_reader_open(&launcher, lp, p->schema, d) != 0)
        launcher = NULL; /* reported; the process is still usable */
    hpc_reader *readers[2] = {p->schema, launcher};
    p->schema_builtin = reader_schema_is_builtin(p->schema);
    rc = records_load(p, readers, launcher ? 2 : 1);
    if (rc == 0 && stats) {
        stats_add(p->stats, p->schema);
        if (launcher)
            stats_add(p->stats, launcher);
    }
out:
    hpc_reader_close(launcher);
    free(pp);
    free(lp);
    return rc;
}

/*
 * Load the process in directory `dir` named `name`. Returns 0, a negative hpc_err when
 * it cannot be used (reported), or 1 when the directory is no sub-experiment at all.
 */
static int proc_load(hpc_proc *p, const char *dir, const char *name, hpc_diag *d)
{
    memset(p, 0, sizeof *p);
    p->dir = strdup(dir);
    p->name = strdup(name);
    int rc = 0;
    if (!p->dir || !p->name) {
        rc = HPC_E_NOMEM;
        goto out;
    }
    if (!exists(dir, HPC_PROCESS_FILE)) {
        if (!exists(dir, HPC_LAUNCHER_FILE) && !exists(dir, "t0.hpe")) {
            rc = 1; /* not a sub-experiment (otf2/, ...) */
            goto out;
        }
        char *pp = path_cat(dir, HPC_PROCESS_FILE);
        DIAG(d, HPC_WARNING, pp ? pp : dir, "missing; process %s left out", name);
        free(pp);
        rc = HPC_E_NOTFOUND;
        goto out;
    }
    rc = proc_records_open(p, d, true);
    if (rc)
        goto out;
    rc = threads_list(p, d);
    if (rc)
        goto out;
    proc_derive(p);
out:
    if (rc)
        proc_free(p);
    return rc;
}

/* The kinds proc_derive reads: what a lean process keeps of its records. */
static bool fact_kind(unsigned kind)
{
    switch (kind) {
    case HPC_K_proc_begin:
    case HPC_K_settings:
    case HPC_K_proc_end:
    case HPC_K_launcher_exit:
    case HPC_K_launcher_begin:
    case HPC_K_mpi_init:
    case HPC_K_mpi_abort:
        return true;
    }
    return false;
}

/* A slim process's communicator keeps its name, not its member lists: they grow with the
 * job (N world ranks in every process) and no report of a process reads them. */
static bool slim_drops(const hpc_record *r, char type)
{
    return r->kind == HPC_K_mpi_comm && type == 'b';
}

/* What a process keeps of its records when made lean again: the facts, or (slim) every
 * record but the schema's (the kinds' layouts: only a dump prints them, loading again). */
static bool keeps(const hpc_proc *p, const hpc_record *r)
{
    return p->slim ? r->kind != HPC_K_schema : fact_kind(r->kind);
}

/* What a slim record needs of payload: its strings, less the fields slim_drops. */
static size_t slim_bytes(const hpc_record *r)
{
    if (r->kind != HPC_K_mpi_comm)
        return r->raw.n;
    return r->u.mpi_comm.name.n;
}

/* Copy r's kept strings to dst (slim_drops' fields emptied); its raw is then empty: a
 * slim record prints and reads by its fields only. */
static void slim_rebase(hpc_record *rec, char *dst)
{
    if (rec->kind != HPC_K_mpi_comm) {
        record_rebase(rec, dst);
        return;
    }
    const hpc_kind_desc *k = hpc_schema_kind(rec->kind);
    rec->raw = (hpc_str){.p = dst, .n = 0};
    for (unsigned i = 0; k && i < k->nfields; i++) {
        if (k->fields[i].type != 's' && k->fields[i].type != 'b')
            continue;
        hpc_str *s = (hpc_str *)(void *)((char *)&rec->u + k->fields[i].offset);
        if (slim_drops(rec, k->fields[i].type))
            s->n = 0;
        if (s->n)
            memcpy(dst, s->p, s->n);
        s->p = dst;
        dst += s->n;
    }
}

void hpc_proc_unload(hpc_proc *p)
{
    hpc_proc_schema_close(p);
    if (!p || p->lean)
        return;
    size_t n = 0, bytes = 0;
    for (size_t i = 0; i < p->nrecords; i++)
        if (keeps(p, &p->records[i])) {
            n++;
            bytes += p->slim ? slim_bytes(&p->records[i]) : p->records[i].raw.n;
        }
    hpc_record *recs = malloc(n * sizeof *recs + bytes + 1);
    if (!recs)
        return; /* stays loaded: correct, only larger */
    char *payload = (char *)(recs + n);
    size_t k = 0;
    for (size_t i = 0; i < p->nrecords; i++)
        if (keeps(p, &p->records[i])) {
            recs[k] = p->records[i];
            if (p->slim)
                slim_rebase(&recs[k], payload);
            else
                record_rebase(&recs[k], payload);
            payload += p->slim ? slim_bytes(&recs[k]) : recs[k].raw.n;
            k++;
        }
    free(p->records);
    p->records = recs;
    p->nrecords = k;
    hpc_reader_close(p->schema);
    p->schema = NULL;
    p->lean = true;
    proc_derive(p); /* the facts now point into the kept records */
}

int hpc_proc_load(hpc_proc *p, hpc_diag *d)
{
    if (!p)
        return HPC_E_INVAL;
    if (!p->lean)
        return 0;
    hpc_proc_schema_close(p); /* opened again with the records */
    hpc_record *facts = p->records;
    size_t nfacts = p->nrecords;
    p->records = NULL;
    p->nrecords = 0;
    int rc = proc_records_open(p, d, false);
    if (rc) {
        hpc_reader_close(p->schema);
        p->schema = NULL;
        free(p->records);
        p->records = facts; /* still lean, still consistent */
        p->nrecords = nfacts;
        return rc;
    }
    free(facts);
    p->lean = false;
    proc_derive(p);
    return 0;
}

/* Read job.hpe's job_begin into e->job (strings copied). */
static void job_load(exp_impl *x, const char *path, hpc_diag *d)
{
    hpc_reader *r;
    hpc_record rec;
    if (hpc_reader_open(&r, path, NULL, d) != 0)
        return;
    while (hpc_reader_next(r, &rec)) {
        if (rec.kind != HPC_K_job_begin)
            continue;
        char *mem = malloc(rec.raw.n + 1);
        if (!mem)
            break;
        record_rebase(&rec, mem);
        x->job_mem = mem;
        x->pub.job = rec.u.job_begin;
        x->pub.has_job = true;
        break;
    }
    if (!x->pub.has_job)
        DIAG(d, HPC_WARNING, path, "no job_begin record");
    hpc_reader_close(r);
}

static int procs_add(hpc_exp *e, size_t *cap, hpc_proc *p)
{
    if (e->nprocs == *cap) {
        *cap = *cap ? 2 * *cap : 8;
        hpc_proc *n = realloc(e->procs, *cap * sizeof *n);
        if (!n)
            return HPC_E_NOMEM;
        e->procs = n;
    }
    e->procs[e->nprocs++] = *p;
    return 0;
}

static const char *base_name(const char *path)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    const char *s = path + n;
    while (s > path && s[-1] != '/')
        s--;
    return s;
}

enum open_mode { OPEN_ALL, OPEN_LEAN, OPEN_SLIM };

/* A process just read whole, as the open mode keeps it. */
static void make_lean(hpc_proc *p, enum open_mode mode)
{
    if (mode == OPEN_ALL)
        return;
    p->slim = mode == OPEN_SLIM;
    hpc_proc_unload(p);
}

/* Load every sub-experiment directory of a job. Returns how many looked like one. */
static int job_procs_load(hpc_exp *e, hpc_diag *d, int *err, enum open_mode mode)
{
    DIR *dir = opendir(e->path);
    size_t cap = 0;
    int seen = 0;
    struct dirent *de;
    *err = 0;
    if (!dir) {
        *err = HPC_E_IO;
        return 0;
    }
    while ((de = readdir(dir)) && !*err) {
        if (de->d_name[0] == '.')
            continue;
        char *sub = path_cat(e->path, de->d_name);
        if (!sub) {
            *err = HPC_E_NOMEM;
            break;
        }
        hpc_proc p;
        int rc = is_dir(sub) ? proc_load(&p, sub, de->d_name, d) : 1;
        free(sub);
        if (rc == 1)
            continue;
        seen++;
        if (rc == 0)
            make_lean(&p, mode);
        if (rc == HPC_E_NOMEM)
            *err = rc;
        else if (rc == 0 && (*err = procs_add(e, &cap, &p)) != 0)
            proc_free(&p);
    }
    closedir(dir);
    return seen;
}

static int exp_open(hpc_exp **out, const char *path, hpc_diag *d, enum open_mode mode)
{
    if (!out || !path)
        return HPC_E_INVAL;
    *out = NULL;
    struct stat st;
    errno = 0;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (errno == ENOENT || errno == ENOTDIR)
            NOT_AN_EXP(d, path, "no such experiment directory");
        else if (errno)
            NOT_AN_EXP(d, path, "cannot open: %s", strerror(errno));
        else
            NOT_AN_EXP(d, path, "not an experiment: experiments are directories");
        return HPC_E_NOTFOUND;
    }
    exp_impl *x = calloc(1, sizeof *x);
    if (!x || !(x->pub.path = strdup(path))) {
        free(x);
        NOT_AN_EXP(d, path, "%s", hpc_strerror(HPC_E_NOMEM));
        return HPC_E_NOMEM;
    }
    hpc_exp *e = &x->pub;
    int err = 0, seen = 0;
    if (exists(path, HPC_PROCESS_FILE) && !exists(path, HPC_JOB_FILE)) {
        hpc_proc p; /* a single sub-experiment */
        err = proc_load(&p, path, base_name(path), d);
        seen = 1;
        if (err == 0)
            make_lean(&p, mode);
        if (err == 0) {
            size_t cap = 0;
            err = procs_add(e, &cap, &p);
        }
    } else {
        if (exists(path, HPC_JOB_FILE)) {
            char *jp = path_cat(path, HPC_JOB_FILE);
            if (jp)
                job_load(x, jp, d);
            free(jp);
            seen = 1;
        }
        seen += job_procs_load(e, d, &err, mode);
    }
    if (err == 0 && e->nprocs == 0 && !e->has_job) {
        if (!seen)
            NOT_AN_EXP(d, path, "not an experiment (no %s or %s/%s)", HPC_JOB_FILE, "*",
                       HPC_PROCESS_FILE);
        else
            DIAG(d, HPC_ERROR, path, "no usable process in this experiment");
        err = seen ? HPC_E_FORMAT : HPC_E_NOTFOUND;
    } else if (err < 0) {
        DIAG(d, HPC_ERROR, path, "%s", hpc_strerror(err));
    }
    if (err < 0) {
        hpc_exp_close(e);
        return err;
    }
    if (e->nprocs > 1)
        qsort(e->procs, e->nprocs, sizeof *e->procs, proc_cmp);
    /* no room for more: a process alone (hpmerge's merge ranks open thousands so) would
     * otherwise hold room for 8 */
    hpc_proc *fit = e->nprocs ? realloc(e->procs, e->nprocs * sizeof *fit) : NULL;
    if (fit)
        e->procs = fit;
    *out = e;
    return 0;
}

int hpc_exp_open(hpc_exp **out, const char *path, hpc_diag *d)
{
    return exp_open(out, path, d, OPEN_ALL);
}

int hpc_exp_open_lean(hpc_exp **out, const char *path, hpc_diag *d)
{
    return exp_open(out, path, d, OPEN_LEAN);
}

int hpc_exp_open_slim(hpc_exp **out, const char *path, hpc_diag *d)
{
    return exp_open(out, path, d, OPEN_SLIM);
}

void hpc_exp_close(hpc_exp *e)
{
    if (!e)
        return;
    exp_impl *x = (exp_impl *)e;
    for (size_t i = 0; i < e->nprocs; i++)
        proc_free(&e->procs[i]);
    free(e->procs);
    free(x->job_mem);
    free(e->path);
    free(x);
}

const hpc_record *hpc_proc_next_of(const hpc_proc *p, unsigned kind, size_t *i)
{
    if (!p || !i)
        return NULL;
    for (; *i < p->nrecords; ++*i)
        if (p->records[*i].kind == kind)
            return &p->records[(*i)++];
    return NULL;
}

char *hpc_str_copy(char *buf, size_t cap, hpc_str s)
{
    if (!buf || cap == 0)
        return buf;
    size_t n = s.p && s.n < cap ? s.n : s.p ? cap - 1 : 0;
    if (n)
        memcpy(buf, s.p, n);
    buf[n] = 0;
    return buf;
}

bool hpc_str_eq(hpc_str s, const char *c)
{
    if (!c)
        return false;
    size_t n = strlen(c);
    return n == s.n && (n == 0 || memcmp(s.p, c, n) == 0);
}

int hpc_proc_schema_open(hpc_proc *p)
{
    if (!p)
        return HPC_E_INVAL;
    if (p->schema || !p->lean || p->schema_builtin)
        return 0; /* schema_builtin: its threads are read by the built-in schema */
    char *pp = path_cat(p->dir, HPC_PROCESS_FILE);
    if (!pp)
        return HPC_E_NOMEM;
    /* damage was reported at open */
    int rc = hpc_reader_open(&p->schema, pp, NULL, &(hpc_diag){.quiet = 1});
    if (rc)
        p->schema = NULL;
    free(pp);
    return rc;
}

void hpc_proc_schema_close(hpc_proc *p)
{
    if (!p || !p->lean)
        return;
    hpc_reader_close(p->schema);
    p->schema = NULL;
}

int hpc_thread_open(hpc_reader **out, const hpc_proc *p, const hpc_thread_file *t, hpc_diag *d)
{
    if (!p || !t)
        return HPC_E_INVAL;
    if (p->schema || !p->lean)
        return hpc_reader_open_life(out, t->path, p->schema, d, t->offset);
    if (p->schema_builtin) { /* read as process.hpe's schema would read it, without it */
        int rc = reader_open_life_builtin(out, t->path, d, t->offset);
        if (rc != 1)
            return rc;
    }
    /* a lean process (hpc_exp_open_lean): its schema is read for this stream, which keeps
     * a copy of it (reader_schema.c), and let go again; damage was reported at open */
    hpc_reader *schema = NULL;
    char *pp = path_cat(p->dir, HPC_PROCESS_FILE);
    if (pp && hpc_reader_open(&schema, pp, NULL, &(hpc_diag){.quiet = 1}) != 0)
        schema = NULL;
    free(pp);
    int rc = hpc_reader_open_life(out, t->path, schema, d, t->offset);
    hpc_reader_close(schema);
    return rc;
}
