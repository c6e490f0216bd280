/*
 * archive_names.c - where an object or a source file lives in an experiment's archive
 * (archive.h gives the layout), for the archiver and the readers alike.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "archive.h"
#include "archive_names.h"

void hpa_archive_job_dir(const hpc_proc *p, char *buf, size_t cap)
{
    const char *slash = strrchr(p->dir, '/');
    if (!slash)
        snprintf(buf, cap, ".");
    else if (slash == p->dir)
        snprintf(buf, cap, "/");
    else
        snprintf(buf, cap, "%.*s", (int)(slash - p->dir), p->dir);
}

/* FNV-1a: a name for objects without a build id, from their recorded path. */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h;
}

int hpa_archive_object_name(char *buf, size_t cap, const char *recorded, hpc_str bid)
{
    const char *slash = strrchr(recorded, '/');
    const char *base = slash ? slash + 1 : recorded;
    if (!*base)
        return -1;
    size_t n = (size_t)snprintf(buf, cap, "%s.", base);
    if (n >= cap)
        return -1;
    if (bid.n == 0)
        n +=
            (size_t)snprintf(buf + n, cap - n, "path-%016llx", (unsigned long long)fnv1a(recorded));
    for (uint32_t i = 0; i < bid.n && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%02x", (uint8_t)bid.p[i]);
    return n < cap ? 0 : -1;
}

int hpa_archive_source_name(char *buf, size_t cap, const char *path)
{
    if (path[0] != '/')
        return -1;
    size_t n = 0;
    for (const char *p = path; *p;) {
        while (*p == '/')
            p++;
        size_t len = strcspn(p, "/");
        if (len == 0 || (len == 1 && p[0] == '.')) {
            p += len;
            continue;
        }
        if (len == 2 && p[0] == '.' && p[1] == '.') { /* back one component, never above */
            if (n == 0)
                return -1;
            while (n > 0 && buf[n - 1] != '/')
                n--;
            if (n > 0)
                n--;
            p += len;
            continue;
        }
        if (n + len + 2 > cap)
            return -1;
        if (n)
            buf[n++] = '/';
        memcpy(buf + n, p, len);
        n += len;
        p += len;
    }
    if (n == 0)
        return -1;
    buf[n] = 0;
    return 0;
}

static const char *existing_file(char *buf, size_t cap, const char *job_dir, const char *sub,
                                 const char *name)
{
    struct stat st;
    if ((size_t)snprintf(buf, cap, "%s/%s/%s", job_dir, sub, name) >= cap)
        return NULL;
    return lstat(buf, &st) == 0 && S_ISREG(st.st_mode) ? buf : NULL;
}

const char *hpa_archive_object(const char *job_dir, const char *recorded, hpc_str bid, char *buf,
                               size_t cap)
{
    char name[512];
    if (!job_dir || recorded[0] == '[' || hpa_archive_object_name(name, sizeof name, recorded, bid))
        return NULL;
    return existing_file(buf, cap, job_dir, HPA_ARCHIVE_OBJECTS, name);
}

const char *hpa_archive_source(const char *job_dir, const char *path, char *buf, size_t cap)
{
    char name[4096];
    if (!job_dir || hpa_archive_source_name(name, sizeof name, path))
        return NULL;
    return existing_file(buf, cap, job_dir, HPA_ARCHIVE_SOURCES, name);
}
