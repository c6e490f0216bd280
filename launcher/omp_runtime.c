/*
 * omp_runtime.c - --omp-runtime auto|llvm|native: whether to preload LLVM libomp.
 *
 * Reads the program's dynamic section (and those of the libraries it needs, breadth
 * first, at most MAX_OBJECTS files) for a DT_NEEDED on libgomp.so. Only reads files:
 * the program is never run for this (unlike ldd). Libraries are searched as ld.so does
 * it for the common cases: DT_RPATH (when there is no DT_RUNPATH), LD_LIBRARY_PATH,
 * DT_RUNPATH, then the multiarch and default directories ($ORIGIN is expanded; the
 * ld.so.cache is not read, the default directories stand in for it).
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "omp_runtime.h"
#include "settings.h"

#define MAX_OBJECTS 128

static const char *const default_dirs[] = {
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/lib64",
    "/usr/lib64",
    "/lib",
    "/usr/lib",
    "/usr/local/lib",
};

static const char *const libomp_candidates[] = {
    "/usr/lib/x86_64-linux-gnu/libomp.so.5", "/usr/lib/llvm-16/lib/libomp.so.5",
    "/usr/lib/llvm-15/lib/libomp.so.5",      "/usr/lib/llvm-14/lib/libomp.so.5",
    "/usr/lib/llvm-13/lib/libomp.so.5",      "/usr/local/lib/libomp.so",
};

/* A mapped ELF file and what its dynamic section says. */
typedef struct elf_dyn {
    void *map;
    size_t size;
    const char *strtab; /* inside map */
    size_t strsz;
    const Elf64_Dyn *dyn; /* inside map */
    size_t ndyn;
} elf_dyn;

static void elf_close(elf_dyn *e)
{
    if (e->map != NULL)
        munmap(e->map, e->size);
    e->map = NULL;
}

/* File offset of virtual address va, from the PT_LOAD headers; (size_t)-1 if none. */
static size_t va_to_off(const Elf64_Ehdr *eh, const Elf64_Phdr *ph, uint64_t va)
{
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr && va < ph[i].p_vaddr + ph[i].p_filesz)
            return (size_t)(va - ph[i].p_vaddr + ph[i].p_offset);
    }
    return (size_t)-1;
}

/* Map `path` and find its dynamic section; 0 on success, -1 if not a dynamic ELF64. */
static int elf_open(elf_dyn *e, const char *path)
{
    memset(e, 0, sizeof *e);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
        close(fd);
        return -1;
    }
    e->size = (size_t)st.st_size;
    e->map = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (e->map == MAP_FAILED) {
        e->map = NULL;
        return -1;
    }
    const Elf64_Ehdr *eh = e->map;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_phoff == 0 || eh->e_phoff + (size_t)eh->e_phnum * sizeof(Elf64_Phdr) > e->size)
        goto bad;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)((const char *)e->map + eh->e_phoff);
    for (int i = 0; i < eh->e_phnum; i++) {
        if (ph[i].p_type != PT_DYNAMIC)
            continue;
        if (ph[i].p_offset + ph[i].p_filesz > e->size)
            goto bad;
        e->dyn = (const Elf64_Dyn *)((const char *)e->map + ph[i].p_offset);
        e->ndyn = ph[i].p_filesz / sizeof(Elf64_Dyn);
    }
    if (e->dyn == NULL)
        goto bad; /* static program */
    uint64_t strtab_va = 0;
    for (size_t i = 0; i < e->ndyn && e->dyn[i].d_tag != DT_NULL; i++) {
        if (e->dyn[i].d_tag == DT_STRTAB)
            strtab_va = e->dyn[i].d_un.d_ptr;
        else if (e->dyn[i].d_tag == DT_STRSZ)
            e->strsz = e->dyn[i].d_un.d_val;
    }
    size_t off = va_to_off(eh, ph, strtab_va);
    if (strtab_va == 0 || off == (size_t)-1 || off + e->strsz > e->size)
        goto bad;
    e->strtab = (const char *)e->map + off;
    return 0;
bad:
    elf_close(e);
    return -1;
}

/* String at strtab offset v, or NULL if out of bounds or not terminated. */
static const char *dyn_str(const elf_dyn *e, uint64_t v)
{
    if (v >= e->strsz || memchr(e->strtab + v, 0, e->strsz - v) == NULL)
        return NULL;
    return e->strtab + v;
}

static const char *dyn_tag_str(const elf_dyn *e, int64_t tag)
{
    for (size_t i = 0; i < e->ndyn && e->dyn[i].d_tag != DT_NULL; i++)
        if (e->dyn[i].d_tag == tag)
            return dyn_str(e, e->dyn[i].d_un.d_val);
    return NULL;
}

/* Look for `name` in the ':'-separated `dirs` ($ORIGIN = origin); path into out. */
static bool search_dirs(const char *dirs, const char *origin, const char *name, char *out,
                        size_t cap)
{
    while (dirs != NULL && *dirs) {
        const char *end = strchr(dirs, ':');
        size_t n = end ? (size_t)(end - dirs) : strlen(dirs);
        char dir[PATH_MAX];
        if (n >= 7 && strncmp(dirs, "$ORIGIN", 7) == 0)
            snprintf(dir, sizeof dir, "%s%.*s", origin, (int)(n - 7), dirs + 7);
        else
            snprintf(dir, sizeof dir, "%.*s", (int)n, dirs);
        int len = snprintf(out, cap, "%s/%s", dir, name);
        if (n > 0 && len > 0 && (size_t)len < cap && access(out, R_OK) == 0)
            return true;
        dirs = end ? end + 1 : NULL;
    }
    return false;
}

/* Resolve a DT_NEEDED name for the object at `path` (whose dynamic section is e). */
static bool resolve_needed(const elf_dyn *e, const char *path, const char *name, char *out,
                           size_t cap)
{
    if (strchr(name, '/') != NULL) {
        snprintf(out, cap, "%s", name);
        return access(out, R_OK) == 0;
    }
    char origin[PATH_MAX];
    snprintf(origin, sizeof origin, "%s", path);
    char *slash = strrchr(origin, '/');
    if (slash != NULL)
        *slash = '\0';
    else
        snprintf(origin, sizeof origin, ".");
    const char *runpath = dyn_tag_str(e, DT_RUNPATH);
    if (runpath == NULL && search_dirs(dyn_tag_str(e, DT_RPATH), origin, name, out, cap))
        return true;
    if (search_dirs(getenv("LD_LIBRARY_PATH"), origin, name, out, cap))
        return true;
    if (search_dirs(runpath, origin, name, out, cap))
        return true;
    for (size_t i = 0; i < sizeof default_dirs / sizeof default_dirs[0]; i++)
        if (search_dirs(default_dirs[i], origin, name, out, cap))
            return true;
    return false;
}

bool hpc_elf_needs_any(const char *path, const char *const *prefixes, char *found, size_t cap)
{
    char *queue[MAX_OBJECTS];
    size_t nq = 0, next = 0;
    bool hit = false;
    queue[nq++] = strdup(path);
    while (next < nq && !hit) {
        const char *obj = queue[next++];
        elf_dyn e;
        if (obj == NULL || elf_open(&e, obj) != 0)
            continue;
        for (size_t i = 0; i < e.ndyn && e.dyn[i].d_tag != DT_NULL && !hit; i++) {
            if (e.dyn[i].d_tag != DT_NEEDED)
                continue;
            const char *name = dyn_str(&e, e.dyn[i].d_un.d_val);
            if (name == NULL)
                continue;
            for (const char *const *p = prefixes; *p && !hit; p++)
                hit = strncmp(name, *p, strlen(*p)) == 0;
            if (hit) {
                if (found)
                    snprintf(found, cap, "%s", name);
                break;
            }
            char lib[PATH_MAX];
            if (nq == MAX_OBJECTS || !resolve_needed(&e, obj, name, lib, sizeof lib))
                continue;
            bool seen = false;
            for (size_t k = 0; k < nq && !seen; k++)
                seen = queue[k] != NULL && strcmp(queue[k], lib) == 0;
            if (!seen)
                queue[nq++] = strdup(lib);
        }
        elf_close(&e);
    }
    for (size_t k = 0; k < nq; k++)
        free(queue[k]);
    return hit;
}

bool hpc_elf_needs(const char *path, const char *soname_prefix)
{
    const char *const prefixes[] = {soname_prefix, NULL};
    return hpc_elf_needs_any(path, prefixes, NULL, 0);
}

const char *hpc_find_libomp(void)
{
    const char *v = getenv(HPC_SETTING_NAME(LIBOMP));
    if (v != NULL && *v && access(v, R_OK) == 0)
        return v;
    for (size_t i = 0; i < sizeof libomp_candidates / sizeof libomp_candidates[0]; i++)
        if (access(libomp_candidates[i], R_OK) == 0)
            return libomp_candidates[i];
    return NULL;
}

int hpc_rule_omp_runtime(const hpc_launch *l, char *buf, size_t cap)
{
    const char *mode = l->opts->omp_runtime ? l->opts->omp_runtime : "auto";
    if (strcmp(mode, "native") == 0 || !hpc_elf_needs(l->program, "libgomp.so"))
        return 0;
    const char *libomp = hpc_find_libomp();
    if (libomp == NULL) {
        if (strcmp(mode, "llvm") != 0)
            return 0; /* auto: run on libgomp; the reports say states are unavailable */
        fprintf(stderr,
                "hpcollect: --omp-runtime llvm: %s links GNU libgomp and LLVM libomp is not "
                "installed (apt-get install libomp5, or set HPCOLLECT_LIBOMP=/path/libomp.so.5; "
                "--omp-runtime native runs it without OpenMP states)\n",
                l->program);
        return -1;
    }
    snprintf(buf, cap, "%s", libomp);
    return 1;
}
