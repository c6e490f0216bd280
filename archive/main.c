/*
 * main.c - hpcollect-archive: copy an experiment's load objects and sources into it, as
 * gprofng's gp-archive does (model/archive.h tells what and where).
 *
 *     hpcollect-archive [-a MODE] [-q] [--process NAME] EXP
 *
 * hpcollect runs it at the end of every run (-a, default ldobjects) for the processes it
 * launched; run it by hand on an experiment collected with -a off, or whose ranks died
 * before their launchers could archive, while the binaries are still in place.
 * Exit status: 0 archived (warnings name what could not be), 1 the experiment cannot be
 * read or its archive cannot be made, 2 usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "archive.h"
#include "experiment.h"

static int usage(FILE *f, int rc)
{
    fprintf(f,
            "usage: hpcollect-archive [-a MODE] [-q] [--process NAME] EXP\n\n"
            "Copies the load objects (by build id) and, with src/usedsrc, the source files of\n"
            "experiment EXP into EXP/archive/, so it can be analysed where they are gone.\n\n"
            "  -a MODE         ldobjects (every load object), usedldobjects (those with samples),\n"
            "                  src (every load object and its sources), usedsrc (the objects\n"
            "                  with samples and the sources of sampled lines), on (= src);\n"
            "                  default: as collected (hpcollect -a), ldobjects if that was off\n"
            "  -q              no warnings, no summary\n"
            "  --process NAME  only process NAME and its descendants\n");
    return rc;
}

int main(int argc, char **argv)
{
    int mode = -1, quiet = 0;
    const char *only = NULL, *path = NULL;
    for (int i = 1, operands = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!operands && !strcmp(a, "--")) { /* what follows is the experiment's path */
            operands = 1;
            continue;
        }
        if (operands || a[0] != '-') {
            if (path) {
                fprintf(stderr, "hpcollect-archive: %s: one experiment at a time\n", a);
                return usage(stderr, 2);
            }
            path = a;
            continue;
        }
        if (!strcmp(a, "--help"))
            return usage(stdout, 0);
        if (!strcmp(a, "-q")) {
            quiet = 1;
        } else if ((!strcmp(a, "-a") || !strcmp(a, "--process")) && i + 1 < argc) {
            const char *v = argv[++i];
            if (a[1] == 'a' &&
                ((mode = hpc_archive_mode_parse(v)) < 0 || mode == HPC_ARCHIVE_OFF)) {
                fprintf(stderr,
                        "hpcollect-archive: -a: bad value '%s': expected "
                        "ldobjects|usedldobjects|src|usedsrc|on\n",
                        v);
                return 2;
            }
            if (a[1] == '-')
                only = v;
        } else {
            fprintf(stderr, "hpcollect-archive: %s: unknown option or missing value\n", a);
            return usage(stderr, 2);
        }
    }
    if (!path)
        return usage(stderr, 2);
    hpc_diag diag = {.prog = "hpcollect-archive", .quiet = quiet};
    hpc_exp *e;
    int rc = hpc_exp_open(&e, path, &diag);
    if (rc < 0)
        return 1; /* reported by hpc_exp_open */
    if (mode < 0)
        mode = e->nprocs && e->procs[0].settings.archive ? (int)e->procs[0].settings.archive
                                                         : HPC_ARCHIVE_OBJECTS;
    hpa_archive_report r;
    rc = hpa_archive_exp(e, only, (unsigned)mode, &diag, &r);
    if (rc == 0 && !quiet) {
        char line[512];
        hpa_archive_summary(&r, line, sizeof line);
        fprintf(stderr, "hpcollect-archive: %s (-a %s): %s\n", path,
                hpc_archive_mode_name((unsigned)mode), line);
    }
    hpc_exp_close(e);
    return rc == 0 ? 0 : 1;
}
