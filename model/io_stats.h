/*
 * io_stats.h - the traced I/O of processes (io_handle and io_op records, -i) per file and
 * per handle: what hpanalyze's ioactivity and iodetail show and hpmerge's summary says,
 * computed once here.
 *
 * Each call adds its time, bytes and count to its class (gprofng's: Read, Write, Other
 * I/O; a call that failed to I/O Error only), to its handle, to its file and to its
 * process's share of the file. A file is its absolute path as recorded at the open
 * (handles made by dup or fdopen take their parent's); calls with no handle that name a
 * path (a failed open, stat, unlink) count for that path, the others for "(unknown)".
 *
 * Access pattern, as Darshan characterizes it: each transfer (read or write with a known
 * offset) is binned by its size (Darshan's bins: 0-100, 100-1K, ... 1G+), and counted as
 * consecutive when it starts where the previous transfer of the same direction on that
 * file in that process ended (the first: at offset 0), sequential when it starts there or
 * beyond. A process's calls are taken in time order (all its threads).
 */
#ifndef HPA_IO_STATS_H
#define HPA_IO_STATS_H

#include <stdint.h>

#include "experiment.h"
#include "strtab.h"

enum { HPA_IO_READ = 0, HPA_IO_WRITE = 1, HPA_IO_OTHER = 2, HPA_IO_ERROR = 3, HPA_IO_NCLASS = 4 };
#define HPA_IO_NSIZES 10

/* Time (ns), bytes and calls per class. */
typedef struct hpa_io_sum {
    uint64_t ns[HPA_IO_NCLASS], bytes[HPA_IO_NCLASS], count[HPA_IO_NCLASS];
} hpa_io_sum;

/* Transfers by size and placement, per direction (HPA_IO_READ, HPA_IO_WRITE). */
typedef struct hpa_io_pattern {
    uint64_t sizes[2][HPA_IO_NSIZES];
    uint64_t placed[2]; /* transfers at a known offset */
    uint64_t consec[2], seq[2];
} hpa_io_pattern;

/* One process's part of a file. */
typedef struct hpa_io_share {
    uint32_t proc; /* index into the processes given to hpa_io_load */
    hpa_io_sum s;
} hpa_io_share;

typedef struct hpa_io_file {
    uint32_t path; /* in hpa_io.paths */
    hpa_io_sum s;
    hpa_io_pattern p;
    uint32_t nhandles;
    uint32_t nshares;
    hpa_io_share *shares; /* in process order */
} hpa_io_file;

typedef struct hpa_io_handle {
    uint32_t proc, file;
    uint64_t id, parent; /* io_handle ids, in the process */
    unsigned paradigm;   /* enum hpc_io_paradigm */
    unsigned flags;      /* enum hpc_io_handle_flags */
    int64_t fd;
    uint64_t oflags;
    uint64_t made;        /* time of the io_handle record */
    uint32_t open_thread; /* seq of the thread that made it */
    uint64_t open_node;   /* the making call's calling context there, 0 = unknown */
    uint64_t first, last; /* its first call's start, its last call's end */
    hpa_io_sum s;
    hpa_io_pattern p;
} hpa_io_handle;

typedef struct hpa_io {
    hpa_strtab paths;
    uint32_t nfiles;
    hpa_io_file *files;
    uint32_t nhandles;
    hpa_io_handle *handles; /* by process, then id */
    uint64_t unknown;       /* calls that name a handle no io_handle record made */
} hpa_io;

/* Which calls count: keep(arg, process index, thread seq, start time) for each call (a
 * report's --threads and --time); NULL keeps all. Handles are all known either way. */
typedef bool (*hpa_io_keep_fn)(void *arg, uint32_t proc, uint32_t thread, uint64_t time);

/* Read the io records of every thread of procs[0..n) (skip[i] true: leave process i out),
 * the calls keep keeps. Returns 0 or a negative hpc_err (out of memory; unreadable streams
 * are reported to d and left out). */
int hpa_io_load(hpa_io *io, const hpc_proc *const *procs, const bool *skip, uint32_t n,
                hpa_io_keep_fn keep, void *keep_arg, hpc_diag *d);
void hpa_io_free(hpa_io *io);

/* The files with any call, by total I/O time (most first; then by path): a malloc'd array
 * of indices into io->files, its length in *n; NULL when out of memory. ioactivity and
 * hpmerge's summary list files in this order. */
uint32_t *hpa_io_files_by_time(const hpa_io *io, uint32_t *n);

/* Darshan's size bin of a transfer, and the bins' labels ("0-100", ..., "1G+"). */
unsigned hpa_io_size_bin(uint64_t bytes);
extern const char *const hpa_io_size_labels[HPA_IO_NSIZES];

/* The class a call adds to (HPA_IO_READ ... HPA_IO_ERROR). */
unsigned hpa_io_class_of(const hpc_rec_io_op *op);

/* Bytes transferred (read + write), their time, and the bandwidth in bytes/s (0 when no
 * time). */
static inline uint64_t hpa_io_bytes(const hpa_io_sum *s)
{
    return s->bytes[HPA_IO_READ] + s->bytes[HPA_IO_WRITE];
}
static inline uint64_t hpa_io_ns(const hpa_io_sum *s)
{
    return s->ns[HPA_IO_READ] + s->ns[HPA_IO_WRITE] + s->ns[HPA_IO_OTHER] + s->ns[HPA_IO_ERROR];
}
static inline double hpa_io_bandwidth(const hpa_io_sum *s)
{
    uint64_t ns = s->ns[HPA_IO_READ] + s->ns[HPA_IO_WRITE];
    return ns ? (double)hpa_io_bytes(s) * 1e9 / (double)ns : 0;
}

#endif
