/*
 * diag.c - where readers report damage: "FILE: offset N: what is wrong".
 *
 * The reader's source line (file:line of the HPC_CORRUPT that found the damage, as
 * SQLite's SQLITE_CORRUPT_BKPT records it) goes to the callback, and to stderr as a
 * trailing "[reader.c:123]" so a bug report points at the check that fired. An error in
 * what the user gave (no such experiment) has no source line: it is not damage.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "experiment.h"

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void hpc_diag_report(hpc_diag *d, enum hpc_severity sev, const char *file, uint64_t offset,
                     const char *src_file, int src_line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!file)
        file = "?";

    if (d) {
        if (sev == HPC_ERROR)
            d->errors++;
        else
            d->warnings++;
        if (d->report) {
            d->report(d->ctx, sev, file, offset, msg, src_file, src_line);
            return;
        }
        if (d->quiet)
            return;
    }
    const char *prog = d && d->prog ? d->prog : "hpcollect";
    const char *level = sev == HPC_ERROR ? "error: " : "";
    char where[64] = "";
    if (src_file)
        snprintf(where, sizeof where, " [%s:%d]", base_name(src_file), src_line);
    if (offset == HPC_NO_OFFSET)
        fprintf(stderr, "%s: %s%s: %s%s\n", prog, level, file, msg, where);
    else
        fprintf(stderr, "%s: %s%s: offset %llu: %s%s\n", prog, level, file,
                (unsigned long long)offset, msg, where);
}
