/*
 * fuzz_seeds - write the seed corpus for fuzz_reader: small streams made by the real
 * writer (4 KiB chunks so an input holds several), covering every record kind, a
 * process stream with SCHEMA records, a torn record and a truncated file.
 *
 *   fuzz_seeds DIR
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "experiment.h"

static char dir[4096];

static const char *seed(const char *name)
{
    static char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return path;
}

static void every_kind(hpc_stream *s, uint64_t t)
{
    static const char text[] = "/usr/lib/x86_64-linux-gnu/libm.so.6";
    for (unsigned kind = 1; kind < 256; kind++) {
        const hpc_kind_desc *k = hpc_schema_kind(kind);
        if (!k)
            continue;
        hpc_record rec;
        memset(&rec, 0, sizeof rec);
        for (unsigned i = 0; i < k->nfields; i++) {
            char *at = (char *)&rec.u + k->fields[i].offset;
            uint64_t u = k->fields[i].type == 'T' ? t + i * 1000 : kind * 1000 + i;
            hpc_str str = {text, (uint32_t)(i % 3 ? 5 : sizeof text - 1)};
            if (k->fields[i].type == 's' || k->fields[i].type == 'b')
                memcpy(at, &str, sizeof str);
            else
                memcpy(at, &u, sizeof u);
        }
        switch (kind) {
#define HPC_RECORD(name, id, fields)                                                               \
    case id:                                                                                       \
        hpc_write_##name(s, &rec.u.name);                                                          \
        break;
#include "schema.def"
#undef HPC_RECORD
        }
    }
}

static void samples(hpc_stream *s, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        hpc_rec_sample_clock c = {
            .time = 1000000000 + i * 1000000ull, .node = i % 5, .cpu_ns = 999000 + i, .cpu = i & 1};
        hpc_write_sample_clock(s, &c);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds DIR\n");
        return 2;
    }
    snprintf(dir, sizeof dir, "%s", argv[1]);
    hpc_stream s;

    hpc_stream_create(&s, seed("thread.hpe"), HPC_STREAM_THREAD, 1, 4096, NULL, 1);
    every_kind(&s, 5000);
    samples(&s, 400);
    hpc_stream_close(&s);

    hpc_stream_create(&s, seed("process.hpe"), HPC_STREAM_PROCESS, 0, 4096, NULL, 1);
    every_kind(&s, 7000);
    hpc_stream_close(&s);

    hpc_stream_create(&s, seed("small.hpe"), HPC_STREAM_THREAD, 2, 4096, NULL, 1);
    samples(&s, 20);
    s.win[s.pos + 1] = 3; /* a torn record: length without kind */
    s.win[s.pos + 2] = 7;
    s.pos += 5;
    hpc_stream_close(&s);

    hpc_stream_create(&s, seed("cut.hpe"), HPC_STREAM_LAUNCHER, 0, 4096, NULL, 1);
    hpc_rec_launcher_exit le = {.time = 1, .pid = 2, .status = 9};
    hpc_write_launcher_exit(&s, &le);
    uint64_t end = s.win_off + s.pos;
    hpc_stream_close(&s);
    return truncate(seed("cut.hpe"), (off_t)end - 3) == 0 ? 0 : 1;
}
