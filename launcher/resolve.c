/*
 * resolve.c - PATH search with the shell's messages and statuses (127 not found, 126 not
 * executable), so `hpcollect prog` fails exactly like `prog` would, before the
 * experiment directory is created.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "resolve.h"

/* 0 if path is an executable regular file, else an errno value. */
static int check_executable(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    if (access(path, X_OK) != 0)
        return errno;
    if (!S_ISREG(st.st_mode))
        return EACCES;
    return 0;
}

static int report(const char *prog, int err)
{
    fprintf(stderr, "hpcollect: %s: %s\n", prog, strerror(err));
    return (err == ENOENT || err == ENOTDIR) ? 127 : 126;
}

int hpc_resolve_program(const char *prog, char *out, size_t cap)
{
    if (!*prog) {
        fprintf(stderr, "hpcollect: : command not found\n");
        return 127;
    }
    if (strchr(prog, '/')) {
        int err = check_executable(prog);
        if (err)
            return report(prog, err);
        if (strlen(prog) >= cap)
            return report(prog, ENAMETOOLONG);
        strcpy(out, prog);
        return 0;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    int first_err = 0;
    char cand[4096];
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        /* an empty PATH element means the current directory */
        int n = len ? snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, prog)
                    : snprintf(cand, sizeof cand, "./%s", prog);
        if (n > 0 && (size_t)n < sizeof cand) {
            int err = check_executable(cand);
            if (!err) {
                if ((size_t)n >= cap)
                    return report(prog, ENAMETOOLONG);
                strcpy(out, cand);
                return 0;
            }
            /* like bash: a found-but-not-executable file wins over "not found" */
            if (err != ENOENT && err != ENOTDIR && !first_err)
                first_err = err;
        }
        if (!end)
            break;
        p = end;
    }
    if (first_err)
        return report(prog, first_err);
    fprintf(stderr, "hpcollect: %s: command not found\n", prog);
    return 127;
}
