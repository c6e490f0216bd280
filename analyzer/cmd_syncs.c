/*
 * cmd_syncs.c - `syncs`: the synchronization objects the program waited for (-s), one
 * entry each, by wait time: its address and name, kind, how many waits, their total and
 * longest time, the call sites that waited, and the holders.
 *
 * The name: the symbol of a global or static object (the_lock, counter_lock+8), else
 * where it was first waited for (heap and stack objects have no name). An OpenMP critical
 * section or barrier is named by the code it is in.
 *
 * The holder (beyond gprofng): for a mutex, the thread that held it while another
 * waited says so itself at its release (sync_hold records: the collector writes one when
 * it lets go of a mutex the threads library marks as wanted). A wait is paired with the
 * hold of the same object by another thread that began before the wait's grant and ended
 * after its request, the latest such (a mutex is held by one thread at a time, so holds
 * in grant order end in that order too). The holders' rows are their stacks' leaf
 * functions where they let go: the function that held the lock; "hold" is how long it
 * held it.
 *
 * A call site is the first frame of the waiting stack outside the module of the waiting
 * function (the threads library, the OpenMP runtime): the program's call.
 *
 * Waits shorter than the tracer's threshold are not here (statistics counts them).
 * --limit bounds the objects shown; --threads and --ranks choose the waiting threads,
 * --time and --samples the waits by their request.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "periods.h"
#include "report_util.h"

#define TOP 5 /* call sites and holders shown per object */

typedef struct wait_ev {
    uint32_t proc, thread, kind;
    uint64_t object, request, grant, node;
} wait_ev;

typedef struct hold_ev {
    uint32_t proc, thread;
    uint64_t object, grant, release, node;
} hold_ev;

/* A call site or a holder of one object: a source line, its waits. */
typedef struct site_row {
    uint32_t line;
    uint64_t waits, wait_ns, hold_ns;
} site_row;

typedef struct object_row {
    uint32_t proc, kind;
    uint64_t object;
    uint64_t waits, wait_ns, max_ns;
    char name[600];
    site_row *sites, *holders;
    size_t nsites, nholders;
    uint64_t held_waits; /* waits paired with a holder */
} object_row;

typedef struct syncs_model {
    hpa_profile *prof;
    wait_ev *waits;
    size_t nwaits, capwaits;
    hold_ev *holds;
    size_t nholds, capholds;
    object_row *objs;
    size_t nobjs;
    int err;
} syncs_model;

/* ---------------------------------------------------------------- reading */

static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return v;
    size_t c = *cap ? 2 * *cap : 256;
    void *nv = realloc(v, c * size);
    if (nv)
        *cap = c;
    return nv;
}

static void on_record(void *arg, const hpa_process *pr, const hpa_thread *t, const hpc_record *rec)
{
    syncs_model *m = arg;
    if (!rec || m->err)
        return;
    uint32_t proc = (uint32_t)(pr - m->prof->procs), th = (uint32_t)(t - pr->threads);
    if (rec->kind == HPC_K_sync_wait) {
        const hpc_rec_sync_wait *w = &rec->u.sync_wait;
        if (!hpa_filter_keeps_time(&m->prof->filter, pr->periods, pr->t0, w->time_request))
            return; /* --time, --samples: by its request (holds all stay, for pairing) */
        wait_ev *v = grow(m->waits, &m->capwaits, m->nwaits, sizeof *v);
        if (!v) {
            m->err = HPC_E_NOMEM;
            return;
        }
        m->waits = v;
        v[m->nwaits++] = (wait_ev){
            proc, th, (uint32_t)w->kind, w->object, w->time_request, w->time_grant, w->node};
    } else if (rec->kind == HPC_K_sync_hold) {
        const hpc_rec_sync_hold *h = &rec->u.sync_hold;
        hold_ev *v = grow(m->holds, &m->capholds, m->nholds, sizeof *v);
        if (!v) {
            m->err = HPC_E_NOMEM;
            return;
        }
        m->holds = v;
        v[m->nholds++] = (hold_ev){proc, th, h->object, h->time_grant, h->time_release, h->node};
    }
}

static int cmp_u64(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int by_object(const void *a, const void *b)
{
    const wait_ev *x = a, *y = b;
    int c = cmp_u64(x->proc, y->proc);
    c = c ? c : cmp_u64(x->object, y->object);
    c = c ? c : cmp_u64(x->kind, y->kind);
    return c ? c : cmp_u64(x->request, y->request);
}

static int hold_order(const void *a, const void *b)
{
    const hold_ev *x = a, *y = b;
    int c = cmp_u64(x->proc, y->proc);
    c = c ? c : cmp_u64(x->object, y->object);
    return c ? c : cmp_u64(x->grant, y->grant);
}

/* ---------------------------------------------------------------- stacks */

/* The line of a wait's call site (hpa_call_site). */
static uint32_t call_site(const hpa_profile *p, uint32_t proc, uint32_t th, uint64_t node)
{
    const hpa_process *pr = &p->procs[proc];
    hpa_loc loc = hpa_call_site(p, pr, &pr->threads[th], node, true);
    if (!loc.func)
        return hpa_symtab_func_line(p->syms, HPA_FUNC_UNKNOWN);
    return loc.line ? loc.line : hpa_symtab_func_line(p->syms, loc.func);
}

/* The leaf line of a hold's stack (where the holder let go). */
static uint32_t leaf_line(const hpa_profile *p, const hold_ev *h)
{
    const hpa_process *pr = &p->procs[h->proc];
    const hpa_thread *t = &pr->threads[h->thread];
    if (h->node == 0 || h->node >= t->nnodes)
        return hpa_symtab_func_line(p->syms, HPA_FUNC_UNKNOWN);
    hpa_loc loc = hpa_modmap_resolve(pr->map, t->pc[h->node]);
    return loc.line ? loc.line : hpa_symtab_func_line(p->syms, loc.func);
}

static void line_text(const hpa_profile *p, uint32_t line, char *buf, size_t cap)
{
    const hpa_line *l = hpa_symtab_line(p->syms, line);
    const hpa_func *f = l ? hpa_symtab_func(p->syms, l->func) : NULL;
    const char *file = l && l->file ? strrchr(l->file, '/') : NULL;
    file = file ? file + 1 : l ? l->file : "";
    if (!f)
        snprintf(buf, cap, "<Unknown>");
    else if (l->lineno)
        snprintf(buf, cap, "%s %s:%u", f->name, file, l->lineno);
    else
        snprintf(buf, cap, "%s", f->name);
}

static const char *line_func(const hpa_profile *p, uint32_t line)
{
    const hpa_line *l = hpa_symtab_line(p->syms, line);
    const hpa_func *f = l ? hpa_symtab_func(p->syms, l->func) : NULL;
    return f ? f->name : "<Unknown>";
}

/* ---------------------------------------------------------------- objects */

static site_row *row_of(site_row **v, size_t *n, uint32_t line)
{
    for (size_t i = 0; i < *n; i++)
        if ((*v)[i].line == line)
            return &(*v)[i];
    site_row *nv = realloc(*v, (*n + 1) * sizeof *nv);
    if (!nv)
        return NULL;
    *v = nv;
    nv[*n] = (site_row){.line = line};
    return &nv[(*n)++];
}

static int by_wait(const void *a, const void *b)
{
    const site_row *x = a, *y = b;
    return x->wait_ns != y->wait_ns ? (x->wait_ns < y->wait_ns ? 1 : -1)
                                    : cmp_u64(y->waits, x->waits);
}

static int obj_by_wait(const void *a, const void *b)
{
    const object_row *x = a, *y = b;
    return x->wait_ns != y->wait_ns ? (x->wait_ns < y->wait_ns ? 1 : -1)
                                    : cmp_u64(x->object, y->object);
}

/* The hold that kept wait w waiting (see the top of the file), or NULL. */
static const hold_ev *holder_of(const syncs_model *m, const wait_ev *w)
{
    size_t lo = 0, hi = m->nholds; /* first hold not before (proc, object, w->grant) */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const hold_ev *h = &m->holds[mid];
        int c = cmp_u64(h->proc, w->proc);
        c = c ? c : cmp_u64(h->object, w->object);
        c = c ? c : cmp_u64(h->grant, w->grant);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the waiter's own holds are not it (its last release before the wait may look
     * wanted: glibc leaves a contended lock's word so): the latest hold by another thread */
    for (size_t k = lo; k-- > 0 && lo - k <= 8;) {
        const hold_ev *h = &m->holds[k];
        if (h->proc != w->proc || h->object != w->object)
            return NULL;
        if (h->thread != w->thread)
            return h->release > w->request ? h : NULL;
    }
    return NULL;
}

static void name_object(syncs_model *m, object_row *o, const wait_ev *first)
{
    hpa_process *pr = &m->prof->procs[o->proc];
    char where[512];
    if (hpa_modmap_data_name(pr->map, o->object, o->name, sizeof o->name))
        return;
    if (o->kind == HPC_SYNC_OMP_CRITICAL || o->kind == HPC_SYNC_OMP_BARRIER ||
        o->kind == HPC_SYNC_OMP_ORDERED) {
        hpa_loc loc = hpa_modmap_resolve(pr->map, o->object);
        if (loc.func != HPA_FUNC_UNKNOWN) {
            snprintf(o->name, sizeof o->name, "in %s", line_func(m->prof, loc.line));
            return;
        }
    }
    line_text(m->prof, call_site(m->prof, first->proc, first->thread, first->node), where,
              sizeof where);
    snprintf(o->name, sizeof o->name, "first waited for at %s", where);
}

/* One object: the waits [a, b) (same process, address and kind). */
static int add_object(syncs_model *m, size_t a, size_t b)
{
    object_row *o = &m->objs[m->nobjs++];
    memset(o, 0, sizeof *o);
    o->proc = m->waits[a].proc;
    o->kind = m->waits[a].kind;
    o->object = m->waits[a].object;
    for (size_t i = a; i < b; i++) {
        const wait_ev *w = &m->waits[i];
        uint64_t ns = w->grant > w->request ? w->grant - w->request : 0;
        o->waits++;
        o->wait_ns += ns;
        o->max_ns = ns > o->max_ns ? ns : o->max_ns;
        site_row *s =
            row_of(&o->sites, &o->nsites, call_site(m->prof, w->proc, w->thread, w->node));
        if (!s)
            return HPC_E_NOMEM;
        s->waits++;
        s->wait_ns += ns;
        const hold_ev *h = holder_of(m, w);
        if (!h)
            continue;
        site_row *hr = row_of(&o->holders, &o->nholders, leaf_line(m->prof, h));
        if (!hr)
            return HPC_E_NOMEM;
        hr->waits++;
        hr->wait_ns += ns;
        hr->hold_ns += h->release - h->grant;
        o->held_waits++;
    }
    if (o->nsites)
        qsort(o->sites, o->nsites, sizeof *o->sites, by_wait);
    if (o->nholders)
        qsort(o->holders, o->nholders, sizeof *o->holders, by_wait);
    name_object(m, o, &m->waits[a]);
    return 0;
}

static int model_build(syncs_model *m)
{
    int rc = hpa_profile_replay(m->prof, NULL, on_record, m);
    if (rc < 0 || m->err < 0)
        return rc < 0 ? rc : m->err;
    if (m->nwaits)
        qsort(m->waits, m->nwaits, sizeof *m->waits, by_object);
    if (m->nholds)
        qsort(m->holds, m->nholds, sizeof *m->holds, hold_order);
    m->objs = calloc(m->nwaits ? m->nwaits : 1, sizeof *m->objs);
    if (!m->objs)
        return HPC_E_NOMEM;
    for (size_t a = 0, b; a < m->nwaits; a = b) {
        for (b = a + 1; b < m->nwaits; b++) {
            const wait_ev *x = &m->waits[a], *y = &m->waits[b];
            if (x->proc != y->proc || x->object != y->object || x->kind != y->kind)
                break;
        }
        if ((rc = add_object(m, a, b)) < 0)
            return rc;
    }
    if (m->nobjs)
        qsort(m->objs, m->nobjs, sizeof *m->objs, obj_by_wait);
    return 0;
}

static void model_free(syncs_model *m)
{
    for (size_t i = 0; i < m->nobjs; i++) {
        free(m->objs[i].sites);
        free(m->objs[i].holders);
    }
    free(m->objs);
    free(m->waits);
    free(m->holds);
}

/* ---------------------------------------------------------------- output */

static double secs(uint64_t ns)
{
    return (double)ns * 1e-9;
}

/* The sync tracer's settings of the processes: "threshold 12 ns (calibrated: ...)". */
static void threshold_text(const hpa_profile *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "not traced (run hpcollect -s on)");
    for (size_t i = 0; i < p->nprocs; i++) {
        size_t it = 0;
        for (const hpc_record *r; (r = hpc_proc_next_of(p->procs[i].proc, HPC_K_tracer, &it));) {
            const hpc_rec_tracer *t = &r->u.tracer;
            if (t->kind != HPC_TRACE_SYNC)
                continue;
            if (t->calibrated)
                snprintf(buf, cap,
                         "threshold %.3f us, calibrated: 6 x %" PRIu64 " ns, an uncontended lock",
                         (double)t->threshold_ns * 1e-3, t->call_ns);
            else
                snprintf(buf, cap, "threshold %.3f us, as given", (double)t->threshold_ns * 1e-3);
            return;
        }
    }
}

static size_t shown(const hpa_ctx *ctx, size_t n)
{
    return ctx->opts.limit && ctx->opts.limit < n ? ctx->opts.limit : n;
}

static void text_report(const hpa_ctx *ctx, const syncs_model *m, FILE *f)
{
    char thr[256], where[512];
    threshold_text(m->prof, thr, sizeof thr);
    fprintf(f, "Synchronization objects waited for (%s; by wait time)\n", thr);
    if (m->nobjs == 0) {
        fprintf(f, "\nNo synchronization wait was recorded.\n");
        return;
    }
    for (size_t i = 0; i < shown(ctx, m->nobjs); i++) {
        const object_row *o = &m->objs[i];
        fprintf(f, "\n%zu. %s %s (0x%" PRIx64 ")", i + 1, hpa_sync_kind_name(o->kind), o->name,
                o->object);
        if (m->prof->nprocs > 1)
            fprintf(f, ", process %s", m->prof->procs[o->proc].proc->name);
        fprintf(f, "\n   Waits %" PRIu64 ", wait time %.6f s, longest %.6f s\n", o->waits,
                secs(o->wait_ns), secs(o->max_ns));
        fprintf(f, "   %-48s %8s %12s\n", "Waiting call sites", "Waits", "Wait (s)");
        for (size_t k = 0; k < o->nsites && k < TOP; k++) {
            line_text(m->prof, o->sites[k].line, where, sizeof where);
            fprintf(f, "     %-46s %8" PRIu64 " %12.6f\n", where, o->sites[k].waits,
                    secs(o->sites[k].wait_ns));
        }
        if (!o->nholders)
            continue;
        fprintf(f, "   %-48s %8s %12s %12s\n", "Held by (where it let go)", "Waits", "Wait (s)",
                "Held (s)");
        for (size_t k = 0; k < o->nholders && k < TOP; k++) {
            line_text(m->prof, o->holders[k].line, where, sizeof where);
            fprintf(f, "     %-46s %8" PRIu64 " %12.6f %12.6f\n", where, o->holders[k].waits,
                    secs(o->holders[k].wait_ns), secs(o->holders[k].hold_ns));
        }
    }
}

static void json_rows(hpa_json *j, const syncs_model *m, const site_row *v, size_t n, bool hold)
{
    char where[512];
    hpa_json_begin_arr(j);
    for (size_t k = 0; k < n; k++) {
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "function", line_func(m->prof, v[k].line));
        line_text(m->prof, v[k].line, where, sizeof where);
        hpa_json_kstr(j, "location", where);
        hpa_json_ku64(j, "waits", v[k].waits);
        hpa_json_kdouble(j, "wait_s", secs(v[k].wait_ns));
        if (hold)
            hpa_json_kdouble(j, "hold_s", secs(v[k].hold_ns));
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
}

static void json_report(const hpa_ctx *ctx, const syncs_model *m, FILE *f)
{
    char buf[64];
    hpa_json j;
    hpa_json_init(&j, f);
    hpa_json_begin_obj(&j);
    hpa_json_kstr(&j, "report", "syncs");
    hpa_json_key(&j, "objects");
    hpa_json_begin_arr(&j);
    for (size_t i = 0; i < shown(ctx, m->nobjs); i++) {
        const object_row *o = &m->objs[i];
        hpa_json_begin_obj(&j);
        hpa_json_kstr(&j, "process", m->prof->procs[o->proc].proc->name);
        snprintf(buf, sizeof buf, "0x%" PRIx64, o->object);
        hpa_json_kstr(&j, "address", buf);
        hpa_json_kstr(&j, "name", o->name);
        hpa_json_kstr(&j, "kind", hpa_sync_kind_name(o->kind));
        hpa_json_ku64(&j, "waits", o->waits);
        hpa_json_kdouble(&j, "wait_s", secs(o->wait_ns));
        hpa_json_kdouble(&j, "max_s", secs(o->max_ns));
        hpa_json_key(&j, "sites");
        json_rows(&j, m, o->sites, o->nsites, false);
        hpa_json_ku64(&j, "held_waits", o->held_waits);
        hpa_json_key(&j, "holders");
        json_rows(&j, m, o->holders, o->nholders, true);
        hpa_json_end_obj(&j);
    }
    hpa_json_end_arr(&j);
    hpa_json_end_obj(&j);
    fputc('\n', f);
}

static void csv_report(const hpa_ctx *ctx, const syncs_model *m, FILE *f)
{
    char buf[512];
    fprintf(f,
            "process,address,name,kind,waits,wait_s,max_s,top_site,top_holder,top_holder_hold_s\n");
    for (size_t i = 0; i < shown(ctx, m->nobjs); i++) {
        const object_row *o = &m->objs[i];
        hpa_csv_field(f, m->prof->procs[o->proc].proc->name, ',');
        snprintf(buf, sizeof buf, "0x%" PRIx64, o->object);
        hpa_csv_field(f, buf, ',');
        hpa_csv_field(f, o->name, ',');
        hpa_csv_field(f, hpa_sync_kind_name(o->kind), ',');
        hpa_csv_u64(f, o->waits, ',');
        hpa_csv_double(f, secs(o->wait_ns), ',');
        hpa_csv_double(f, secs(o->max_ns), ',');
        line_text(m->prof, o->nsites ? o->sites[0].line : 0, buf, sizeof buf);
        hpa_csv_field(f, o->nsites ? buf : "", ',');
        line_text(m->prof, o->nholders ? o->holders[0].line : 0, buf, sizeof buf);
        hpa_csv_field(f, o->nholders ? buf : "", ',');
        hpa_csv_double(f, o->nholders ? secs(o->holders[0].hold_ns) : 0, '\n');
    }
}

int cmd_syncs(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc;
    (void)argv;
    hpa_profile *prof = hpa_ctx_profile(ctx);
    if (!prof)
        return HPA_EXIT_DATA;
    syncs_model m = {.prof = prof};
    int rc = model_build(&m);
    if (rc < 0) {
        fprintf(stderr, "hpanalyze: syncs: %s\n", hpc_strerror(rc));
        model_free(&m);
        return HPA_EXIT_DATA;
    }
    if (ctx->opts.format == HPA_JSON)
        json_report(ctx, &m, ctx->out);
    else if (ctx->opts.format == HPA_CSV)
        csv_report(ctx, &m, ctx->out);
    else
        text_report(ctx, &m, ctx->out);
    model_free(&m);
    return HPA_EXIT_OK;
}
