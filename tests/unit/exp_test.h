/*
 * exp_test.h - tiny assertion helpers for the experiment library's unit tests.
 *
 * CHECK(cond, fmt, ...) prints "FAIL file:line: cond: message" and counts a failure;
 * tests go on so one run shows every broken case. exp_test_done() prints the summary
 * and returns the exit status (0 pass, 1 fail).
 */
#ifndef EXP_TEST_H
#define EXP_TEST_H

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"

static int exp_test_failures;
static int exp_test_checks;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        exp_test_checks++;                                                                         \
        if (!(cond)) {                                                                             \
            exp_test_failures++;                                                                   \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
        }                                                                                          \
    } while (0)

#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        uint64_t a_ = (uint64_t)(a), b_ = (uint64_t)(b);                                           \
        CHECK(a_ == b_, "%s = %" PRIu64 ", expected %" PRIu64, #a, a_, b_);                        \
    } while (0)

static inline int exp_test_done(const char *name);

/* Give up on this test: a precondition failed. */
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        int ok_ = !!(cond);                                                                        \
        CHECK(ok_, __VA_ARGS__);                                                                   \
        if (!ok_)                                                                                  \
            exit(exp_test_done(__FILE__));                                                         \
    } while (0)

static inline int exp_test_done(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, exp_test_checks, exp_test_failures);
    return exp_test_failures ? 1 : 0;
}

/* A scratch directory: $HPC_TMP (set by the test runner) or a fresh one in /tmp. */
static inline const char *exp_test_dir(void)
{
    static char dir[1024];
    if (dir[0])
        return dir;
    const char *t = getenv("HPC_TMP");
    if (t && *t) {
        snprintf(dir, sizeof dir, "%s", t);
    } else {
        snprintf(dir, sizeof dir, "/tmp/exp_test.XXXXXX");
        if (!mkdtemp(dir)) {
            perror("mkdtemp");
            exit(2);
        }
    }
    return dir;
}

/* "$dir/name" in a static ring of buffers (a few may be live at once). */
static inline const char *exp_test_path(const char *name)
{
    static char bufs[8][1200];
    static unsigned next;
    char *b = bufs[next++ % 8];
    snprintf(b, sizeof bufs[0], "%s/%s", exp_test_dir(), name);
    return b;
}

static inline long exp_test_file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* Read a whole file into a malloc'd buffer. */
static inline uint8_t *exp_test_slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(size > 0 ? (size_t)size : 1);
    *n = fread(b, 1, (size_t)size, f);
    fclose(f);
    return b;
}

static inline void exp_test_spit(const char *path, const uint8_t *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n) {
        perror(path);
        exit(2);
    }
    fclose(f);
}

#endif /* EXP_TEST_H */
