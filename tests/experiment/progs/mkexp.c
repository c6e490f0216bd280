/*
 * mkexp - write a synthetic job experiment with the experiment library, for the
 * shell tests of hpexp-dump (tests/experiment/test_dump.sh).
 *
 *   mkexp DIR           -> DIR/prog.1.hpc: job.hpe, rank0 and rank1, 2 threads each;
 *                          thread t<k> of rank r holds 100 * (r + 1) + k samples,
 *                          rank1 has no proc_end (ended early)
 *   mkexp --killed FILE -> a thread stream whose writer is SIGKILLed after 5000 samples
 *                          with one record stored but not committed (torn)
 *   mkexp --every-kind FILE -> a process stream with one record of every kind
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "experiment.h"

#define S(lit) ((hpc_str){lit, sizeof lit - 1})

static void die(const char *what, int rc)
{
    fprintf(stderr, "mkexp: %s: %s\n", what, hpc_strerror(rc));
    exit(1);
}

static void samples(hpc_stream *s, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++) {
        hpc_rec_sample_clock c = {
            .time = 1000000000 + 1000000 * i, .node = 1 + i % 3, .cpu_ns = 1000000, .cpu = 0};
        int rc = hpc_write_sample_clock(s, &c);
        if (rc)
            die("sample", rc);
        hpc_stream_stat_add(s, HPC_STAT_SAMPLES, 1);
    }
}

static void process(const char *job, int rank)
{
    char name[32], sub[64], dir[2048], path[2100];
    snprintf(name, sizeof name, "rank%d", rank);
    int rc = hpc_layout_subexp(sub, sizeof sub, job, name);
    if (rc)
        die("subexp", rc);
    snprintf(dir, sizeof dir, "%s/%s", job, sub);
    hpc_stream s;
    snprintf(path, sizeof path, "%s/process.hpe", dir);
    if ((rc = hpc_stream_create(&s, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1)))
        die(path, rc);
    hpc_rec_proc_begin b = {.time = 1,
                            .pid = 1000 + (uint64_t)rank,
                            .rank = rank,
                            .world_size = 2,
                            .name = {name, (uint32_t)strlen(name)},
                            .exe = S("/usr/bin/prog")};
    hpc_write_proc_begin(&s, &b);
    hpc_rec_module_load m = {.time = 2, .id = 1, .path = S("/usr/bin/prog"), .flags = 1};
    hpc_write_module_load(&s, &m);
    if (rank == 0) {
        hpc_rec_proc_end e = {.time = 3, .reason = HPC_END_EXIT, .nthreads = 2};
        hpc_write_proc_end(&s, &e);
    }
    hpc_stream_close(&s);
    for (uint32_t t = 0; t < 2; t++) {
        hpc_path_thread(path, sizeof path, dir, t);
        if ((rc = hpc_stream_create(&s, path, HPC_STREAM_THREAD, t, 0, NULL, 0)))
            die(path, rc);
        hpc_rec_thread_begin tb = {.time = 5, .seq = t, .parent_seq = t ? 0 : -1};
        hpc_write_thread_begin(&s, &tb);
        samples(&s, 100 * (uint64_t)(rank + 1) + t);
        hpc_stream_close(&s);
    }
}

/* Every record kind, fields filled by the schema table: U = 1000 * kind + i,
 * S = -(i + 1), T = 10^9 + i, STR = TEXT, BYTES = 00 ff 10. */
#define TEXT "q\"b\\n\nc\x01\xc3\xa9\xff"
static void every_kind(const char *path)
{
    hpc_stream s;
    int rc = hpc_stream_create(&s, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1);
    if (rc)
        die(path, rc);
    for (unsigned kind = 1; kind < 256; kind++) {
        const hpc_kind_desc *k = hpc_schema_kind(kind);
        if (!k)
            continue;
        hpc_record rec;
        memset(&rec, 0, sizeof rec);
        for (unsigned i = 0; i < k->nfields; i++) {
            char *at = (char *)&rec.u + k->fields[i].offset;
            uint64_t u = 1000 * kind + i;
            int64_t sv = -(int64_t)i - 1;
            hpc_str text = S(TEXT), bytes = S("\x00\xff\x10");
            switch (k->fields[i].type) {
            case 'S':
                memcpy(at, &sv, sizeof sv);
                break;
            case 'T':
                u = 1000000000 + i;
                memcpy(at, &u, sizeof u);
                break;
            case 's':
                memcpy(at, &text, sizeof text);
                break;
            case 'b':
                memcpy(at, &bytes, sizeof bytes);
                break;
            default:
                memcpy(at, &u, sizeof u);
            }
        }
        switch (kind) {
#define HPC_RECORD(name, id, fields)                                                               \
    case id:                                                                                       \
        rc = hpc_write_##name(&s, &rec.u.name);                                                    \
        break;
#include "schema.def"
#undef HPC_RECORD
        }
        if (rc)
            die(k->name, rc);
    }
    hpc_stream_close(&s);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--every-kind") == 0) {
        every_kind(argv[2]);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--killed") == 0) {
        hpc_stream s;
        int rc = hpc_stream_create(&s, argv[2], HPC_STREAM_THREAD, 0, 4096, NULL, 0);
        if (rc)
            die(argv[2], rc);
        samples(&s, 5000);
        s.win[s.pos + 2] = 0x42; /* payload and length stored, kind not yet: torn */
        s.win[s.pos + 1] = 1;
        kill(getpid(), SIGKILL);
    }
    if (argc != 2) {
        fprintf(stderr, "usage: mkexp DIR | mkexp --killed FILE\n");
        return 2;
    }
    char job[1024];
    int rc = hpc_layout_job_dir(job, sizeof job, argv[1], NULL, "prog", NULL, 0);
    if (rc != 1)
        die("job dir", rc);
    hpc_stream s;
    char path[1100];
    snprintf(path, sizeof path, "%s/job.hpe", job);
    if ((rc = hpc_stream_create(&s, path, HPC_STREAM_JOB, 0, 0, NULL, 1)))
        die(path, rc);
    hpc_rec_job_begin jb = {.time = 1, .job_id = S("job-7"), .world_size = 2};
    hpc_write_job_begin(&s, &jb);
    hpc_stream_close(&s);
    process(job, 1);
    process(job, 0);
    puts(job);
    return 0;
}
