/*
 * srcfile.c - reading source files for annotated listings (srcfile.h).
 */
#include "srcfile.h"

#include <limits.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive.h"

int hpa_srcfile_read(hpa_srcfile *f, const char *path)
{
    memset(f, 0, sizeof(*f));
    int fd = hpc_open_regular(path, NULL); /* a FIFO in a source's place must not block */
    FILE *in = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!in) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size_t cap = 0, len = 0;
    char buf[65536];
    for (size_t got; (got = fread(buf, 1, sizeof(buf), in)) > 0;) {
        if (len + got + 1 > cap) {
            cap = 2 * (len + got + 1);
            char *d = realloc(f->data, cap);
            if (!d) {
                fclose(in);
                hpa_srcfile_free(f);
                errno = ENOMEM;
                return -1;
            }
            f->data = d;
        }
        memcpy(f->data + len, buf, got);
        len += got;
    }
    int bad = ferror(in);
    fclose(in);
    if (bad || !f->data) {
        hpa_srcfile_free(f);
        if (!bad) /* an empty file */
            return 0;
        errno = EIO;
        return -1;
    }
    f->data[len] = 0;
    size_t nl = 1;
    for (size_t i = 0; i < len; i++)
        nl += f->data[i] == '\n';
    f->lines = calloc(nl + 1, sizeof(*f->lines));
    if (!f->lines) {
        hpa_srcfile_free(f);
        errno = ENOMEM;
        return -1;
    }
    char *p = f->data;
    while (*p) {
        f->lines[++f->n] = p;
        char *e = strchr(p, '\n');
        if (!e)
            break;
        *e = 0;
        p = e + 1;
    }
    return 0;
}

int hpa_srcfile_read_archived(hpa_srcfile *f, hpc_exp *const *exps, unsigned nexps,
                              const char *path)
{
    char job[PATH_MAX], copy[PATH_MAX];
    for (unsigned i = 0; i < nexps; i++) {
        if (!exps[i]->nprocs)
            continue;
        hpa_archive_job_dir(&exps[i]->procs[0], job, sizeof(job));
        if (hpa_archive_source(job, path, copy, sizeof(copy)) && hpa_srcfile_read(f, copy) == 0)
            return 0;
    }
    return hpa_srcfile_read(f, path);
}

const char *hpa_srcfile_line(const hpa_srcfile *f, size_t no)
{
    return no >= 1 && no <= f->n ? f->lines[no] : NULL;
}

void hpa_srcfile_free(hpa_srcfile *f)
{
    free(f->data);
    free(f->lines);
    memset(f, 0, sizeof(*f));
}
