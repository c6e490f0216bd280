/*
 * io.c - MPI-IO calls as I/O (-i): the MPI_File_* wrappers' part (protos/io.txt's io*
 * directives). Each MPI file opened gets an I/O handle of paradigm MPI-IO (an io_handle
 * record: the file's absolute path, the access mode as open(2) flags) and each call on it
 * an io_op record after its mpi_call (experiment/io_fns.def's MPI_File_* kinds): bytes
 * asked (count x type size) and done (from the status), the file offset it started at in
 * bytes (the view's byte offset of an explicit offset or of the individual file pointer;
 * -1 for the shared file pointer, see below), its error. A non-blocking or
 * split-collective transfer counts the bytes asked when it starts, as Darshan does. The
 * POSIX and stdio calls the MPI library makes for the call are not traced
 * (hpc_thread.io_outer), so the bytes count once, at the MPI-IO call. The C and the
 * Fortran wrappers both come here: a Fortran handle as PMPI_File_f2c makes it, a Fortran
 * file name with its hidden length (abs_name trims its blanks).
 *
 * The shared file pointer's offset stays unknown: the library reads and advances it in
 * one locked step that a wrapper cannot share. MPI_File_get_position_shared before the
 * call is a separate locked access (a file lock and read under ROMIO), and another rank
 * (or thread) may move the pointer between the two, so it would be a guess that also
 * costs I/O the program did not ask for. For _ordered, the offset is the pointer at the
 * collective plus an exclusive prefix sum of the lower ranks' bytes: the library computes
 * it, the wrapper could only with a collective of its own and the same unlocked read of
 * the pointer, so neither is done.
 *
 * Files are found by their MPI_File in a lock-free open-addressing table (HPCW_IO_FILES
 * open at once; a file beyond is traced as an MPI call only).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mpiw.h"

#define HPCW_IO_FILES 1024 /* a power of two */
#define EMPTY         ((uintptr_t)0)
#define GONE          UINTPTR_MAX

static struct {
    uintptr_t key; /* the MPI_File, EMPTY or GONE */
    uint64_t handle;
} files[HPCW_IO_FILES];

static unsigned first_slot(uintptr_t k)
{
    return (unsigned)((k * 0x9e3779b97f4a7c15ull) >> 40) & (HPCW_IO_FILES - 1);
}

static uint64_t file_handle(MPI_File fh)
{
    uintptr_t k = (uintptr_t)fh;
    for (unsigned i = first_slot(k), n = 0; k != EMPTY && k != GONE && n < HPCW_IO_FILES;
         n++, i = (i + 1) & (HPCW_IO_FILES - 1)) {
        uintptr_t key = __atomic_load_n(&files[i].key, __ATOMIC_ACQUIRE);
        if (key == k)
            return __atomic_load_n(&files[i].handle, __ATOMIC_RELAXED);
        if (key == EMPTY)
            break;
    }
    return 0;
}

static void file_add(MPI_File fh, uint64_t h)
{
    uintptr_t k = (uintptr_t)fh;
    for (unsigned i = first_slot(k), n = 0; k != EMPTY && k != GONE && n < HPCW_IO_FILES;
         n++, i = (i + 1) & (HPCW_IO_FILES - 1)) {
        uintptr_t key = __atomic_load_n(&files[i].key, __ATOMIC_ACQUIRE);
        if ((key == EMPTY || key == GONE) &&
            __atomic_compare_exchange_n(&files[i].key, &key, k, false, __ATOMIC_ACQ_REL,
                                        __ATOMIC_RELAXED)) {
            __atomic_store_n(&files[i].handle, h, __ATOMIC_RELEASE);
            return;
        }
    }
}

static void file_forget(MPI_File fh)
{
    uintptr_t k = (uintptr_t)fh;
    for (unsigned i = first_slot(k), n = 0; k != EMPTY && k != GONE && n < HPCW_IO_FILES;
         n++, i = (i + 1) & (HPCW_IO_FILES - 1)) {
        uintptr_t key = __atomic_load_n(&files[i].key, __ATOMIC_ACQUIRE);
        if (key == k) {
            __atomic_store_n(&files[i].key, GONE, __ATOMIC_RELEASE);
            return;
        }
        if (key == EMPTY)
            return;
    }
}

/* ------------------------------------------------------------ the call */

/* Whether -i is on (the collector hands out handles only then); asked once. */
static bool io_traced(void)
{
    static int on = -1;
    if (on < 0)
        on = hpcollect_io_handle() != 0;
    return on;
}

void hpcw_io_begin(hpcw_call *c, hpcw_io *io)
{
    io->handle = 0;
    io->offset = -1;
    io->outer = c->t && hpcw_tracking() && !c->t->io_outer;
    if (io->outer)
        c->t->io_outer = 1;
}

void hpcw_io_end(hpcw_call *c, hpcw_io *io)
{
    if (io->outer)
        c->t->io_outer = 0;
}

void hpcw_io_opened(hpcw_io *io, MPI_File fh)
{
    io->handle = io_traced() ? hpcollect_io_handle() : 0;
    if (io->handle)
        file_add(fh, io->handle);
}

void hpcw_io_closing(hpcw_io *io, MPI_File fh)
{
    io->handle = file_handle(fh);
    if (io->handle)
        file_forget(fh);
}

void hpcw_io_on_file(hpcw_io *io, MPI_File fh)
{
    io->handle = file_handle(fh);
}

void hpcw_io_at(hpcw_io *io, MPI_File fh, MPI_Offset offset)
{
    MPI_Offset disp;
    io->handle = file_handle(fh);
    if (io->handle && PMPI_File_get_byte_offset(fh, offset, &disp) == MPI_SUCCESS)
        io->offset = disp;
}

void hpcw_io_here(hpcw_io *io, MPI_File fh)
{
    MPI_Offset pos;
    io->handle = file_handle(fh);
    if (io->handle && PMPI_File_get_position(fh, &pos) == MPI_SUCCESS)
        hpcw_io_at(io, fh, pos);
}

/* ------------------------------------------------------------ records */

static hpc_str str_of(const char *s)
{
    return (hpc_str){.p = s, .n = strlen(s)};
}

/* A failed call's error is EIO: io_op.error is an errno for every reader, and an MPI error
 * class has no number of its own across libraries (MPI_ERR_IO is 35 in Open MPI, 32 in
 * MPICH), so recording it would take a library-independent table of the classes in
 * experiment/ and reports that name errors, which they do not for errno either (they
 * count failed calls). */
static void write_op(hpcw_call *c, const hpcw_io *io, unsigned fn, uint64_t asked, uint64_t done,
                     const char *path)
{
    hpc_rec_io_op r = {.time = c->enter,
                       .duration = c->leave - c->enter,
                       .fn = fn,
                       .handle = io ? io->handle : 0,
                       .requested = asked,
                       .done = c->failed ? 0 : done,
                       .offset = io ? io->offset : -1,
                       .error = c->failed ? EIO : 0,
                       .node = c->node,
                       .path = str_of(path ? path : "")};
    if (hpc_write_io_op(&c->t->stream, &r) < 0)
        hpcw_dropped(c);
}

/* MPI-IO's access mode as open(2) flags (the io_handle record's oflags). */
static unsigned amode_flags(int amode)
{
    unsigned f = amode & MPI_MODE_RDWR ? O_RDWR : amode & MPI_MODE_WRONLY ? O_WRONLY : O_RDONLY;
    if (amode & MPI_MODE_CREATE)
        f |= O_CREAT;
    if (amode & MPI_MODE_EXCL)
        f |= O_EXCL;
    if (amode & MPI_MODE_APPEND)
        f |= O_APPEND;
    return f;
}

/* name (len bytes, or up to its NUL: HPCW_CSTRING) as an absolute path into buf. A
 * Fortran name's blanks before and after it are not part of it (both bindings trim them
 * before they open); a ROMIO file system prefix ("ufs:", "nfs:") is not part of the path;
 * a relative path is joined to the working directory. */
#define PREFIX_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

static const char *abs_name(char *buf, size_t cap, const char *name, size_t len)
{
    if (!name)
        return "";
    if (len == HPCW_CSTRING) {
        len = strlen(name);
    } else {
        for (; len && *name == ' '; name++, len--) {
        }
        for (; len && name[len - 1] == ' '; len--) {
        }
    }
    size_t k = 0;
    while (k < len && name[k] && strchr(PREFIX_CHARS, name[k]))
        k++;
    if (k >= 2 && k < len && name[k] == ':')
        name += k + 1, len -= k + 1;
    size_t n = 0;
    if ((!len || name[0] != '/') && getcwd(buf, cap)) {
        n = strlen(buf);
        if (n && buf[n - 1] != '/' && n + 1 < cap)
            buf[n++] = '/';
    }
    snprintf(buf + n, cap - n, "%.*s", (int)len, name);
    return buf;
}

void hpcw_rec_io_open(hpcw_call *c, const hpcw_io *io, const char *name, size_t len, int amode)
{
    char buf[PATH_MAX];
    const char *path = abs_name(buf, sizeof buf, name, len);
    if (c->failed) {
        if (io->outer && io_traced()) /* a failed open names its file */
            write_op(c, NULL, HPC_IO_FN_MPI_File_open, 0, 0, path);
        return;
    }
    if (!io->handle)
        return;
    hpc_rec_io_handle h = {.time = c->leave,
                           .handle = io->handle,
                           .paradigm = HPC_IO_MPIIO,
                           .fd = -1,
                           .oflags = amode_flags(amode),
                           .flags = amode & MPI_MODE_APPEND ? HPC_IO_HANDLE_APPEND : 0,
                           .path = str_of(path)};
    if (hpc_write_io_handle(&c->t->stream, &h) < 0)
        hpcw_dropped(c);
    write_op(c, io, HPC_IO_FN_MPI_File_open, 0, 0, NULL);
}

void hpcw_rec_io_xfer(hpcw_call *c, const hpcw_io *io, unsigned fn, MPI_Count count,
                      MPI_Datatype type, const MPI_Status *st)
{
    if (!io->handle)
        return;
    uint64_t asked = hpcw_bytes(count, type);
    write_op(c, io, fn, asked, st ? hpcw_status_bytes(st) : asked, NULL);
}

void hpcw_rec_io_other(hpcw_call *c, const hpcw_io *io, unsigned fn)
{
    if (io->handle)
        write_op(c, io, fn, 0, 0, NULL);
}

void hpcw_rec_io_delete(hpcw_call *c, const hpcw_io *io, const char *name, size_t len)
{
    char buf[PATH_MAX];
    if (io->outer && io_traced())
        write_op(c, NULL, HPC_IO_FN_MPI_File_delete, 0, 0, abs_name(buf, sizeof buf, name, len));
}
