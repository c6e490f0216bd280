/*
 * fuzz_reader.c - libFuzzer target over the stream reader (`make fuzz`).
 *
 * Each input is read twice the way hpanalyze reads a stream (hpc_reader_open, every
 * record through hpc_reader_next and hpc_record_print, hpc_reader_rewind and a second
 * pass, then once more as its own schema_from):
 *   1. from the fuzzer's own buffer (reader_open_memory): the bytes end exactly where
 *      the input ends, so any read past them is an ASan finding, and every record and
 *      string is checked to lie inside the input and inside its record;
 *   2. from a file holding the input (hpc_reader_open on a memfd), as users read.
 * Damage must come back as reports, never as a crash, a finding, a hang or a record
 * outside the data.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reader_internal.h"

static int memfd = -1;
static char path[64];
static FILE *sink;

static void quiet(void *ctx, enum hpc_severity sev, const char *file, uint64_t off, const char *msg,
                  const char *src, int line)
{
    (void)ctx, (void)sev, (void)off, (void)src, (void)line;
    if (!file || !msg || !*msg)
        abort(); /* every report names the file and says something */
}

static bool inside(const char *p, size_t n, const char *lo, size_t len)
{
    return n == 0 || (p >= lo && n <= len && p - lo <= (ptrdiff_t)(len - n));
}

/* The record lies in the data (when known) and its strings lie in its payload. */
static void check_record(const hpc_record *rec, const uint8_t *data, size_t size)
{
    if (rec->offset >= size || rec->kind == 0 || rec->kind > 255 || rec->raw.n > size)
        abort();
    if (data && (!inside(rec->raw.p, rec->raw.n, (const char *)data, size) ||
                 rec->raw.p <= (const char *)data + rec->offset))
        abort();
    const hpc_kind_desc *k = hpc_schema_kind(rec->kind);
    for (unsigned i = 0; k && i < k->nfields; i++) {
        if (k->fields[i].type != 's' && k->fields[i].type != 'b')
            continue;
        hpc_str s;
        memcpy(&s, (const char *)&rec->u + k->fields[i].offset, sizeof s);
        if (!inside(s.p, s.n, rec->raw.p, rec->raw.n))
            abort();
    }
}

static void read_all(hpc_reader *r, const uint8_t *data, size_t size)
{
    hpc_record rec;
    uint64_t first = 0, second = 0;
    while (hpc_reader_next(r, &rec)) {
        check_record(&rec, data, size);
        hpc_record_print(sink, &rec, r, (first & 1) ? HPC_PRINT_JSON : HPC_PRINT_TEXT);
        if (++first > size)
            abort(); /* more records than bytes: a loop */
    }
    hpc_reader_rewind(r);
    while (hpc_reader_next(r, &rec))
        second++;
    if (first != second)
        abort(); /* reading must be deterministic */
}

static void fuzz_one(hpc_reader *r, const uint8_t *data, size_t size, hpc_diag *d)
{
    read_all(r, data, size);
    hpc_reader *t; /* the stream as the schema of itself (schema_from) */
    int rc =
        data ? reader_open_memory(&t, "fuzz", data, size, r, d) : hpc_reader_open(&t, path, r, d);
    if (rc == 0) {
        hpc_record rec;
        while (hpc_reader_next(t, &rec))
            check_record(&rec, data, size);
        hpc_reader_close(t);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("fuzz.hpe", 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
        sink = fopen("/dev/null", "w");
    }
    hpc_diag d = {.report = quiet};
    hpc_reader *r;
    int rc = reader_open_memory(&r, "fuzz", data, size, NULL, &d);
    if (rc == 0) {
        fuzz_one(r, data, size, &d);
        hpc_reader_close(r);
    } else if (d.errors + d.warnings == 0) {
        abort(); /* refused without saying why */
    }

    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size)
        abort();
    unsigned before = d.errors + d.warnings;
    if (hpc_reader_open(&r, path, NULL, &d) == 0) {
        fuzz_one(r, NULL, size, &d);
        hpc_reader_close(r);
    } else if (d.errors + d.warnings == before) {
        abort();
    }
    return 0;
}
