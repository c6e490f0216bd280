/*
 * export.h - pictures and files for other tools (`export KIND [-o FILE]`, cmd_export.c):
 * one writer per kind, each in export_<kind>.c, listed in cmd_export.c's table.
 *
 * A writer gets the command's context (profile, view, filters, sort metric) and the open
 * output; it returns an exit status and reports its own errors. Writers do not look at
 * --format: each writes its own file format.
 */
#ifndef HPA_EXPORT_H
#define HPA_EXPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "commands.h"

typedef int (*hpa_export_fn)(hpa_ctx *ctx, FILE *out);

/* Folded stacks ("main;f;g 1234"): flamegraph.pl, inferno, speedscope. */
int hpa_export_folded(hpa_ctx *ctx, FILE *out);
/* An interactive, self-contained SVG flame graph. */
int hpa_export_flamegraph(hpa_ctx *ctx, FILE *out);
/* Chrome trace event format (Perfetto UI, chrome://tracing). */
int hpa_export_chrome(hpa_ctx *ctx, FILE *out);
/* One self-contained HTML page: summary, timeline, MPI, OpenMP, flame graphs, functions. */
int hpa_export_html(hpa_ctx *ctx, FILE *out);

/* The metric exports measure: the sort metric (--sort / sort), the first selected one by
 * default; by_name falls back to CPU time. */
unsigned hpa_export_metric(hpa_ctx *ctx);

/* Escape text for XML/HTML element content and attribute values. */
void hpa_xml_text(FILE *f, const char *s);

#endif
