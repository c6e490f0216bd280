/*
 * bench_codec - speed and size of the experiment format on clock samples
 * (`make bench`; not part of `make check`). Results go to bench/RESULTS.md.
 *
 *   bench_codec [N] [DIR] [PERIOD_NS]   N samples (default 10 000 000) into DIR (default
 *                                       /tmp), one per PERIOD_NS (default 1 ms, -p hi)
 *
 * A thread stream like the collector's for a steady program: a 20-frame stack stored
 * once as cct_node records, then N sample_clock records every PERIOD_NS with a little
 * jitter in time and CPU time, cycling over 4 leaves. Prints the write cost per record,
 * bytes on disk per sample (CCT share included), and the decode rate reading it back
 * with hpc_reader_next (best of 3, warm page cache).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "experiment.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
    char path[4096];
    snprintf(path, sizeof path, "%s/bench_codec.%d.hpe", argc > 2 ? argv[2] : "/tmp",
             (int)getpid());

    hpc_stream s;
    if (hpc_stream_create(&s, path, HPC_STREAM_THREAD, 0, 0, NULL, 0) != 0) {
        perror(path);
        return 1;
    }
    for (uint64_t id = 1; id <= 23; id++) {
        hpc_rec_cct_node c = {
            .id = id, .parent = id <= 20 ? id - 1 : 19, .pc = 0x555555554000 + id * 0x1234};
        hpc_write_cct_node(&s, &c);
    }
    uint64_t period = argc > 3 ? strtoull(argv[3], NULL, 10) : 1000000;
    uint64_t t = 1234567890123ull, seed = 1;
    double t0 = now();
    for (uint64_t i = 0; i < n; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t jitter = (seed >> 33) % (period / 50 + 1); /* up to 2% */
        t += period + jitter;
        hpc_rec_sample_clock c = {.time = t,
                                  .node = 20 + i % 4,
                                  .cpu_ns = period - period / 100 + jitter,
                                  .cpu = (seed >> 20) & 1};
        if (hpc_write_sample_clock(&s, &c) != 0) {
            fprintf(stderr, "write failed at %llu\n", (unsigned long long)i);
            return 1;
        }
    }
    double t1 = now();
    hpc_stream_close(&s);
    struct stat st;
    stat(path, &st);

    double best = 1e9;
    uint64_t sum = 0, count = 0;
    for (int rep = 0; rep < 3; rep++) {
        hpc_reader *r;
        double a = now();
        if (hpc_reader_open(&r, path, NULL, NULL) != 0)
            return 1;
        hpc_record rec;
        sum = count = 0;
        while (hpc_reader_next(r, &rec)) {
            if (rec.kind == HPC_K_sample_clock) {
                sum += rec.u.sample_clock.cpu_ns;
                count++;
            }
        }
        hpc_reader_close(r);
        double b = now();
        if (b - a < best)
            best = b - a;
    }
    unlink(path);
    if (count != n) {
        fprintf(stderr, "read %llu samples of %llu\n", (unsigned long long)count,
                (unsigned long long)n);
        return 1;
    }
    printf("samples            %llu\n", (unsigned long long)n);
    printf("write              %.1f ns/sample\n", (t1 - t0) / (double)n * 1e9);
    printf("file size          %lld bytes = %.2f bytes/sample (CCT included)\n",
           (long long)st.st_size, (double)st.st_size / (double)n);
    printf("decode             %.3f s = %.1f ns/sample = %.1f M samples/s\n", best,
           best / (double)n * 1e9, (double)n / best / 1e6);
    printf("checksum           %llu\n", (unsigned long long)sum);
    return 0;
}
