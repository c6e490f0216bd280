/*
 * timeline_heap.c - the heap tracer's layer of the timelines (timeline.h, -H): each call
 * that got a block a slice from its start to its end, named after the call ("malloc",
 * "calloc", "realloc", "mmap" ...), with the bytes asked for, the block's address and
 * where the program called it (hpa_call_site); each free or munmap (or mremap's old range)
 * an instant at its start, with the address (and the range's length). A free has no stack:
 * the block's owner is in the `heap` and `leaks` reports.
 *
 * Sizes: nothing kept between records.
 */
#include "heap.h"
#include "report_util.h"
#include "timeline.h"

static const char *const keys_alloc[] = {"bytes", "address", NULL};
static const char *const keys_free[] = {"address", NULL};
static const char *const keys_unmap[] = {"address", "bytes", NULL};

static void layer_record(hpa_timeline *tl, void *state, const hpa_process *pr, const hpa_thread *t,
                         const hpc_record *rec)
{
    (void)state;
    unsigned layer = hpa_timeline_layer_index(&hpa_tl_layer_heap);
    if (rec->kind == HPC_K_heap_alloc) {
        const hpc_rec_heap_alloc *a = &rec->u.heap_alloc;
        hpa_tl_slice s = {.name = hpm_heap_fn_name((unsigned)a->fn),
                          .keys = keys_alloc,
                          .v = {(int64_t)a->size, (int64_t)a->addr}};
        if (a->node && a->node < t->nnodes) {
            s.site_key = "call_site";
            s.site = hpa_call_site(hpa_timeline_profile(tl), pr, t, a->node, false);
        }
        hpa_timeline_slice(tl, pr, layer, a->time, a->time + a->duration, &s);
    } else if (rec->kind == HPC_K_heap_free) {
        const hpc_rec_heap_free *f = &rec->u.heap_free;
        bool unmap = f->fn == HPC_HEAP_MUNMAP || f->fn == HPC_HEAP_MREMAP; /* a range */
        hpa_tl_slice s = {.name = hpm_heap_fn_name((unsigned)f->fn),
                          .keys = unmap ? keys_unmap : keys_free,
                          .v = {(int64_t)f->addr, (int64_t)f->size}};
        hpa_timeline_slice(tl, pr, layer, f->time, f->time, &s);
    }
}

const hpa_tl_layer hpa_tl_layer_heap = {
    .key = "heap",
    .title = "Heap",
    .record = layer_record,
};
