/*
 * archive.c - copying an experiment's load objects and sources into its archive
 * (archive.h): for hpcollect at the end of a run (through hpcollect-archive), for
 * hpcollect-archive and `hpanalyze EXP archive` after the fact, and for hpmerge.
 *
 *   ldobjects       every object of a process's load map (module_load records)
 *   usedldobjects   only objects holding a PC of its calling-context trees
 *   src / usedsrc   the same objects, and the source files of their line tables (all
 *                   of them, or only the files of the lines those PCs are on)
 *
 * An object is copied only when its build id is the recorded one (a rebuilt binary is
 * reported, not archived). Each copy is claimed with an flock'ed "<name>.part" in the
 * archive, written there and renamed into place, so concurrent archivers (the ranks of
 * an MPI job) copy each object once and a reader never sees a partial copy; a claim
 * whose archiver died is unlocked and taken over. Everything below the job directory
 * is opened relative to a directory descriptor without following links.
 */
#include "archive.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archive_names.h"
#include "strtab.h"
#include "symbols.h"
#include "u64map.h"

#define MAX_SOURCE_BYTES (64u << 20) /* a "source" larger than this is not one */

typedef struct arch {
    hpc_diag *d;
    unsigned mode;
    hpa_archive_report *r;
    int jobfd;        /* the job experiment directory */
    const char *job;  /* its path, for messages */
    hpa_strtab done;  /* object names and source paths handled in this run */
    hpa_symtab *syms; /* usedsrc: PCs to lines */
} arch;

static void warn(arch *a, const char *file, const char *fmt, const char *x)
{
    hpc_diag_report(a->d, HPC_WARNING, file, HPC_NO_OFFSET, __FILE__, __LINE__, fmt, x);
}

/* First time this run meets key? (Out of memory: say yes; the work is only redone.) */
static bool first_time(arch *a, const char *key)
{
    uint32_t before = a->done.n;
    uint32_t id = hpa_strtab_intern(&a->done, key, strlen(key));
    return id == UINT32_MAX || id >= before;
}

/* ------------------------------------------------------------ directories */

/* Open (making it with create) the directory rel below dfd, component by component,
 * never through a link. Returns a descriptor or -1 (errno). */
static int open_dirs(int dfd, const char *rel, bool create)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", rel) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    for (char *p = buf, *save = NULL; fd >= 0 && (p = strtok_r(p, "/", &save)); p = NULL) {
        if (create && mkdirat(fd, p, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            close(fd);
            errno = e;
            return -1;
        }
        int next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(fd);
        errno = e;
        fd = next;
    }
    return fd;
}

/* ------------------------------------------------------------------ copies */

static int copy_fd(int in, int out, uint64_t *bytes)
{
    for (;;) {
        ssize_t n = copy_file_range(in, NULL, out, NULL, 1 << 30, 0);
        if (n > 0) {
            *bytes += (uint64_t)n;
            continue;
        }
        if (n == 0)
            return 0;
        if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP)
            return -1;
        break; /* not between these files: read and write */
    }
    char buf[1 << 16];
    for (ssize_t n; (n = read(in, buf, sizeof buf)) != 0;) {
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        for (ssize_t w = 0; w < n;) {
            ssize_t k = write(out, buf + w, (size_t)(n - w));
            if (k < 0 && errno != EINTR)
                return -1;
            w += k > 0 ? k : 0;
        }
        *bytes += (uint64_t)n;
    }
    return 0;
}

/* Remove dirfd/part if it is still the file fd is open on (ours, locked). */
static void unlink_own(int dirfd, const char *part, int fd)
{
    struct stat a, b;
    if (fstat(fd, &a) == 0 && fstatat(dirfd, part, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
        a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        unlinkat(dirfd, part, 0);
}

/*
 * Copy the open file src into dirfd/name unless it is there already. Returns 1 copied,
 * 0 present (or being copied by another archiver right now), -1 failed (errno).
 */
static int copy_in(arch *a, int src, mode_t mode, int dirfd, const char *name)
{
    struct stat st;
    char part[NAME_MAX + 8];
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        return 0;
    if ((size_t)snprintf(part, sizeof part, "%s.part", name) >= sizeof part) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int fd = openat(dirfd, part, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int busy = errno == EWOULDBLOCK;
        close(fd);
        return busy ? 0 : -1; /* another archiver holds the claim */
    }
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) { /* done while we opened */
        unlink_own(dirfd, part, fd); /* the claim we made after it was done */
        close(fd);
        return 0;
    }
    uint64_t bytes = 0;
    int rc = ftruncate(fd, 0) == 0 && lseek(src, 0, SEEK_SET) == 0 &&
                     copy_fd(src, fd, &bytes) == 0 && fchmod(fd, mode & 0755) == 0 &&
                     renameat(dirfd, part, dirfd, name) == 0
                 ? 1
                 : -1;
    int e = errno;
    if (rc < 0)
        unlink_own(dirfd, part, fd);
    close(fd);
    errno = e;
    if (rc > 0)
        a->r->bytes += bytes;
    return rc;
}

/* Open a file to archive: a regular file, never blocking (a FIFO in its place). */
static int open_original(const char *path, struct stat *st)
{
    int fd = hpc_open_regular(path, st);
    return fd < 0 ? -1 : fd;
}

/* ------------------------------------------------------------------ sources */

static void archive_source(arch *a, const char *path)
{
    char name[PATH_MAX];
    if (hpa_archive_source_name(name, sizeof name, path) != 0 || !first_time(a, name))
        return;
    struct stat st;
    int src = open_original(path, &st);
    if (src < 0 || st.st_size > (off_t)MAX_SOURCE_BYTES) {
        if (src >= 0)
            close(src);
        a->r->missing++;
        warn(a, path, "source file not archived: %s",
             src < 0 ? strerror(errno) : "larger than 64 MB");
        return;
    }
    char *slash = strrchr(name, '/'), rel[PATH_MAX + 32];
    const char *leaf = slash ? slash + 1 : name;
    if (slash)
        *slash = 0;
    snprintf(rel, sizeof rel, "%s%s%s", HPA_ARCHIVE_SOURCES, slash ? "/" : "", slash ? name : "");
    int dirfd = open_dirs(a->jobfd, rel, true);
    int rc = dirfd < 0 ? -1 : copy_in(a, src, 0644, dirfd, leaf);
    if (rc > 0)
        a->r->sources++;
    else if (rc == 0)
        a->r->present++;
    else {
        a->r->failed++;
        warn(a, path, "source file not archived: %s", strerror(errno));
    }
    if (dirfd >= 0)
        close(dirfd);
    close(src);
}

/* The source files of every line in obj's line tables (-a src). */
static void archive_sources_of(arch *a, int objfd)
{
    Dwarf *dw = dwarf_begin(objfd, DWARF_C_READ);
    if (!dw)
        return; /* no debug information: no sources to name */
    Dwarf_Off off = 0, next;
    size_t hsize;
    char path[PATH_MAX];
    while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
        Dwarf_Die cu;
        Dwarf_Lines *lines;
        size_t n;
        if (dwarf_offdie(dw, off + hsize, &cu) && dwarf_getsrclines(&cu, &lines, &n) == 0) {
            Dwarf_Attribute attr;
            const char *comp = dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &attr));
            const char *last = NULL;
            for (size_t i = 0; i < n; i++) {
                const char *f = dwarf_linesrc(dwarf_onesrcline(lines, i), NULL, NULL);
                if (!f || f == last)
                    continue;
                last = f;
                if (f[0] != '/' && comp && comp[0] == '/')
                    snprintf(path, sizeof path, "%s/%s", comp, f);
                else
                    snprintf(path, sizeof path, "%s", f);
                archive_source(a, path);
            }
        }
        off = next;
    }
    dwarf_end(dw);
}

/* ------------------------------------------------------------------ objects */

/* Does the file's GNU build id equal bid? (No build id recorded: nothing to compare.) */
static bool build_id_matches(int fd, hpc_str bid)
{
    if (bid.n == 0)
        return true;
    elf_version(EV_CURRENT);
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    const void *id = NULL;
    ssize_t n = elf ? dwelf_elf_gnu_build_id(elf, &id) : -1;
    bool same = n == (ssize_t)bid.n && memcmp(id, bid.p, bid.n) == 0;
    elf_end(elf);
    return same;
}

/* recorded: the module's path as the process named it; cwd: the process's working
 * directory, for a path the program gave relative (dlopen("./libx.so")). */
static void archive_object(arch *a, const char *recorded, const char *cwd, hpc_str bid,
                           bool sources)
{
    char name[NAME_MAX + 1], path[2 * PATH_MAX + 2];
    if (hpa_archive_object_name(name, sizeof name, recorded, bid) != 0 || !first_time(a, name))
        return;
    if (recorded[0] == '/' || !cwd[0])
        snprintf(path, sizeof path, "%s", recorded);
    else
        snprintf(path, sizeof path, "%s/%s", cwd, recorded);
    struct stat st;
    int src = open_original(path, &st);
    if (src < 0) {
        a->r->missing++;
        warn(a, path, "load object not archived: %s", strerror(errno));
        return;
    }
    if (!build_id_matches(src, bid)) {
        a->r->changed++;
        warn(a, path, "%s",
             "load object not archived: its build id differs from the recorded one "
             "(rebuilt or replaced since the run)");
        close(src);
        return;
    }
    int dirfd = open_dirs(a->jobfd, HPA_ARCHIVE_OBJECTS, true);
    int rc = dirfd < 0 ? -1 : copy_in(a, src, st.st_mode, dirfd, name);
    if (rc > 0)
        a->r->objects++;
    else if (rc == 0)
        a->r->present++;
    else {
        a->r->failed++;
        warn(a, path, "load object not archived: %s", strerror(errno));
    }
    if (dirfd >= 0)
        close(dirfd);
    if (sources)
        archive_sources_of(a, src);
    close(src);
}

/* ------------------------------------------------------------- what was used */

typedef struct used {
    const hpc_rec_module_load **mods;
    size_t nmods;
    bool *hit; /* per module: a PC in it */
    hpa_u64map pcs;
    hpa_modmap *map; /* usedsrc */
} used;

static void mark_pc(arch *a, used *u, uint64_t pc)
{
    if (pc == HPA_U64MAP_EMPTY || hpa_u64map_get(&u->pcs, pc, NULL))
        return;
    hpa_u64map_put(&u->pcs, pc, 1);
    for (size_t i = u->nmods; i-- > 0;) /* the latest load wins, as in symbols.c */
        if (pc >= u->mods[i]->base && pc - u->mods[i]->base < u->mods[i]->size) {
            u->hit[i] = true;
            break;
        }
    if (u->map) {
        const hpa_line *l = hpa_symtab_line(a->syms, hpa_modmap_resolve(u->map, pc).line);
        if (l->lineno && l->file[0] == '/')
            archive_source(a, l->file);
    }
}

/* Every PC of every calling-context tree of p. */
static void scan_pcs(arch *a, const hpc_proc *p, used *u)
{
    for (size_t t = 0; t < p->nthreads; t++) {
        hpc_reader *r;
        if (hpc_thread_open(&r, p, &p->threads[t], a->d) != 0)
            continue;
        hpc_record rec;
        while (hpc_reader_next(r, &rec) > 0)
            if (rec.kind == HPC_K_cct_node)
                mark_pc(a, u, rec.u.cct_node.pc);
        hpc_reader_close(r);
    }
}

static void archive_proc(arch *a, const hpc_proc *p)
{
    used u = {0};
    size_t i = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_module_load, &i));)
        u.nmods++;
    u.mods = calloc(u.nmods + 1, sizeof *u.mods);
    u.hit = calloc(u.nmods + 1, sizeof *u.hit);
    if (!u.mods || !u.hit) {
        free(u.mods), free(u.hit);
        return;
    }
    i = 0;
    for (size_t k = 0; k < u.nmods; k++)
        u.mods[k] = &hpc_proc_next_of(p, HPC_K_module_load, &i)->u.module_load;
    bool only_used = a->mode & HPC_ARCHIVE_USED, sources = a->mode & HPC_ARCHIVE_SOURCES;
    if (only_used) {
        if (sources && a->syms)
            u.map = hpa_modmap_open(a->syms, p);
        scan_pcs(a, p, &u);
    }
    char path[PATH_MAX], cwd[PATH_MAX];
    hpc_str_copy(cwd, sizeof cwd, p->has_begin ? p->begin.cwd : (hpc_str){0});
    for (size_t k = 0; k < u.nmods; k++) {
        const hpc_rec_module_load *m = u.mods[k];
        if ((m->flags & HPC_MODULE_ANON) || m->archived.n || (only_used && !u.hit[k]) ||
            !m->path.n || m->path.p[0] == '[')
            continue; /* the vDSO is archived in the process's directory already */
        archive_object(a, hpc_str_copy(path, sizeof path, m->path), cwd, m->build_id,
                       sources && !only_used);
    }
    hpa_modmap_close(u.map);
    hpa_u64map_free(&u.pcs);
    free(u.mods);
    free(u.hit);
}

static bool selected(const hpc_proc *p, const char *only)
{
    size_t n = only ? strlen(only) : 0;
    return !only || !strcmp(p->name, only) || (!strncmp(p->name, only, n) && p->name[n] == '.');
}

int hpa_archive_exp(hpc_exp *e, const char *only, unsigned mode, hpc_diag *d, hpa_archive_report *r)
{
    memset(r, 0, sizeof *r);
    if (!(mode & HPC_ARCHIVE_OBJECTS) || e->nprocs == 0)
        return 0;
    char job[PATH_MAX];
    hpa_archive_job_dir(&e->procs[0], job, sizeof job);
    arch a = {.d = d, .mode = mode, .r = r, .job = job};
    a.jobfd = open(job, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int dirfd = a.jobfd < 0 ? -1 : open_dirs(a.jobfd, HPA_ARCHIVE_OBJECTS, true);
    if (dirfd < 0) {
        int e2 = errno;
        hpc_diag_report(d, HPC_ERROR, job, HPC_NO_OFFSET, __FILE__, __LINE__,
                        "cannot make its archive directory: %s", strerror(e2));
        if (a.jobfd >= 0)
            close(a.jobfd);
        errno = e2;
        return HPC_E_IO;
    }
    close(dirfd);
    if ((mode & HPC_ARCHIVE_USED) && (mode & HPC_ARCHIVE_SOURCES))
        a.syms = hpa_symtab_open(d);
    for (size_t i = 0; i < e->nprocs; i++) {
        hpc_proc *p = &e->procs[i];
        bool lean = p->lean; /* hpc_exp_open_lean: loaded for its load map, then let go */
        if (!selected(p, only) || hpc_proc_load(p, &(hpc_diag){.quiet = 1}) != 0)
            continue;
        archive_proc(&a, p);
        if (lean)
            hpc_proc_unload(p);
    }
    hpa_symtab_close(a.syms);
    hpa_strtab_free(&a.done);
    close(a.jobfd);
    return 0;
}

void hpa_archive_summary(const hpa_archive_report *r, char *buf, size_t cap)
{
    size_t n = (size_t)snprintf(
        buf, cap, "archived %u load object%s and %u source file%s (%.1f MB)", r->objects,
        r->objects == 1 ? "" : "s", r->sources, r->sources == 1 ? "" : "s", (double)r->bytes / 1e6);
    if (r->present && n < cap)
        n += (size_t)snprintf(buf + n, cap - n, "; %u there already", r->present);
    if ((r->missing || r->changed || r->failed) && n < cap)
        snprintf(buf + n, cap - n,
                 "; not archived: %u missing, %u changed since the run, %u failed", r->missing,
                 r->changed, r->failed);
}
