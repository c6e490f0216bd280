/*
 * iodefs.c - a process's I/O handles (-i) as OTF2 defines them: the io_handle records'
 * paths, paradigms and open(2) flags turned into IoHandle definitions (mg_ioh) and the
 * access mode, creation and status flags of IoCreateHandle, as Score-P's POSIX, ISO C
 * and MPI-IO adapters write them.
 */
#include "iodefs.h"

#include <fcntl.h>
#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_Events.h>

/* open(2) flags and the OTF2 flag each means; a creation flag unless status says so */
static const struct {
    unsigned oflag, otf2;
    bool status;
} flag_map[] = {
    {O_CREAT, OTF2_IO_CREATION_FLAG_CREATE, false},
    {O_TRUNC, OTF2_IO_CREATION_FLAG_TRUNCATE, false},
    {O_EXCL, OTF2_IO_CREATION_FLAG_EXCLUSIVE, false},
    {O_NOCTTY, OTF2_IO_CREATION_FLAG_NO_CONTROLLING_TERMINAL, false},
    {O_NOFOLLOW, OTF2_IO_CREATION_FLAG_NO_FOLLOW, false},
    {O_PATH, OTF2_IO_CREATION_FLAG_PATH, false},
    {O_LARGEFILE, OTF2_IO_CREATION_FLAG_LARGEFILE, false},
    {O_CLOEXEC, OTF2_IO_STATUS_FLAG_CLOSE_ON_EXEC, true},
    {O_APPEND, OTF2_IO_STATUS_FLAG_APPEND, true},
    {O_NONBLOCK, OTF2_IO_STATUS_FLAG_NON_BLOCKING, true},
    {O_ASYNC, OTF2_IO_STATUS_FLAG_ASYNC, true},
    {O_DSYNC, OTF2_IO_STATUS_FLAG_DATA_SYNC, true},
    {O_DIRECT, OTF2_IO_STATUS_FLAG_AVOID_CACHING, true},
    {O_NOATIME, OTF2_IO_STATUS_FLAG_NO_ACCESS_TIME, true},
};

/* oflags as OTF2 access mode, creation flags and status flags into h. */
static void set_flags(mg_ioh *h, unsigned oflags)
{
    static const uint8_t modes[] = {[O_RDONLY] = OTF2_IO_ACCESS_MODE_READ_ONLY,
                                    [O_WRONLY] = OTF2_IO_ACCESS_MODE_WRITE_ONLY,
                                    [O_RDWR] = OTF2_IO_ACCESS_MODE_READ_WRITE,
                                    [3] = OTF2_IO_ACCESS_MODE_READ_WRITE};
    h->mode = modes[oflags & O_ACCMODE];
    h->creation = h->status = 0;
    for (size_t i = 0; i < sizeof flag_map / sizeof flag_map[0]; i++)
        if (flag_map[i].oflag && (oflags & flag_map[i].oflag) == flag_map[i].oflag) {
            if (flag_map[i].status)
                h->status |= flag_map[i].otf2;
            else
                h->creation |= flag_map[i].otf2;
        }
    if ((oflags & O_TMPFILE) == O_TMPFILE)
        h->creation = (h->creation | OTF2_IO_CREATION_FLAG_TEMPORARY_FILE) &
                      ~(uint32_t)OTF2_IO_CREATION_FLAG_DIRECTORY;
    else if (oflags & O_DIRECTORY)
        h->creation |= OTF2_IO_CREATION_FLAG_DIRECTORY;
    if ((oflags & O_SYNC) == O_SYNC)
        h->status =
            (h->status | OTF2_IO_STATUS_FLAG_SYNC) & ~(uint32_t)OTF2_IO_STATUS_FLAG_DATA_SYNC;
}

void mg_io_handle(mg_proc *p, const hpc_rec_io_handle *r)
{
    uint32_t id = mg_proc_ioh(p, r->handle);
    if (p->iohs[id].paradigm)
        return; /* pass 2, or a duplicate record: the first stands */
    uint32_t parent = r->parent && r->parent != r->handle ? mg_proc_ioh(p, r->parent) : UINT32_MAX;
    mg_ioh *h = &p->iohs[id]; /* after mg_proc_ioh, which may move the array */
    h->paradigm = r->paradigm >= HPC_IO_POSIX && r->paradigm <= HPC_IO_MPIIO ? (uint8_t)r->paradigm
                                                                             : HPC_IO_POSIX;
    h->found = (r->flags & HPC_IO_HANDLE_FOUND) != 0;
    h->parent = parent;
    set_flags(h, (unsigned)r->oflags);
    if (r->path.n)
        h->file = mg_xintern(&p->iofiles, r->path.p, r->path.n);
    if (parent != UINT32_MAX) {
        const mg_ioh *from = &p->iohs[parent];
        if (!r->path.n)
            h->file = from->file; /* a dup is on its parent's file */
        if (!r->oflags && from->paradigm) {
            h->mode = from->mode; /* dup: the descriptor's own flags */
            h->status = from->status;
        }
    }
}

uint32_t mg_io_op_handle(mg_proc *p, const hpc_rec_io_op *r)
{
    if (!r->handle)
        return UINT32_MAX;
    uint32_t id = mg_proc_ioh(p, r->handle);
    if (!p->iohs[id].guess)
        p->iohs[id].guess = (uint8_t)hpc_io_fn_paradigm((unsigned)r->fn);
    return id;
}

bool mg_io_defined(const mg_ioh *h, uint8_t *paradigm, bool *precreated)
{
    *paradigm = h->paradigm ? h->paradigm : h->guess ? h->guess : HPC_IO_POSIX;
    *precreated = h->found || !h->paradigm; /* never seen made: active from the start */
    return h->paradigm != 0;
}
