/*
 * hpexp-dump - print an experiment stream or directory as JSON lines, for low-level
 * tests (built by `make check` into $(TESTDIR)/tools/hpexp-dump).
 *
 *   hpexp-dump [--text] FILE.hpe     one object per record, then a summary object
 *   hpexp-dump [--text] EXPDIR       job.hpe, then per process: summary, records of
 *                                    process.hpe + launcher.hpe, each thread's records
 *
 * Record lines: {"file":"rank0/t0.hpe","record":"sample_clock","offset":300,"time":...}
 * Summary lines: {"summary":"rank0/t0.hpe","stream":3,"stream_id":0,"records":N,
 *                 "damaged":N,"torn":N,"unknown":N,"stats":{"samples":N,...}}
 *                {"proc":"rank0","rank":0,"ended_early":false,"nthreads":3,...}
 * Damage goes to stderr as "hpexp-dump: FILE: offset N: ...".
 * Exit: 0 clean, 1 damage was found (output still complete), 2 unusable input or usage.
 */
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"

static enum hpc_print_style style = HPC_PRINT_JSON;

static void print_stats(const uint64_t *stats)
{
    printf("\"stats\":{");
    for (unsigned i = 0, n = 0; i < HPC_NSTATS; i++) {
        const char *name = hpc_stat_name(i);
        if (name)
            printf("%s\"%s\":%llu", n++ ? "," : "", name, (unsigned long long)stats[i]);
    }
    printf("}");
}

static void print_record(const char *label, const char *key, const hpc_record *rec,
                         const hpc_reader *schema)
{
    if (style == HPC_PRINT_JSON) {
        printf("{\"%s\":\"%s\",", key, label);
        hpc_record_print(stdout, rec, schema, style);
        printf("}\n");
    } else {
        printf("%s: ", label);
        hpc_record_print(stdout, rec, schema, style);
        printf("\n");
    }
}

/* Dump one stream, or with tf one thread's life in a thread stream (the file's header
 * stats go with its first thread); label is how lines name it. Returns 0 or a negative
 * hpc_err. */
static int dump_stream(const char *path, const hpc_thread_file *tf, const char *label,
                       const hpc_reader *schema, hpc_diag *d)
{
    hpc_reader *r;
    int rc = tf ? hpc_reader_open_life(&r, path, schema, d, tf->offset)
                : hpc_reader_open(&r, path, schema, d);
    if (rc)
        return rc;
    hpc_record rec;
    uint64_t n = 0;
    while (hpc_reader_next(r, &rec)) {
        print_record(label, "file", &rec, r);
        n++;
    }
    printf("{\"summary\":\"%s\",\"stream\":%d,\"stream_id\":%u,\"records\":%llu,"
           "\"damaged\":%llu,\"torn\":%llu,\"unknown\":%llu,",
           label, (int)hpc_reader_kind(r), hpc_reader_stream_id(r), (unsigned long long)n,
           (unsigned long long)hpc_reader_damaged(r), (unsigned long long)hpc_reader_torn(r),
           (unsigned long long)hpc_reader_unknown(r));
    static const uint64_t none[HPC_NSTATS];
    print_stats(tf && tf->offset ? none : hpc_reader_stats(r));
    printf("}\n");
    hpc_reader_close(r);
    return 0;
}

static void print_proc(const hpc_proc *p)
{
    printf("{\"proc\":\"%s\",\"rank\":%d,\"ended_early\":%s,\"has_begin\":%s,\"has_end\":%s,"
           "\"has_launcher_exit\":%s,\"records\":%zu,\"nthreads\":%zu,\"threads\":[",
           p->name, p->rank, p->ended_early ? "true" : "false", p->has_begin ? "true" : "false",
           p->has_end ? "true" : "false", p->has_launcher_exit ? "true" : "false", p->nrecords,
           p->nthreads);
    for (size_t i = 0; i < p->nthreads; i++)
        printf("%s%u", i ? "," : "", p->threads[i].seq);
    printf("],");
    print_stats(p->stats);
    printf("}\n");
}

static int dump_exp(const char *path, hpc_diag *d)
{
    hpc_exp *e;
    int rc = hpc_exp_open(&e, path, d);
    if (rc)
        return rc;
    char job[4096];
    snprintf(job, sizeof job, "%s/%s", path, HPC_JOB_FILE);
    if (access(job, F_OK) == 0)
        dump_stream(job, NULL, HPC_JOB_FILE, NULL, d);
    for (size_t i = 0; i < e->nprocs; i++) {
        const hpc_proc *p = &e->procs[i];
        print_proc(p);
        for (size_t k = 0; k < p->nrecords; k++)
            print_record(p->name, "proc", &p->records[k], p->schema);
        for (size_t t = 0; t < p->nthreads; t++) {
            char label[1024];
            /* one thread each: a stream that holds several is dumped per thread, each
             * under its own name (t<seq>.hpe) */
            const hpc_thread_file *tf = &p->threads[t];
            snprintf(label, sizeof label, "%s/t%u.hpe", p->name, tf->seq);
            dump_stream(tf->path, tf, label, p->schema, d);
        }
    }
    hpc_exp_close(e);
    return 0;
}

/* For a lone thread or launcher stream, its process.hpe describes its schema. */
static hpc_reader *sibling_schema(const char *path)
{
    char *copy = strdup(path), proc[4096];
    hpc_reader *r = NULL;
    hpc_diag quiet = {.quiet = 1};
    if (copy && strcmp(basename(copy), HPC_PROCESS_FILE) != 0) {
        strcpy(copy, path);
        snprintf(proc, sizeof proc, "%s/%s", dirname(copy), HPC_PROCESS_FILE);
        if (hpc_reader_open(&r, proc, NULL, &quiet) != 0)
            r = NULL;
    }
    free(copy);
    return r;
}

int main(int argc, char **argv)
{
    int i = 1;
    if (i < argc && strcmp(argv[i], "--text") == 0) {
        style = HPC_PRINT_TEXT;
        i++;
    }
    if (i + 1 != argc) {
        fprintf(stderr, "usage: hpexp-dump [--text] FILE.hpe|EXPDIR\n");
        return 2;
    }
    const char *path = argv[i];
    hpc_diag d = {.prog = "hpexp-dump"};
    struct stat st;
    int rc;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = dump_exp(path, &d);
    } else {
        hpc_reader *schema = sibling_schema(path);
        rc = dump_stream(path, NULL, path, schema, &d);
        hpc_reader_close(schema);
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror("hpexp-dump: stdout");
        return 2;
    }
    if (rc)
        return 2;
    return d.warnings || d.errors ? 1 : 0;
}
