/*
 * run.c - the merge from experiment to outputs (see run.h).
 *
 *   1. rank 0 opens the job
 *   2. processes are shared in contiguous blocks of about equal stream bytes; every
 *      other rank opens only its share (share.c)
 *   3. each rank merges its locations, one at a time: two passes (order.c), events
 *      straight into the OTF2 event writer, which is closed before the next location
 *   4. parts go to rank 0, one at a time: it unifies each process's definitions and
 *      writes its mapping tables as they come, then the global definitions and summary
 *   5. rank 0 moves the outputs into place
 */
#include "run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive.h"
#include "defs.h"
#include "evgen.h"
#include "evwrite.h"
#include "job.h"
#include "part.h"
#include "share.h"
#include "summary_agg.h"

volatile int mg_interrupted;

/* ------------------------------------------------------------ phases (--stats) */

/* Where a merge rank's wall time goes: what the scaling model in README.md is fit to. */
#define MG_PHASES(X)                                                                               \
    X(OPEN, "open")                                                                                \
    X(MERGE, "merge")                                                                              \
    X(GATHER, "gather")                                                                            \
    X(DEFS, "definitions")                                                                         \
    X(SUMMARY, "summary")
#define MG_PHASE_ENUM(id, name) MG_PHASE_##id,
enum { MG_PHASES(MG_PHASE_ENUM) MG_NPHASES };

/* The phase that just ended took the time since the previous one ended. */
#define PHASE_END(R, id)                                                                           \
    do {                                                                                           \
        double now_ = mg_now();                                                                    \
        (R)->phase[MG_PHASE_##id] += now_ - (R)->t_phase;                                          \
        (R)->t_phase = now_;                                                                       \
    } while (0)

typedef struct run {
    const mg_opts *opts;
    mg_par *par;
    mg_job job;
    hpc_diag diag;
    char *tmp;         /* EXP/.hpmerge-PID.tmp */
    char *archive_dir; /* tmp/otf2 */
    OTF2_Archive *archive;
    bool progress;
    double t_start, t_tick;
    size_t locs_done, locs_mine;
    long peak_anon_kb;        /* RssAnon at the fullest point of each location */
    double phase[MG_NPHASES]; /* wall seconds of each phase (--stats) */
    double t_phase;
    uint64_t mine_records, mine_events;
    mg_part_writer writer; /* ranks > 0: their part, a piece at a time */
    mg_part_reader reader; /* rank 0: the part being read */
    mg_defs *defs;         /* rank 0: the definitions unified so far (defs.h) */
    bool defs_bad;         /* writing a mapping table failed */
    mg_summary sum;        /* rank 0: the summary as the processes come (summary_agg.h) */
    bool sum_open;
    hpa_buf *answer; /* rank 0: the answer to the piece being read (mapping tables) */
    mg_proc **kept;  /* rank 0: processes of parts mg_defs_add keeps until mg_defs_end */
    size_t nkept, capkept;
} run;

/* ------------------------------------------------------------ diagnostics */

static void diag_report(void *ctx, enum hpc_severity sev, const char *file, uint64_t offset,
                        const char *msg, const char *src_file, int src_line)
{
    (void)sev;
    (void)src_file;
    (void)src_line;
    mg_job *job = ctx;
    if (job->replay)
        return;
    if (offset == HPC_NO_OFFSET)
        mg_job_problem(job, "%s: %s", file ? file : "?", msg);
    else
        mg_job_problem(job, "%s: offset %llu: %s", file ? file : "?", (unsigned long long)offset,
                       msg);
}

/* ------------------------------------------------------------ progress */

static void progress_line(run *R, bool final)
{
    double now = mg_now();
    if (!final && now - R->t_tick < 0.5)
        return;
    R->t_tick = now;
    double secs = now - R->t_start;
    fprintf(stderr, "\r%s: %zu/%zu locations, %.1f M records read, 2 passes each (%.1f M/s)%s",
            MG_PROG, R->locs_done, R->locs_mine, R->job.progress_records / 1e6,
            secs > 0 ? R->job.progress_records / 1e6 / secs : 0.0, final ? "\n" : "   ");
}

static void tick(mg_job *job)
{
    run *R = job->tick_ctx;
    if (R->progress)
        progress_line(R, false);
}

/* ------------------------------------------------------------ files */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void rm_tree(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Remove temporary directories of merges that are no longer running. */
static void clean_stale(const char *exp)
{
    DIR *d = opendir(exp);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid;
        char tail[8];
        if (sscanf(e->d_name, ".hpmerge-%ld.%7s", &pid, tail) != 2 || strcmp(tail, "tmp") != 0)
            continue;
        if (pid > 0 && (kill((pid_t)pid, 0) == 0 || errno != ESRCH))
            continue; /* still running (or not ours to judge) */
        char *p = mg_xasprintf("%s/%s", exp, e->d_name);
        rm_tree(p);
        free(p);
    }
    closedir(d);
}

static int write_file(const char *path, int (*fn)(const mg_summary *, FILE *), const mg_summary *s)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: %s: %s\n", MG_PROG, path, hpc_errtext(HPC_E_IO, errno));
        return -1;
    }
    int rc = fn(s, f);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, "%s: %s: %s\n", MG_PROG, path, hpc_errtext(HPC_E_IO, errno ? errno : EIO));
        return -1;
    }
    return 0;
}

/* Move tmp/otf2, tmp/summary.* into EXP; the old otf2/ ends up in tmp and goes with it. */
static int commit(run *R)
{
    const char *exp = R->opts->exp;
    char *new_otf2 = mg_xasprintf("%s/otf2", R->tmp), *otf2 = mg_xasprintf("%s/otf2", exp);
    int rc = renameat2(AT_FDCWD, new_otf2, AT_FDCWD, otf2, RENAME_EXCHANGE);
    if (rc != 0 && errno == ENOENT)
        rc = rename(new_otf2, otf2); /* no previous otf2/ */
    if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
        /* no atomic exchange on this file system: move the old one aside first */
        char *old = mg_xasprintf("%s/otf2.old", R->tmp);
        rc = rename(otf2, old);
        if (rc == 0 || errno == ENOENT)
            rc = rename(new_otf2, otf2);
        free(old);
    }
    if (rc != 0)
        fprintf(stderr, "%s: cannot move the archive into %s: %s\n", MG_PROG, otf2,
                strerror(errno));
    static const char *names[] = {"summary.txt", "summary.json"};
    for (int i = 0; i < 2 && rc == 0; i++) {
        char *from = mg_xasprintf("%s/%s", R->tmp, names[i]);
        char *to = mg_xasprintf("%s/%s", exp, names[i]);
        rc = rename(from, to);
        if (rc != 0)
            fprintf(stderr, "%s: cannot move %s into place: %s\n", MG_PROG, to, strerror(errno));
        free(from);
        free(to);
    }
    free(new_otf2);
    free(otf2);
    return rc;
}

/* ------------------------------------------------------------ OTF2 */

static OTF2_FlushType pre_flush(void *user, OTF2_FileType ft, OTF2_LocationRef loc,
                                void *callerData, bool final)
{
    (void)user;
    (void)ft;
    (void)loc;
    (void)callerData;
    (void) final;
    return OTF2_FLUSH;
}

/* No post-flush callback: a merged trace has no measurement flushes to show, and
 * OTF2 then writes no BufferFlush records. */
static OTF2_FlushCallbacks flush_callbacks = {pre_flush, NULL};

/*
 * OTF2's default pool lets each writer hold 128 MiB before it flushes. hpmerge writes
 * one location at a time and wants memory independent of its length, so each buffer
 * gets a few chunks; when they are full, refusing the next one makes OTF2 flush them to
 * the file and free them (free_all), then start over.
 */
#define CHUNKS_PER_BUFFER 8

typedef struct chunk_list {
    void *chunks[CHUNKS_PER_BUFFER];
    unsigned n;
} chunk_list;

static void *chunk_alloc(void *user, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer,
                         uint64_t size)
{
    (void)user;
    (void)ft;
    (void)loc;
    chunk_list *l = *per_buffer;
    if (!l)
        l = *per_buffer = mg_xcalloc(1, sizeof(chunk_list));
    if (l->n == CHUNKS_PER_BUFFER)
        return NULL;
    void *c = malloc(size);
    if (c)
        l->chunks[l->n++] = c;
    return c;
}

static void chunk_free_all(void *user, OTF2_FileType ft, OTF2_LocationRef loc, void **per_buffer,
                           bool final)
{
    (void)user;
    (void)ft;
    (void)loc;
    chunk_list *l = *per_buffer;
    if (!l)
        return;
    for (unsigned i = 0; i < l->n; i++)
        free(l->chunks[i]);
    l->n = 0;
    if (final) {
        free(l);
        *per_buffer = NULL;
    }
}

static OTF2_MemoryCallbacks memory_callbacks = {chunk_alloc, chunk_free_all};

static int otf2_fail(const char *what, OTF2_ErrorCode rc)
{
    fprintf(stderr, "%s: %s: %s: %s\n", MG_PROG, what, OTF2_Error_GetName(rc),
            OTF2_Error_GetDescription(rc));
    return -1;
}

static int open_archive(run *R)
{
    /* small event chunks: every location's writers get (and OTF2 clears) at least one;
     * the definition chunk size is chosen from the data before definitions are written
     * (mg_defs_chunk_size) */
    R->archive =
        OTF2_Archive_Open(R->archive_dir, "traces", OTF2_FILEMODE_WRITE, 512 * 1024,
                          OTF2_UNDEFINED_UINT64, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!R->archive) {
        fprintf(stderr, "%s: cannot create the OTF2 archive in %s\n", MG_PROG, R->archive_dir);
        return -1;
    }
    OTF2_ErrorCode rc = OTF2_Archive_SetFlushCallbacks(R->archive, &flush_callbacks, NULL);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetMemoryCallbacks(R->archive, &memory_callbacks, NULL);
    if (rc == OTF2_SUCCESS)
        rc = mg_par_archive_callbacks(R->par, R->archive);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetCreator(R->archive, "hpmerge " HPC_VERSION);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_SetDescription(R->archive, R->job.command);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_OpenEvtFiles(R->archive);
    return rc == OTF2_SUCCESS ? 0 : otf2_fail("opening the OTF2 archive", rc);
}

/* Leaves the writer moved to keep regions nested (evwrite.h): never silent. */
static void report_nesting(mg_job *job, const mg_loc *loc, const mg_evw *x)
{
    const char *path = loc->path ? loc->path : "?";
    if (x->deferred)
        mg_job_problem(job,
                       "%s: %llu regions ended while an MPI call inside them was open; in the "
                       "trace they end with that call (MPI times are kept as measured)",
                       path, (unsigned long long)x->deferred);
    if (x->clipped)
        mg_job_problem(job,
                       "%s: %llu regions ended while regions inside them were open; in the "
                       "trace those end with them",
                       path, (unsigned long long)x->clipped);
}

/* ------------------------------------------------------------ one location */

/* --stats: anonymous memory now, at a point where a phase holds the most. */
static void sample_anon(run *R)
{
    if (!R->opts->stats)
        return;
    long kb = mg_rss_anon_kb();
    if (kb > R->peak_anon_kb)
        R->peak_anon_kb = kb;
}

static int merge_location(run *R, mg_loc *loc)
{
    mg_job *job = &R->job;
    hpc_reader *r = NULL;
    if (loc->path) {
        int rc = hpc_reader_open_life(&r, loc->path, loc->proc->hp->schema, &R->diag, loc->offset);
        if (rc < 0) {
            mg_job_problem(job, "%s: cannot read this thread's stream (%s); the location is empty",
                           loc->path, hpc_strerror(rc));
            r = NULL;
        }
    }
    mg_order o;
    mg_order_init(&o, R->opts->side_budget);
    mg_gen_location(job, loc, r, 1, mg_order_pass1, &o);
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(R->archive, loc->id);
    if (!w) {
        mg_order_free(&o);
        hpc_reader_close(r);
        fprintf(stderr, "%s: cannot open the OTF2 event writer of location %llu\n", MG_PROG,
                (unsigned long long)loc->id);
        return -1;
    }
    mg_evw x;
    mg_evw_init(&x, w, loc, R->opts->enter_leave);
    int rc = mg_order_mid(&o, mg_evw_event, &x);
    if (rc == 0) {
        job->replay = true;
        mg_gen_location(job, loc, r, 2, mg_order_pass2, &o);
        job->replay = false;
        sample_anon(R); /* side list, spill buffers and OTF2 chunks are all allocated here */
        rc = mg_order_finish(&o);
    } else {
        mg_order_free(&o);
    }
    if (rc != 0)
        fprintf(stderr, "%s: %s: sorting events in a temporary file failed: %s\n", MG_PROG,
                loc->path ? loc->path : "?", o.err ? o.err : "?");
    loc->sum.early = o.nearly;
    OTF2_ErrorCode erc = mg_evw_finish(&x);
    report_nesting(job, loc, &x);
    OTF2_ErrorCode crc = OTF2_Archive_CloseEvtWriter(R->archive, w);
    hpc_reader_close(r);
    if (erc != OTF2_SUCCESS)
        return otf2_fail("writing OTF2 events", erc);
    if (crc != OTF2_SUCCESS)
        return otf2_fail("closing an OTF2 event writer", crc);
    job->records += loc->sum.records;
    job->events += loc->sum.events;
    R->mine_records += loc->sum.records;
    R->mine_events += loc->sum.events;
    return rc;
}

/* Contiguous blocks of processes with about equal stream bytes per rank: owner[i] is the
 * merge rank of process i (rank 0, from the job's entries). */
static int *partition(run *R)
{
    mg_job *job = &R->job;
    int *owners = mg_xcalloc(job->nentries + 1, sizeof(int));
    uint64_t total = 0;
    for (size_t i = 0; i < job->nentries; i++)
        total += job->entries[i].bytes;
    uint64_t acc = 0;
    for (size_t i = 0; i < job->nentries; i++) {
        /* the rank whose share holds this process's midpoint */
        uint64_t mid = acc + job->entries[i].bytes / 2;
        int owner = (int)((__int128)mid * R->par->size / (total ? total : 1));
        if (owner >= R->par->size)
            owner = R->par->size - 1;
        owners[i] = owner;
        acc += job->entries[i].bytes;
    }
    return owners;
}

typedef struct share_ctx {
    const mg_job *job;
    const int *owners;
} share_ctx;

static void make_share(hpa_buf *b, int r, void *ctx)
{
    share_ctx *c = ctx;
    mg_share_write(b, c->job, c->owners, r);
}

/* Rank 0 (which opened the whole job) shares its processes out and takes its own; every
 * other merge rank opens its share (share.c). */
static int share_job(run *R)
{
    if (R->par->rank == 0) {
        int *owners = partition(R);
        hpa_buf none;
        int rc = mg_par_scatter(R->par, make_share, &(share_ctx){&R->job, owners}, &none);
        if (mg_job_take(&R->job, owners, R->par->size == 1) != 0)
            rc = -1;
        free(owners);
        for (size_t i = 0; i < R->job.nprocs; i++)
            R->locs_mine += R->job.procs[i].nlocs;
        return rc;
    }
    hpa_buf b;
    if (mg_par_scatter(R->par, NULL, NULL, &b) != 0)
        return -1;
    mg_share s;
    int rc = mg_share_read(&b, &s);
    hpa_buf_free(&b);
    if (rc != 0) {
        fprintf(stderr, "%s: merge rank %d: its share of the job from rank 0 is damaged\n", MG_PROG,
                R->par->rank);
        return -1;
    }
    rc = mg_job_open_share(&R->job, R->opts->exp, &R->diag, &s);
    mg_share_free(&s);
    for (size_t i = 0; i < R->job.nprocs; i++)
        R->locs_mine += R->job.procs[i].nlocs;
    return rc;
}

static int merge_mine(run *R)
{
    mg_job *job = &R->job;
    for (size_t i = 0; i < job->nprocs; i++) {
        mg_proc *p = &job->procs[i];
        if (!p->mine)
            continue;
        mg_proc_load(job, p); /* a failure is a problem of the summary; merged as it is */
        for (size_t k = 0; k < p->nlocs; k++) {
            if (mg_interrupted)
                return -1;
            if (merge_location(R, &p->locs[k]) != 0)
                return -1;
            R->locs_done++;
            if (R->progress)
                progress_line(R, false);
            /* test hooks: a merge killed, or interrupted, after some locations */
            if (R->opts->kill_after && R->locs_done == R->opts->kill_after)
                raise(SIGKILL);
            if (R->opts->stop_after && R->locs_done == R->opts->stop_after)
                raise(SIGINT);
        }
        /* what only this process needed */
        mg_symproc_close(p->sym);
        p->sym = NULL;
        mg_regtab_close(p->omptab);
        p->omptab = NULL;
        mg_proc_unload(p);
        mg_proc_release(p);
    }
    return 0;
}

/* ------------------------------------------------------------ the whole */

static int setup_tmp(run *R)
{
    uint64_t pid = (uint64_t)getpid();
    mg_par_bcast_u64(R->par, &pid);
    R->tmp = mg_xasprintf("%s/.hpmerge-%llu.tmp", R->opts->exp, (unsigned long long)pid);
    R->archive_dir = mg_xasprintf("%s/otf2", R->tmp);
    int bad = 0;
    if (R->par->rank == 0) {
        clean_stale(R->opts->exp);
        if (mkdir(R->tmp, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "%s: cannot create %s: %s\n", MG_PROG, R->tmp,
                    hpc_errtext(HPC_E_IO, errno));
            bad = 1;
        }
    }
    return mg_par_max(R->par, bad) ? -1 : 0;
}

/* The definition files opened (collective), their chunk size from every merge rank's
 * tables (defs.h). */
static int open_definitions(run *R)
{
    mg_job *job = &R->job;
    OTF2_ErrorCode orc = OTF2_Archive_CloseEvtFiles(R->archive);
    int bad = orc != OTF2_SUCCESS ? otf2_fail("closing OTF2 event files", orc) : 0;
    uint64_t nccs = mg_par_sum_u64(R->par, mg_defs_cc_count(job));
    uint64_t need = mg_par_max_u64(R->par, mg_defs_need(job, nccs));
    size_t nlocs = R->par->rank == 0 ? mg_job_nlocs(job) : 0; /* rank 0 knows them all */
    /* collective: the primary archive (rank 0) gives the size */
    orc = OTF2_Archive_SetDefChunkSize(
        R->archive, R->par->rank == 0 ? mg_defs_chunk_size(need, nlocs) : OTF2_UNDEFINED_UINT64);
    if (orc != OTF2_SUCCESS)
        bad = otf2_fail("setting the OTF2 definition chunk size", orc);
    orc = OTF2_Archive_OpenDefFiles(R->archive);
    if (orc != OTF2_SUCCESS)
        bad = otf2_fail("opening OTF2 definition files", orc);
    return mg_par_max(R->par, bad ? 1 : 0) ? -1 : 0;
}

/* Rank 0: a process's definitions unified and its mapping tables written (or, with maps,
 * put there for the merge rank that merged it: defs.h), then its summary added
 * (summary_agg.h). 1: mg_defs_add keeps p until mg_defs_end. */
static int add_proc(run *R, mg_proc *p, hpa_buf *maps)
{
    int rc = mg_defs_add(R->defs, p, R->archive, maps);
    mg_summary_add(&R->sum, p);
    return rc;
}

/* A process of a part (its own mg_proc, ours to free). */
static int unify_proc(mg_proc *p, void *ctx)
{
    run *R = ctx;
    int rc = add_proc(R, p, R->answer);
    if (rc == 1) {
        *MG_PUSH(R->kept, R->nkept, R->capkept) = p;
        return 0;
    }
    mg_proc_free(p);
    free(p);
    return rc;
}

/* Rank 0: a piece of a part; the mapping tables of its processes go back to their merge
 * rank in answer. */
static int take_part(hpa_buf *b, hpa_buf *answer, void *ctx)
{
    run *R = ctx;
    R->answer = answer;
    int rc = mg_part_read(&R->reader, b, &R->job, unify_proc, R);
    R->answer = NULL;
    sample_anon(R); /* the piece is still here, its processes' summaries added */
    if (rc == -2) { /* an OTF2 error, said already: the part itself is fine */
        R->defs_bad = true;
        rc = 0;
    }
    return rc;
}

/* A merge rank > 0: its processes' mapping tables, from rank 0's answer to a piece. */
static void write_maps(hpa_buf *answer, void *ctx)
{
    run *R = ctx;
    int rc = mg_defs_write_maps(R->archive, answer);
    if (rc == -2)
        fprintf(stderr, "%s: merge rank %d: rank 0's mapping tables are damaged\n", MG_PROG,
                R->par->rank);
    if (rc != 0)
        R->defs_bad = true;
}

/* A merge rank > 0: the next piece of its part. */
static bool next_piece(hpa_buf *b, void *ctx)
{
    run *R = ctx;
    bool more = mg_part_next(&R->writer, b);
    sample_anon(R); /* the piece and what is still to send */
    return more;
}

/* Rank 0 unifies the definitions of its processes, then of every other rank's as its part
 * comes, one piece at a time (each process's let go of once its mapping tables are
 * written); the others send theirs. */
static int gather_parts(run *R, size_t first_problem)
{
    mg_job *job = &R->job;
    int bad = 0;
    if (R->par->rank == 0) {
        R->defs = mg_defs_begin(job);
        bad = mg_summary_begin(&R->sum, job, R->tmp) != 0;
        R->sum_open = !bad;
        for (size_t i = 0; i < job->nprocs && !bad; i++)
            if (add_proc(R, &job->procs[i], NULL) < 0)
                R->defs_bad = true;
    }
    if (mg_par_max(R->par, bad))
        return -1;
    int rc = 0;
    if (R->par->size > 1) {
        mg_part_writer_init(&R->writer, job, first_problem, R->opts->piece_bytes);
        rc = mg_par_collect(R->par, next_piece, take_part, write_maps, R);
        if (rc < 0)
            fprintf(stderr, "%s: a piece of a merge rank's results exceeds 2 GiB\n", MG_PROG);
        else if (rc > 0)
            fprintf(stderr, "%s: the results of merge rank %d are damaged\n", MG_PROG, rc);
        mg_part_writer_free(&R->writer);
        mg_part_reader_free(&R->reader);
    }
    return mg_par_max(R->par, rc || R->defs_bad ? 1 : 0) ? -1 : 0;
}

/* Rank 0 writes the global definitions; all close the archive. */
static int write_definitions(run *R)
{
    int bad = 0;
    if (R->par->rank == 0) {
        sample_anon(R); /* every process's summary and the unified definitions */
        bad = mg_defs_end(R->defs, R->archive) != 0;
        R->defs = NULL;
    }
    mg_par_wait(R->par); /* while rank 0 writes them */
    OTF2_ErrorCode orc = OTF2_Archive_CloseDefFiles(R->archive);
    if (orc != OTF2_SUCCESS)
        bad = otf2_fail("closing OTF2 definition files", orc);
    orc = OTF2_Archive_Close(R->archive);
    R->archive = NULL;
    if (orc != OTF2_SUCCESS)
        bad = otf2_fail("closing the OTF2 archive", orc);
    return mg_par_max(R->par, bad ? 1 : 0) ? -1 : 0;
}

static int write_summaries(run *R)
{
    mg_job *job = &R->job;
    char *txt = mg_xasprintf("%s/summary.txt", R->tmp);
    char *json = mg_xasprintf("%s/summary.json", R->tmp);
    if (mg_summary_finish(&R->sum) != 0) {
        fprintf(stderr, "%s: %s: the summary's temporary files cannot be read back\n", MG_PROG,
                R->tmp);
        free(txt);
        free(json);
        return -1;
    }
    /* the I/O summary reads every process's I/O records (-i): rank 0 of a parallel merge,
     * which let go of the job's experiment, opens it again for them */
    if (job->io_traced && !job->exp &&
        hpc_exp_open_lean(&job->exp, job->path, &(hpc_diag){.quiet = 1}) < 0)
        job->exp = NULL;
    int rc = write_file(txt, mg_summary_write_text, &R->sum);
    if (rc == 0)
        rc = write_file(json, mg_summary_write_json, &R->sum);
    free(txt);
    free(json);
    return rc;
}

static void report_stats(run *R)
{
    mg_job *job = &R->job;
    double wall = mg_now() - R->t_start, cpu = mg_cpu_seconds();
    long anon = mg_rss_anon_kb();
    if (anon > R->peak_anon_kb)
        R->peak_anon_kb = anon;
    fprintf(stderr,
            "%s: stats: rank %d: %llu records, %llu events written; wall %.3f s, cpu %.3f s; "
            "%.2f M events/s (cpu), %.2f M events/s (wall); peak anon memory %ld kB, "
            "max rss %ld kB\n",
            MG_PROG, R->par->rank, (unsigned long long)R->mine_records,
            (unsigned long long)R->mine_events, wall, cpu,
            cpu > 0 ? R->mine_events / cpu / 1e6 : 0.0,
            wall > 0 ? R->mine_events / wall / 1e6 : 0.0, R->peak_anon_kb, mg_maxrss_kb());
    static const char *const names[] = {
#define MG_PHASE_NAME(id, name) name,
        MG_PHASES(MG_PHASE_NAME)};
    char line[256]; /* one write: merge ranks share stderr */
    int n =
        snprintf(line, sizeof line, "%s: stats: rank %d: phases (wall s):", MG_PROG, R->par->rank);
    for (int i = 0; i < MG_NPHASES && n > 0 && (size_t)n < sizeof line; i++)
        n += snprintf(line + n, sizeof line - (size_t)n, " %s %.3f%s", names[i], R->phase[i],
                      i + 1 < MG_NPHASES ? "," : "\n");
    fputs(line, stderr);
    (void)job;
}

static void report_done(run *R)
{
    mg_job *job = &R->job;
    fprintf(stderr,
            "%s: %s/otf2/traces.otf2: %zu processes, %zu locations, %llu events from "
            "%llu records in %.2f s; %s/summary.txt, summary.json%s\n",
            MG_PROG, R->opts->exp, job->nentries, mg_job_nlocs(job),
            (unsigned long long)job->events, (unsigned long long)job->records, job->merge_seconds,
            R->opts->exp, job->nproblems ? " (problems listed there)" : "");
}

/*
 * Complete the job's archive (model/archive.h) as it was collected (-a): what launchers
 * that were killed, or ranks that died, left out is copied now, before symbols are read.
 * Rank 0 does it; objects already there are not copied again. Problems go to the summary.
 */
static void complete_archive(run *R)
{
    hpc_exp *e = R->job.exp;
    unsigned mode = 0;
    for (size_t i = 0; i < e->nprocs && !mode; i++)
        mode = (unsigned)e->procs[i].settings.archive;
    hpa_archive_report r;
    if (mode && hpa_archive_exp(e, NULL, mode, &R->diag, &r) == 0 && r.objects + r.sources &&
        !R->opts->quiet) {
        char line[512];
        hpa_archive_summary(&r, line, sizeof(line));
        fprintf(stderr, "%s: %s: %s\n", MG_PROG, R->opts->exp, line);
    }
}

int mg_run(const mg_opts *opts, mg_par *par)
{
    run R = {.opts = opts, .par = par};
    R.diag = (hpc_diag){.report = diag_report, .ctx = &R.job, .prog = MG_PROG};
    R.t_start = R.t_phase = mg_now();
    /* rank 0 opens the whole job; the others sleep until it shares it out (share_job) */
    int bad = 0;
    if (par->rank == 0) {
        bad = mg_job_open(&R.job, opts->exp, &R.diag) < 0;
        if (!bad)
            complete_archive(&R);
    }
    mg_par_wait(par);
    if (mg_par_max(par, bad)) {
        mg_job_close(&R.job);
        return MG_EXIT_FAIL;
    }
    size_t first_problem = R.job.nproblems;
    if (mg_par_max(par, share_job(&R) != 0)) {
        mg_job_close(&R.job);
        return MG_EXIT_FAIL;
    }
    R.job.syms = mg_syms_open(&R.diag);
    R.job.tick = tick;
    R.job.tick_ctx = &R;
    R.job.merge_ranks = par->size;
    R.job.cc_limit = opts->cc_limit;
    R.job.top = opts->top;
    R.progress = par->rank == 0 && (opts->progress > 0 || (opts->progress < 0 && isatty(2)));
    int rc = MG_EXIT_FAIL;
    if (setup_tmp(&R) != 0)
        goto out;
    bad = open_archive(&R) != 0;
    if (mg_par_max(par, bad))
        goto out;
    PHASE_END(&R, OPEN);
    bad = merge_mine(&R) != 0;
    if (R.progress)
        progress_line(&R, true);
    mg_par_wait(par); /* until the slowest share is merged */
    if (mg_par_max(par, bad)) {
        if (mg_interrupted)
            rc = MG_EXIT_INTERRUPTED;
        goto out;
    }
    PHASE_END(&R, MERGE);
    mg_job_merged(&R.job);
    if (open_definitions(&R) != 0 || gather_parts(&R, first_problem) != 0)
        goto out;
    PHASE_END(&R, GATHER);
    if (write_definitions(&R) != 0)
        goto out;
    PHASE_END(&R, DEFS);
    R.job.merge_seconds = mg_now() - R.t_start;
    bad = 0;
    if (par->rank == 0)
        bad = write_summaries(&R) != 0 || commit(&R) != 0;
    mg_par_wait(par); /* while rank 0 writes them */
    if (mg_par_max(par, bad))
        goto out;
    PHASE_END(&R, SUMMARY);
    if (par->rank == 0 && !opts->quiet)
        report_done(&R);
    if (opts->stats)
        report_stats(&R);
    rc = MG_EXIT_OK;
out:
    mg_defs_discard(R.defs);
    if (R.sum_open)
        mg_summary_end(&R.sum);
    for (size_t i = 0; i < R.nkept; i++) {
        mg_proc_free(R.kept[i]);
        free(R.kept[i]);
    }
    free(R.kept);
    if (R.archive)
        OTF2_Archive_Close(R.archive);
    if (par->rank == 0 && R.tmp)
        rm_tree(R.tmp);
    free(R.tmp);
    free(R.archive_dir);
    mg_job_close(&R.job);
    return rc;
}
