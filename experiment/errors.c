/*
 * errors.c - names and descriptions of enum hpc_err (hpc_strerror, hpc_errname).
 */
#include <errno.h>
#include <string.h>

#include "experiment.h"

struct err_text {
    const char *name;
    const char *text;
};

/* Indexed by -err. */
static const struct err_text err_texts[] = {
    [-HPC_OK] = {"HPC_OK", "success"},
    [-HPC_E_NOMEM] = {"HPC_E_NOMEM", "out of memory"},
    [-HPC_E_IO] = {"HPC_E_IO", "input/output error"},
    [-HPC_E_FORMAT] = {"HPC_E_FORMAT", "not an experiment file, or damaged beyond use"},
    [-HPC_E_VERSION] = {"HPC_E_VERSION", "experiment format version not supported"},
    [-HPC_E_LIMIT] = {"HPC_E_LIMIT", "size limit reached"},
    [-HPC_E_TOOBIG] = {"HPC_E_TOOBIG", "record too large"},
    [-HPC_E_INVAL] = {"HPC_E_INVAL", "invalid argument"},
    [-HPC_E_NOTFOUND] = {"HPC_E_NOTFOUND", "no such experiment"},
    [-HPC_E_CLOSED] = {"HPC_E_CLOSED", "stream not open"},
    [-HPC_E_EXISTS] = {"HPC_E_EXISTS", "already exists"},
    [-HPC_E_SYMLINK] = {"HPC_E_SYMLINK", "is a symbolic link (refused: never followed)"},
    [-HPC_E_NOTEXP] = {"HPC_E_NOTEXP", "exists and is not an hpcollect experiment"},
    [-HPC_E_NOTDIR] = {"HPC_E_NOTDIR", "exists and is not a directory"},
    [-HPC_E_NOTOURS] = {"HPC_E_NOTOURS", "is a directory owned by another user"},
    [-HPC_E_NOTREG] = {"HPC_E_NOTREG", "is not a regular file"},
};

static const struct err_text *err_lookup(int err)
{
    if (err > 0 || -err >= (int)(sizeof err_texts / sizeof err_texts[0]) || !err_texts[-err].name)
        return NULL;
    return &err_texts[-err];
}

const char *hpc_strerror(int err)
{
    const struct err_text *t = err_lookup(err);
    return t ? t->text : "unknown error";
}

const char *hpc_errname(int err)
{
    const struct err_text *t = err_lookup(err);
    return t ? t->name : "HPC_E_UNKNOWN";
}

const char *hpc_errtext(int err, int errnum)
{
    if (errnum == ENOSPC || errnum == EDQUOT)
        return errnum == EDQUOT ? "disk full (disk quota exceeded)"
                                : "disk full (no space left on the file system)";
    if ((err == HPC_E_IO || err == HPC_E_NOTFOUND || err == HPC_E_INVAL) && errnum)
        return strerror(errnum);
    return hpc_strerror(err);
}
