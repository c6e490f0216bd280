/*
 * srcfile.h - a source file's lines, for the annotated `source` and `disasm` listings.
 */
#ifndef HPA_SRCFILE_H
#define HPA_SRCFILE_H

#include <stddef.h>

typedef struct hpa_srcfile {
    char *data;   /* the whole file, lines NUL-terminated in place */
    char **lines; /* lines[1..n]: line numbers as DWARF counts them; lines[0] unused */
    size_t n;
} hpa_srcfile;

#include "experiment.h"

/* Read path. Returns 0, or -1 (errno set) when it cannot be read; f is then empty. */
int hpa_srcfile_read(hpa_srcfile *f, const char *path);
/* Read the copy of path archived in one of the experiments (model/archive.h: the text as
 * it was at the run), else path itself. As hpa_srcfile_read otherwise. */
int hpa_srcfile_read_archived(hpa_srcfile *f, hpc_exp *const *exps, unsigned nexps,
                              const char *path);
/* Line no (1-based) or NULL past the end. */
const char *hpa_srcfile_line(const hpa_srcfile *f, size_t no);
void hpa_srcfile_free(hpa_srcfile *f);

#endif
