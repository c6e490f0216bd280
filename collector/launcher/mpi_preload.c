/*
 * mpi_preload.c - the launcher's preload rule for the MPI wrappers (issue 3): put
 * lib/libhpcollect-mpi.so into LD_PRELOAD, after libhpcollect.so, when the program needs
 * an MPI library, directly or through the DT_NEEDED closure of its shared libraries.
 * Programs that do not use MPI get nothing of it, with or without mpirun around them.
 * The wrappers are preloaded whatever -m says: with -m off they only mark clock samples
 * taken inside MPI calls (HPCOLLECT_MPI_TRACE tells them).
 *
 * The closure is found the way the dynamic linker would, without running it (no ldd):
 * read each object's PT_DYNAMIC (DT_NEEDED, DT_RPATH, DT_RUNPATH) and look each needed
 * name up in LD_LIBRARY_PATH, the object's run paths, /etc/ld.so.conf and the system
 * directories. 64-bit little-endian ELF only (the collector's platform); anything else
 * counts as "no MPI". At most MAX_OBJECTS objects are visited.
 */
#include <elf.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <stdint.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "environ.h"

#define MAX_OBJECTS 256

typedef struct elf_deps {
    char *needed[128];
    unsigned nneeded;
    char rpath[PATH_MAX], runpath[PATH_MAX];
} elf_deps;

/* File offset of virtual address va, from the PT_LOAD segments; 0 if none maps it. */
static uint64_t va_to_off(const Elf64_Phdr *ph, unsigned n, uint64_t va)
{
    for (unsigned i = 0; i < n; i++)
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
            va < ph[i].p_vaddr + ph[i].p_filesz)
            return va - ph[i].p_vaddr + ph[i].p_offset;
    return 0;
}

static void copy_str(char *dst, size_t cap, const char *base, size_t size, uint64_t off)
{
    dst[0] = 0;
    if (off < size)
        snprintf(dst, cap, "%.*s", (int)strnlen(base + off, size - off), base + off);
}

/* Read the dynamic section of the ELF file at path. Returns 0, or -1 if it is not a
 * readable 64-bit ELF object with one. */
static int read_deps(const char *path, elf_deps *d)
{
    memset(d, 0, sizeof *d);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    const char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED)
        return -1;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)m;
    int rc = -1;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size)
        goto out;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(m + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_DYNAMIC || ph[i].p_offset + ph[i].p_filesz > size)
            continue;
        const Elf64_Dyn *dyn = (const Elf64_Dyn *)(m + ph[i].p_offset);
        size_t ndyn = ph[i].p_filesz / sizeof(Elf64_Dyn);
        uint64_t strtab = 0;
        for (size_t k = 0; k < ndyn && dyn[k].d_tag != DT_NULL; k++)
            if (dyn[k].d_tag == DT_STRTAB)
                strtab = va_to_off(ph, eh->e_phnum, dyn[k].d_un.d_ptr);
        if (!strtab)
            goto out;
        for (size_t k = 0; k < ndyn && dyn[k].d_tag != DT_NULL; k++) {
            uint64_t at = strtab + dyn[k].d_un.d_val;
            char name[PATH_MAX];
            if (dyn[k].d_tag == DT_NEEDED && d->nneeded < 128) {
                copy_str(name, sizeof name, m, size, at);
                d->needed[d->nneeded] = strdup(name);
                if (d->needed[d->nneeded])
                    d->nneeded++;
            } else if (dyn[k].d_tag == DT_RPATH) {
                copy_str(d->rpath, sizeof d->rpath, m, size, at);
            } else if (dyn[k].d_tag == DT_RUNPATH) {
                copy_str(d->runpath, sizeof d->runpath, m, size, at);
            }
        }
        rc = 0;
    }
out:
    munmap((void *)m, size);
    return rc;
}

static void free_deps(elf_deps *d)
{
    for (unsigned i = 0; i < d->nneeded; i++)
        free(d->needed[i]);
}

static bool is_mpi_library(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    return strncmp(base, "libmpi", 6) == 0; /* libmpi.so, libmpi_mpifh, libmpich, ... */
}

/* Look name up in the ':'-separated dirs ($ORIGIN = origin); true and out if found. */
static bool search_dirs(const char *dirs, const char *origin, const char *name, char *out,
                        size_t cap)
{
    char list[PATH_MAX * 2];
    snprintf(list, sizeof list, "%s", dirs ? dirs : "");
    for (char *save = NULL, *dir = strtok_r(list, ":", &save); dir;
         dir = strtok_r(NULL, ":", &save)) {
        if (!strncmp(dir, "$ORIGIN", 7))
            snprintf(out, cap, "%s%s/%s", origin, dir + 7, name);
        else if (!strncmp(dir, "${ORIGIN}", 9))
            snprintf(out, cap, "%s%s/%s", origin, dir + 9, name);
        else
            snprintf(out, cap, "%s/%s", dir, name);
        if (access(out, R_OK) == 0)
            return true;
    }
    return false;
}

/* Directories named by /etc/ld.so.conf and the files it includes, ':'-joined. */
static void ld_so_conf(const char *path, char *dirs, size_t cap, int depth)
{
    FILE *f = fopen(path, "re");
    char line[PATH_MAX];
    if (!f || depth > 4) {
        if (f)
            fclose(f);
        return;
    }
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "#\r\n")] = 0;
        char *p = line + strspn(line, " \t");
        if (!*p)
            continue;
        if (!strncmp(p, "include", 7) && (p[7] == ' ' || p[7] == '\t')) {
            glob_t g;
            if (glob(p + 8 + strspn(p + 8, " \t"), 0, NULL, &g) == 0)
                for (size_t i = 0; i < g.gl_pathc; i++)
                    ld_so_conf(g.gl_pathv[i], dirs, cap, depth + 1);
            globfree(&g);
            continue;
        }
        size_t n = strlen(dirs);
        snprintf(dirs + n, cap - n, "%s%s", n ? ":" : "", p);
    }
    fclose(f);
}

static bool resolve(const char *name, const elf_deps *from, const char *from_path,
                    const char *conf_dirs, char *out, size_t cap)
{
    char origin[PATH_MAX];
    if (strchr(name, '/')) {
        snprintf(out, cap, "%s", name);
        return access(out, R_OK) == 0;
    }
    snprintf(origin, sizeof origin, "%s", from_path);
    char *slash = strrchr(origin, '/');
    if (slash)
        *slash = 0;
    return (!from->runpath[0] && search_dirs(from->rpath, origin, name, out, cap)) ||
           search_dirs(getenv("LD_LIBRARY_PATH"), origin, name, out, cap) ||
           search_dirs(from->runpath, origin, name, out, cap) ||
           search_dirs(conf_dirs, origin, name, out, cap) ||
           search_dirs("/lib/x86_64-linux-gnu:/usr/lib/x86_64-linux-gnu:/lib64:/usr/lib64:"
                       "/lib:/usr/lib",
                       origin, name, out, cap);
}

/* True if the program at path needs an MPI library, directly or through its closure. */
static bool needs_mpi(const char *path)
{
    char *queue[MAX_OBJECTS];
    unsigned head = 0, tail = 0;
    bool found = false;
    static char conf_dirs[PATH_MAX * 4];
    ld_so_conf("/etc/ld.so.conf", conf_dirs, sizeof conf_dirs, 0);
    queue[tail++] = strdup(path);
    while (head < tail && !found) {
        elf_deps d;
        const char *obj = queue[head++];
        if (!obj || read_deps(obj, &d) != 0)
            continue;
        for (unsigned i = 0; i < d.nneeded && !found; i++) {
            char where[PATH_MAX];
            if (is_mpi_library(d.needed[i])) {
                found = true;
                break;
            }
            if (!resolve(d.needed[i], &d, obj, conf_dirs, where, sizeof where))
                continue;
            bool seen = false;
            for (unsigned k = 0; k < tail && !seen; k++)
                seen = queue[k] && !strcmp(queue[k], where);
            if (!seen && tail < MAX_OBJECTS)
                queue[tail++] = strdup(where);
        }
        free_deps(&d);
    }
    for (unsigned k = 0; k < tail; k++)
        free(queue[k]);
    return found;
}

int hpc_rule_mpi(const hpc_launch *l, char *buf, size_t cap)
{
    if (!needs_mpi(l->program))
        return 0;
    snprintf(buf, cap, "%s/libhpcollect-mpi.so", l->libdir);
    if (access(buf, R_OK) != 0) {
        fprintf(stderr,
                "hpcollect: %s: missing; the program uses MPI but its calls cannot be "
                "traced (is hpcollect installed completely?)\n",
                buf);
        return -1;
    }
    return 1;
}
