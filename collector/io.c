/*
 * io.c - the I/O tracer (-i): the POSIX and C stdio calls of io.def, on the interposition
 * layer (interpose.h, "traced calls"), as gprofng's collect -i traces them.
 *
 * Every call is timed around the real one and written at its end as an io_op record
 * (schema.def): its function (experiment/io_fns.def), bytes requested and done, the file
 * offset it started at, its errno if it failed, its handle, and its stack with the I/O
 * function itself as the leaf frame. Handles (io_handle records) say which file: one per
 * open, dup, fopen or fdopen, and one for a descriptor or stream first met in a call
 * (stdin, one inherited across exec, a fork parent's), whose path is /proc/self/fd's.
 *
 * Descriptors are followed in a table indexed by fd (mmap'd when -i is on, pages touched
 * as descriptors are used): the POSIX handle on it, the stdio handle of the stream on it,
 * and the offsets of each as the calls move them (read and write advance, lseek and fseek
 * set, pread and pwrite leave them; -1 where unknown: appending, a stream that cannot
 * seek). A fork child keeps the table: handles numbered before the fork are its
 * parent's, so the child's first call on such a descriptor makes a handle of its own
 * (first_handle). Descriptors at or beyond IO_MAX_FD are traced without a handle. Threads
 * sharing a descriptor update its entry without locks: a handle is taken by
 * compare-and-swap, offsets are as exact as the program's own ordering of its calls.
 *
 * What is not the program's is not traced: calls under the collector's guard (its own
 * work), from the collector's own code (the experiment writer's open, ftruncate, mmap,
 * close: HPC_CALLER_OURS), or inside a sample or a record write. Nor are the calls an
 * MPI-IO call makes (Open MPI's ompio writes with pwrite): mpi_wrap records the MPI-IO
 * call itself as I/O (hpc_thread.io_outer), so its bytes count once. The real call gets the
 * program's arguments; its return value and errno are the program's (the wrapper saves
 * errno; the parts below read it first).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector.h"
#include "interpose.h"

#define IO_MAX_FD 65536

/* What the tracer knows of one descriptor. */
typedef struct io_fd {
    uint64_t handle;  /* POSIX handle, 0 or < first_handle: none (yet) */
    uint64_t stdio;   /* handle of the stdio stream on it, likewise */
    int64_t offset;   /* the descriptor's file offset, -1 unknown */
    int64_t soffset;  /* the stream's position, -1 unknown */
    uint32_t append;  /* O_APPEND: writes go to the end */
    uint32_t sappend; /* the stream was opened "a" */
} io_fd;

static io_fd *fds;
static uint64_t next_handle = 1;
static uint64_t first_handle = 1; /* a fork child's handles start here */

static io_fd *slot(int fd)
{
    return fds && fd >= 0 && fd < IO_MAX_FD ? &fds[fd] : NULL;
}

/* ------------------------------------------------------------ records */

/* One call's record, and the handles it makes known (written before it). op is the
 * record itself: its time, duration and node are set at the write, path from path. */
typedef struct io_rec {
    hpc_rec_io_op op;
    const char *path; /* a call without handle that names a file */
    int nnew;
    hpc_rec_io_handle made[2];
    char buf[PATH_MAX]; /* the path of made[] (one at most has one) */
} io_rec;

static inline void io_rec_init(io_rec *r, unsigned fn, int err)
{
    r->op.fn = fn; /* field by field: a struct literal compiles to a slow rep stos */
    r->op.handle = r->op.requested = r->op.done = 0;
    r->op.offset = -1;
    r->op.error = (unsigned)err;
    r->op.path = (hpc_str){NULL, 0};
    r->path = NULL;
    r->nnew = 0;
}

/* The end of this thread's last call recorded. A call's times come from the TSC (interpose.c,
 * end_ns), within tens of ns of the kernel's clock: a start that would come before the end
 * of the call before it, which really ended first, is moved to that end (a thread's I/O
 * operations do not overlap, in the OTF2 trace neither). */
static __thread uint64_t last_end __attribute__((tls_model("initial-exec")));

/* write_io for a call that made handles known (their records first) or names a path. Out
 * of line: most calls do neither, and their way makes no call but the record's (a tail
 * call). */
static __attribute__((noinline)) int write_handles_op(hpc_stream *s, io_rec *r)
{
    if (r->path)
        r->op.path = hpc_cstr(r->path);
    for (int i = 0; i < r->nnew; i++) {
        hpc_rec_io_handle h = r->made[i];
        h.time = r->op.time + r->op.duration;
        int err = hpc_write_io_handle(s, &h);
        if (err)
            return err;
    }
    return hpc_write_io_op(s, &r->op);
}

static int write_io(hpc_stream *s, uint64_t node, uint64_t start, uint64_t duration, const void *p)
{
    io_rec *r = (io_rec *)p; /* the caller's own (finish): op is completed in place */
    if (__builtin_expect(start < last_end, 0))
        start = last_end;
    last_end = start + duration;
    r->op.time = start;
    r->op.duration = duration;
    r->op.node = node;
    if (__builtin_expect(r->nnew != 0 || r->path, 0))
        return write_handles_op(s, r);
    return hpc_write_io_op(s, &r->op);
}

/* The leaf frame of each function's stacks: our interposer of that name, so reports show
 * the name the program called (pread, not glibc's __libc_pread; fopen64 is fopen). */
#define LEAF_POSIX(name) (void *)&name
#define LEAF_ISOC(name)  (void *)&name
#define LEAF_MPIIO(name) NULL /* mpi_wrap's: not traced here */
static void *const leaf_of[HPC_IO_FN_COUNT_] = {
#define HPC_IO_FN(name, class, act, paradigm) [HPC_IO_FN_##name] = LEAF_##paradigm(name),
#include "io_fns.def"
#undef HPC_IO_FN
};

static inline void finish(hpc_trace *c, io_rec *r)
{
    c->leaf = (uint64_t)(uintptr_t)leaf_of[r->op.fn];
    hpc_trace_end(c, write_io, r);
}

/* A new handle id, announced with r's record. path is copied when it is r->buf's. */
static uint64_t make_handle(io_rec *r, uint64_t parent, unsigned paradigm, int fd, unsigned flags,
                            unsigned oflags, const char *path)
{
    uint64_t h = __atomic_fetch_add(&next_handle, 1, __ATOMIC_RELAXED);
    if (r->nnew < 2)
        r->made[r->nnew++] = (hpc_rec_io_handle){.handle = h,
                                                 .parent = parent,
                                                 .paradigm = paradigm,
                                                 .fd = fd,
                                                 .flags = flags,
                                                 .oflags = oflags,
                                                 .path = hpc_cstr(path ? path : "")};
    return h;
}

/* ------------------------------------------------------------ paths */

/* The path a descriptor stands for (/proc/self/fd), into buf; "" if unknown. */
static const char *fd_path(char *buf, size_t cap, int fd)
{
    char link[64];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, buf, cap - 1);
    buf[n > 0 ? n : 0] = 0;
    return buf;
}

/* path made absolute against dirfd (AT_FDCWD: the working directory), into buf. */
static const char *abs_path(char *buf, size_t cap, int dirfd, const char *path)
{
    if (!path)
        return "";
    if (path[0] == '/')
        return path;
    if (dirfd == AT_FDCWD) {
        if (!getcwd(buf, cap))
            return path;
    } else if (!*fd_path(buf, cap, dirfd)) {
        return path;
    }
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "%s%s", n && buf[n - 1] == '/' ? "" : "/", path);
    return buf;
}

/* ------------------------------------------------------------ handles */

/* fd's entry e has no handle of this process (h): make one, as first met. */
static __attribute__((noinline)) uint64_t fd_first_met(io_rec *r, int fd, io_fd *e, uint64_t h)
{
    int fl = (int)syscall(SYS_fcntl, fd, F_GETFL);
    if (fl < 0) /* not open: a call that fails with EBADF */
        return 0;
    uint64_t mine = make_handle(r, 0, HPC_IO_POSIX, fd, HPC_IO_HANDLE_FOUND, (unsigned)fl,
                                fd_path(r->buf, sizeof r->buf, fd));
    if (!__atomic_compare_exchange_n(&e->handle, &h, mine, false, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED)) {
        r->nnew--; /* another thread made it meanwhile */
        return h;
    }
    e->append = (fl & O_APPEND) != 0;
    e->offset = (int64_t)syscall(SYS_lseek, fd, 0, SEEK_CUR); /* -1: a pipe, a socket */
    return mine;
}

/* The POSIX handle of fd, made (as first met) if the tracer has none for it. Inline: every
 * traced call on a descriptor asks. */
static inline uint64_t fd_handle(io_rec *r, int fd)
{
    io_fd *e = slot(fd);
    if (!e)
        return 0;
    uint64_t h = __atomic_load_n(&e->handle, __ATOMIC_RELAXED);
    return __builtin_expect(h >= first_handle, 1) ? h : fd_first_met(r, fd, e, h);
}

/* A descriptor the program just got (open, dup): a new handle on it. */
static uint64_t fd_opened(io_rec *r, int fd, uint64_t parent, unsigned oflags, const char *path)
{
    uint64_t h = make_handle(r, parent, HPC_IO_POSIX, fd, 0, oflags, path);
    io_fd *e = slot(fd);
    if (e) {
        e->append = (oflags & O_APPEND) != 0;
        e->offset = 0;
        e->stdio = 0;
        __atomic_store_n(&e->handle, h, __ATOMIC_RELAXED);
    }
    return h;
}

static void fd_closed(int fd)
{
    io_fd *e = slot(fd);
    if (e) {
        __atomic_store_n(&e->handle, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&e->stdio, 0, __ATOMIC_RELAXED);
    }
}

/* The stdio handle of stream f, made (as first met) if the tracer has none for it. */
static uint64_t file_handle(io_rec *r, FILE *f, io_fd **ep)
{
    int fd = f ? fileno(f) : -1;
    io_fd *e = *ep = slot(fd);
    if (!e)
        return 0;
    uint64_t h = __atomic_load_n(&e->stdio, __ATOMIC_RELAXED);
    if (h >= first_handle)
        return h;
    uint64_t mine = make_handle(r, 0, HPC_IO_ISOC, fd, HPC_IO_HANDLE_FOUND, 0,
                                fd_path(r->buf, sizeof r->buf, fd));
    if (!__atomic_compare_exchange_n(&e->stdio, &h, mine, false, __ATOMIC_RELAXED,
                                     __ATOMIC_RELAXED)) {
        r->nnew--;
        return h;
    }
    e->sappend = 0;
    e->soffset = (int64_t)syscall(SYS_lseek, fd, 0, SEEK_CUR);
    return mine;
}

/* fopen's mode as open(2) flags. */
static unsigned mode_flags(const char *mode)
{
    unsigned plus = mode && strchr(mode, '+') ? 1 : 0;
    switch (mode ? mode[0] : 'r') {
    case 'w':
        return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_TRUNC;
    case 'a':
        return (plus ? O_RDWR : O_WRONLY) | O_CREAT | O_APPEND;
    default:
        return plus ? O_RDWR : O_RDONLY;
    }
}

/* A stream the program just got: a new handle on its descriptor. */
static uint64_t file_opened(io_rec *r, FILE *f, uint64_t parent, const char *mode, const char *path)
{
    int fd = fileno(f);
    unsigned oflags = mode_flags(mode);
    uint64_t h = make_handle(r, parent, HPC_IO_ISOC, fd, 0, oflags, path);
    io_fd *e = slot(fd);
    if (e) {
        e->sappend = (oflags & O_APPEND) != 0;
        e->soffset = 0;
        /* a new descriptor (fopen, freopen): no POSIX handle on it yet, as fd_opened
         * sets one for open's (a number closed behind the tracer's back, close_range or a
         * raw system call, may have left one: the stream's descriptor calls, as
         * libstdc++'s filebuf writes with writev, would count on that file). Its first
         * POSIX call makes one, named by /proc. */
        if (!parent)
            __atomic_store_n(&e->handle, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&e->stdio, h, __ATOMIC_RELAXED);
    }
    return h;
}

/* ------------------------------------------------------------ POSIX calls */

#define CURRENT INT64_MIN /* at the descriptor's offset, which the call moves */

/* A read or write of n bytes on fd that returned got, at offset at (or CURRENT). Inline
 * into each call's part: at and write are constants there. */
static inline __attribute__((always_inline)) void
fd_transfer(hpc_trace *c, unsigned fn, ssize_t got, int fd, size_t n, int64_t at, bool write)
{
    io_rec r;
    io_rec_init(&r, fn, got < 0 ? errno : 0);
    r.op.requested = n;
    r.op.done = got > 0 ? (uint64_t)got : 0;
    r.op.handle = fd_handle(&r, fd);
    io_fd *e = slot(fd);
    r.op.offset = at;
    if (at == CURRENT) {
        bool follows = e && !(write && e->append); /* the call moved the known offset */
        int64_t moved = follows && got > 0 && e->offset >= 0 ? (int64_t)got : 0;
        if (__builtin_expect(r.nnew != 0, 0) && follows)
            e->offset -= moved; /* first met now, its offset read after the call moved it */
        r.op.offset = follows ? e->offset : -1;
        if (follows)
            e->offset += moved;
    }
    finish(c, &r);
}

static size_t iov_bytes(const struct iovec *v, int n)
{
    size_t b = 0;
    for (int i = 0; v && i < n; i++)
        b += v[i].iov_len;
    return b;
}

void hpc_trace_read(hpc_trace *c, ssize_t r, int fd, void *b, size_t n)
{
    (void)b;
    fd_transfer(c, HPC_IO_FN_read, r, fd, n, CURRENT, false);
}
void hpc_trace___read_chk(hpc_trace *c, ssize_t r, int fd, void *b, size_t n, size_t len)
{
    (void)b, (void)len;
    fd_transfer(c, HPC_IO_FN_read, r, fd, n, CURRENT, false);
}
void hpc_trace_write(hpc_trace *c, ssize_t r, int fd, const void *b, size_t n)
{
    (void)b;
    fd_transfer(c, HPC_IO_FN_write, r, fd, n, CURRENT, true);
}
void hpc_trace_pread(hpc_trace *c, ssize_t r, int fd, void *b, size_t n, off_t o)
{
    (void)b;
    fd_transfer(c, HPC_IO_FN_pread, r, fd, n, o, false);
}
void hpc_trace_pread64(hpc_trace *c, ssize_t r, int fd, void *b, size_t n, off64_t o)
{
    (void)b;
    fd_transfer(c, HPC_IO_FN_pread, r, fd, n, o, false);
}
void hpc_trace___pread_chk(hpc_trace *c, ssize_t r, int fd, void *b, size_t n, off_t o, size_t l)
{
    (void)b, (void)l;
    fd_transfer(c, HPC_IO_FN_pread, r, fd, n, o, false);
}
void hpc_trace___pread64_chk(hpc_trace *c, ssize_t r, int fd, void *b, size_t n, off64_t o,
                             size_t l)
{
    (void)b, (void)l;
    fd_transfer(c, HPC_IO_FN_pread, r, fd, n, o, false);
}
void hpc_trace_pwrite(hpc_trace *c, ssize_t r, int fd, const void *b, size_t n, off_t o)
{
    (void)b;
    fd_transfer(c, HPC_IO_FN_pwrite, r, fd, n, o, true);
}
void hpc_trace_pwrite64(hpc_trace *c, ssize_t r, int fd, const void *b, size_t n, off64_t o)
{
    (void)b;
    fd_transfer(c, HPC_IO_FN_pwrite, r, fd, n, o, true);
}
void hpc_trace_readv(hpc_trace *c, ssize_t r, int fd, const struct iovec *v, int n)
{
    fd_transfer(c, HPC_IO_FN_readv, r, fd, iov_bytes(v, n), CURRENT, false);
}
void hpc_trace_writev(hpc_trace *c, ssize_t r, int fd, const struct iovec *v, int n)
{
    fd_transfer(c, HPC_IO_FN_writev, r, fd, iov_bytes(v, n), CURRENT, true);
}
void hpc_trace_preadv(hpc_trace *c, ssize_t r, int fd, const struct iovec *v, int n, off_t o)
{
    fd_transfer(c, HPC_IO_FN_preadv, r, fd, iov_bytes(v, n), o, false);
}
void hpc_trace_preadv64(hpc_trace *c, ssize_t r, int fd, const struct iovec *v, int n, off64_t o)
{
    fd_transfer(c, HPC_IO_FN_preadv, r, fd, iov_bytes(v, n), o, false);
}
void hpc_trace_pwritev(hpc_trace *c, ssize_t r, int fd, const struct iovec *v, int n, off_t o)
{
    fd_transfer(c, HPC_IO_FN_pwritev, r, fd, iov_bytes(v, n), o, true);
}
void hpc_trace_pwritev64(hpc_trace *c, ssize_t r, int fd, const struct iovec *v, int n, off64_t o)
{
    fd_transfer(c, HPC_IO_FN_pwritev, r, fd, iov_bytes(v, n), o, true);
}

/* A call on fd that moves nothing (fsync, fstat, ftruncate ...). */
static void fd_other(hpc_trace *c, unsigned fn, int failed, int fd)
{
    io_rec r;
    io_rec_init(&r, fn, failed ? errno : 0);
    r.op.handle = fd_handle(&r, fd);
    finish(c, &r);
}

void hpc_trace_lseek(hpc_trace *c, off_t r, int fd, off_t o, int whence)
{
    (void)o, (void)whence;
    int err = r < 0 ? errno : 0;
    io_fd *e = slot(fd);
    if (e && r >= 0)
        e->offset = r;
    fd_other(c, HPC_IO_FN_lseek, err, fd);
}
void hpc_trace_lseek64(hpc_trace *c, off64_t r, int fd, off64_t o, int whence)
{
    hpc_trace_lseek(c, r, fd, o, whence);
}
void hpc_trace_fsync(hpc_trace *c, int r, int fd)
{
    fd_other(c, HPC_IO_FN_fsync, r < 0, fd);
}
void hpc_trace_fdatasync(hpc_trace *c, int r, int fd)
{
    fd_other(c, HPC_IO_FN_fdatasync, r < 0, fd);
}
void hpc_trace_ftruncate(hpc_trace *c, int r, int fd, off_t len)
{
    (void)len;
    fd_other(c, HPC_IO_FN_ftruncate, r < 0, fd);
}
void hpc_trace_ftruncate64(hpc_trace *c, int r, int fd, off64_t len)
{
    (void)len;
    fd_other(c, HPC_IO_FN_ftruncate, r < 0, fd);
}
void hpc_trace_fstat(hpc_trace *c, int r, int fd, struct stat *st)
{
    (void)st;
    fd_other(c, HPC_IO_FN_fstat, r < 0, fd);
}
void hpc_trace_fstat64(hpc_trace *c, int r, int fd, struct stat64 *st)
{
    (void)st;
    fd_other(c, HPC_IO_FN_fstat, r < 0, fd);
}

/* A call that names a file by path and keeps no handle (stat, unlink). */
static void path_other(hpc_trace *c, unsigned fn, int failed, int dirfd, const char *path)
{
    io_rec r;
    io_rec_init(&r, fn, failed ? errno : 0);
    r.path = abs_path(r.buf, sizeof r.buf, dirfd, path);
    finish(c, &r);
}

void hpc_trace_unlink(hpc_trace *c, int r, const char *path)
{
    path_other(c, HPC_IO_FN_unlink, r < 0, AT_FDCWD, path);
}
void hpc_trace_stat(hpc_trace *c, int r, const char *path, struct stat *st)
{
    (void)st;
    path_other(c, HPC_IO_FN_stat, r < 0, AT_FDCWD, path);
}
void hpc_trace_stat64(hpc_trace *c, int r, const char *path, struct stat64 *st)
{
    (void)st;
    path_other(c, HPC_IO_FN_stat, r < 0, AT_FDCWD, path);
}
void hpc_trace_lstat(hpc_trace *c, int r, const char *path, struct stat *st)
{
    (void)st;
    path_other(c, HPC_IO_FN_lstat, r < 0, AT_FDCWD, path);
}
void hpc_trace_lstat64(hpc_trace *c, int r, const char *path, struct stat64 *st)
{
    (void)st;
    path_other(c, HPC_IO_FN_lstat, r < 0, AT_FDCWD, path);
}

/* fstatat and statx with an empty path and AT_EMPTY_PATH are on the descriptor. */
static void at_other(hpc_trace *c, unsigned fn, int failed, int dirfd, const char *path, int flags)
{
    if (path && !*path && (flags & AT_EMPTY_PATH))
        fd_other(c, fn, failed, dirfd);
    else
        path_other(c, fn, failed, dirfd, path);
}
void hpc_trace_fstatat(hpc_trace *c, int r, int dirfd, const char *path, struct stat *st, int fl)
{
    (void)st;
    at_other(c, HPC_IO_FN_fstatat, r < 0, dirfd, path, fl);
}
void hpc_trace_fstatat64(hpc_trace *c, int r, int dirfd, const char *path, struct stat64 *st,
                         int fl)
{
    (void)st;
    at_other(c, HPC_IO_FN_fstatat, r < 0, dirfd, path, fl);
}
void hpc_trace_statx(hpc_trace *c, int r, int dirfd, const char *path, int fl, unsigned mask,
                     struct statx *st)
{
    (void)mask, (void)st;
    at_other(c, HPC_IO_FN_statx, r < 0, dirfd, path, fl);
}

/* mmap of a file: Other I/O on its handle, the length as bytes requested; anonymous
 * memory is not I/O and is not recorded. */
static void map(hpc_trace *c, void *r, size_t len, int flags, int fd, int64_t off)
{
    if ((flags & MAP_ANONYMOUS) || fd < 0)
        return;
    io_rec rec;
    io_rec_init(&rec, HPC_IO_FN_mmap, r == MAP_FAILED ? errno : 0);
    rec.op.handle = fd_handle(&rec, fd);
    rec.op.requested = len;
    rec.op.offset = off;
    finish(c, &rec);
}
void *hpc_io_mmap(void *a, size_t len, int prot, int flags, int fd, off_t off, uintptr_t site,
                  uintptr_t cfa)
{
    hpc_trace c;
    if (!hpc_trace_begin(&c, HPC_TRACER_IO) || hpc_pc_ours(site))
        return HPC_REAL(mmap)(a, len, prot, flags, fd, off);
    void *r = HPC_REAL(mmap)(a, len, prot, flags, fd, off);
    int e = errno;
    c.end = hpc_trace_now();
    c.site = site, c.cfa = cfa;
    map(&c, r, len, flags, fd, off);
    errno = e;
    return r;
}
void hpc_trace_mmap64(hpc_trace *c, void *r, void *a, size_t len, int prot, int flags, int fd,
                      off64_t off)
{
    (void)a, (void)prot;
    map(c, r, len, flags, fd, off);
}

/* dup, dup2, dup3: a new handle made from fd's. */
static void dup_call(hpc_trace *c, unsigned fn, int r, int fd)
{
    io_rec rec;
    io_rec_init(&rec, fn, r < 0 ? errno : 0);
    rec.op.handle = fd_handle(&rec, fd);
    if (r >= 0 && r != fd) {
        io_fd *e = slot(fd);
        uint64_t h = fd_opened(&rec, r, rec.op.handle, 0, "");
        io_fd *d = slot(r);
        if (e && d) {
            d->append = e->append;
            d->offset = e->offset;
        }
        rec.op.handle = h;
    }
    finish(c, &rec);
}
void hpc_trace_dup(hpc_trace *c, int r, int fd)
{
    dup_call(c, HPC_IO_FN_dup, r, fd);
}
void hpc_trace_dup2(hpc_trace *c, int r, int fd, int fd2)
{
    (void)fd2;
    dup_call(c, HPC_IO_FN_dup2, r, fd);
}
void hpc_trace_dup3(hpc_trace *c, int r, int fd, int fd2, int flags)
{
    (void)fd2, (void)flags;
    dup_call(c, HPC_IO_FN_dup3, r, fd);
}

/* An open that returned r: a handle on the new descriptor, or the path of the failure. */
static void opened(hpc_trace *c, unsigned fn, int r, int dirfd, const char *path, int flags)
{
    io_rec rec;
    io_rec_init(&rec, fn, r < 0 ? errno : 0);
    const char *abs = abs_path(rec.buf, sizeof rec.buf, dirfd, path);
    if (r >= 0)
        rec.op.handle = fd_opened(&rec, r, 0, (unsigned)flags, abs);
    else
        rec.path = abs;
    finish(c, &rec);
}
void hpc_trace_creat(hpc_trace *c, int r, const char *path, mode_t mode)
{
    (void)mode;
    opened(c, HPC_IO_FN_creat, r, AT_FDCWD, path, O_CREAT | O_WRONLY | O_TRUNC);
}
void hpc_trace_creat64(hpc_trace *c, int r, const char *path, mode_t mode)
{
    hpc_trace_creat(c, r, path, mode);
}

/* open and openat take a mode only when they create a file (variable arguments), so
 * they are written out here; their part is opened(). */
static mode_t open_mode(int flags, va_list ap)
{
    bool has = (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE;
    return has ? (mode_t)va_arg(ap, unsigned int) : 0;
}

#define OPEN_INTERPOSER(name, fn, dir_param, dir_arg, dir)                                         \
    HPC_INTERPOSE int name(dir_param const char *path, int flags, ...)                             \
    {                                                                                              \
        hpc_real_init();                                                                           \
        va_list ap;                                                                                \
        va_start(ap, flags);                                                                       \
        mode_t mode = open_mode(flags, ap);                                                        \
        va_end(ap);                                                                                \
        HPC_STATES_CALL_BEGIN(HPC_TRACER_IO, name);                                                \
        hpc_trace c;                                                                               \
        if (!hpc_trace_begin(&c, HPC_TRACER_IO) || HPC_CALLER_OURS()) {                            \
            int r0 = HPC_REAL(name)(dir_arg path, flags, mode);                                    \
            HPC_STATES_CALL_END();                                                                 \
            return r0;                                                                             \
        }                                                                                          \
        int r = HPC_REAL(name)(dir_arg path, flags, mode);                                         \
        int e = errno;                                                                             \
        c.end = hpc_trace_now();                                                                   \
        HPC_STATES_CALL_END();                                                                     \
        HPC_TRACE_SITE(c);                                                                         \
        opened(&c, fn, r, dir, path, flags);                                                       \
        errno = e;                                                                                 \
        return r;                                                                                  \
    }
#define COMMA ,
OPEN_INTERPOSER(open, HPC_IO_FN_open, , , AT_FDCWD)
OPEN_INTERPOSER(open64, HPC_IO_FN_open, , , AT_FDCWD)
OPEN_INTERPOSER(openat, HPC_IO_FN_openat, int dirfd COMMA, dirfd COMMA, dirfd)
OPEN_INTERPOSER(openat64, HPC_IO_FN_openat, int dirfd COMMA, dirfd COMMA, dirfd)

/* The frame of a hand-written traced call: the real call, and part(&c) when tracing. */
#define HAND_TRACED(ret, name, real_call, part)                                                    \
    hpc_real_init();                                                                               \
    HPC_STATES_CALL_BEGIN(HPC_TRACER_IO, name);                                                    \
    hpc_trace c;                                                                                   \
    if (!hpc_trace_begin(&c, HPC_TRACER_IO) || HPC_CALLER_OURS()) {                                \
        ret r0 = real_call;                                                                        \
        HPC_STATES_CALL_END();                                                                     \
        return r0;                                                                                 \
    }                                                                                              \
    ret r = real_call;                                                                             \
    int e = errno;                                                                                 \
    c.end = hpc_trace_now();                                                                       \
    HPC_STATES_CALL_END();                                                                         \
    HPC_TRACE_SITE(c);                                                                             \
    part;                                                                                          \
    errno = e;                                                                                     \
    return r

/* tests: the window after a real close in which another thread may reuse the number
 * (HPCOLLECT_DEBUG_CLOSE_WAIT) made wide enough to hit on purpose */
static void debug_close_wait(void)
{
    hpc_debug_sleep_ms(hpc_P.cfg.debug_close_wait);
}

/* close: the handle is found before the descriptor goes. */
HPC_INTERPOSE int close(int fd)
{
    hpc_real_init();
    HPC_STATES_CALL_BEGIN(HPC_TRACER_IO, close);
    hpc_trace c;
    if (!hpc_trace_begin(&c, HPC_TRACER_IO) || HPC_CALLER_OURS()) {
        int r0 = HPC_REAL(close)(fd);
        HPC_STATES_CALL_END();
        return r0;
    }
    io_rec rec;
    io_rec_init(&rec, HPC_IO_FN_close, 0);
    rec.op.handle = fd_handle(&rec, fd);
    /* forgotten before the real close: once it returns, another thread's open may get the
     * number, and must not find this file's handle there (closed even when interrupted,
     * on Linux; a descriptor that was not open has no handle to keep) */
    fd_closed(fd);
    c.start = hpc_trace_now();
    int r = HPC_REAL(close)(fd);
    int e = errno;
    debug_close_wait();
    c.end = hpc_trace_now();
    HPC_STATES_CALL_END();
    HPC_TRACE_SITE(c);
    rec.op.error = r < 0 ? (unsigned)e : 0;
    finish(&c, &rec);
    errno = e;
    return r;
}

/* ------------------------------------------------------------ stdio */

/* A transfer on stream f: n bytes asked, got done, failed with errno err. */
static void file_transfer(hpc_trace *c, unsigned fn, FILE *f, size_t n, size_t done, int err,
                          bool write)
{
    io_rec r;
    io_rec_init(&r, fn, err);
    io_fd *e;
    r.op.handle = file_handle(&r, f, &e);
    r.op.requested = n;
    r.op.done = done;
    if (e) {
        r.op.offset = write && e->sappend ? -1 : e->soffset;
        if (r.op.offset >= 0)
            e->soffset += (int64_t)done;
    }
    finish(c, &r);
}

/* errno if the stream's error flag is set (a short count or EOF that is an error). */
static int stream_error(FILE *f, int e)
{
    return f && ferror(f) ? (e ? e : EIO) : 0;
}

void hpc_trace_fread(hpc_trace *c, size_t r, void *p, size_t size, size_t n, FILE *f)
{
    int e = errno;
    (void)p;
    file_transfer(c, HPC_IO_FN_fread, f, size * n, r * size, r < n ? stream_error(f, e) : 0, false);
}
void hpc_trace___fread_chk(hpc_trace *c, size_t r, void *p, size_t plen, size_t size, size_t n,
                           FILE *f)
{
    (void)plen;
    hpc_trace_fread(c, r, p, size, n, f);
}
void hpc_trace_fwrite(hpc_trace *c, size_t r, const void *p, size_t size, size_t n, FILE *f)
{
    int e = errno;
    (void)p;
    file_transfer(c, HPC_IO_FN_fwrite, f, size * n, r * size, r < n ? stream_error(f, e) : 0, true);
}
void hpc_trace_fgets(hpc_trace *c, char *r, char *s, int n, FILE *f)
{
    int e = errno;
    (void)s;
    size_t want = n > 1 ? (size_t)n - 1 : 0;
    file_transfer(c, HPC_IO_FN_fgets, f, want, r ? strlen(r) : 0, r ? 0 : stream_error(f, e),
                  false);
}
void hpc_trace___fgets_chk(hpc_trace *c, char *r, char *s, size_t slen, int n, FILE *f)
{
    (void)slen;
    hpc_trace_fgets(c, r, s, n, f);
}
void hpc_trace_fputs(hpc_trace *c, int r, const char *s, FILE *f)
{
    int e = errno;
    size_t n = s ? strlen(s) : 0;
    file_transfer(c, HPC_IO_FN_fputs, f, n, r >= 0 ? n : 0, r < 0 ? e : 0, true);
}
void hpc_trace_puts(hpc_trace *c, int r, const char *s)
{
    int e = errno;
    size_t n = s ? strlen(s) + 1 : 1;
    file_transfer(c, HPC_IO_FN_puts, stdout, n, r >= 0 ? n : 0, r < 0 ? e : 0, true);
}
static void getc_call(hpc_trace *c, unsigned fn, int r, FILE *f)
{
    int e = errno;
    file_transfer(c, fn, f, 1, r != EOF, r == EOF ? stream_error(f, e) : 0, false);
}
void hpc_trace_fgetc(hpc_trace *c, int r, FILE *f)
{
    getc_call(c, HPC_IO_FN_fgetc, r, f);
}
void hpc_trace_getc(hpc_trace *c, int r, FILE *f)
{
    getc_call(c, HPC_IO_FN_getc, r, f);
}
static void putc_call(hpc_trace *c, unsigned fn, int r, FILE *f)
{
    int e = errno;
    file_transfer(c, fn, f, 1, r != EOF, r == EOF ? e : 0, true);
}
void hpc_trace_fputc(hpc_trace *c, int r, int ch, FILE *f)
{
    (void)ch;
    putc_call(c, HPC_IO_FN_fputc, r, f);
}
void hpc_trace_putc(hpc_trace *c, int r, int ch, FILE *f)
{
    (void)ch;
    putc_call(c, HPC_IO_FN_putc, r, f);
}
void hpc_trace_getline(hpc_trace *c, ssize_t r, char **line, size_t *n, FILE *f)
{
    int e = errno;
    (void)line, (void)n;
    file_transfer(c, HPC_IO_FN_getline, f, 0, r > 0 ? (size_t)r : 0, r < 0 ? stream_error(f, e) : 0,
                  false);
}
void hpc_trace_getdelim(hpc_trace *c, ssize_t r, char **line, size_t *n, int delim, FILE *f)
{
    int e = errno;
    (void)line, (void)n, (void)delim;
    file_transfer(c, HPC_IO_FN_getdelim, f, 0, r > 0 ? (size_t)r : 0,
                  r < 0 ? stream_error(f, e) : 0, false);
}

/* A call on stream f that moves no bytes; the position is read again after a seek. */
static void file_other(hpc_trace *c, unsigned fn, FILE *f, int err, bool seek)
{
    io_rec r;
    io_rec_init(&r, fn, err);
    io_fd *e;
    r.op.handle = file_handle(&r, f, &e);
    if (e && seek)
        e->soffset = err ? -1 : (int64_t)ftello(f);
    finish(c, &r);
}
void hpc_trace_ungetc(hpc_trace *c, int r, int ch, FILE *f)
{
    (void)ch;
    io_fd *e = slot(f ? fileno(f) : -1);
    if (e && r != EOF && e->soffset > 0)
        e->soffset--;
    file_other(c, HPC_IO_FN_ungetc, f, r == EOF ? EINVAL : 0, false);
}
void hpc_trace_fflush(hpc_trace *c, int r, FILE *f)
{
    int e = errno;
    file_other(c, HPC_IO_FN_fflush, f, r ? e : 0, false);
}
void hpc_trace_fseek(hpc_trace *c, int r, FILE *f, long off, int whence)
{
    int e = errno;
    (void)off, (void)whence;
    file_other(c, HPC_IO_FN_fseek, f, r ? e : 0, true);
}
void hpc_trace_fseeko(hpc_trace *c, int r, FILE *f, off_t off, int whence)
{
    int e = errno;
    (void)off, (void)whence;
    file_other(c, HPC_IO_FN_fseeko, f, r ? e : 0, true);
}
void hpc_trace_fseeko64(hpc_trace *c, int r, FILE *f, off64_t off, int whence)
{
    hpc_trace_fseeko(c, r, f, off, whence);
}
void hpc_trace_rewind(hpc_trace *c, FILE *f)
{
    file_other(c, HPC_IO_FN_rewind, f, 0, true);
}

/* fopen, fdopen, freopen: a handle on the new stream, or the path of the failure. */
static void file_open_part(hpc_trace *c, unsigned fn, FILE *r, const char *path, const char *mode,
                           int from_fd)
{
    io_rec rec;
    io_rec_init(&rec, fn, r ? 0 : errno);
    uint64_t parent = from_fd >= 0 ? fd_handle(&rec, from_fd) : 0;
    const char *abs = path ? abs_path(rec.buf, sizeof rec.buf, AT_FDCWD, path) : "";
    if (r)
        rec.op.handle = file_opened(&rec, r, parent, mode, parent ? "" : abs);
    else
        rec.path = abs;
    finish(c, &rec);
}
void hpc_trace_fopen(hpc_trace *c, FILE *r, const char *path, const char *mode)
{
    file_open_part(c, HPC_IO_FN_fopen, r, path, mode, -1);
}
void hpc_trace_fopen64(hpc_trace *c, FILE *r, const char *path, const char *mode)
{
    file_open_part(c, HPC_IO_FN_fopen, r, path, mode, -1);
}
void hpc_trace_fdopen(hpc_trace *c, FILE *r, int fd, const char *mode)
{
    file_open_part(c, HPC_IO_FN_fdopen, r, NULL, mode, fd);
}

/* freopen closes f's descriptor first: forgotten before the call. */
static FILE *freopen_call(FILE *(*real)(const char *, const char *, FILE *), const char *path,
                          const char *mode, FILE *f, hpc_trace *c)
{
    fd_closed(f ? fileno(f) : -1);
    c->start = hpc_trace_now();
    return real(path, mode, f);
}
HPC_INTERPOSE FILE *freopen(const char *restrict path, const char *restrict mode, FILE *restrict f)
{
    HAND_TRACED(FILE *, freopen, freopen_call(HPC_REAL(freopen), path, mode, f, &c),
                file_open_part(&c, HPC_IO_FN_freopen, r, path, mode, -1));
}
HPC_INTERPOSE FILE *freopen64(const char *restrict path, const char *restrict mode,
                              FILE *restrict f)
{
    HAND_TRACED(FILE *, freopen64, freopen_call(HPC_REAL(freopen64), path, mode, f, &c),
                file_open_part(&c, HPC_IO_FN_freopen, r, path, mode, -1));
}

/* fclose: the stream's handle and descriptor are found before it goes. */
HPC_INTERPOSE int fclose(FILE *f)
{
    hpc_real_init();
    HPC_STATES_CALL_BEGIN(HPC_TRACER_IO, fclose);
    hpc_trace c;
    if (!hpc_trace_begin(&c, HPC_TRACER_IO) || HPC_CALLER_OURS()) {
        int r0 = HPC_REAL(fclose)(f);
        HPC_STATES_CALL_END();
        return r0;
    }
    io_rec rec;
    io_rec_init(&rec, HPC_IO_FN_fclose, 0);
    io_fd *e;
    int fd = f ? fileno(f) : -1;
    rec.op.handle = file_handle(&rec, f, &e);
    fd_closed(fd); /* before the real close, as close() does */
    c.start = hpc_trace_now();
    int r = HPC_REAL(fclose)(f);
    int err = errno;
    debug_close_wait();
    c.end = hpc_trace_now();
    HPC_STATES_CALL_END();
    HPC_TRACE_SITE(c);
    rec.op.error = r ? (unsigned)err : 0;
    finish(&c, &rec);
    errno = err;
    return r;
}

/* Formatted output: the bytes are vfprintf's count. */
static void printed(hpc_trace *c, unsigned fn, int r, FILE *f)
{
    int e = errno;
    file_transfer(c, fn, f, r > 0 ? (size_t)r : 0, r > 0 ? (size_t)r : 0, r < 0 ? e : 0, true);
}
HPC_INTERPOSE int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
    HAND_TRACED(int, vfprintf, HPC_REAL(vfprintf)(f, fmt, ap),
                printed(&c, HPC_IO_FN_vfprintf, r, f));
}
HPC_INTERPOSE int __vfprintf_chk(FILE *restrict f, int flag, const char *restrict fmt, va_list ap)
{
    HAND_TRACED(int, __vfprintf_chk, HPC_REAL(__vfprintf_chk)(f, flag, fmt, ap),
                printed(&c, HPC_IO_FN_vfprintf, r, f));
}
/* The variadic ones call the real va_list function; the leaf frame is that function. */
#define PRINTF_BODY(fn, f, real_call, leaf_fn)                                                     \
    hpc_real_init();                                                                               \
    va_list ap;                                                                                    \
    va_start(ap, fmt);                                                                             \
    HPC_STATES_CALL_BEGIN(HPC_TRACER_IO, leaf_fn);                                                 \
    hpc_trace c;                                                                                   \
    if (!hpc_trace_begin(&c, HPC_TRACER_IO) || HPC_CALLER_OURS()) {                                \
        int r0 = real_call;                                                                        \
        HPC_STATES_CALL_END();                                                                     \
        va_end(ap);                                                                                \
        return r0;                                                                                 \
    }                                                                                              \
    int r = real_call;                                                                             \
    int e = errno;                                                                                 \
    va_end(ap);                                                                                    \
    c.end = hpc_trace_now();                                                                       \
    HPC_STATES_CALL_END();                                                                         \
    HPC_TRACE_SITE(c);                                                                             \
    printed(&c, fn, r, f);                                                                         \
    errno = e;                                                                                     \
    return r
HPC_INTERPOSE int fprintf(FILE *restrict f, const char *restrict fmt, ...)
{
    PRINTF_BODY(HPC_IO_FN_fprintf, f, HPC_REAL(vfprintf)(f, fmt, ap), vfprintf);
}
HPC_INTERPOSE int __fprintf_chk(FILE *restrict f, int flag, const char *restrict fmt, ...)
{
    PRINTF_BODY(HPC_IO_FN_fprintf, f, HPC_REAL(__vfprintf_chk)(f, flag, fmt, ap), __vfprintf_chk);
}
HPC_INTERPOSE int printf(const char *restrict fmt, ...)
{
    PRINTF_BODY(HPC_IO_FN_printf, stdout, HPC_REAL(vfprintf)(stdout, fmt, ap), vfprintf);
}
HPC_INTERPOSE int __printf_chk(int flag, const char *restrict fmt, ...)
{
    PRINTF_BODY(HPC_IO_FN_printf, stdout, HPC_REAL(__vfprintf_chk)(stdout, flag, fmt, ap),
                __vfprintf_chk);
}
HPC_INTERPOSE int vprintf(const char *restrict fmt, va_list ap)
{
    HAND_TRACED(int, vfprintf, HPC_REAL(vfprintf)(stdout, fmt, ap),
                printed(&c, HPC_IO_FN_printf, r, stdout));
}

/* Formatted input: the bytes are how far the stream's position moved (0 when it cannot
 * tell, a stream it cannot seek). glibc's stdio.h names fscanf and vfscanf
 * __isoc99_fscanf and __isoc99_vfscanf (C99 and later); the old names are not traced. */
static int64_t tell(FILE *f)
{
    int e = errno;
    int64_t p = f ? (int64_t)ftello(f) : -1;
    errno = e;
    return p;
}
static void scanned(hpc_trace *c, int r, FILE *f, int64_t before)
{
    int e = errno;
    int64_t after = tell(f);
    size_t n = before >= 0 && after > before ? (size_t)(after - before) : 0;
    file_transfer(c, HPC_IO_FN_fscanf, f, n, n, r == EOF ? stream_error(f, e) : 0, false);
}
#define SCANF_BODY(real_call, leaf_fn, ...)                                                        \
    hpc_real_init();                                                                               \
    hpc_trace c;                                                                                   \
    __VA_ARGS__;                                                                                   \
    HPC_STATES_CALL_BEGIN(HPC_TRACER_IO, leaf_fn);                                                 \
    if (!hpc_trace_begin(&c, HPC_TRACER_IO) || HPC_CALLER_OURS()) {                                \
        int r0 = real_call;                                                                        \
        HPC_STATES_CALL_END();                                                                     \
        VA_DONE;                                                                                   \
        return r0;                                                                                 \
    }                                                                                              \
    int64_t before = tell(f);                                                                      \
    c.start = hpc_trace_now();                                                                     \
    int r = real_call;                                                                             \
    int e = errno;                                                                                 \
    VA_DONE;                                                                                       \
    c.end = hpc_trace_now();                                                                       \
    HPC_STATES_CALL_END();                                                                         \
    HPC_TRACE_SITE(c);                                                                             \
    scanned(&c, r, f, before);                                                                     \
    errno = e;                                                                                     \
    return r
#define VA_DONE (void)0
HPC_INTERPOSE int __isoc99_vfscanf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
    SCANF_BODY(HPC_REAL(__isoc99_vfscanf)(f, fmt, ap), __isoc99_vfscanf, (void)0);
}
#undef VA_DONE
#define VA_DONE va_end(ap)
HPC_INTERPOSE int __isoc99_fscanf(FILE *restrict f, const char *restrict fmt, ...)
{
    va_list ap;
    SCANF_BODY(HPC_REAL(__isoc99_vfscanf)(f, fmt, ap), __isoc99_vfscanf, va_start(ap, fmt));
}
#undef VA_DONE

/* ------------------------------------------------------------ the wrappers */

/* io.def's TRACED lines made into wrappers (interpose.h), the others into nothing. */
#define HPC_FN HPC_TRACED_GENERATE
#include "io.def"
#undef HPC_FN

/* ------------------------------------------------------------ start */

static void fork_child(void)
{
    /* the parent's handles are the parent's: the child makes its own as it meets them */
    first_handle = __atomic_load_n(&next_handle, __ATOMIC_RELAXED);
}

HPCOLLECT_API uint64_t hpcollect_io_handle(void)
{
    if (!hpc_tracers[HPC_TRACER_IO].on)
        return 0;
    return __atomic_fetch_add(&next_handle, 1, __ATOMIC_RELAXED);
}

void hpc_io_init(void)
{
    if (!hpc_P.cfg.io_trace)
        return;
    void *p = mmap(NULL, sizeof(io_fd) * IO_MAX_FD, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return; /* no table: not traced (the settings record says -i was asked) */
    fds = p;
    hpc_trace_clock_init(); /* the TSC's few ns per call, not the vDSO's clock_gettime */
    pthread_atfork(NULL, NULL, fork_child);
    hpc_tracers[HPC_TRACER_IO].on = true;
}
