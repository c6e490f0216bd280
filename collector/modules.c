/*
 * modules.c - the load map: a module_load record for every object in memory at start
 * (dl_iterate_phdr: runtime bias, address span of its PT_LOAD segments, GNU build id),
 * and module_load/module_unload as dlopen/dlclose change it. The vDSO has no file, so
 * its image is archived into the sub-experiment as vdso.so. Symbols are resolved later
 * by hpanalyze from these records; nothing is looked up in the target.
 *
 * The table lives in malloc'd memory: it is only touched in normal context.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "collector.h"
#include "interpose.h"

typedef struct module {
    uint64_t id, base, size, bias;
    char *path;
    uint8_t build_id[64];
    uint32_t build_id_len;
    unsigned flags;
    int live, seen;
    const char *archived;
} module;

static module *mods;
static size_t nmods, capmods;
static uint64_t next_id = 1;
static int mods_lock;

static void lock(void)
{
    while (__atomic_exchange_n(&mods_lock, 1, __ATOMIC_ACQUIRE))
        __builtin_ia32_pause();
}

static void unlock(void)
{
    __atomic_store_n(&mods_lock, 0, __ATOMIC_RELEASE);
}

static void find_build_id(const struct dl_phdr_info *info, module *m)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        const uint8_t *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
            size_t name_sz = (nh->n_namesz + 3) & ~3u, desc_sz = (nh->n_descsz + 3) & ~3u;
            const uint8_t *name = p + sizeof *nh, *desc = name + name_sz;
            if (desc + desc_sz > end)
                break;
            if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
                nh->n_descsz <= sizeof m->build_id) {
                memcpy(m->build_id, desc, nh->n_descsz);
                m->build_id_len = nh->n_descsz;
                return;
            }
            p = desc + desc_sz;
        }
    }
}

/* Archive the vDSO image into the sub-experiment. */
static void archive_vdso(const module *m)
{
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/vdso.so", hpc_P.dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    const char *p = (const char *)m->base;
    size_t left = m->size;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n <= 0)
            break;
        p += n;
        left -= (size_t)n;
    }
    close(fd);
}

static module *find_module(uint64_t base, const char *path)
{
    for (size_t i = 0; i < nmods; i++)
        if (mods[i].live && mods[i].base == base && !strcmp(mods[i].path, path))
            return &mods[i];
    return NULL;
}

static int scan_one(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    int *index = data;
    int first = (*index)++ == 0;
    uint64_t lo = UINT64_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        if (ph->p_vaddr < lo)
            lo = ph->p_vaddr;
        if (ph->p_vaddr + ph->p_memsz > hi)
            hi = ph->p_vaddr + ph->p_memsz;
    }
    if (hi <= lo)
        return 0;
    char path[PATH_MAX];
    unsigned flags = 0;
    int vdso = info->dlpi_addr && info->dlpi_addr == getauxval(AT_SYSINFO_EHDR);
    if (vdso) {
        snprintf(path, sizeof path, "[vdso]");
        flags |= HPC_MODULE_ANON;
    } else if (first && (!info->dlpi_name || !info->dlpi_name[0])) {
        ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
        path[n > 0 ? n : 0] = 0;
        flags |= HPC_MODULE_MAIN;
    } else if (info->dlpi_name && info->dlpi_name[0]) {
        snprintf(path, sizeof path, "%s", info->dlpi_name);
    } else {
        return 0;
    }
    uint64_t base = info->dlpi_addr + lo;
    module *m = find_module(base, path);
    if (m) {
        m->seen = 1;
        return 0;
    }
    if (nmods == capmods) {
        size_t cap = capmods ? 2 * capmods : 64;
        module *n = realloc(mods, cap * sizeof *n);
        if (!n)
            return 1;
        mods = n;
        capmods = cap;
    }
    m = &mods[nmods];
    memset(m, 0, sizeof *m);
    m->path = strdup(path);
    if (!m->path)
        return 1;
    nmods++;
    m->id = next_id++;
    m->base = base;
    m->size = hi - lo;
    m->bias = info->dlpi_addr;
    m->live = m->seen = 1;
    if (strstr(path, "/libhpcollect"))
        flags |= HPC_MODULE_COLLECTOR;
    m->flags = flags;
    if (vdso) {
        m->archived = "vdso.so";
        archive_vdso(m);
    }
    find_build_id(info, m);
    return 0;
}

static void write_load(hpc_stream *s, const module *m, unsigned extra_flags)
{
    hpc_rec_module_load r = {
        .time = hpc_now_ns(),
        .id = m->id,
        .path = hpc_cstr(m->path),
        .base = m->base,
        .size = m->size,
        .bias = m->bias,
        .build_id = {(const char *)m->build_id, m->build_id_len},
        .archived = hpc_cstr(m->archived ? m->archived : ""),
        .flags = m->flags | extra_flags,
    };
    hpc_write_module_load(s, &r);
}

/* Scan the loaded objects; write loads of new ones (and unloads of vanished ones). */
static void scan_and_write(unsigned new_flags)
{
    lock();
    size_t before = nmods;
    for (size_t i = 0; i < nmods; i++)
        mods[i].seen = 0;
    int index = 0;
    hpc_dl_iterate(scan_one, &index);
    hpc_stream *s = hpc_proc_lock();
    for (size_t i = 0; i < nmods; i++) {
        module *m = &mods[i];
        if (i >= before) {
            m->flags |= new_flags;
            if (s)
                write_load(s, m, 0);
        } else if (m->live && !m->seen) {
            m->live = 0;
            hpc_rec_module_unload r = {.time = hpc_now_ns(), .id = m->id};
            if (s)
                hpc_write_module_unload(s, &r);
        }
    }
    if (s)
        hpc_proc_unlock();
    unlock();
}

void hpc_modules_init(void)
{
    mods_lock = 0; /* a fork child may have inherited it held */
    hpc_stream *s = hpc_proc_lock();
    if (s) {
        for (size_t i = 0; i < nmods; i++)
            if (mods[i].live) {
                if (mods[i].archived)
                    archive_vdso(&mods[i]);
                write_load(s, &mods[i], 0);
            }
        hpc_proc_unlock();
    }
    if (hpc_dl_scan_ok()) /* else the inherited table is the map: the child's loader is stuck */
        scan_and_write(0);
}

void hpc_modules_rescan(void)
{
    HPC_GUARD_SCOPE;
    scan_and_write(HPC_MODULE_DLOPEN);
}

/* ------------------------------------------------------------ dlopen, dlclose */

/*
 * dlopen searches the DT_RUNPATH of the object that calls it, and glibc takes that to be
 * the object of the return address: with this wrapper in between it would be ours. When
 * a bare name is not found, search the caller's own paths (dlinfo RTLD_DI_SERINFO on
 * its link map: its RPATH/RUNPATH, LD_LIBRARY_PATH, the system directories), so the
 * program finds what it finds without us.
 */
static void *dlopen_as_caller(const void *caller, const char *file, int mode)
{
    Dl_info info;
    struct link_map *lm = NULL;
    Dl_serinfo size, *si;
    if (!dladdr1(caller, &info, (void **)&lm, RTLD_DL_LINKMAP) || !lm ||
        dlinfo(lm, RTLD_DI_SERINFOSIZE, &size) != 0 || !(si = malloc(size.dls_size)))
        return NULL;
    void *h = NULL;
    *si = size;
    if (dlinfo(lm, RTLD_DI_SERINFOSIZE, si) == 0 && dlinfo(lm, RTLD_DI_SERINFO, si) == 0)
        for (unsigned i = 0; i < si->dls_cnt && !h; i++) {
            char path[PATH_MAX];
            const char *dir = si->dls_serpath[i].dls_name;
            if ((size_t)snprintf(path, sizeof path, "%s/%s", *dir ? dir : ".", file) < sizeof path)
                h = hpc_real.dlopen(path, mode);
        }
    free(si);
    return h;
}

HPC_INTERPOSE void *dlopen(const char *file, int mode)
{
    hpc_real_init();
    hpc_thread_priv *t = hpc_self();
    if (t)
        t->in_dl++;
    void *h = hpc_real.dlopen(file, mode);
    if (!h && file && !strchr(file, '/')) {
        h = dlopen_as_caller(__builtin_return_address(0), file, mode);
        if (!h) /* dlerror() tells of the name as asked, not of our last try */
            h = hpc_real.dlopen(file, mode);
    }
    if (t)
        t->in_dl--;
    if (h && hpc_P.active && hpc_dl_scan_ok())
        hpc_modules_rescan();
    return h;
}

HPC_INTERPOSE int dlclose(void *handle)
{
    hpc_real_init();
    hpc_thread_priv *t = hpc_self();
    if (t)
        t->in_dl++;
    int rc = hpc_real.dlclose(handle);
    if (t)
        t->in_dl--;
    if (rc == 0 && hpc_P.active && hpc_dl_scan_ok())
        hpc_modules_rescan();
    return rc;
}
