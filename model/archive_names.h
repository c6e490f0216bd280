/*
 * archive_names.h - names inside an experiment's archive (archive.h), for archive.c and
 * archive_names.c only.
 */
#ifndef HPA_ARCHIVE_NAMES_H
#define HPA_ARCHIVE_NAMES_H

#include <stddef.h>

#include "experiment.h"

/* "<basename>.<build id hex>", or "<basename>.path-<hash of recorded>" without a build id.
 * Returns 0, or -1 when it does not fit or recorded has no basename. */
int hpa_archive_object_name(char *buf, size_t cap, const char *recorded, hpc_str bid);

/* The absolute path with "." and ".." resolved and the leading '/' dropped
 * ("/src/a/../b.c" -> "src/b.c"): its place under archive/sources. Returns -1 for a
 * relative path, one that climbs above the root, or one that does not fit. */
int hpa_archive_source_name(char *buf, size_t cap, const char *path);

#endif
