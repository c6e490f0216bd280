/*
 * cmd_leaks.c - `leaks` and `allocs`: heap tracing's (-H) distinct call stacks, as
 * er_print's -leaks and -allocs print them (heap_sites.c has the layout): leaks are the
 * blocks not freed when their process ended (or at its last record, when it did not end
 * normally: a note says which), allocations every block, each with its instances and
 * bytes, largest first. The stack starts at the function that called the allocator.
 * CSV columns: Leak|Allocation (number), instances, bytes, stack (root first,
 * ';'-separated); JSON: report, distinct, instances, bytes, leaks|allocations: [number,
 * instances, bytes, stack: [function, offset, file, line] leaf first].
 */
#include "heap_sites.h"

static int sites_report(hpa_ctx *ctx, const char *count_key, const char *bytes_key,
                        const hpa_heap_words *w)
{
    if (!hpa_ctx_profile(ctx))
        return HPA_EXIT_DATA;
    int cm = hpa_heap_metric(ctx, w->report, count_key);
    int bm = cm < 0 ? -1 : hpa_heap_metric(ctx, w->report, bytes_key);
    if (bm < 0)
        return HPA_EXIT_DATA;
    hpa_heap_sites s;
    int rc = hpa_heap_sites_build(ctx, (unsigned)cm, (unsigned)bm, &s);
    if (rc) {
        fprintf(stderr, "hpanalyze: %s: %s\n", w->report, hpc_strerror(rc));
        return HPA_EXIT_DATA;
    }
    hpa_heap_sites_print(ctx, &s, w);
    hpa_heap_notes(ctx);
    hpa_heap_sites_free(&s);
    return HPA_EXIT_OK;
}

int cmd_leaks(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc, (void)argv;
    static const hpa_heap_words w = {"leaks", "Leaks", "Leak", "Bytes Leaked", "leaks"};
    return sites_report(ctx, "heap_leaks", "heap_leaked_bytes", &w);
}

int cmd_allocs(hpa_ctx *ctx, int argc, char **argv)
{
    (void)argc, (void)argv;
    static const hpa_heap_words w = {"allocs", "Allocations", "Allocation", "Bytes Allocated",
                                     "allocations"};
    return sites_report(ctx, "heap_allocs", "heap_bytes", &w);
}
