/*
 * archive.h - an experiment's archive: copies of the load objects its processes ran (by
 * build id) and of their source files, so the experiment can be analysed where the
 * originals are gone or were rebuilt (a laptop, after `make clean`), as gprofng's
 * archives/ and gp-archive do.
 *
 * Layout, inside the job experiment (experiment/README.md):
 *
 *     EXP/archive/objects/<basename>.<build id hex>      e.g. libc.so.6.2e5a...9f
 *     EXP/archive/objects/<basename>.path-<hash>         an object without a build id
 *     EXP/archive/sources/<absolute path>                e.g. sources/home/me/src/split.c
 *
 * Objects are named by build id, so the processes of an MPI job (and every rerun into
 * the same -O experiment) share one copy; a copy is made once, by whoever claims it first
 * (an flock'ed "<name>.part", renamed when complete: a reader never sees half a file).
 * Readers (symbols.c, the source and disasm listings) take the archived copy before the
 * recorded path.
 *
 * Not thread-safe; writing (hpa_archive_exp) is NOT signal-safe.
 */
#ifndef HPA_ARCHIVE_H
#define HPA_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "experiment.h"

#define HPA_ARCHIVE_DIR     "archive"
#define HPA_ARCHIVE_OBJECTS "archive/objects"
#define HPA_ARCHIVE_SOURCES "archive/sources"

/* The job experiment directory holding process p's archive (the parent of p->dir). */
void hpa_archive_job_dir(const hpc_proc *p, char *buf, size_t cap);

/* The archived copy of the object recorded as `recorded` with build id bid, written to
 * buf: buf when that copy exists (a regular file), else NULL. */
const char *hpa_archive_object(const char *job_dir, const char *recorded, hpc_str bid, char *buf,
                               size_t cap);

/* The archived copy of source file `path` (absolute, as the line tables name it) in buf,
 * or NULL when none exists. */
const char *hpa_archive_source(const char *job_dir, const char *path, char *buf, size_t cap);

/* What an archiving run did. */
typedef struct hpa_archive_report {
    unsigned objects, sources; /* copied now */
    uint64_t bytes;            /* bytes copied now */
    unsigned present;          /* already archived (by an earlier run, another rank) */
    unsigned missing;          /* could not be read: gone, or not a regular file */
    unsigned changed;          /* build id differs from the recorded one: not archived */
    unsigned failed;           /* could not be written (disk full, permissions) */
} hpa_archive_report;

/*
 * Archive what `mode` (enum hpc_archive_mode) asks for, of the processes of e: all of
 * them (only == NULL), or the one named `only` and its descendants ("rank3", "rank3.f1"
 * ...). A lean process (hpc_exp_open_lean) is loaded while it is archived. Objects are checked
 * against their recorded build id before they are copied. Each object or source that is missing,
 * changed or cannot be copied is reported to d as a warning naming it. Fills *r. Returns 0, or a
 * negative hpc_err when the archive directory itself cannot be made (then nothing was archived).
 */
int hpa_archive_exp(hpc_exp *e, const char *only, unsigned mode, hpc_diag *d,
                    hpa_archive_report *r);

/* "archived 7 load objects and 2 source files (4.1 MB); 3 were there already; 1 missing,
 * 1 changed since the run, 0 failed" (the parts that are not 0). */
void hpa_archive_summary(const hpa_archive_report *r, char *buf, size_t cap);

#endif
