/*
 * cmd_mpi.c - `mpi`: MPI time, messages and call sites of an MPI job, from the MPI
 * trace records of every rank (mpi_call followed by its mpi_p2p / mpi_coll details),
 * laid out as mpiP reports them:
 *
 *     MPI time per rank
 *     Rank  AppTime(s)  MPITime(s)   MPI%  Sends  Bytes sent  Receives  Bytes recv  Other
 *        0       2.012       0.350  17.40     10        7048         9        5000     21
 *        *       8.048       1.402  17.42     38       24096        38       24096     84
 *
 *     Aggregate time by call (all ranks)
 *     Call              Calls   Time(s)   App%   MPI%    COV   Mean(us)   Min(us)   Max(us)
 *     MPI_Recv             14     0.601   7.47  42.87   0.12     42.930     2.100   300.200
 *
 *     Aggregate time by call site
 *     Site  Call              Calls   Time(s)   App%   MPI%    COV   Max(us)  Location
 *        1  MPI_Recv             12     0.500   6.21  35.66   0.10   300.200  ring traffic.c:42
 *
 *     Message sizes: point-to-point sends by call site, collectives by operation, and a
 *     histogram of point-to-point message sizes.
 *
 * The numbers are computed by mpi_model.c (which `export html` shows too) with
 * mpi_stats.c, which hpmerge's summary shares. Meanings,
 * from the reference's Table 2-4: MPI Sends counts point-to-point sends
 * started, MPI Receives point-to-point receives completed (bytes as received), Other
 * MPI Events the calls that neither send nor receive; a message to or from
 * MPI_PROC_NULL is none. AppTime runs from the end of MPI_Init to the start of
 * MPI_Finalize (to the process's last record when it never got there: then the End
 * column says how it ended). MPITime sums the calls in that window except MPI_Init and
 * MPI_Finalize and calls made from inside other MPI calls (user reduction operators,
 * callbacks), which are part of the outer call's time. The call and call-site tables
 * leave out MPI_Init and MPI_Finalize, as mpiP does. COV is the standard deviation of
 * the ranks' times over their mean, among the ranks that made the call (0 for one rank).
 * Call sites are the calling function and source line, unified across ranks. The
 * communication matrix counts point-to-point sends (as Sends does) from world rank to
 * world rank, messages and bytes.
 *
 *     Heap per rank (a job recorded with -H): model/heap.h's numbers of each rank, as
 *     hpmerge's summary has them (allocations, bytes, frees, leaks, bytes leaked, peak
 *     bytes in use, temporary allocations, bytes in use at the end).
 *
 * `mpi [ranks|calls|sites|sizes|collectives|matrix|memory]...`: text prints the tables named
 * (default all; memory, the heap per rank, when a rank has heap data: `heap` is a command
 * of its own), CSV the tables named (default ranks), each
 * with its header line and a blank line between them, JSON always prints all (a rank's
 * heap as heap_<key> keys of its row, when it has heap data). Every text title says which ranks it
 * covers
 * ("all ranks", or the --ranks list). CSV columns and JSON
 * keys are stable; per rank: rank, app_time_s, mpi_time_s, mpi_pct, mpi_sends,
 * mpi_bytes_sent, mpi_receives, mpi_bytes_received, mpi_other_calls, ...
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "heap.h"
#include "mpi_model.h"
#include "procinfo.h"
#include "report_util.h"

typedef hpa_mpi_sum mpi_sum;
typedef hpa_mpi_rank rank_row;
typedef hpa_mpi_row call_row;
typedef hpa_mpi_rows row_set;

typedef hpa_mpi_model mpi_model;

/* ---------------------------------------------------------------- derived values */

static uint64_t app_ns(const rank_row *rr)
{
    return hpa_mpi_model_app_ns(rr);
}

static uint64_t total_app_ns(const mpi_model *m)
{
    return hpa_mpi_model_total_app_ns(m);
}

static double pct(uint64_t part, uint64_t whole)
{
    return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static double secs(uint64_t ns)
{
    return (double)ns * 1e-9;
}

static double usecs(uint64_t ns)
{
    return (double)ns * 1e-3;
}

static int rank_of(const rank_row *rr)
{
    return rr->pr->proc->rank;
}

static bool ended_early(const rank_row *rr)
{
    return rr->pr->proc->ended_early || rr->w.aborted || (rr->w.has_init && !rr->w.has_fin);
}

/* How the rank ended, for the End column. */
static void end_text(const mpi_model *m, const rank_row *rr, char *buf, size_t cap)
{
    char how[256], in[128] = "";
    hpa_end_text(rr->pr->proc, how, sizeof how);
    if (rr->died_in >= 0)
        snprintf(in, sizeof in, " inside %s", m->names[rr->died_in]);
    if (rr->w.aborted)
        snprintf(buf, cap, "MPI_Abort(%" PRId64 "), %s", rr->w.abort_code, how);
    else if (rr->w.has_init && !rr->w.has_fin)
        snprintf(buf, cap, "no MPI_Finalize, %s%s", how, in);
    else
        snprintf(buf, cap, "%s%s", how, in);
}

/* ---------------------------------------------------------------- text */

static void text_ranks(const mpi_model *m, FILE *f)
{
    char end[512];
    fprintf(f,
            "MPI time per rank (%s; Sends, Receives and their bytes: point-to-point messages, "
            "collectives below; Other: calls that neither send nor receive)\n\n",
            m->scope);
    fprintf(f, "%5s %11s %11s %7s %8s %12s %8s %12s %8s  %s\n", "Rank", "AppTime(s)", "MPITime(s)",
            "MPI%", "Sends", "Bytes sent", "Receives", "Bytes recv", "Other", "End");
    for (size_t i = 0; i < m->nranks; i++) {
        const rank_row *rr = &m->ranks[i];
        end_text(m, rr, end, sizeof end);
        fprintf(f,
                "%5d %11.6f %11.6f %7.2f %8" PRIu64 " %12" PRIu64 " %8" PRIu64 " %12" PRIu64
                " %8" PRIu64 "  %s%s\n",
                rank_of(rr), secs(app_ns(rr)), secs(rr->s.time_ns), pct(rr->s.time_ns, app_ns(rr)),
                rr->s.sends, rr->s.bytes_sent, rr->s.recvs, rr->s.bytes_recv, rr->s.other,
                ended_early(rr) ? "ENDED EARLY: " : "", end);
    }
    const mpi_sum *t = &m->total;
    uint64_t app = total_app_ns(m);
    fprintf(f,
            "%5s %11.6f %11.6f %7.2f %8" PRIu64 " %12" PRIu64 " %8" PRIu64 " %12" PRIu64
            " %8" PRIu64 "\n",
            "*", secs(app), secs(t->time_ns), pct(t->time_ns, app), t->sends, t->bytes_sent,
            t->recvs, t->bytes_recv, t->other);
    size_t early = 0;
    for (size_t i = 0; i < m->nranks; i++)
        early += ended_early(&m->ranks[i]);
    if (early) {
        fprintf(f, "\n%zu rank(s) ended early:", early);
        for (size_t i = 0; i < m->nranks; i++)
            if (ended_early(&m->ranks[i]))
                fprintf(f, " %d", rank_of(&m->ranks[i]));
        fprintf(f, " (their data is complete up to their end)\n");
    }
}

static size_t limit_rows(const hpa_ctx *ctx, size_t n)
{
    return ctx->opts.limit && ctx->opts.limit < n ? ctx->opts.limit : n;
}

static void text_calls(const hpa_ctx *ctx, const mpi_model *m, FILE *f)
{
    uint64_t app = total_app_ns(m), mpi = m->total.time_ns;
    fprintf(f,
            "Aggregate time by call (%s; MPI_Init and MPI_Finalize left out; COV: of the "
            "ranks' times in the call; Call mean/min/max: the time of one call)\n\n",
            m->scope);
    fprintf(f, "%-24s %9s %11s %7s %7s %6s %13s %13s %13s\n", "Call", "Calls", "Time(s)", "App%",
            "MPI%", "COV", "Call mean(us)", "Call min(us)", "Call max(us)");
    for (size_t i = 0; i < limit_rows(ctx, m->fns.n); i++) {
        const call_row *r = &m->fns.v[i];
        fprintf(f, "%-24s %9" PRIu64 " %11.6f %7.2f %7.2f %6.2f %13.3f %13.3f %13.3f\n",
                m->names[r->fn], r->s.calls, secs(r->s.time_ns), pct(r->s.time_ns, app),
                pct(r->s.time_ns, mpi), r->cov,
                r->s.calls ? usecs(r->s.time_ns) / (double)r->s.calls : 0, usecs(r->s.min_ns),
                usecs(r->s.max_ns));
    }
}

static void text_sites(const hpa_ctx *ctx, const mpi_model *m, FILE *f)
{
    char where[1024];
    uint64_t app = total_app_ns(m), mpi = m->total.time_ns;
    fprintf(f, "Aggregate time by call site (%s; Call max: the longest single call)\n\n", m->scope);
    fprintf(f, "%5s %-22s %9s %11s %7s %7s %6s %13s  %s\n", "Site", "Call", "Calls", "Time(s)",
            "App%", "MPI%", "COV", "Call max(us)", "Location");
    for (size_t i = 0; i < limit_rows(ctx, m->sites.n); i++) {
        const call_row *r = &m->sites.v[i];
        hpa_mpi_site_location(m, r, where, sizeof where);
        fprintf(f, "%5u %-22s %9" PRIu64 " %11.6f %7.2f %7.2f %6.2f %13.3f  %s\n", r->site,
                m->names[r->fn], r->s.calls, secs(r->s.time_ns), pct(r->s.time_ns, app),
                pct(r->s.time_ns, mpi), r->cov, usecs(r->s.max_ns), where);
    }
}

static void text_sizes(const hpa_ctx *ctx, const mpi_model *m, FILE *f)
{
    fprintf(f, "Point-to-point bytes sent by call site (%s; Mean/Min/Max: one message)\n\n",
            m->scope);
    fprintf(f, "%5s %-22s %9s %14s %12s %12s %12s\n", "Site", "Call", "Sends", "Bytes", "Mean",
            "Min", "Max");
    size_t shown = 0;
    for (size_t i = 0; i < m->sites.n && shown < limit_rows(ctx, m->sites.n); i++) {
        const call_row *r = &m->sites.v[i];
        if (!r->s.sends)
            continue;
        shown++;
        fprintf(f, "%5u %-22s %9" PRIu64 " %14" PRIu64 " %12.1f %12" PRIu64 " %12" PRIu64 "\n",
                r->site, m->names[r->fn], r->s.sends, r->s.bytes_sent,
                (double)r->s.bytes_sent / (double)r->s.sends, r->s.msg_min, r->s.msg_max);
    }
    fprintf(f, "\nPoint-to-point message sizes (sends, %s)\n\n%-24s %9s\n", m->scope, "Bytes",
            "Messages");
    for (unsigned b = 0; b < HPA_MPI_NSIZES; b++) {
        if (!m->hist[b])
            continue;
        char range[64];
        uint64_t lo, hi;
        hpa_mpi_size_bucket(b, &lo, &hi);
        if (b == 0)
            snprintf(range, sizeof range, "0");
        else
            snprintf(range, sizeof range, "%" PRIu64 "-%" PRIu64, lo, hi);
        fprintf(f, "%-24s %9" PRIu64 "\n", range, m->hist[b]);
    }
}

static void text_colls(const mpi_model *m, FILE *f)
{
    fprintf(f,
            "Collectives by operation (%s; bytes as each rank's buffers describe: sent = its "
            "send buffer arguments, recv = what its receive buffer gets)\n\n",
            m->scope);
    fprintf(f, "%-22s %9s %14s %14s\n", "Operation", "Calls", "Bytes sent", "Bytes recv");
    for (unsigned op = 1; hpa_mpi_coll_name(op); op++)
        if (m->coll_calls[op])
            fprintf(f, "%-22s %9" PRIu64 " %14" PRIu64 " %14" PRIu64 "\n", hpa_mpi_coll_name(op),
                    m->coll_calls[op], m->coll_sent[op], m->coll_recv[op]);
}

static void text_matrix(const hpa_ctx *ctx, const mpi_model *m, FILE *f)
{
    fprintf(f,
            "Communication matrix (%s; point-to-point sends started, from the sender's "
            "MPI_COMM_WORLD rank to the receiver's)\n\n%6s %6s %9s %14s\n",
            m->scope, "From", "To", "Messages", "Bytes");
    for (size_t i = 0; i < limit_rows(ctx, m->ncells); i++)
        fprintf(f, "%6" PRId64 " %6" PRId64 " %9" PRIu64 " %14" PRIu64 "\n", m->cells[i].src,
                m->cells[i].dst, m->cells[i].messages, m->cells[i].bytes);
    if (m->matrix_unknown)
        fprintf(f, "(%" PRIu64 " sends to a process whose world rank is unknown)\n",
                m->matrix_unknown);
}

/* The rank's heap numbers (hpm_heap_summary), false when it has none (no -H). */
static bool rank_heap(const rank_row *rr, uint64_t v[HPM_HEAP_NSUMMARY])
{
    if (!rr->has_heap)
        return false;
    memcpy(v, rr->heap, sizeof rr->heap);
    return true;
}

static bool any_heap(const mpi_model *m)
{
    for (size_t i = 0; i < m->nranks; i++)
        if (m->ranks[i].has_heap)
            return true;
    return false;
}

/* Read the heap numbers of the ranks recorded with -H. `mpi` loads no samples and keeps
 * no heap: each rank's blocks are read, summed and let go in turn (memory of one rank's
 * blocks at a time). Returns 0 or HPC_E_NOMEM. */
static int read_heaps(mpi_model *m)
{
    _Static_assert(sizeof m->ranks[0].heap == HPM_HEAP_NSUMMARY * sizeof(uint64_t),
                   "hpa_mpi_rank.heap holds hpm_heap_summary");
    for (size_t i = 0; i < m->nranks; i++) {
        rank_row *rr = &m->ranks[i];
        const hpc_proc *proc = rr->pr->proc;
        if (rr->pr->heap && rr->pr->heap->traced) { /* loaded already */
            hpm_heap_summary(rr->pr->heap, rr->heap);
            rr->has_heap = true;
            continue;
        }
        if (!proc->settings.heap_trace)
            continue;
        hpm_heap h;
        hpc_proc_schema_open((hpc_proc *)proc); /* one reading of the schema for its threads */
        int rc = hpm_heap_read(&h, proc);
        hpc_proc_schema_close((hpc_proc *)proc);
        if (rc < 0)
            return rc;
        hpm_heap_summary(&h, rr->heap);
        rr->has_heap = h.traced;
        hpm_heap_free(&h);
    }
    return 0;
}

static void text_heap(const hpa_ctx *ctx, const mpi_model *m, FILE *f)
{
    (void)ctx;
    if (!any_heap(m)) {
        fprintf(f, "No heap data: the job ran without -H.\n");
        return;
    }
    fprintf(f,
            "Heap per rank (%s; -H: Leaks are blocks not freed at the end, Peak the most bytes "
            "in use at once, Temporary the blocks freed right after; *: the sums)\n\n",
            m->scope);
    fprintf(f, "%5s %12s %14s %12s %9s %14s %14s %10s %14s\n", "Rank", "Allocations", "Bytes",
            "Frees", "Leaks", "Bytes leaked", "Peak bytes", "Temporary", "End bytes");
    uint64_t sum[HPM_HEAP_NSUMMARY] = {0}, v[HPM_HEAP_NSUMMARY];
    for (size_t i = 0; i < m->nranks; i++) {
        if (!rank_heap(&m->ranks[i], v))
            continue;
        fprintf(f, "%5d", rank_of(&m->ranks[i]));
        for (int k = 0; k < HPM_HEAP_NSUMMARY; k++) {
            static const int width[HPM_HEAP_NSUMMARY] = {12, 14, 12, 9, 14, 14, 10, 14};
            fprintf(f, " %*" PRIu64, width[k], v[k]);
            sum[k] += v[k];
        }
        fputc('\n', f);
    }
    fprintf(f,
            "%5s %12" PRIu64 " %14" PRIu64 " %12" PRIu64 " %9" PRIu64 " %14" PRIu64 " %14" PRIu64
            " %10" PRIu64 " %14" PRIu64 "\n",
            "*", sum[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7]);
}

/* ---------------------------------------------------------------- CSV */

static const char *const rank_cols =
    "rank,process,app_time_s,mpi_time_s,mpi_pct,mpi_calls,mpi_sends,mpi_bytes_sent,mpi_receives,"
    "mpi_bytes_received,mpi_other_calls,coll_calls,coll_bytes_sent,coll_bytes_received,"
    "nested_calls,events_dropped,ended_early,end\n";

static void csv_ranks(const mpi_model *m, FILE *f)
{
    char end[512];
    fputs(rank_cols, f);
    for (size_t i = 0; i < m->nranks; i++) {
        const rank_row *rr = &m->ranks[i];
        end_text(m, rr, end, sizeof end);
        fprintf(f, "%d,", rank_of(rr));
        hpa_csv_field(f, rr->pr->proc->name, ',');
        fprintf(f,
                "%.9f,%.9f,%.4f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%d,",
                secs(app_ns(rr)), secs(rr->s.time_ns), pct(rr->s.time_ns, app_ns(rr)), rr->s.calls,
                rr->s.sends, rr->s.bytes_sent, rr->s.recvs, rr->s.bytes_recv, rr->s.other,
                rr->s.coll_calls, rr->s.coll_sent, rr->s.coll_recv, rr->nested, rr->dropped,
                ended_early(rr));
        hpa_csv_field(f, end, '\n');
    }
}

static void csv_heap(const mpi_model *m, FILE *f)
{
    fputs("rank,process", f);
    for (int k = 0; k < HPM_HEAP_NSUMMARY; k++)
        fprintf(f, ",heap_%s", hpm_heap_summary_keys[k]);
    fputc('\n', f);
    uint64_t v[HPM_HEAP_NSUMMARY];
    for (size_t i = 0; i < m->nranks; i++) {
        const rank_row *rr = &m->ranks[i];
        if (!rank_heap(rr, v))
            continue;
        fprintf(f, "%d,", rank_of(rr));
        hpa_csv_field(f, rr->pr->proc->name, ',');
        for (int k = 0; k < HPM_HEAP_NSUMMARY; k++)
            fprintf(f, "%" PRIu64 "%c", v[k], k + 1 < HPM_HEAP_NSUMMARY ? ',' : '\n');
    }
}

static void csv_rows(const hpa_ctx *ctx, const mpi_model *m, const row_set *rs, bool sites, FILE *f)
{
    char where[1024];
    uint64_t app = total_app_ns(m), mpi = m->total.time_ns;
    fprintf(f,
            "%sname,calls,time_s,app_pct,mpi_pct,cov,mean_s,min_s,max_s,sends,bytes_sent,"
            "receives,bytes_received,coll_bytes_sent,coll_bytes_received%s\n",
            sites ? "site," : "", sites ? ",location" : "");
    for (size_t i = 0; i < limit_rows(ctx, rs->n); i++) {
        const call_row *r = &rs->v[i];
        if (sites)
            fprintf(f, "%u,", r->site);
        hpa_csv_field(f, m->names[r->fn], ',');
        fprintf(f,
                "%" PRIu64 ",%.9f,%.4f,%.4f,%.4f,%.9f,%.9f,%.9f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
                ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
                r->s.calls, secs(r->s.time_ns), pct(r->s.time_ns, app), pct(r->s.time_ns, mpi),
                r->cov, r->s.calls ? secs(r->s.time_ns) / (double)r->s.calls : 0, secs(r->s.min_ns),
                secs(r->s.max_ns), r->s.sends, r->s.bytes_sent, r->s.recvs, r->s.bytes_recv,
                r->s.coll_sent, r->s.coll_recv);
        if (sites) {
            hpa_mpi_site_location(m, r, where, sizeof where);
            fputc(',', f);
            hpa_csv_field(f, where, 0);
        }
        fputc('\n', f);
    }
}

static void csv_sizes(const mpi_model *m, FILE *f)
{
    fputs("bytes_min,bytes_max,messages\n", f);
    for (unsigned b = 0; b < HPA_MPI_NSIZES; b++) {
        uint64_t lo, hi;
        hpa_mpi_size_bucket(b, &lo, &hi);
        if (m->hist[b])
            fprintf(f, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", lo, hi, m->hist[b]);
    }
}

static void csv_colls(const mpi_model *m, FILE *f)
{
    fputs("operation,calls,bytes_sent,bytes_received\n", f);
    for (unsigned op = 1; hpa_mpi_coll_name(op); op++)
        if (m->coll_calls[op])
            fprintf(f, "%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 "\n", hpa_mpi_coll_name(op),
                    m->coll_calls[op], m->coll_sent[op], m->coll_recv[op]);
}

static void csv_matrix(const mpi_model *m, FILE *f)
{
    fputs("from,to,messages,bytes\n", f);
    for (size_t i = 0; i < m->ncells; i++)
        fprintf(f, "%" PRId64 ",%" PRId64 ",%" PRIu64 ",%" PRIu64 "\n", m->cells[i].src,
                m->cells[i].dst, m->cells[i].messages, m->cells[i].bytes);
}

/* ---------------------------------------------------------------- JSON */

static void json_sum(hpa_json *j, const mpi_sum *s)
{
    hpa_json_ku64(j, "calls", s->calls);
    hpa_json_kdouble(j, "time_s", secs(s->time_ns));
    hpa_json_kdouble(j, "min_s", s->calls ? secs(s->min_ns) : 0);
    hpa_json_kdouble(j, "max_s", secs(s->max_ns));
    hpa_json_ku64(j, "sends", s->sends);
    hpa_json_ku64(j, "bytes_sent", s->bytes_sent);
    hpa_json_ku64(j, "receives", s->recvs);
    hpa_json_ku64(j, "bytes_received", s->bytes_recv);
    hpa_json_ku64(j, "other_calls", s->other);
    hpa_json_ku64(j, "coll_bytes_sent", s->coll_sent);
    hpa_json_ku64(j, "coll_bytes_received", s->coll_recv);
}

static void json_rank(hpa_json *j, const mpi_model *m, const rank_row *rr)
{
    char end[512];
    hpa_json_begin_obj(j);
    hpa_json_ki64(j, "rank", rank_of(rr));
    hpa_json_kstr(j, "process", rr->pr->proc->name);
    hpa_json_kdouble(j, "app_time_s", secs(app_ns(rr)));
    hpa_json_kdouble(j, "mpi_time_s", secs(rr->s.time_ns));
    hpa_json_kdouble(j, "mpi_pct", pct(rr->s.time_ns, app_ns(rr)));
    hpa_json_ku64(j, "mpi_calls", rr->s.calls);
    hpa_json_ku64(j, "mpi_sends", rr->s.sends);
    hpa_json_ku64(j, "mpi_bytes_sent", rr->s.bytes_sent);
    hpa_json_ku64(j, "mpi_receives", rr->s.recvs);
    hpa_json_ku64(j, "mpi_bytes_received", rr->s.bytes_recv);
    hpa_json_ku64(j, "mpi_other_calls", rr->s.other);
    hpa_json_ku64(j, "coll_calls", rr->s.coll_calls);
    hpa_json_ku64(j, "coll_bytes_sent", rr->s.coll_sent);
    hpa_json_ku64(j, "coll_bytes_received", rr->s.coll_recv);
    hpa_json_ku64(j, "nested_calls", rr->nested);
    hpa_json_ku64(j, "events_dropped", rr->dropped);
    hpa_json_ku64(j, "damaged_records", rr->damaged);
    hpa_json_key(j, "ended_early");
    hpa_json_bool(j, ended_early(rr));
    hpa_json_key(j, "mpi_abort");
    hpa_json_bool(j, rr->w.aborted);
    end_text(m, rr, end, sizeof end);
    hpa_json_kstr(j, "end", end);
    hpa_json_kstr(j, "died_in", rr->died_in >= 0 ? m->names[rr->died_in] : "");
    uint64_t v[HPM_HEAP_NSUMMARY];
    for (int k = 0; rank_heap(rr, v) && k < HPM_HEAP_NSUMMARY; k++) {
        char key[64];
        snprintf(key, sizeof key, "heap_%s", hpm_heap_summary_keys[k]);
        hpa_json_ku64(j, key, v[k]);
    }
    hpa_json_end_obj(j);
}

static void json_rows(hpa_json *j, const mpi_model *m, const row_set *rs, bool sites)
{
    char where[1024];
    uint64_t app = total_app_ns(m), mpi = m->total.time_ns;
    hpa_json_begin_arr(j);
    for (size_t i = 0; i < rs->n; i++) {
        const call_row *r = &rs->v[i];
        hpa_json_begin_obj(j);
        if (sites) {
            const hpa_line *l = hpa_symtab_line(m->prof->syms, r->line);
            hpa_json_ku64(j, "site", r->site);
            hpa_json_kstr(j, "name", m->names[r->fn]);
            hpa_mpi_site_location(m, r, where, sizeof where);
            hpa_json_kstr(j, "location", where);
            hpa_json_kstr(j, "function",
                          l ? hpa_symtab_func(m->prof->syms, l->func)->name : "<Unknown>");
            hpa_json_kstr(j, "file", l && l->file ? l->file : "");
            hpa_json_ku64(j, "line", l ? l->lineno : 0);
        } else {
            hpa_json_kstr(j, "name", m->names[r->fn]);
        }
        json_sum(j, &r->s);
        hpa_json_kdouble(j, "app_pct", pct(r->s.time_ns, app));
        hpa_json_kdouble(j, "mpi_pct", pct(r->s.time_ns, mpi));
        hpa_json_kdouble(j, "cov", r->cov);
        hpa_json_key(j, "ranks");
        hpa_json_begin_arr(j);
        for (size_t k = 0; k < m->nranks; k++) {
            if (!r->per_rank[k].calls)
                continue;
            hpa_json_begin_obj(j);
            hpa_json_ki64(j, "rank", rank_of(&m->ranks[k]));
            json_sum(j, &r->per_rank[k]);
            hpa_json_end_obj(j);
        }
        hpa_json_end_arr(j);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
}

static void json_report(const mpi_model *m, FILE *f)
{
    hpa_json j;
    hpa_json_init(&j, f);
    hpa_json_begin_obj(&j);
    hpa_json_kstr(&j, "report", "mpi");
    hpa_json_key(&j, "ranks");
    hpa_json_begin_arr(&j);
    for (size_t i = 0; i < m->nranks; i++)
        json_rank(&j, m, &m->ranks[i]);
    hpa_json_end_arr(&j);
    hpa_json_key(&j, "total");
    hpa_json_begin_obj(&j);
    hpa_json_kdouble(&j, "app_time_s", secs(total_app_ns(m)));
    hpa_json_kdouble(&j, "mpi_time_s", secs(m->total.time_ns));
    hpa_json_kdouble(&j, "mpi_pct", pct(m->total.time_ns, total_app_ns(m)));
    hpa_json_ku64(&j, "mpi_sends", m->total.sends);
    hpa_json_ku64(&j, "mpi_bytes_sent", m->total.bytes_sent);
    hpa_json_ku64(&j, "mpi_receives", m->total.recvs);
    hpa_json_ku64(&j, "mpi_bytes_received", m->total.bytes_recv);
    hpa_json_ku64(&j, "mpi_other_calls", m->total.other);
    hpa_json_end_obj(&j);
    hpa_json_key(&j, "calls");
    json_rows(&j, m, &m->fns, false);
    hpa_json_key(&j, "sites");
    json_rows(&j, m, &m->sites, true);
    hpa_json_key(&j, "collectives");
    hpa_json_begin_arr(&j);
    for (unsigned op = 1; hpa_mpi_coll_name(op); op++) {
        if (!m->coll_calls[op])
            continue;
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "operation", hpa_mpi_coll_name(op));
        hpa_json_ku64(&j, "calls", m->coll_calls[op]);
        hpa_json_ku64(&j, "bytes_sent", m->coll_sent[op]);
        hpa_json_ku64(&j, "bytes_received", m->coll_recv[op]);
        hpa_json_end_obj(&j);
    }
    hpa_json_end_arr(&j);
    hpa_json_key(&j, "message_sizes");
    hpa_json_begin_arr(&j);
    for (unsigned b = 0; b < HPA_MPI_NSIZES; b++) {
        if (!m->hist[b])
            continue;
        uint64_t lo, hi;
        hpa_mpi_size_bucket(b, &lo, &hi);
        hpa_json_begin_obj(&j);
        hpa_json_ku64(&j, "bytes_min", lo);
        hpa_json_ku64(&j, "bytes_max", hi);
        hpa_json_ku64(&j, "messages", m->hist[b]);
        hpa_json_end_obj(&j);
    }
    hpa_json_end_arr(&j);
    hpa_json_key(&j, "matrix");
    hpa_json_begin_arr(&j);
    for (size_t i = 0; i < m->ncells; i++) {
        hpa_json_begin_obj(&j);
        hpa_json_ki64(&j, "from", m->cells[i].src);
        hpa_json_ki64(&j, "to", m->cells[i].dst);
        hpa_json_ku64(&j, "messages", m->cells[i].messages);
        hpa_json_ku64(&j, "bytes", m->cells[i].bytes);
        hpa_json_end_obj(&j);
    }
    hpa_json_end_arr(&j);
    hpa_json_ku64(&j, "matrix_unknown", m->matrix_unknown);
    hpa_json_kstr(&j, "scope", m->scope);
    hpa_json_end_obj(&j);
}

/* ---------------------------------------------------------------- command */

static const char *const sections[] = {"ranks",       "calls",  "sites", "sizes",
                                       "collectives", "matrix", "memory"};
#define NSECTIONS (sizeof sections / sizeof sections[0])

/* The first MPI library (libmpi.so.N, libmpich.so.N, libmpi_abi.so ...) a process without
 * MPI records loaded, by file name; false if none did. */
static bool untraced_mpi(const hpa_profile *prof, char *lib, size_t cap)
{
    static const char *const names[] = {"libmpi.so", "libmpich.so", "libmpi_cray.so",
                                        "libmpi_abi.so"};
    for (size_t i = 0; i < prof->nprocs; i++) {
        size_t it = 0;
        for (const hpc_record *r;
             (r = hpc_proc_next_of(prof->procs[i].proc, HPC_K_module_load, &it));) {
            char path[1024];
            hpc_str_copy(path, sizeof path, r->u.module_load.path);
            const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
            for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
                if (!strncmp(base, names[k], strlen(names[k]))) {
                    size_t n = strnlen(base, cap - 1);
                    memcpy(lib, base, n);
                    lib[n] = 0;
                    return true;
                }
        }
    }
    return false;
}

int cmd_mpi(hpa_ctx *ctx, int argc, char **argv)
{
    unsigned want = 0; /* bit per section; 0: all */
    for (int a = 0; a < argc; a++) {
        int which = -1;
        for (size_t i = 0; i < NSECTIONS; i++)
            if (!strcmp(argv[a], sections[i]))
                which = (int)i;
        if (which < 0)
            return hpa_usage_error("mpi",
                                   "unknown table '%s' (ranks, calls, sites, sizes, "
                                   "collectives, matrix, memory)",
                                   argv[a]);
        want |= 1u << which;
    }
    hpa_profile *prof = hpa_ctx_processes(ctx); /* MPI records only: no samples */
    if (!prof)
        return HPA_EXIT_DATA;
    mpi_model m;
    int rc = hpa_mpi_model_build(&m, prof, ctx->opts.format == HPA_JSON);
    if (rc >= 0 &&
        (ctx->opts.format == HPA_CSV ? want & 1u << 6
                                     : !want || want & 1u << 6 || ctx->opts.format == HPA_JSON))
        rc = read_heaps(&m);
    if (rc < 0) {
        fprintf(stderr, "hpanalyze: mpi: %s\n", hpc_strerror(rc));
        hpa_mpi_model_free(&m);
        return HPA_EXIT_DATA;
    }
    FILE *f = ctx->out;
    if (m.nranks == 0 && ctx->opts.format == HPA_TEXT) {
        char lib[256];
        if (untraced_mpi(prof, lib, sizeof lib))
            fprintf(f,
                    "No MPI data: the program loaded %s, but its MPI calls were not traced "
                    "(hpcollect has no wrappers for that library: see hpcollect's note; or it "
                    "ran with -m off, or never called MPI_Init).\n",
                    lib);
        else
            fprintf(f, "No MPI data: the program made no MPI calls, or ran with -m off.\n");
    } else if (ctx->opts.format == HPA_JSON) {
        json_report(&m, f);
    } else if (ctx->opts.format == HPA_CSV) {
        /* one table (ranks by default); several, each with its header, a blank line
         * between them */
        bool first = true;
        for (unsigned i = 0; i < NSECTIONS; i++) {
            if (want ? !(want & 1u << i) : i != 0)
                continue;
            if (!first)
                fputc('\n', f);
            first = false;
            switch (i) {
            case 0:
                csv_ranks(&m, f);
                break;
            case 1:
                csv_rows(ctx, &m, &m.fns, false, f);
                break;
            case 2:
                csv_rows(ctx, &m, &m.sites, true, f);
                break;
            case 3:
                csv_sizes(&m, f);
                break;
            case 4:
                csv_colls(&m, f);
                break;
            case 5:
                csv_matrix(&m, f);
                break;
            default:
                csv_heap(&m, f);
            }
        }
    } else {
        void (*const show[])(const hpa_ctx *, const mpi_model *, FILE *) = {
            NULL, text_calls, text_sites, text_sizes, NULL, text_matrix, text_heap};
        bool first = true;
        for (unsigned i = 0; i < NSECTIONS; i++) {
            if (want ? !(want & 1u << i) : i == 6 && !any_heap(&m))
                continue;
            if (!first)
                fputc('\n', f);
            first = false;
            if (i == 0)
                text_ranks(&m, f);
            else if (i == 4)
                text_colls(&m, f);
            else
                show[i](ctx, &m, f);
        }
    }
    hpa_mpi_model_free(&m);
    return HPA_EXIT_OK;
}
