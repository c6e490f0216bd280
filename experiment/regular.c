/*
 * regular.c - opening a file that should be a regular file, for every reader.
 *
 * A FIFO, a device or a socket in place of a stream, a module or a source file must not
 * block a reader for ever (open of a FIFO waits for a writer, read of a terminal for a
 * line) or feed it endless data: the file is opened with O_NONBLOCK, and used only when
 * fstat says it is a regular file; then O_NONBLOCK is cleared again (it means nothing
 * for regular files, but the descriptor may be handed to a library).
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"

int hpc_open_regular(const char *path, struct stat *st)
{
    struct stat own;
    if (!st)
        st = &own;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT || errno == ENOTDIR ? HPC_E_NOTFOUND : HPC_E_IO;
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return HPC_E_IO;
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
        return HPC_E_NOTREG;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}
