/*
 * export_html.h - the parts of `export html` (export_html.c), which writes one
 * self-contained page: the page's style and script (analyzer/report/, built into
 * hpanalyze) and its data, one JSON object the script draws from. Each part writes its
 * members of that object.
 *
 * Rows: every kept thread of every kept process is a row, in the profile's order
 * (process, then thread); the timeline, the flame graph's scopes and the summary name
 * threads by row index.
 */
#ifndef HPA_EXPORT_HTML_H
#define HPA_EXPORT_HTML_H

#include <stddef.h>
#include <stdint.h>

#include "commands.h"
#include "output.h"

typedef struct hpa_page {
    hpa_ctx *ctx;
    hpa_profile *p;
    hpa_json *j;
    size_t nrows;
    size_t *row0; /* [process]: the row of its first kept thread */
} hpa_page;

/* The row of thread t of process pr. */
static inline size_t hpa_page_row(const hpa_page *pg, const hpa_process *pr, const hpa_thread *t)
{
    return pg->row0[pr - pg->p->procs] + (size_t)(t - pr->threads);
}

/* Member "timeline": each row's slices in layers, binned beyond a budget, and the
 * messages (export_html_timeline.c). Returns 0 or an hpc_err. */
int hpa_page_timeline(hpa_page *pg);

/* Member "flame": the call tree of the view with each row's exclusive values of every
 * metric (export_html_flame.c). Returns 0 or an hpc_err. */
int hpa_page_flame(hpa_page *pg);

/* The page's style sheet and script (generated from analyzer/report/ at build time). */
extern const char hpa_report_css[], hpa_report_js[];

#endif
