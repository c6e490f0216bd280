/*
 * io_stats.c - the traced I/O per file and per handle (io_stats.h).
 */
#include <stdlib.h>
#include <string.h>

#include "io_stats.h"
#include "u64map.h"

const char *const hpa_io_size_labels[HPA_IO_NSIZES] = {
    "0-100", "100-1K", "1K-10K",   "10K-100K", "100K-1M",
    "1M-4M", "4M-10M", "10M-100M", "100M-1G",  "1G+",
};

unsigned hpa_io_size_bin(uint64_t b)
{
    static const uint64_t upper[HPA_IO_NSIZES - 1] = {
        100, 1024, 10240, 102400, 1048576, 4194304, 10485760, 104857600, 1073741824,
    };
    unsigned i = 0;
    while (i < HPA_IO_NSIZES - 1 && b >= upper[i])
        i++;
    return i;
}

unsigned hpa_io_class_of(const hpc_rec_io_op *op)
{
    if (op->error)
        return HPA_IO_ERROR;
    switch (hpc_io_fn_class((unsigned)op->fn)) {
    case HPC_IO_CLASS_READ:
        return HPA_IO_READ;
    case HPC_IO_CLASS_WRITE:
        return HPA_IO_WRITE;
    default:
        return HPA_IO_OTHER;
    }
}

/* One call as read from a thread stream (its path interned). */
typedef struct op_item {
    uint64_t time, duration, handle, requested, done, node;
    int64_t offset;
    uint32_t fn, error, path, thread; /* path: UINT32_MAX = none */
} op_item;

typedef struct loader {
    hpa_io *io;
    hpa_u64map file_of_path; /* path id -> file index */
    op_item *ops;
    size_t nops, capops;
    uint32_t unknown_path; /* id of "(unknown)" */
    hpa_io_keep_fn keep;   /* the calls that count, NULL all */
    void *keep_arg;
} loader;

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return p;
    size_t c = *cap ? *cap * 2 : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(p, c * size);
    if (q)
        *cap = c;
    return q;
}

static uint32_t intern(loader *L, hpc_str s)
{
    return s.n ? hpa_strtab_intern(&L->io->paths, s.p, s.n) : UINT32_MAX;
}

/* The file of path id, made when new; UINT32_MAX when out of memory. */
static uint32_t file_of(loader *L, uint32_t path)
{
    uint64_t f;
    if (hpa_u64map_get(&L->file_of_path, path, &f))
        return (uint32_t)f;
    hpa_io *io = L->io;
    size_t cap = io->nfiles; /* files grow one by one: realloc per new file is fine */
    hpa_io_file *v = realloc(io->files, (cap + 1) * sizeof *v);
    if (!v)
        return UINT32_MAX;
    io->files = v;
    memset(&v[io->nfiles], 0, sizeof *v);
    v[io->nfiles].path = path;
    if (hpa_u64map_put(&L->file_of_path, path, io->nfiles) < 0)
        return UINT32_MAX;
    return io->nfiles++;
}

static int read_thread(loader *L, uint32_t proc, const hpc_proc *p, const hpc_thread_file *tf,
                       size_t *hcap, hpc_diag *d)
{
    hpc_reader *r;
    if (hpc_thread_open(&r, p, tf, d) < 0)
        return 0; /* reported; the others still count */
    hpa_io *io = L->io;
    hpc_record rec;
    int rc = 0;
    while (rc == 0 && hpc_reader_next(r, &rec) == 1) {
        if (rec.kind == HPC_K_io_handle) {
            const hpc_rec_io_handle *h = &rec.u.io_handle;
            hpa_io_handle *v = grow(io->handles, hcap, io->nhandles + 1, sizeof *v);
            if (!v) {
                rc = HPC_E_NOMEM;
                break;
            }
            io->handles = v;
            v[io->nhandles++] = (hpa_io_handle){.proc = proc,
                                                .file = intern(L, h->path),
                                                .id = h->handle,
                                                .parent = h->parent,
                                                .paradigm = (unsigned)h->paradigm,
                                                .flags = (unsigned)h->flags,
                                                .fd = h->fd,
                                                .oflags = h->oflags,
                                                .made = h->time,
                                                .open_thread = tf->seq};
        } else if (rec.kind == HPC_K_io_op) {
            const hpc_rec_io_op *o = &rec.u.io_op;
            if (L->keep && !L->keep(L->keep_arg, proc, tf->seq, o->time))
                continue;
            op_item *v = grow(L->ops, &L->capops, L->nops + 1, sizeof *v);
            if (!v) {
                rc = HPC_E_NOMEM;
                break;
            }
            L->ops = v;
            v[L->nops++] = (op_item){.time = o->time,
                                     .duration = o->duration,
                                     .handle = o->handle,
                                     .requested = o->requested,
                                     .done = o->done,
                                     .node = o->node,
                                     .offset = o->offset,
                                     .fn = (uint32_t)o->fn,
                                     .error = (uint32_t)o->error,
                                     .path = intern(L, o->path),
                                     .thread = tf->seq};
        }
    }
    hpc_reader_close(r);
    return rc;
}

static int by_time(const void *a, const void *b)
{
    const op_item *x = a, *y = b;
    return x->time < y->time ? -1 : x->time > y->time;
}

/* Handles of one process [h0, h1): their files (a path of its own, else the parent's). The
 * map takes handle id -> index. */
static int resolve_handles(loader *L, uint32_t h0, uint32_t h1, hpa_u64map *by_id)
{
    hpa_io_handle *hs = L->io->handles;
    for (uint32_t i = h0; i < h1; i++)
        if (hpa_u64map_put(by_id, hs[i].id, i) < 0)
            return HPC_E_NOMEM;
    /* hs[i].file holds the path id until resolved; a chain of parents is short (dup of a
     * dup) and its length is bounded by the handles it has */
    uint32_t *path = malloc(sizeof *path * (h1 - h0 + 1));
    if (!path)
        return HPC_E_NOMEM;
    for (uint32_t i = h0; i < h1; i++)
        path[i - h0] = hs[i].file;
    for (uint32_t i = h0; i < h1; i++) {
        uint32_t at = i, pid = path[i - h0];
        for (uint32_t hops = 0; pid == UINT32_MAX && hops < h1 - h0; hops++) {
            uint64_t j;
            if (!hs[at].parent || !hpa_u64map_get(by_id, hs[at].parent, &j))
                break;
            at = (uint32_t)j;
            pid = path[at - h0];
        }
        uint32_t f = file_of(L, pid == UINT32_MAX ? L->unknown_path : pid);
        if (f == UINT32_MAX) {
            free(path);
            return HPC_E_NOMEM;
        }
        hs[i].file = f;
        L->io->files[f].nhandles++;
    }
    free(path);
    return 0;
}

static void add_sum(hpa_io_sum *s, unsigned cls, const op_item *o)
{
    s->ns[cls] += o->duration;
    s->count[cls]++;
    if (cls == HPA_IO_READ || cls == HPA_IO_WRITE)
        s->bytes[cls] += o->done;
}

/* A transfer's size and where it starts against the end of the previous one (*end). */
static void add_pattern(hpa_io_pattern *p, unsigned dir, const op_item *o, int64_t *end)
{
    p->sizes[dir][hpa_io_size_bin(o->done)]++;
    if (o->offset < 0)
        return;
    p->placed[dir]++;
    p->consec[dir] += o->offset == *end;
    p->seq[dir] += o->offset >= *end;
    *end = o->offset + (int64_t)o->done;
}

static hpa_io_share *share_of(hpa_io_file *f, uint32_t proc)
{
    if (f->nshares && f->shares[f->nshares - 1].proc == proc)
        return &f->shares[f->nshares - 1];
    hpa_io_share *v = realloc(f->shares, (f->nshares + 1) * sizeof *v);
    if (!v)
        return NULL;
    f->shares = v;
    memset(&v[f->nshares], 0, sizeof *v);
    v[f->nshares].proc = proc;
    return &v[f->nshares++];
}

/* Where the previous transfer of a (file or handle, direction) ended: 0 before the first. */
static int64_t *end_slot(hpa_u64map *m, uint64_t key)
{
    return (int64_t *)hpa_u64map_slot(m, key, 0);
}

static int add_ops(loader *L, uint32_t proc, hpa_u64map *by_id)
{
    hpa_io *io = L->io;
    if (L->nops) /* ops is NULL before the first */
        qsort(L->ops, L->nops, sizeof *L->ops, by_time);
    hpa_u64map ends = {0};
    int rc = 0;
    for (size_t i = 0; i < L->nops && rc == 0; i++) {
        const op_item *o = &L->ops[i];
        unsigned cls = hpa_io_class_of(&(hpc_rec_io_op){.fn = o->fn, .error = o->error});
        uint64_t hi = 0;
        hpa_io_handle *h = NULL;
        uint32_t f;
        if (o->handle && hpa_u64map_get(by_id, o->handle, &hi)) {
            h = &io->handles[hi];
            f = h->file;
        } else {
            io->unknown += o->handle != 0;
            f = file_of(L, o->path != UINT32_MAX ? o->path : L->unknown_path);
        }
        hpa_io_share *sh = f == UINT32_MAX ? NULL : share_of(&io->files[f], proc);
        if (!sh) {
            rc = HPC_E_NOMEM;
            break;
        }
        hpa_io_file *file = &io->files[f];
        add_sum(&file->s, cls, o);
        add_sum(&sh->s, cls, o);
        enum hpc_io_act act = hpc_io_fn_act(o->fn);
        if (h) {
            add_sum(&h->s, cls, o);
            if (!h->first)
                h->first = o->time;
            h->last = o->time + o->duration;
            if (!h->open_node && (act == HPC_IO_ACT_OPEN || act == HPC_IO_ACT_DUP) &&
                o->thread == h->open_thread)
                h->open_node = o->node;
        }
        if (cls != HPA_IO_READ && cls != HPA_IO_WRITE)
            continue;
        /* keys: file or handle index times 2 plus the direction; handles above files. A
         * slot is used before the next is made: making one may move the others. */
        int64_t *fe = end_slot(&ends, (uint64_t)f * 2 + cls);
        if (!fe) {
            rc = HPC_E_NOMEM;
            break;
        }
        add_pattern(&file->p, cls, o, fe);
        int64_t *he = h ? end_slot(&ends, ((uint64_t)1 << 40) + (uint64_t)hi * 2 + cls) : NULL;
        if (h && !he) {
            rc = HPC_E_NOMEM;
            break;
        }
        if (h)
            add_pattern(&h->p, cls, o, he);
    }
    hpa_u64map_free(&ends);
    return rc;
}

int hpa_io_load(hpa_io *io, const hpc_proc *const *procs, const bool *skip, uint32_t n,
                hpa_io_keep_fn keep, void *keep_arg, hpc_diag *d)
{
    memset(io, 0, sizeof *io);
    loader L = {.io = io, .keep = keep, .keep_arg = keep_arg};
    L.unknown_path = hpa_strtab_cstr(&io->paths, "(unknown)");
    size_t hcap = 0;
    int rc = L.unknown_path == UINT32_MAX ? HPC_E_NOMEM : 0;
    for (uint32_t p = 0; p < n && rc == 0; p++) {
        if (skip && skip[p])
            continue;
        uint32_t h0 = io->nhandles;
        L.nops = 0;
        for (size_t t = 0; t < procs[p]->nthreads && rc == 0; t++)
            rc = read_thread(&L, p, procs[p], &procs[p]->threads[t], &hcap, d);
        hpa_u64map by_id = {0};
        if (rc == 0)
            rc = resolve_handles(&L, h0, io->nhandles, &by_id);
        if (rc == 0)
            rc = add_ops(&L, p, &by_id);
        hpa_u64map_free(&by_id);
    }
    free(L.ops);
    hpa_u64map_free(&L.file_of_path);
    if (rc)
        hpa_io_free(io);
    return rc;
}

void hpa_io_free(hpa_io *io)
{
    for (uint32_t i = 0; i < io->nfiles; i++)
        free(io->files[i].shares);
    free(io->files);
    free(io->handles);
    hpa_strtab_free(&io->paths);
    memset(io, 0, sizeof *io);
}

static int by_time_desc(const void *a, const void *b, void *arg)
{
    const hpa_io *io = arg;
    const hpa_io_file *x = &io->files[*(const uint32_t *)a], *y = &io->files[*(const uint32_t *)b];
    uint64_t tx = hpa_io_ns(&x->s), ty = hpa_io_ns(&y->s);
    if (tx != ty)
        return tx > ty ? -1 : 1;
    return strcmp(hpa_strtab_get(&io->paths, x->path), hpa_strtab_get(&io->paths, y->path));
}

uint32_t *hpa_io_files_by_time(const hpa_io *io, uint32_t *n)
{
    uint32_t *v = malloc(sizeof *v * (io->nfiles + 1));
    *n = 0;
    for (uint32_t i = 0; v && i < io->nfiles; i++)
        if (io->files[i].nshares)
            v[(*n)++] = i;
    if (v)
        qsort_r(v, *n, sizeof *v, by_time_desc, (void *)io);
    return v;
}
