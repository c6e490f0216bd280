/*
 * reader.c - reading one stream file: map it read-only, validate the header, walk the
 * records by the chunk rule, decode them by the file's schema.
 *
 * Damage never stops reading. What the reader meets and does:
 *   bad length varint, record past the chunk end   report, skip to the next chunk
 *   record past the end of the file (truncated)     report, skip to the next chunk (= end)
 *   kind 0 with a length (torn record)              report, count as torn, skip the record
 *   bad varint / string past the record (payload)   report, skip the record
 * Every step moves forward, so a walk ends after at most one step per byte. Reports are
 * capped per file (MAX_REPORTS); the counts are not.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codec.h"
#include "header_layout.h"
#include "reader_internal.h"

#define MAX_REPORTS 20

void reader_corrupt(hpc_reader *r, uint64_t off, const char *src, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    if (r->scanning)
        return; /* reported when the records are read */
    if (++r->reports > MAX_REPORTS) {
        if (r->diag)
            r->diag->warnings++;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (r->reports == MAX_REPORTS)
        hpc_diag_report(r->diag, HPC_WARNING, r->path, off, src, line,
                        "%s (further damage in this file is counted, not reported)", msg);
    else
        hpc_diag_report(r->diag, HPC_WARNING, r->path, off, src, line, "%s", msg);
}

#define FILE_ERROR(r, off, ...)                                                                    \
    hpc_diag_report((r)->diag, HPC_ERROR, (r)->path, (off), __FILE__, __LINE__, __VA_ARGS__)

/* Check the header; fill r's header facts. Returns 0 or a negative hpc_err. */
static int header_parse(hpc_reader *r)
{
    const uint8_t *h = r->map;
    if (r->size == 0) {
        FILE_ERROR(r, HPC_NO_OFFSET, "empty file (its writer never started?)");
        return HPC_E_FORMAT;
    }
    if (r->size < 8 || memcmp(h, HPC_MAGIC, 8) != 0) {
        FILE_ERROR(r, HPC_NO_OFFSET, "not an experiment stream (bad magic)");
        return HPC_E_FORMAT;
    }
    if (r->size < HPC_HDR_MIN_SIZE) {
        FILE_ERROR(r, HPC_NO_OFFSET, "file of %llu bytes is too short for a header",
                   (unsigned long long)r->size);
        return HPC_E_FORMAT;
    }
    unsigned major = (unsigned)hpc_le_get(h + HPC_HDR_MAJOR, 2);
    unsigned minor = (unsigned)hpc_le_get(h + HPC_HDR_MINOR, 2);
    if (major != HPC_FORMAT_MAJOR) {
        FILE_ERROR(r, HPC_HDR_MAJOR, "format version %u.%u; this reader reads version %d.x", major,
                   minor, HPC_FORMAT_MAJOR);
        return HPC_E_VERSION;
    }
    r->kind = (enum hpc_stream_kind)hpc_le_get(h + HPC_HDR_KIND, 2);
    r->header_size = (uint32_t)hpc_le_get(h + HPC_HDR_SIZE, 2);
    r->chunk_size = (uint32_t)hpc_le_get(h + HPC_HDR_CHUNK_SIZE, 4);
    r->stream_id = (uint32_t)hpc_le_get(h + HPC_HDR_STREAM_ID, 4);
    r->schema_hash = hpc_le_get(h + HPC_HDR_SCHEMA_HASH, 8);
    uint32_t cs = r->chunk_size;
    if (cs < HPC_CHUNK_MIN || cs > HPC_CHUNK_MAX || (cs & (cs - 1))) {
        FILE_ERROR(r, HPC_HDR_CHUNK_SIZE, "bad chunk size %u in the header", cs);
        return HPC_E_FORMAT;
    }
    if (r->header_size < HPC_HDR_MIN_SIZE || r->header_size >= cs) {
        FILE_ERROR(r, HPC_HDR_SIZE, "bad header size %u", r->header_size);
        return HPC_E_FORMAT;
    }
    if (r->size < r->header_size) {
        FILE_ERROR(r, HPC_NO_OFFSET, "file of %llu bytes is shorter than its header (%u)",
                   (unsigned long long)r->size, r->header_size);
        return HPC_E_FORMAT;
    }
    if (r->kind < HPC_STREAM_JOB || r->kind > HPC_STREAM_LAUNCHER)
        READER_CORRUPT(r, HPC_HDR_KIND, "unknown stream kind %u", (unsigned)r->kind);
    memset(r->stats, 0, sizeof r->stats);
    for (unsigned i = 0; i < hpc_hdr_nstats(r->header_size); i++)
        r->stats[i] = hpc_le_get(h + HPC_HDR_STATS + 8 * i, 8);
    return 0;
}

/* Files up to this size are read into memory rather than mapped: a job of thousands of
 * processes opens thousands of small streams, and a map's set-up, page faults and unmap
 * cost more than copying a few pages (`mpi ranks` on 4096 ranks: bench/RESULTS.md). */
#define READ_WHOLE_MAX (1u << 20)

/* Read the whole file (r->size bytes as fstat saw them) into r->map; a file that shrank
 * meanwhile is read as far as it goes. */
static int file_read(hpc_reader *r, int fd)
{
    uint8_t *buf = malloc(r->size);
    if (!buf)
        return HPC_E_NOMEM;
    uint64_t got = 0;
    while (got < r->size) {
        ssize_t n = pread(fd, buf + got, r->size - got, (off_t)got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            FILE_ERROR(r, HPC_NO_OFFSET, "cannot read: %s", strerror(errno));
            free(buf);
            return HPC_E_IO;
        }
        if (n == 0)
            break;
        got += (uint64_t)n;
    }
    r->map = buf;
    r->size = got;
    r->heap = true;
    return 0;
}

static int file_map(hpc_reader *r)
{
    struct stat st;
    int fd = hpc_open_regular(r->path, &st);
    if (fd == HPC_E_NOTREG) {
        FILE_ERROR(r, HPC_NO_OFFSET, "not a regular file");
        return HPC_E_FORMAT;
    }
    if (fd < 0) {
        FILE_ERROR(r, HPC_NO_OFFSET, "cannot open: %s", strerror(errno));
        return fd;
    }
    r->size = (uint64_t)st.st_size;
    if (r->size > 0 && r->size <= READ_WHOLE_MAX) {
        int rc = file_read(r, fd);
        close(fd);
        return rc;
    }
    if (r->size > 0) {
        void *m = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            FILE_ERROR(r, HPC_NO_OFFSET, "cannot map: %s", strerror(errno));
            close(fd);
            return HPC_E_IO;
        }
        madvise(m, r->size, MADV_SEQUENTIAL);
        r->map = m;
    }
    close(fd);
    return 0;
}

static void rewind_file(hpc_reader *r)
{
    r->pos = r->header_size;
    r->chunk_end = r->chunk_size < r->size ? r->chunk_size : r->size;
    r->time_base = 0;
}

static bool seek_life(hpc_reader *r);

void hpc_reader_rewind(hpc_reader *r)
{
    if (!r)
        return;
    rewind_file(r);
    if (r->life) {
        r->life_started = r->life_done = false;
        if (r->life_off && !seek_life(r))
            r->life_done = true;
    }
}

/* Open over r->path's file (map == NULL) or over the given bytes. builtin_only: return 1
 * (closed, before any report of the schema) when the header's schema hash is not ours. */
static int reader_open(hpc_reader **out, const char *path, const uint8_t *map, size_t size,
                       const hpc_reader *schema_from, hpc_diag *d, bool builtin_only)
{
    if (!out || !path)
        return HPC_E_INVAL;
    *out = NULL;
    hpc_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        return HPC_E_NOMEM;
    }
    r->diag = d;
    int err = 0;
    if (map) {
        r->map = map;
        r->size = size;
        r->borrowed = true;
    } else {
        err = file_map(r);
    }
    if (!err && builtin_only && r->size >= HPC_HDR_MIN_SIZE &&
        hpc_le_get(r->map + HPC_HDR_SCHEMA_HASH, 8) != hpc_schema_hash())
        err = 1; /* before the header's checks, which the caller's second open reports */
    if (!err)
        err = header_parse(r);
    if (!err) {
        rewind_file(r);
        err = reader_schema_load(r, schema_from);
    }
    if (err) {
        hpc_reader_close(r);
        return err;
    }
    rewind_file(r);
    *out = r;
    return 0;
}

int hpc_reader_open(hpc_reader **out, const char *path, const hpc_reader *schema_from, hpc_diag *d)
{
    return reader_open(out, path, NULL, 0, schema_from, d, false);
}

int reader_open_memory(hpc_reader **out, const char *name, const uint8_t *buf, size_t size,
                       const hpc_reader *schema_from, hpc_diag *d)
{
    static const uint8_t empty[1];
    return reader_open(out, name, size ? buf : empty, size, schema_from, d, false);
}

/* Move to the next chunk; returns 0 at the end of the file. */
static int chunk_next(hpc_reader *r)
{
    uint64_t start = ((r->chunk_end - 1) / r->chunk_size + 1) * r->chunk_size;
    if (start >= r->size) {
        r->pos = r->chunk_end = r->size;
        return 0;
    }
    r->pos = start;
    r->chunk_end = start + r->chunk_size < r->size ? start + r->chunk_size : r->size;
    r->time_base = 0;
    return 1;
}

/* The chunk holding pos ends before its nominal end: the file was cut there. */
static bool chunk_cut(const hpc_reader *r)
{
    return r->chunk_end == r->size && r->size % r->chunk_size != 0;
}

/*
 * Frame the next record: kind, length and payload inside the chunk, without decoding.
 * Returns 1 (rec->kind/offset/raw set), 0 at the end of the stream.
 */
static inline int next_raw(hpc_reader *r, hpc_record *rec)
{
    for (;;) {
        if (r->pos >= r->chunk_end && !chunk_next(r))
            return 0;
        const uint8_t *at = r->map + r->pos, *end = r->map + r->chunk_end;
        uint64_t off = r->pos, len;
        unsigned kind = *at;
        if (kind == 0 && end - at < 2) {
            r->pos = r->chunk_end; /* no room for a record: end of chunk */
            continue;
        }
        const uint8_t *payload = hpc_varint_get(at + 1, end, &len);
        if (!payload) {
            if (chunk_cut(r) && end - at <= 1 + HPC_VARINT_MAX)
                READER_CORRUPT(r, off, "record cut off by the end of the file (truncated)");
            else
                READER_CORRUPT(r, off, "bad record length (kind %u); skipping to the next chunk",
                               kind);
            r->damaged++;
            r->pos = r->chunk_end;
            continue;
        }
        if (kind == 0 && len == 0) {
            r->pos = r->chunk_end; /* end of chunk */
            continue;
        }
        if (len > (uint64_t)(end - payload)) {
            if (chunk_cut(r))
                READER_CORRUPT(r, off,
                               "record of %llu bytes runs past the end of the file (truncated)",
                               (unsigned long long)len);
            else
                READER_CORRUPT(r, off, "record length %llu runs past the chunk end at offset %llu",
                               (unsigned long long)len, (unsigned long long)r->chunk_end);
            r->damaged++;
            if (kind == 0)
                r->torn++;
            r->pos = r->chunk_end;
            continue;
        }
        r->pos = (uint64_t)(payload - r->map) + len;
        if (kind == 0) {
            READER_CORRUPT(r, off, "torn record of %llu bytes (its writer died writing it)",
                           (unsigned long long)len);
            r->damaged++;
            r->torn++;
            continue;
        }
        rec->kind = kind;
        rec->offset = off;
        rec->raw.p = (const char *)payload;
        rec->raw.n = (uint32_t)len;
        return 1;
    }
}

int reader_next_raw(hpc_reader *r, hpc_record *rec)
{
    return next_raw(r, rec);
}

/* The next record, decoded; 0 at the end of the file. */
static int next_record(hpc_reader *r, hpc_record *rec)
{
    while (next_raw(r, rec)) {
        char why[200];
        uint64_t tb = r->time_base;
        if (r->skip[rec->kind] && r->mode[rec->kind] == DECODE_BUILTIN &&
            reader_walk(rec, &tb) == 0) {
            r->time_base = tb; /* a good record the caller does not want */
            continue;
        }
        tb = r->time_base; /* decoded again below: what is wrong is said as ever */
        if (r->mode[rec->kind] == DECODE_RAW) {
            if (!r->unknown_seen[rec->kind]) {
                r->unknown_seen[rec->kind] = true;
                READER_CORRUPT(r, rec->offset,
                               "record kind %u is described by no schema: returned raw; "
                               "times after it in this chunk may be off",
                               rec->kind);
            }
            r->unknown++;
            if (r->skip[rec->kind])
                continue;
            return 1;
        }
        if (reader_decode(r, rec, &tb, why, sizeof why) == 0) {
            r->time_base = tb;
            if (r->mode[rec->kind] == DECODE_UNKNOWN)
                r->unknown++;
            if (r->skip[rec->kind])
                continue;
            return 1;
        }
        READER_CORRUPT(r, rec->offset, "%s (kind %u)", why, rec->kind);
        r->damaged++;
    }
    return 0;
}

int hpc_reader_next(hpc_reader *r, hpc_record *rec)
{
    if (!r || !rec || r->life_done)
        return 0;
    int got = next_record(r, rec);
    if (got && r->life && rec->kind == HPC_K_thread_begin) {
        if (r->life_started) { /* the next thread's life in this stream */
            r->life_done = true;
            return 0;
        }
        r->life_started = true;
    }
    return got;
}

void hpc_reader_only(hpc_reader *r, const unsigned *kinds, size_t n)
{
    if (!r)
        return;
    memset(r->skip, 1, sizeof r->skip);
    for (size_t i = 0; i < n; i++)
        if (kinds[i] < 256)
            r->skip[kinds[i]] = false;
    r->skip[HPC_K_thread_begin] = false; /* where a thread's life starts and ends */
}

/* Position at the record at r->life_off: decode its chunk from the start up to it, for
 * the chunk's time base. */
static bool seek_life(hpc_reader *r)
{
    uint64_t off = r->life_off, start = off / r->chunk_size * r->chunk_size;
    if (off >= r->size || off < r->header_size) {
        READER_CORRUPT(r, off,
                       "a thread's life starts past the end of the file "
                       "(process.hpe's thread_life record)");
        return false;
    }
    r->pos = start < r->header_size ? r->header_size : start;
    r->chunk_end = start + r->chunk_size < r->size ? start + r->chunk_size : r->size;
    r->time_base = 0;
    hpc_record rec;
    while (r->pos < off && r->pos < r->chunk_end && next_record(r, &rec))
        ;
    if (r->pos != off) {
        READER_CORRUPT(r, off,
                       "no record starts where process.hpe's thread_life record says "
                       "a thread's life does");
        return false;
    }
    return true;
}

static int open_life(hpc_reader **out, const char *path, const hpc_reader *schema_from, hpc_diag *d,
                     uint64_t offset, bool builtin_only)
{
    int err = reader_open(out, path, NULL, 0, schema_from, d, builtin_only);
    if (err)
        return err;
    (*out)->life = true;
    (*out)->life_off = offset;
    hpc_reader_rewind(*out);
    return 0;
}

int hpc_reader_open_life(hpc_reader **out, const char *path, const hpc_reader *schema_from,
                         hpc_diag *d, uint64_t offset)
{
    return open_life(out, path, schema_from, d, offset, false);
}

int reader_open_life_builtin(hpc_reader **out, const char *path, hpc_diag *d, uint64_t offset)
{
    return open_life(out, path, NULL, d, offset, true);
}

enum hpc_stream_kind hpc_reader_kind(const hpc_reader *r)
{
    return r->kind;
}

uint32_t hpc_reader_stream_id(const hpc_reader *r)
{
    return r->stream_id;
}

const char *hpc_reader_path(const hpc_reader *r)
{
    return r->path;
}

const uint64_t *hpc_reader_stats(const hpc_reader *r)
{
    return r->stats;
}

uint64_t hpc_reader_unknown(const hpc_reader *r)
{
    return r->unknown;
}

uint64_t hpc_reader_damaged(const hpc_reader *r)
{
    return r->damaged;
}

uint64_t hpc_reader_torn(const hpc_reader *r)
{
    return r->torn;
}

uint64_t hpc_reader_max_records(const hpc_reader *r)
{
    return r->size / HPC_MIN_RECORD_BYTES;
}

const hpc_kind_desc *hpc_reader_schema_kind(const hpc_reader *r, unsigned kind)
{
    if (kind > 255)
        return NULL;
    if (r && r->fkind[kind])
        return &r->fkind[kind]->desc;
    return hpc_schema_kind(kind);
}

void hpc_reader_close(hpc_reader *r)
{
    if (!r)
        return;
    reader_schema_free(r);
    if (r->heap)
        free((void *)r->map);
    else if (r->map && !r->borrowed)
        munmap((void *)r->map, r->size);
    free(r->path);
    free(r);
}
