/*
 * timeline_io.c - the I/O tracer's layer of the timelines (timeline.h, -i): each traced
 * I/O call a slice from its start to its end, named after the call ("read", "pwrite",
 * "fopen" ...), with the bytes it transferred (or asked for and its errno when it
 * failed), the offset it started at (-1: unknown), the file (the handle's path as
 * model/io_stats.c resolves it, dup'ed handles their parent's; a failed open its path)
 * and where the program called it (hpa_call_site).
 *
 * Sizes: the processes' handles and files (hpa_io_load reads them when the walk opens,
 * only when a kept process traced I/O); nothing else between records.
 */
#include <stdlib.h>

#include "io_stats.h"
#include "report_util.h"
#include "timeline.h"
#include "u64map.h"

static const char *const keys_done[] = {"bytes", "offset", NULL};
static const char *const keys_failed[] = {"bytes_requested", "errno", NULL};

typedef struct io_layer {
    hpa_profile *p;
    hpa_io io;
    hpa_u64map handle_of; /* process << 40 | handle id -> index into io.handles */
    bool loaded;
} io_layer;

/* Whether a process the filters keep traced I/O (-i). */
static bool io_traced(const hpa_profile *p)
{
    for (size_t i = 0; i < p->nprocs; i++) {
        size_t it = 0;
        const hpc_record *r = hpc_proc_next_of(p->procs[i].proc, HPC_K_settings, &it);
        if (p->procs[i].map && r && r->u.settings.io_trace)
            return true;
    }
    return false;
}

static uint64_t handle_key(uint32_t proc, uint64_t id)
{
    return (uint64_t)proc << 40 | (id & ((UINT64_C(1) << 40) - 1));
}

static int layer_open(hpa_timeline *tl, void **state)
{
    io_layer *L = calloc(1, sizeof *L);
    *state = L;
    if (!L)
        return HPC_E_NOMEM;
    L->p = hpa_timeline_profile(tl);
    if (!io_traced(L->p))
        return 0;
    const hpc_proc **procs = calloc(L->p->nprocs + 1, sizeof *procs);
    bool *skip = calloc(L->p->nprocs + 1, sizeof *skip);
    int rc = procs && skip ? 0 : HPC_E_NOMEM;
    for (size_t i = 0; rc == 0 && i < L->p->nprocs; i++) {
        procs[i] = L->p->procs[i].proc;
        skip[i] = !L->p->procs[i].map;
    }
    if (rc == 0)
        rc = hpa_io_load(&L->io, procs, skip, (uint32_t)L->p->nprocs, NULL, NULL, L->p->diag);
    free(procs);
    free(skip);
    L->loaded = rc == 0;
    for (uint32_t i = 0; rc == 0 && i < L->io.nhandles; i++)
        if (hpa_u64map_put(&L->handle_of, handle_key(L->io.handles[i].proc, L->io.handles[i].id),
                           i))
            rc = HPC_E_NOMEM;
    return rc;
}

static void layer_close(void *state)
{
    io_layer *L = state;
    if (L->loaded)
        hpa_io_free(&L->io);
    hpa_u64map_free(&L->handle_of);
    free(L);
}

/* The path of handle id of process proc, or NULL. */
static const char *handle_path(const io_layer *L, uint32_t proc, uint64_t id)
{
    uint64_t i;
    if (!hpa_u64map_get(&L->handle_of, handle_key(proc, id), &i) || L->io.handles[i].id != id)
        return NULL;
    return hpa_strtab_get(&L->io.paths, L->io.files[L->io.handles[i].file].path);
}

/* The file an I/O call worked on: its handle's, or the path it named. The strings stay
 * until the layer closes (the table keeps a copy of each). */
static const char *op_file(io_layer *L, const hpa_process *pr, const hpc_rec_io_op *op)
{
    if (op->handle)
        return handle_path(L, (uint32_t)(pr - L->p->procs), op->handle);
    if (!op->path.n)
        return NULL;
    uint32_t id = hpa_strtab_intern(&L->io.paths, (const char *)op->path.p, op->path.n);
    return id == UINT32_MAX ? NULL : hpa_strtab_get(&L->io.paths, id);
}

static void layer_record(hpa_timeline *tl, void *state, const hpa_process *pr, const hpa_thread *t,
                         const hpc_record *rec)
{
    io_layer *L = state;
    if (rec->kind != HPC_K_io_op || !L->loaded)
        return;
    const hpc_rec_io_op *op = &rec->u.io_op;
    const char *name = hpc_io_fn_name((unsigned)op->fn);
    hpa_tl_slice s = {
        .name = name ? name : "I/O call", .note_key = "file", .note = op_file(L, pr, op)};
    if (op->error) {
        s.keys = keys_failed;
        s.v[0] = (int64_t)op->requested;
        s.v[1] = (int64_t)op->error;
    } else {
        s.keys = keys_done;
        s.v[0] = (int64_t)op->done;
        s.v[1] = op->offset;
    }
    if (op->node && op->node < t->nnodes) {
        s.site_key = "call_site";
        s.site = hpa_call_site(L->p, pr, t, op->node, false);
    }
    hpa_timeline_slice(tl, pr, hpa_timeline_layer_index(&hpa_tl_layer_io), op->time,
                       op->time + op->duration, &s);
}

const hpa_tl_layer hpa_tl_layer_io = {
    .key = "io",
    .title = "I/O",
    .open = layer_open,
    .record = layer_record,
    .close = layer_close,
};
