/*
 * sigsafe_path.c - building paths and sub-experiment directories without stdio or
 * malloc: a fork child of a threaded program may only call async-signal-safe functions
 * until it execs, and it must create its own sub-experiment and streams.
 */
#include <errno.h>
#include <sys/stat.h>

#include "experiment.h"

/* Append s at out[*len], keeping room for the NUL. Returns 0, or -1 if it does not fit. */
static int append(char *out, size_t cap, size_t *len, const char *s)
{
    while (*s) {
        if (*len + 1 >= cap)
            return -1;
        out[(*len)++] = *s++;
    }
    out[*len] = 0;
    return 0;
}

/* Decimal text of v into buf (at least 21 bytes). */
static const char *decimal(char *buf, uint64_t v)
{
    char *p = buf + 20;
    *p = 0;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return p;
}

static int path_build(char *out, size_t cap, const char *const *parts, unsigned n)
{
    size_t len = 0;
    if (!out || cap == 0)
        return HPC_E_INVAL;
    out[0] = 0;
    for (unsigned i = 0; i < n; i++) {
        if (!parts[i] || append(out, cap, &len, parts[i]) != 0) {
            errno = parts[i] ? ENAMETOOLONG : EINVAL;
            return HPC_E_INVAL;
        }
    }
    return (int)len;
}

int hpc_path_join(char *out, size_t cap, const char *dir, const char *name)
{
    const char *parts[] = {dir, "/", name};
    return path_build(out, cap, parts, 3);
}

int hpc_path_thread(char *out, size_t cap, const char *dir, uint32_t seq)
{
    char num[21];
    const char *parts[] = {dir, "/t", decimal(num, seq), ".hpe"};
    return path_build(out, cap, parts, 4);
}

static int name_ok(const char *name)
{
    if (!name || !*name || (name[0] == '.' && (!name[1] || (name[1] == '.' && !name[2]))))
        return 0;
    for (const char *p = name; *p; p++)
        if (*p == '/')
            return 0;
    return 1;
}

int hpc_layout_subexp(char *out, size_t cap, const char *job_dir, const char *name)
{
    char path[4096], num[21];
    if (!out || !job_dir || !name_ok(name)) {
        errno = EINVAL;
        return HPC_E_INVAL;
    }
    for (unsigned k = 1; k < 100000; k++) {
        const char *variant[] = {name, "_", decimal(num, k)};
        size_t len = 0;
        out[0] = 0;
        if (cap == 0 || append(out, cap, &len, variant[0]) != 0 ||
            (k > 1 && (append(out, cap, &len, variant[1]) != 0 ||
                       append(out, cap, &len, variant[2]) != 0))) {
            errno = ENAMETOOLONG;
            return HPC_E_INVAL;
        }
        if (hpc_path_join(path, sizeof path, job_dir, out) < 0)
            return HPC_E_INVAL;
        if (mkdir(path, 0755) == 0)
            return 0;
        if (errno != EEXIST)
            return errno == ENOENT ? HPC_E_NOTFOUND : HPC_E_IO;
    }
    errno = EEXIST;
    return HPC_E_IO;
}
