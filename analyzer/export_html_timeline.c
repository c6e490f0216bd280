/*
 * export_html_timeline.c - the page's timeline data (export_html.h): each row's slices
 * from the timeline's layers (timeline.h), and the messages between rows.
 *
 * The bound: the page holds at most TL_MAX_ITEMS items (or TL_MIN_ROW per row when there
 * are more rows than that allows), so it opens in the same time whatever the trace's
 * size. A row whose slices fit its share keeps every one. A row with more keeps each
 * slice lasting at least w and merges the shorter ones of a layer into bins of width w
 * (w the smallest power-of-two multiple of 1 us that fits the share): a bin says how many
 * slices it holds, how long they were busy and its longest slice's name and numbers.
 * The page says w for each such row; `--time` exports a window with every slice.
 * Messages: at most TL_MAX_MSGS, every k-th beyond (the page says k).
 *
 * Layout ("timeline" member; times in ns from the origin, each row's begins as deltas):
 *   layers [{key, title}], names [], sites [], site_keys [what each site is: "call_site",
 *   "location"], kinds [[key...]] (kind 0: none),
 *   rows [{r: row, alive: [b, e], slices: n recorded, bin_ns: w or 0,
 *          b, d, nm, l, p (depth in its layer), c (slices held: 1, or a bin's count),
 *          s (site + 1, 0 none), k (kind), v (each item's numbers, as many as its kind's
 *          keys, one after another), and when a slice of the row has a note: x (its text
 *          + 1 in names, 0 none), xk (its key + 1 in names)}],
 *   msgs {from, to (rows), send, recv (ns), bytes, tag, total, every}, t_end, max_items.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export_html.h"
#include "report_util.h"
#include "strtab.h"
#include "timeline.h"
#include "u64map.h"

#define TL_MAX_ITEMS 250000
#define TL_MIN_ROW   500
#define TL_MAX_MSGS  100000
#define TL_BIN_MIN   1000 /* ns: the narrowest bin */

static const char *const keys_bin[] = {"busy_ns", NULL};

/* One item of a row: a slice, or a bin of short slices (count > 1). */
typedef struct item {
    uint64_t b, e, busy;
    uint32_t name, kind, site, count;
    uint32_t note, note_key; /* ids + 1 in names, 0 = none */
    unsigned layer, depth, nv;
    int64_t v[HPA_TL_NV];
} item;

/* A site: where, and what the slices call it (index into site_keys). */
typedef struct site_at {
    hpa_loc loc;
    unsigned key;
} site_at;

typedef struct tmsg {
    uint32_t from, to;
    uint64_t send, recv, bytes;
    int64_t tag;
} tmsg;

typedef struct tl_page {
    hpa_page *pg;
    hpa_timeline *tl;
    size_t cap; /* items per row */
    hpa_strtab names;
    hpa_u64map name_ids; /* name pointer -> id (names are stable during the walk) */
    hpa_u64map kind_ids; /* keys pointer -> kind */
    const char *const **kinds;
    uint32_t nkinds;
    hpa_u64map site_ids; /* (func, line, site key) -> site id */
    site_at *sites;
    const char *site_keys[8]; /* the slices' site_key strings met */
    unsigned nsite_keys;
    uint32_t nsites;
    item *items;
    size_t nitems, items_cap;
    unsigned *stack; /* per-layer depth: open ends, per layer */
    tmsg *msgs;
    size_t nmsgs, msgs_cap;
    uint64_t t_end;
    int err;
} tl_page;

/* ------------------------------------------------------------------ ids */

static uint32_t name_id(tl_page *T, const char *name)
{
    uint64_t id;
    if (hpa_u64map_get(&T->name_ids, (uintptr_t)name, &id))
        return (uint32_t)id;
    id = hpa_strtab_cstr(&T->names, name);
    if (id == UINT32_MAX || hpa_u64map_put(&T->name_ids, (uintptr_t)name, id)) {
        T->err = HPC_E_NOMEM;
        return 0;
    }
    return (uint32_t)id;
}

static uint32_t kind_id(tl_page *T, const char *const *keys)
{
    uint64_t id;
    if (!keys)
        return 0;
    if (hpa_u64map_get(&T->kind_ids, (uintptr_t)keys, &id))
        return (uint32_t)id;
    const char *const **v = realloc(T->kinds, sizeof(*v) * (T->nkinds + 1));
    if (!v || hpa_u64map_put(&T->kind_ids, (uintptr_t)keys, T->nkinds)) {
        T->err = HPC_E_NOMEM;
        return 0;
    }
    T->kinds = v;
    T->kinds[T->nkinds] = keys;
    return T->nkinds++;
}

/* The index of a slice's site key ("call_site", "location") among those met (at most
 * 8: the layers' few). */
static unsigned site_key_index(tl_page *T, const char *key)
{
    unsigned k = 0;
    while (k < T->nsite_keys && strcmp(T->site_keys[k], key) != 0)
        k++;
    if (k == T->nsite_keys && k < 8)
        T->site_keys[T->nsite_keys++] = key;
    return k < 8 ? k : 7;
}

/* Site id + 1 of a slice's location, 0 for none. */
static uint32_t site_id(tl_page *T, const hpa_tl_slice *s)
{
    if (!s->site_key || !s->site.func)
        return 0;
    unsigned sk = site_key_index(T, s->site_key);
    uint64_t key = (uint64_t)s->site.func << 35 | (uint64_t)s->site.line << 3 | sk, id;
    if (hpa_u64map_get(&T->site_ids, key, &id))
        return (uint32_t)id + 1;
    site_at *v = realloc(T->sites, sizeof(*v) * (T->nsites + 1));
    if (!v || hpa_u64map_put(&T->site_ids, key, T->nsites)) {
        T->err = HPC_E_NOMEM;
        return 0;
    }
    T->sites = v;
    T->sites[T->nsites] = (site_at){s->site, sk};
    return ++T->nsites;
}

static unsigned nkeys(const char *const *keys)
{
    unsigned n = 0;
    while (keys && n < HPA_TL_NV && keys[n])
        n++;
    return n;
}

static item *new_item(tl_page *T)
{
    if (T->nitems == T->items_cap) {
        size_t cap = T->items_cap ? 2 * T->items_cap : 1024;
        item *v = realloc(T->items, sizeof(*v) * cap);
        if (!v) {
            T->err = HPC_E_NOMEM;
            return NULL;
        }
        T->items = v;
        T->items_cap = cap;
    }
    return &T->items[T->nitems++];
}

static void add_slice(tl_page *T, const hpa_tl_slice *s)
{
    item *it = new_item(T);
    if (!it)
        return;
    *it = (item){.b = s->b,
                 .e = s->e,
                 .name = name_id(T, s->name),
                 .kind = kind_id(T, s->keys),
                 .site = site_id(T, s),
                 .count = 1,
                 .note = s->note && s->note_key ? name_id(T, s->note) + 1 : 0,
                 .note_key = s->note && s->note_key ? name_id(T, s->note_key) + 1 : 0,
                 .layer = s->layer,
                 .depth = s->depth,
                 .nv = nkeys(s->keys)};
    memcpy(it->v, s->v, sizeof(it->v));
}

/* ------------------------------------------------------------------ one row */

/* Outer slices first within each layer: by layer, then as made (hpa_tl_nest sorts each). */
static int by_layer(const void *pa, const void *pb)
{
    const hpa_tl_slice *a = pa, *b = pb;
    if (a->layer != b->layer)
        return a->layer < b->layer ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Each layer's slices nested among themselves: a layer has its own lane, so one layer's
 * slice is never cut to fit another's (export chrome nests them all together). */
static int nest_layers(hpa_tl_slice *s, size_t n)
{
    qsort(s, n, sizeof(*s), by_layer);
    for (size_t k = 0, end; k < n; k = end) {
        for (end = k + 1; end < n && s[end].layer == s[k].layer;)
            end++;
        int rc = hpa_tl_nest(s + k, end - k);
        if (rc)
            return rc;
    }
    return 0;
}

/* Items a bin width w would make: slices of w or more, and a bin per layer and w. */
static size_t count_at(const hpa_tl_slice *s, size_t n, uint64_t w)
{
    uint64_t last[16];
    memset(last, 0xff, sizeof last);
    size_t c = 0;
    for (size_t k = 0; k < n; k++) {
        unsigned l = s[k].layer < 16 ? s[k].layer : 15;
        if (s[k].e - s[k].b >= w) {
            c++;
        } else if (s[k].b / w != last[l]) {
            last[l] = s[k].b / w;
            c++;
        }
    }
    return c;
}

/* The narrowest bin width (TL_BIN_MIN times a power of two) that fits cap items. */
static uint64_t bin_width(const hpa_tl_slice *s, size_t n, size_t cap)
{
    uint64_t w = TL_BIN_MIN;
    while (w < (UINT64_MAX >> 2) && count_at(s, n, w) > cap)
        w *= 2;
    return w;
}

/* The slices of a row as items: every slice, or with bins of width w (a bin holding one
 * slice stays that slice). */
static void make_items(tl_page *T, const hpa_tl_slice *s, size_t n, uint64_t w)
{
    size_t open_at[16] = {0};   /* each layer's open bin: index into items + 1 */
    uint64_t longest[16] = {0}; /* the duration of that bin's longest slice */
    for (size_t k = 0; k < n && !T->err; k++) {
        const hpa_tl_slice *x = &s[k];
        unsigned l = x->layer < 16 ? x->layer : 15;
        uint64_t dur = x->e - x->b;
        if (!w || dur >= w) {
            add_slice(T, x);
            continue;
        }
        item *bin = open_at[l] ? &T->items[open_at[l] - 1] : NULL;
        if (!bin || bin->b / w != x->b / w) {
            add_slice(T, x);
            if (T->err)
                return;
            T->items[T->nitems - 1].busy = dur;
            open_at[l] = T->nitems;
            longest[l] = dur;
            continue;
        }
        if (bin->count == 1) { /* a second slice: the item becomes a bin */
            bin->kind = kind_id(T, keys_bin);
            bin->nv = 1;
        }
        bin->count++;
        if (x->e > bin->e)
            bin->e = x->e;
        if (x->depth < bin->depth) { /* a shallower slice: busy counts that depth */
            bin->depth = x->depth;
            bin->busy = 0;
        }
        if (x->depth == bin->depth)
            bin->busy += dur;
        if (dur > longest[l]) { /* the bin is named after its longest slice */
            longest[l] = dur;
            bin->name = name_id(T, x->name);
            bin->note = x->note && x->note_key ? name_id(T, x->note) + 1 : 0;
            bin->note_key = x->note && x->note_key ? name_id(T, x->note_key) + 1 : 0;
            bin->site = site_id(T, x);
        }
        bin->v[0] = (int64_t)bin->busy;
    }
}

static int by_begin(const void *pa, const void *pb)
{
    const item *a = pa, *b = pb;
    if (a->b != b->b)
        return a->b < b->b ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return (a->e < b->e) - (a->e > b->e);
}

/* One numeric member of the row: "key":[v0,v1,...] of field f of each item. */
#define ROW_ARRAY(key, expr)                                                                       \
    do {                                                                                           \
        hpa_json_key(j, key);                                                                      \
        FILE *f = hpa_json_raw(j);                                                                 \
        fputc('[', f);                                                                             \
        for (size_t k = 0; k < T->nitems; k++) {                                                   \
            const item *it = &T->items[k];                                                         \
            (void)it;                                                                              \
            fprintf(f, "%s%" PRId64, k ? "," : "", (int64_t)(expr));                               \
        }                                                                                          \
        fputc(']', f);                                                                             \
    } while (0)

static void write_row(tl_page *T, const hpa_process *pr, const hpa_thread *t, size_t nslices,
                      uint64_t w)
{
    hpa_json *j = T->pg->j;
    hpa_json_begin_obj(j);
    hpa_json_ku64(j, "r", hpa_page_row(T->pg, pr, t));
    uint64_t b = hpa_timeline_time(T->tl, pr, t->has_begin ? t->begin.time : pr->t0);
    uint64_t e = t->has_end ? hpa_timeline_time(T->tl, pr, t->end.time) : b;
    for (size_t k = 0; k < T->nitems; k++)
        if (T->items[k].e > e)
            e = T->items[k].e;
    if (e > T->t_end)
        T->t_end = e;
    hpa_json_key(j, "alive");
    fprintf(hpa_json_raw(j), "[%" PRIu64 ",%" PRIu64 "]", b, e);
    hpa_json_ku64(j, "slices", nslices);
    hpa_json_ku64(j, "bin_ns", w);
    ROW_ARRAY("b", k ? it->b - T->items[k - 1].b : it->b);
    ROW_ARRAY("d", it->e - it->b);
    ROW_ARRAY("nm", it->name);
    ROW_ARRAY("l", it->layer);
    ROW_ARRAY("p", it->depth);
    ROW_ARRAY("c", it->count);
    ROW_ARRAY("s", it->site);
    ROW_ARRAY("k", it->kind);
    bool notes = false;
    for (size_t k = 0; k < T->nitems && !notes; k++)
        notes = T->items[k].note != 0;
    if (notes) {
        ROW_ARRAY("x", it->note);
        ROW_ARRAY("xk", it->note_key);
    }
    hpa_json_key(j, "v");
    FILE *f = hpa_json_raw(j);
    fputc('[', f);
    bool first = true;
    for (size_t k = 0; k < T->nitems; k++)
        for (unsigned i = 0; i < T->items[k].nv; i++, first = false)
            fprintf(f, "%s%" PRId64, first ? "" : ",", T->items[k].v[i]);
    fputc(']', f);
    hpa_json_end_obj(j);
}

static void thread_slices(void *arg, const hpa_process *pr, const hpa_thread *t, hpa_tl_slice *s,
                          size_t n)
{
    tl_page *T = arg;
    if (T->err)
        return;
    int rc = nest_layers(s, n);
    if (rc) {
        T->err = rc;
        return;
    }
    uint64_t w = n > T->cap ? bin_width(s, n, T->cap) : 0;
    T->nitems = 0;
    make_items(T, s, n, w);
    if (T->nitems)
        qsort(T->items, T->nitems, sizeof(*T->items), by_begin);
    if (!T->err)
        write_row(T, pr, t, n, w);
}

/* ------------------------------------------------------------------ messages */

static void message(void *arg, const hpa_tl_msg *m)
{
    tl_page *T = arg;
    if (T->nmsgs == T->msgs_cap) {
        size_t cap = T->msgs_cap ? 2 * T->msgs_cap : 1024;
        tmsg *v = realloc(T->msgs, sizeof(*v) * cap);
        if (!v) {
            T->err = HPC_E_NOMEM;
            return;
        }
        T->msgs = v;
        T->msgs_cap = cap;
    }
    const hpa_thread *ft = NULL, *tt = NULL;
    for (uint32_t k = 0; k < m->from_pr->nthreads; k++)
        if (m->from_pr->threads[k].seq == m->from_seq)
            ft = &m->from_pr->threads[k];
    for (uint32_t k = 0; k < m->to_pr->nthreads; k++)
        if (m->to_pr->threads[k].seq == m->to_seq)
            tt = &m->to_pr->threads[k];
    if (!ft || !tt)
        return;
    T->msgs[T->nmsgs++] = (tmsg){(uint32_t)hpa_page_row(T->pg, m->from_pr, ft),
                                 (uint32_t)hpa_page_row(T->pg, m->to_pr, tt),
                                 m->send_ns,
                                 m->recv_ns,
                                 m->bytes,
                                 m->tag};
}

#define MSG_ARRAY(key, expr)                                                                       \
    do {                                                                                           \
        hpa_json_key(j, key);                                                                      \
        FILE *f = hpa_json_raw(j);                                                                 \
        fputc('[', f);                                                                             \
        for (size_t k = 0, o = 0; k < T->nmsgs; k += every, o++) {                                 \
            const tmsg *m = &T->msgs[k];                                                           \
            fprintf(f, "%s%" PRId64, o ? "," : "", (int64_t)(expr));                               \
        }                                                                                          \
        fputc(']', f);                                                                             \
    } while (0)

static void write_msgs(tl_page *T)
{
    hpa_json *j = T->pg->j;
    size_t every = T->nmsgs > TL_MAX_MSGS ? (T->nmsgs + TL_MAX_MSGS - 1) / TL_MAX_MSGS : 1;
    hpa_json_key(j, "msgs");
    hpa_json_begin_obj(j);
    hpa_json_ku64(j, "total", T->nmsgs);
    hpa_json_ku64(j, "every", every);
    MSG_ARRAY("from", m->from);
    MSG_ARRAY("to", m->to);
    MSG_ARRAY("send", m->send);
    MSG_ARRAY("recv", m->recv);
    MSG_ARRAY("bytes", m->bytes);
    MSG_ARRAY("tag", m->tag);
    hpa_json_end_obj(j);
}

/* ------------------------------------------------------------------ the member */

static void write_tables(tl_page *T)
{
    hpa_json *j = T->pg->j;
    char where[1200];
    hpa_json_key(j, "names");
    hpa_json_begin_arr(j);
    for (uint32_t i = 0; i < T->names.n; i++)
        hpa_json_str(j, hpa_strtab_get(&T->names, i));
    hpa_json_end_arr(j);
    hpa_json_key(j, "sites");
    hpa_json_begin_arr(j);
    for (uint32_t i = 0; i < T->nsites; i++) {
        hpa_loc_text(T->pg->p->syms, T->sites[i].loc, where, sizeof where);
        hpa_json_str(j, where);
    }
    hpa_json_end_arr(j);
    hpa_json_key(j, "site_keys");
    hpa_json_begin_arr(j);
    for (uint32_t i = 0; i < T->nsites; i++)
        hpa_json_str(j, T->site_keys[T->sites[i].key]);
    hpa_json_end_arr(j);
    hpa_json_key(j, "kinds");
    hpa_json_begin_arr(j);
    for (uint32_t i = 0; i < T->nkinds; i++) {
        hpa_json_begin_arr(j);
        for (unsigned k = 0; T->kinds[i] && k < nkeys(T->kinds[i]); k++)
            hpa_json_str(j, T->kinds[i][k]);
        hpa_json_end_arr(j);
    }
    hpa_json_end_arr(j);
}

static void tl_free(tl_page *T)
{
    hpa_timeline_close(T->tl);
    hpa_strtab_free(&T->names);
    hpa_u64map_free(&T->name_ids);
    hpa_u64map_free(&T->kind_ids);
    hpa_u64map_free(&T->site_ids);
    free(T->kinds);
    free(T->sites);
    free(T->items);
    free(T->msgs);
}

int hpa_page_timeline(hpa_page *pg)
{
    tl_page T = {.pg = pg};
    size_t rows = pg->nrows ? pg->nrows : 1;
    T.cap = TL_MAX_ITEMS / rows > TL_MIN_ROW ? TL_MAX_ITEMS / rows : TL_MIN_ROW;
    T.kinds = calloc(1, sizeof(*T.kinds)); /* kind 0: no numbers */
    T.nkinds = 1;
    int rc = T.kinds ? hpa_timeline_open(&T.tl, pg->p) : HPC_E_NOMEM;
    if (rc) {
        tl_free(&T);
        return rc;
    }
    hpa_json *j = pg->j;
    hpa_json_key(j, "timeline");
    hpa_json_begin_obj(j);
    hpa_json_key(j, "layers");
    hpa_json_begin_arr(j);
    for (unsigned l = 0; l < hpa_tl_nlayers; l++) {
        hpa_json_begin_obj(j);
        hpa_json_kstr(j, "key", hpa_tl_layers[l]->key);
        hpa_json_kstr(j, "title", hpa_tl_layers[l]->title);
        hpa_json_end_obj(j);
    }
    hpa_json_end_arr(j);
    hpa_json_ku64(j, "max_items", T.cap * rows);
    hpa_json_key(j, "rows");
    hpa_json_begin_arr(j);
    hpa_tl_sink sink = {.arg = &T, .thread = thread_slices, .message = message};
    rc = hpa_timeline_walk(T.tl, &sink);
    hpa_json_end_arr(j);
    rc = rc ? rc : T.err;
    if (rc == 0) {
        write_msgs(&T);
        write_tables(&T);
    }
    const hpa_tl_stats *st = hpa_timeline_stats(T.tl);
    hpa_json_ku64(j, "t_end", T.t_end);
    hpa_json_ku64(j, "omp_repaired", st->omp_repaired);
    hpa_json_ku64(j, "omp_shift_ns", st->omp_shift_ns);
    hpa_json_end_obj(j);
    tl_free(&T);
    return rc;
}
