/*
 * fuzz_reader.c - libFuzzer target over the stream reader (`make fuzz`).
 *
 * Each input is written to a memory file and read the way hpanalyze reads a stream:
 * hpc_reader_open, every record through hpc_reader_next and hpc_record_print (text and
 * JSON), hpc_reader_rewind and a second pass. Damage must come back as reports, never
 * as a crash, a sanitizer finding, a hang or a record outside the file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "experiment.h"

static int memfd = -1;
static char path[64];
static FILE *sink;

static void quiet(void *ctx, enum hpc_severity sev, const char *file, uint64_t off, const char *msg,
                  const char *src, int line)
{
    (void)ctx, (void)sev, (void)off, (void)src, (void)line;
    if (!file || !msg || strlen(msg) == 0)
        abort(); /* every report names the file and says something */
}

static void check_record(const hpc_record *rec, size_t size)
{
    if (rec->offset >= size || rec->kind == 0 || rec->kind > 255)
        abort();
    if (rec->raw.n > size || (rec->raw.n && !rec->raw.p))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (memfd < 0) {
        memfd = memfd_create("fuzz.hpe", 0);
        snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
        sink = fopen("/dev/null", "w");
    }
    if (ftruncate(memfd, 0) != 0 || pwrite(memfd, data, size, 0) != (ssize_t)size)
        abort();

    hpc_diag d = {.report = quiet};
    hpc_reader *r;
    if (hpc_reader_open(&r, path, NULL, &d) != 0) {
        if (d.errors + d.warnings == 0)
            abort(); /* refused without saying why */
        return 0;
    }
    hpc_record rec;
    uint64_t first = 0, second = 0;
    while (hpc_reader_next(r, &rec)) {
        check_record(&rec, size);
        hpc_record_print(sink, &rec, r, (first & 1) ? HPC_PRINT_JSON : HPC_PRINT_TEXT);
        if (++first > size)
            abort(); /* more records than bytes: a loop */
    }
    hpc_reader_rewind(r);
    while (hpc_reader_next(r, &rec))
        second++;
    if (first != second)
        abort(); /* reading must be deterministic */
    /* the stream as the schema of itself (thread streams read with schema_from) */
    hpc_reader *t;
    if (hpc_reader_open(&t, path, r, &d) == 0) {
        while (hpc_reader_next(t, &rec))
            check_record(&rec, size);
        hpc_reader_close(t);
    }
    hpc_reader_close(r);
    return 0;
}
