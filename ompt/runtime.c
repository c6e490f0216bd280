/*
 * runtime.c - record which OpenMP runtime ran (omp_runtime in process.hpe).
 *
 * With LLVM libomp the tool's initialize writes it: name, version string, path, OMPT
 * active. GNU libgomp has no OMPT and never calls us, so a native run is recognised by
 * libgomp being mapped while no runtime started the tool; omptool_note_native_runtime()
 * checks that and records it with ompt = 0, so reports can say that OpenMP states are
 * unavailable. (The analyzer can also tell from the module list when this was not
 * called, e.g. libgomp opened late with dlopen.)
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "omptool.h"

static atomic_int recorded; /* 1 once an omp_runtime record was written */

/* What was written, for a fork child: it runs on the runtime its parent started (and
 * with the tool's callbacks), but writes a sub-experiment of its own. */
static struct {
    const char *name, *version; /* static strings and omptool_g's buffers */
    unsigned ompt, mode;
    char path[512];
} written;

/* Also the fork-child handler: it runs after the collector's own (registered earlier, at
 * load), which has opened the child's sub-experiment. */
static void write_record(void)
{
    hpc_stream *s = hpcollect_proc_lock();
    if (s == NULL)
        return;
    hpc_rec_omp_runtime r = {
        .name = {written.name, (uint32_t)strlen(written.name)},
        .version = {written.version, (uint32_t)strlen(written.version)},
        .ompt = written.ompt,
        .mode = written.mode,
        .path = {written.path, (uint32_t)strlen(written.path)},
    };
    hpc_write_omp_runtime(s, &r);
    hpcollect_proc_unlock();
}

static void write_runtime(const char *name, const char *version, unsigned ompt, unsigned mode,
                          const char *path)
{
    if (atomic_exchange(&recorded, 1))
        return;
    written.name = name;
    written.version = version;
    written.ompt = ompt;
    written.mode = mode;
    snprintf(written.path, sizeof written.path, "%s", path);
    write_record();
    pthread_atfork(NULL, NULL, write_record);
}

void omptool_note_llvm_runtime(unsigned omp_version, const char *runtime_version,
                               const void *lookup_fn)
{
    (void)omp_version;
    Dl_info info;
    const char *path = "";
    if (dladdr(lookup_fn, &info) != 0 && info.dli_fname != NULL)
        path = info.dli_fname;
    strncpy(omptool_g.runtime_path, path, sizeof omptool_g.runtime_path - 1);
    strncpy(omptool_g.runtime_version, runtime_version ? runtime_version : "",
            sizeof omptool_g.runtime_version - 1);
    write_runtime("LLVM libomp", omptool_g.runtime_version, 1, HPC_OMP_LLVM,
                  omptool_g.runtime_path);
}

struct find_lib {
    const char *soname_prefix;
    char path[512];
};

static int find_lib_cb(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    struct find_lib *f = data;
    const char *base = info->dlpi_name ? strrchr(info->dlpi_name, '/') : NULL;
    base = base ? base + 1 : info->dlpi_name;
    if (base == NULL || strncmp(base, f->soname_prefix, strlen(f->soname_prefix)) != 0)
        return 0;
    strncpy(f->path, info->dlpi_name, sizeof f->path - 1);
    return 1;
}

/* Path of a loaded library whose file name starts with prefix, or NULL. */
static const char *loaded(struct find_lib *f, const char *prefix)
{
    memset(f, 0, sizeof *f);
    f->soname_prefix = prefix;
    return dl_iterate_phdr(find_lib_cb, f) ? f->path : NULL;
}

/* At load, after the collector's constructor (plain constructors of libhpcollect.so run
 * in link order, the collector's objects first; before it, collection is not on and the
 * process stream is not open, so this does nothing). The program's libgomp is mapped
 * by then; a runtime that OMPT starts later records itself. */
__attribute__((constructor)) static void omptool_at_load(void)
{
    omptool_note_native_runtime();
}

void omptool_note_native_runtime(void)
{
    if (omptool_g.active || atomic_load(&recorded))
        return;
    struct find_lib f;
    if (loaded(&f, "libomp.so") != NULL || loaded(&f, "libiomp5.so") != NULL)
        return; /* an OMPT runtime: it records itself when it starts */
    const char *gomp = loaded(&f, "libgomp.so");
    if (gomp == NULL)
        return;
    write_runtime("GNU libgomp", "", 0, HPC_OMP_NATIVE, gomp);
}
