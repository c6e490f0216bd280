/*
 * sigsafe_stream.c - stream files being written: create, grow, close.
 *
 * A stream keeps two MAP_SHARED mappings of its file: the header (live stats, updated
 * in place) and the current chunk, into which sigsafe_write.c encodes records. The file
 * grows in steps inside a chunk: the first step of a stream is STEP_FIRST bytes, each
 * next one doubles the stream's size, up to a whole chunk per step; s->lim is where the
 * file (and so the writable part of the chunk's mapping) ends. A stream that writes
 * little reserves little (a short thread: 16 KiB on disk and in memory, not a chunk),
 * one that writes a lot changes chunks rarely.
 *
 * Each step is ftruncate + fallocate (where the file system has it, so a full disk is an
 * error here and not a SIGBUS in the program later) and a pre-fault of its pages:
 * MADV_WILLNEED (readahead allocates the page cache in a batch) then MADV_POPULATE_WRITE
 * (Linux >= 5.14: the write faults, page_mkwrite included, done in one call). The first
 * store to each page of a fresh file region otherwise takes a page fault: 1.5-2.5 ns per
 * byte written on the VM this was measured on, paid inside whatever record crossed the
 * page; pre-faulted, the stores cost about 0.2 ns per byte and the step as a whole
 * about 1.2 ns per byte (bench/RESULTS.md). Kernels without MADV_POPULATE_WRITE fall
 * back to faults on first touch.
 *
 * Streams with keep_fd 0 hold no file descriptor between steps: a program may have
 * thousands of threads and few descriptors to spare.
 *
 * Signal-safe throughout: only memory stores and system calls (open, ftruncate,
 * fallocate, mmap, madvise, munmap, close, truncate, clock_gettime, unlink); errno is
 * kept from the call that failed.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "experiment.h"
#include "schema_internal.h"
#include "sigsafe_stream.h"

/* Make the file at least `size` bytes, with blocks reserved when the file system can. */
static int file_grow(int fd, uint64_t old_size, uint64_t size)
{
    if (ftruncate(fd, (off_t)size) != 0)
        return -1;
    if (fallocate(fd, 0, (off_t)old_size, (off_t)(size - old_size)) != 0 && errno != EOPNOTSUPP &&
        errno != ENOSYS)
        return -1;
    return 0;
}

/* First step of a stream: a thread stream with a few records stays in it. */
#define STEP_FIRST (16u * 1024)

static void *map_chunk(int fd, uint64_t off, uint32_t size)
{
    return mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)off);
}

/* Fault in [p, p + n), writable, now. Returns -1 (errno EFAULT) only when the kernel says
 * a store there would raise SIGBUS; other failures (an old kernel) leave the pages to
 * fault on first touch and keep errno. */
static int prefault(uint8_t *p, size_t n)
{
    int e = errno, rc = 0;
    madvise(p, n, MADV_WILLNEED);
#ifdef MADV_POPULATE_WRITE
    if (madvise(p, n, MADV_POPULATE_WRITE) != 0 && errno == EFAULT)
        rc = -1;
#endif
    if (rc == 0)
        errno = e;
    return rc;
}

static void close_keep_errno(int fd)
{
    int e = errno;
    close(fd);
    errno = e;
}

static void munmap_keep_errno(void *p, size_t n)
{
    int e = errno;
    munmap(p, n);
    errno = e;
}

static size_t str_len(const char *p)
{
    size_t n = 0;
    while (p[n])
        n++;
    return n;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static int chunk_size_ok(uint32_t cs)
{
    return cs >= HPC_CHUNK_MIN && cs <= HPC_CHUNK_MAX && (cs & (cs - 1)) == 0;
}

static uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void header_fill(hpc_stream *s, enum hpc_stream_kind kind, uint32_t stream_id)
{
    uint8_t *h = s->header;
    memcpy(h + HPC_HDR_MAGIC, HPC_MAGIC, 8);
    hpc_le_put(h + HPC_HDR_MAJOR, HPC_FORMAT_MAJOR, 2);
    hpc_le_put(h + HPC_HDR_MINOR, HPC_FORMAT_MINOR, 2);
    hpc_le_put(h + HPC_HDR_KIND, (uint64_t)kind, 2);
    hpc_le_put(h + HPC_HDR_SIZE, HPC_HEADER_SIZE, 2);
    hpc_le_put(h + HPC_HDR_CHUNK_SIZE, s->chunk_size, 4);
    hpc_le_put(h + HPC_HDR_STREAM_ID, stream_id, 4);
    hpc_le_put(h + HPC_HDR_SCHEMA_HASH, hpc_schema_hash(), 8);
    hpc_le_put(h + HPC_HDR_CREATED, monotonic_ns(), 8);
    hpc_stream_stat_bump(s, HPC_STAT_BYTES, HPC_HEADER_SIZE);
}

/* One SCHEMA record per built-in kind, charged to the budget as one amount. */
static int schema_records_write(hpc_stream *s)
{
    hpc_budget *budget = s->budget;
    uint64_t before = hpc_stream_stats(s)[HPC_STAT_BYTES];
    s->budget = NULL;
    int err = 0;
    for (unsigned kind = 1; kind <= 255 && !err; kind++) {
        const hpc_kind_desc *k = hpc_schema_kind(kind);
        if (!k)
            continue;
        const char *text = hpc_schema_fields_text(kind);
        hpc_rec_schema r = {
            kind, {k->name, (uint32_t)str_len(k->name)}, {text, (uint32_t)str_len(text)}};
        err = hpc_write_schema(s, &r);
    }
    s->budget = budget;
    if (!err && budget && !hpc_budget_take(budget, hpc_stream_stats(s)[HPC_STAT_BYTES] - before))
        err = HPC_E_LIMIT;
    return err;
}

static void budget_give_back(hpc_budget *b, uint64_t n)
{
    if (b && __atomic_load_n(&b->limit, __ATOMIC_RELAXED))
        __atomic_fetch_sub(&b->used, n, __ATOMIC_RELAXED);
}

static void unmap_all(hpc_stream *s)
{
    int e = errno;
    if (s->win)
        munmap(s->win, s->chunk_size);
    if (s->header)
        munmap(s->header, HPC_HEADER_SIZE);
    s->win = s->header = NULL;
    s->lim = s->pos; /* no room: the writers' one compare sends them to record_room */
    errno = e;
}

int hpc_stream_create(hpc_stream *s, const char *path, enum hpc_stream_kind kind,
                      uint32_t stream_id, uint32_t chunk_size, hpc_budget *budget, int keep_fd)
{
    if (!s)
        return HPC_E_INVAL;
    memset(s, 0, sizeof *s);
    s->fd = -1;
    if (!chunk_size)
        chunk_size = HPC_CHUNK_DEFAULT;
    if (!path || !chunk_size_ok(chunk_size) || kind < HPC_STREAM_JOB ||
        kind > HPC_STREAM_LAUNCHER) {
        errno = EINVAL;
        return HPC_E_INVAL;
    }
    size_t n = str_len(path);
    if (n == 0 || n >= sizeof s->path) {
        errno = n ? ENAMETOOLONG : ENOENT;
        return HPC_E_INVAL;
    }
    memcpy(s->path, path, n + 1);
    s->chunk_size = chunk_size;
    s->budget = budget;
    s->keep_fd = keep_fd;

    /* A stream that cannot hold its header is not made: the limit holds exactly. */
    if (budget && !hpc_budget_take(budget, HPC_HEADER_SIZE)) {
        errno = EFBIG;
        return HPC_E_LIMIT;
    }
    /* never through a link someone planted where our file goes (ELOOP) */
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        budget_give_back(budget, HPC_HEADER_SIZE);
        return HPC_E_IO;
    }
    uint32_t lim = chunk_size < STEP_FIRST ? chunk_size : STEP_FIRST;
    void *h = MAP_FAILED, *w = MAP_FAILED;
    if (file_grow(fd, 0, lim) == 0 && (h = map_chunk(fd, 0, HPC_HEADER_SIZE)) != MAP_FAILED)
        w = map_chunk(fd, 0, chunk_size);
    if (!keep_fd && w != MAP_FAILED) { /* the mappings are all it needs until it grows */
        close_keep_errno(fd);
        fd = -1;
    }
    if (w != MAP_FAILED && prefault(w, lim) != 0) {
        munmap_keep_errno(w, chunk_size);
        w = MAP_FAILED;
    }
    if (w == MAP_FAILED) {
        int e = errno;
        if (h != MAP_FAILED)
            munmap(h, HPC_HEADER_SIZE);
        if (fd >= 0)
            close(fd);
        unlink(path);
        budget_give_back(budget, HPC_HEADER_SIZE);
        errno = e;
        return HPC_E_IO;
    }
    s->header = h;
    s->win = w;
    s->win_off = 0;
    s->pos = HPC_HEADER_SIZE;
    s->lim = lim;
    s->fd = fd;
    s->open = 1;
    header_fill(s, kind, stream_id);

    if (kind == HPC_STREAM_JOB || kind == HPC_STREAM_PROCESS) {
        int err = schema_records_write(s);
        if (err) {
            int e = err == HPC_E_LIMIT ? EFBIG : errno;
            hpc_stream_abandon(s);
            unlink(path);
            budget_give_back(budget, HPC_HEADER_SIZE);
            errno = e;
            return err;
        }
    }
    return 0;
}

/* The end of the next step: double the stream (at least the record), at most the chunk. */
static uint32_t step_end(const hpc_stream *s, size_t need)
{
    uint64_t end = s->win_off + s->lim; /* the file's size now */
    uint64_t want = s->pos + need;
    uint64_t lim = s->lim + (end > STEP_FIRST ? end : STEP_FIRST);
    if (lim < want)
        lim = (want + STEP_FIRST - 1) / STEP_FIRST * STEP_FIRST;
    return lim < s->chunk_size ? (uint32_t)lim : s->chunk_size;
}

/*
 * The file descriptor is held (reopened by path when the stream keeps none) only to grow
 * the file and map a new chunk; the pre-fault comes after it is closed: a program with
 * few descriptors and many threads starting needs them back soon.
 */
int hpc_stream_advance(hpc_stream *s, size_t need)
{
    if (need > s->chunk_size)
        return HPC_E_TOOBIG;
    int fd = s->fd;
    if (fd < 0 && (fd = open(s->path, O_RDWR | O_CLOEXEC)) < 0)
        return HPC_E_IO;
    /* the next step inside this chunk, or a fresh chunk, whole (the stream filled one) */
    int same = need <= s->chunk_size - s->pos;
    uint64_t off = same ? s->win_off : s->win_off + s->chunk_size;
    uint32_t from = same ? s->lim : 0, lim = same ? step_end(s, need) : s->chunk_size;
    uint8_t *w = s->win;
    int ok = file_grow(fd, s->win_off + s->lim, off + lim) == 0;
    if (ok && !same)
        ok = (w = map_chunk(fd, off, s->chunk_size)) != MAP_FAILED;
    if (fd != s->fd)
        close_keep_errno(fd);
    if (ok && prefault(w + from, lim - from) != 0) {
        if (!same)
            munmap_keep_errno(w, s->chunk_size);
        ok = 0;
    }
    if (!ok)
        return HPC_E_IO;
    if (!same) {
        munmap(s->win, s->chunk_size);
        s->win = w;
        s->win_off = off;
        s->pos = 0;
        s->time_base = 0;
        hpc_stream_stat_bump(s, HPC_STAT_REMAPS, 1);
    }
    s->lim = lim;
    return 0;
}

int hpc_stream_close(hpc_stream *s)
{
    if (!s || !s->open)
        return 0;
    uint64_t size = s->win_off + s->pos;
    unmap_all(s);
    int rc = 0;
    if (s->fd >= 0) {
        if (ftruncate(s->fd, (off_t)size) != 0)
            rc = HPC_E_IO;
        close_keep_errno(s->fd);
    } else if (truncate(s->path, (off_t)size) != 0) {
        rc = HPC_E_IO;
    }
    s->fd = -1;
    s->open = 0;
    return rc;
}

void hpc_stream_abandon(hpc_stream *s)
{
    if (!s)
        return;
    unmap_all(s);
    if (s->fd >= 0)
        close_keep_errno(s->fd);
    s->fd = -1;
    s->open = 0;
}

void hpc_stream_stat_add(hpc_stream *s, enum hpc_stat stat, uint64_t n)
{
    if (!s || !s->open || (unsigned)stat >= HPC_NSTATS)
        return;
    __atomic_fetch_add(hpc_stream_stats(s) + stat, n, __ATOMIC_RELAXED);
}

void hpc_stream_lock(hpc_stream *s)
{
    unsigned spins = 0;
    while (__atomic_exchange_n(&s->lock, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(&s->lock, __ATOMIC_RELAXED)) {
            if (++spins % 128 == 0)
                sched_yield(); /* the holder may be descheduled: 2 cores, many threads */
            else
                cpu_relax();
        }
    }
}

void hpc_stream_unlock(hpc_stream *s)
{
    __atomic_store_n(&s->lock, 0, __ATOMIC_RELEASE);
}
