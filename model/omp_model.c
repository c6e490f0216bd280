/*
 * omp_model.c - OpenMP states (categories, wait kinds, names), the construct table, the
 * sites of constructs in the source, and the rules that decide what the runtime does not
 * say (see omp_model.h). One thread's timeline is omp_timeline.c.
 */
#include "omp_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum hpa_omp_cat hpa_omp_state_cat(unsigned s)
{
    switch (s) {
    case HPC_OMP_STATE_SERIAL:
    case HPC_OMP_STATE_WORK:
        return HPA_OMP_CAT_WORK;
    case HPC_OMP_STATE_IDLE:
        return HPA_OMP_CAT_IDLE;
    case HPC_OMP_STATE_OVERHEAD:
        return HPA_OMP_CAT_OVERHEAD;
    case HPC_OMP_STATE_NONE:
        return HPA_OMP_CAT_NONE;
    default:
        return hpa_omp_state_wait(s) >= 0 ? HPA_OMP_CAT_WAIT : HPA_OMP_CAT_NONE;
    }
}

enum hpa_omp_cat hpa_omp_sample_cat(uint32_t state_bits)
{
    if (state_bits & HPC_STATE_MPI)
        return HPA_OMP_CAT_MPI;
    return hpa_omp_state_cat(HPC_STATE_OMP(state_bits));
}

int hpa_omp_state_wait(unsigned s)
{
    switch (s) {
    case HPC_OMP_STATE_IMPLICIT_BARRIER:
        return HPA_OMP_W_IMPLICIT_BARRIER;
    case HPC_OMP_STATE_EXPLICIT_BARRIER:
        return HPA_OMP_W_EXPLICIT_BARRIER;
    case HPC_OMP_STATE_TASKWAIT:
        return HPA_OMP_W_TASKWAIT;
    case HPC_OMP_STATE_TASKGROUP:
        return HPA_OMP_W_TASKGROUP;
    case HPC_OMP_STATE_LOCK_WAIT:
        return HPA_OMP_W_LOCK;
    case HPC_OMP_STATE_CRITICAL_WAIT:
        return HPA_OMP_W_CRITICAL;
    case HPC_OMP_STATE_ORDERED_WAIT:
        return HPA_OMP_W_ORDERED;
    case HPC_OMP_STATE_ATOMIC_WAIT:
        return HPA_OMP_W_ATOMIC;
    case HPC_OMP_STATE_REDUCTION:
        return HPA_OMP_W_REDUCTION;
    case HPC_OMP_STATE_WORKSHARE_BARRIER:
        return HPA_OMP_W_WORKSHARE_BARRIER;
    case HPC_OMP_STATE_BARRIER:
        return HPA_OMP_W_BARRIER;
    default:
        return -1;
    }
}

const char *hpa_omp_state_name(unsigned s)
{
    static const char *const names[] = {
        [HPC_OMP_STATE_SERIAL] = "serial",
        [HPC_OMP_STATE_WORK] = "work",
        [HPC_OMP_STATE_IMPLICIT_BARRIER] = "implicit_barrier",
        [HPC_OMP_STATE_EXPLICIT_BARRIER] = "explicit_barrier",
        [HPC_OMP_STATE_TASKWAIT] = "taskwait",
        [HPC_OMP_STATE_TASKGROUP] = "taskgroup",
        [HPC_OMP_STATE_LOCK_WAIT] = "lock_wait",
        [HPC_OMP_STATE_CRITICAL_WAIT] = "critical_section_wait",
        [HPC_OMP_STATE_ORDERED_WAIT] = "ordered_section_wait",
        [HPC_OMP_STATE_ATOMIC_WAIT] = "atomic_wait",
        [HPC_OMP_STATE_REDUCTION] = "reduction",
        [HPC_OMP_STATE_IDLE] = "idle",
        [HPC_OMP_STATE_OVERHEAD] = "overhead",
        [HPC_OMP_STATE_WORKSHARE_BARRIER] = "workshare_barrier",
        [HPC_OMP_STATE_BARRIER] = "barrier",
    };
    return s < sizeof(names) / sizeof(names[0]) ? names[s] : NULL;
}

static const struct {
    const char *key, *title;
} wait_kinds[HPA_OMP_W_COUNT] = {
    [HPA_OMP_W_IMPLICIT_BARRIER] = {"implicit_barrier", "Implicit barrier"},
    [HPA_OMP_W_EXPLICIT_BARRIER] = {"explicit_barrier", "Explicit barrier"},
    [HPA_OMP_W_TASKWAIT] = {"taskwait", "Taskwait"},
    [HPA_OMP_W_TASKGROUP] = {"taskgroup", "Taskgroup"},
    [HPA_OMP_W_LOCK] = {"lock", "Lock"},
    [HPA_OMP_W_CRITICAL] = {"critical", "Critical"},
    [HPA_OMP_W_ORDERED] = {"ordered", "Ordered"},
    [HPA_OMP_W_ATOMIC] = {"atomic", "Atomic"},
    [HPA_OMP_W_REDUCTION] = {"reduction", "Reduction"},
    [HPA_OMP_W_WORKSHARE_BARRIER] = {"workshare_barrier", "Worksharing barrier"},
    [HPA_OMP_W_BARRIER] = {"barrier", "Barrier (explicit or worksharing)"},
};

const char *hpa_omp_wait_key(int w)
{
    return w >= 0 && w < HPA_OMP_W_COUNT ? wait_kinds[w].key : "?";
}

const char *hpa_omp_wait_title(int w)
{
    return w >= 0 && w < HPA_OMP_W_COUNT ? wait_kinds[w].title : "?";
}

int hpa_omp_sync_wait(uint64_t kind)
{
    return hpa_omp_construct(hpa_omp_sync_construct(kind))->wait;
}

int hpa_omp_mutex_wait(uint64_t kind)
{
    unsigned held;
    return hpa_omp_construct(hpa_omp_mutex_construct(kind, &held))->wait;
}

/* ---------------------------------------------------------------- constructs */

#define W(k) HPA_OMP_W_##k
static const hpa_omp_construct_info constructs[HPA_OC_COUNT] = {
    [HPA_OC_NONE] = {"?", NULL, "unknown", false, HPA_OMP_ROLE_CODE, -1},
    [HPA_OC_PARALLEL] = {"parallel", NULL, "parallel", false, HPA_OMP_ROLE_PARALLEL, -1},
    [HPA_OC_IMPLICIT_BARRIER] = {"implicit barrier", NULL, "implicit_barrier", false,
                                 HPA_OMP_ROLE_IMPLICIT_BARRIER, W(IMPLICIT_BARRIER)},
    /* the wait ending a worksharing construct: where the construct's imbalance shows */
    [HPA_OC_WORKSHARE_BARRIER] = {"implicit barrier (worksharing)", NULL, "workshare_barrier",
                                  false, HPA_OMP_ROLE_IMPLICIT_BARRIER, W(WORKSHARE_BARRIER)},
    [HPA_OC_BARRIER] = {"barrier", NULL, "explicit_barrier", false, HPA_OMP_ROLE_BARRIER,
                        W(EXPLICIT_BARRIER)},
    [HPA_OC_BARRIER_OTHER] = {"barrier", NULL, "barrier", false, HPA_OMP_ROLE_BARRIER, W(BARRIER)},
    [HPA_OC_TASKWAIT] = {"taskwait", NULL, "taskwait", false, HPA_OMP_ROLE_TASK_WAIT, W(TASKWAIT)},
    [HPA_OC_TASKGROUP] = {"taskgroup", NULL, "taskgroup", false, HPA_OMP_ROLE_TASK_WAIT,
                          W(TASKGROUP)},
    [HPA_OC_REDUCTION] = {"reduction", NULL, "reduction", false, HPA_OMP_ROLE_IMPLICIT_BARRIER,
                          W(REDUCTION)},
    [HPA_OC_CRITICAL] = {"critical", NULL, "critical", false, HPA_OMP_ROLE_CRITICAL, W(CRITICAL)},
    [HPA_OC_CRITICAL_SBLOCK] = {"critical sblock", NULL, "critical_sblock", false,
                                HPA_OMP_ROLE_CRITICAL_SBLOCK, -1},
    [HPA_OC_ORDERED] = {"ordered", NULL, "ordered", false, HPA_OMP_ROLE_ORDERED, W(ORDERED)},
    [HPA_OC_ORDERED_SBLOCK] = {"ordered sblock", NULL, "ordered_sblock", false,
                               HPA_OMP_ROLE_ORDERED_SBLOCK, -1},
    [HPA_OC_LOCK] = {"omp_set_lock", NULL, "lock", true, HPA_OMP_ROLE_WRAPPER, W(LOCK)},
    [HPA_OC_NEST_LOCK] = {"omp_set_nest_lock", NULL, "nest_lock", true, HPA_OMP_ROLE_WRAPPER,
                          W(LOCK)},
    [HPA_OC_ATOMIC] = {"atomic", NULL, "atomic", false, HPA_OMP_ROLE_ATOMIC, W(ATOMIC)},
    [HPA_OC_LOOP] = {"for", "do", "loop", false, HPA_OMP_ROLE_LOOP, -1},
    [HPA_OC_SECTIONS] = {"sections", NULL, "sections", false, HPA_OMP_ROLE_SECTIONS, -1},
    [HPA_OC_SINGLE] = {"single", NULL, "single", false, HPA_OMP_ROLE_SINGLE, -1},
    [HPA_OC_WORKSHARE] = {"workshare", NULL, "workshare", false, HPA_OMP_ROLE_WORKSHARE, -1},
    [HPA_OC_DISTRIBUTE] = {"distribute", NULL, "distribute", false, HPA_OMP_ROLE_LOOP, -1},
    [HPA_OC_TASKLOOP] = {"taskloop", NULL, "taskloop", false, HPA_OMP_ROLE_LOOP, -1},
    [HPA_OC_SCOPE] = {"scope", NULL, "scope", false, HPA_OMP_ROLE_CODE, -1},
    [HPA_OC_TASK] = {"task", NULL, "task", false, HPA_OMP_ROLE_TASK, -1},
    [HPA_OC_MASKED] = {"masked", NULL, "masked", false, HPA_OMP_ROLE_MASTER, -1},
};
#undef W

const hpa_omp_construct_info *hpa_omp_construct(unsigned c)
{
    return &constructs[c < HPA_OC_COUNT ? c : HPA_OC_NONE];
}

/* A record kind's construct by a table indexed by kind (0 = none), or fallback. */
static unsigned by_kind(const uint8_t *table, size_t n, uint64_t kind, unsigned fallback)
{
    return kind < n && table[kind] ? table[kind] : fallback;
}
#define BY_KIND(table, kind, fallback) by_kind(table, sizeof(table), kind, fallback)

unsigned hpa_omp_sync_construct(uint64_t kind)
{
    static const uint8_t table[] = {
        [HPC_OMP_SYNC_IMPLICIT_BARRIER] = HPA_OC_IMPLICIT_BARRIER,
        [HPC_OMP_SYNC_EXPLICIT_BARRIER] = HPA_OC_BARRIER,
        [HPC_OMP_SYNC_TASKWAIT] = HPA_OC_TASKWAIT,
        [HPC_OMP_SYNC_TASKGROUP] = HPA_OC_TASKGROUP,
        [HPC_OMP_SYNC_REDUCTION] = HPA_OC_REDUCTION,
        [HPC_OMP_SYNC_BARRIER_OTHER] = HPA_OC_BARRIER_OTHER,
        [HPC_OMP_SYNC_WORKSHARE_BARRIER] = HPA_OC_WORKSHARE_BARRIER,
    };
    return BY_KIND(table, kind, HPA_OC_BARRIER_OTHER);
}

unsigned hpa_omp_work_construct(uint64_t kind)
{
    static const uint8_t table[] = {
        [HPC_OMP_WORK_LOOP] = HPA_OC_LOOP,
        [HPC_OMP_WORK_SECTIONS] = HPA_OC_SECTIONS,
        [HPC_OMP_WORK_SINGLE_EXECUTOR] = HPA_OC_SINGLE,
        [HPC_OMP_WORK_SINGLE_OTHER] = HPA_OC_SINGLE,
        [HPC_OMP_WORK_WORKSHARE] = HPA_OC_WORKSHARE,
        [HPC_OMP_WORK_DISTRIBUTE] = HPA_OC_DISTRIBUTE,
        [HPC_OMP_WORK_TASKLOOP] = HPA_OC_TASKLOOP,
        [HPC_OMP_WORK_SCOPE] = HPA_OC_SCOPE,
    };
    return BY_KIND(table, kind, HPA_OC_LOOP);
}

unsigned hpa_omp_mutex_construct(uint64_t kind, unsigned *held)
{
    static const uint8_t table[] = {
        [HPC_OMP_MUTEX_LOCK] = HPA_OC_LOCK,         [HPC_OMP_MUTEX_NEST_LOCK] = HPA_OC_NEST_LOCK,
        [HPC_OMP_MUTEX_CRITICAL] = HPA_OC_CRITICAL, [HPC_OMP_MUTEX_ORDERED] = HPA_OC_ORDERED,
        [HPC_OMP_MUTEX_ATOMIC] = HPA_OC_ATOMIC,
    };
    unsigned c = BY_KIND(table, kind, HPA_OC_LOCK);
    *held = hpa_omp_held_construct(c);
    return c;
}

unsigned hpa_omp_held_construct(unsigned c)
{
    return c == HPA_OC_CRITICAL  ? HPA_OC_CRITICAL_SBLOCK
           : c == HPA_OC_ORDERED ? HPA_OC_ORDERED_SBLOCK
                                 : HPA_OC_NONE;
}

char *hpa_omp_construct_name(unsigned c, enum hpa_lang lang, char *buf, size_t cap)
{
    const hpa_omp_construct_info *x = hpa_omp_construct(c);
    bool fortran = lang == HPA_LANG_FORTRAN;
    const char *name = fortran && x->fortran ? x->fortran : x->name;
    const char *pre = x->api                                       ? ""
                      : lang == HPA_LANG_C || lang == HPA_LANG_CXX ? "#pragma omp "
                      : fortran                                    ? "!$omp "
                                                                   : "omp ";
    snprintf(buf, cap, "%s%s", pre, name);
    return buf;
}

/* ---------------------------------------------------------------- sites */

const char *hpa_omp_outlined_from(const char *name, char *buf, size_t cap)
{
    const char *clone = strstr(name, " [clone ._omp_fn.");
    const char *fn = clone ? clone : strstr(name, "._omp_fn.");
    if (!fn || fn == name)
        return NULL;
    snprintf(buf, cap, "%.*s", (int)(fn - name), name);
    return buf;
}

/* clang's source-location string "; file; function; line; column;;" (fields separated by
 * ';'): function and line; false for ";unknown;unknown;0;0;;" (built without -g). */
static bool parse_psource(const char *s, char *file, size_t fcap, char *func, size_t cap,
                          uint32_t *line)
{
    const char *f[5];
    size_t len[5];
    if (*s++ != ';')
        return false;
    for (int i = 0; i < 5; i++) {
        const char *e = strchr(s, ';');
        if (!e)
            return false;
        f[i] = s, len[i] = (size_t)(e - s);
        s = e + 1;
    }
    unsigned long ln = strtoul(f[2], NULL, 10);
    if (len[1] == 0 || ln == 0 || (len[1] == 7 && strncmp(f[1], "unknown", 7) == 0))
        return false;
    snprintf(file, fcap, "%.*s", (int)len[0], f[0]);
    snprintf(func, cap, "%.*s", (int)len[1], f[1]);
    *line = (uint32_t)ln;
    return true;
}

/* The function named `name` for code near pc: the module's own function of that name,
 * else a made-up one (a function inlined everywhere has no code of its own). */
static uint32_t func_named(hpa_symtab *st, hpa_modmap *m, uint64_t pc, const char *name)
{
    uint32_t f = pc ? hpa_modmap_func_named(m, pc, name) : 0;
    return f ? f : hpa_symtab_pseudo(st, name);
}

/* The site's file when only a name relative to the build directory is known (clang's
 * psource): the line table's name for the same file, which `source` can open. */
static const char *same_file(const hpa_line *l, const char *file)
{
    if (!l || !l->file || !*l->file)
        return file;
    size_t n = strlen(l->file), k = strlen(file);
    return n >= k && strcmp(l->file + n - k, file) == 0 ? l->file : file;
}

hpa_loc hpa_omp_site(hpa_symtab *st, hpa_modmap *m, uint64_t outlined, uint64_t codeptr,
                     uint64_t psource)
{
    hpa_loc at = hpa_modmap_resolve(m, codeptr ? codeptr - 1 : 0);
    hpa_loc body = outlined ? hpa_modmap_resolve(m, outlined) : (hpa_loc){0};
    char name[512], file[1024], pfile[1024], text[1024];
    uint32_t lineno = 0;
    const hpa_line *cl = hpa_symtab_line(st, at.line);
    /* the line: the pragma's */
    const char *lfile = cl->file;
    lineno = cl->lineno;
    if (outlined && hpa_modmap_first_line(m, outlined, file, sizeof(file), &lineno))
        lfile = file;
    /* the function: the one the author wrote the construct in */
    uint32_t func = at.func;
    const char *from;
    uint32_t pline;
    if (psource && hpa_modmap_read_string(m, psource, text, sizeof(text)) &&
        parse_psource(text, pfile, sizeof(pfile), name, sizeof(name), &pline)) {
        func = func_named(st, m, outlined ? outlined : codeptr, name);
        lfile = same_file(hpa_symtab_line(st, body.line), pfile);
        lineno = pline;
    } else if (outlined && (from = hpa_omp_outlined_from(hpa_symtab_func(st, body.func)->name, name,
                                                         sizeof(name))) != NULL) {
        func = func_named(st, m, outlined, from);
    } else if (codeptr && hpa_modmap_inlined_at(m, codeptr - 1, name, sizeof(name))) {
        func = func_named(st, m, codeptr, name);
    }
    return (hpa_loc){.func = func, .line = hpa_symtab_line_make(st, func, lfile, lineno)};
}

/* ---------------------------------------------------------------- the runtime */

static bool name_starts(const char *path, const char *prefix)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, prefix, strlen(prefix)) == 0;
}

void hpa_omp_runtime_of(const hpc_proc *p, hpa_omp_runtime *rt)
{
    memset(rt, 0, sizeof(*rt));
    hpc_str_copy(rt->asked, sizeof(rt->asked), p->settings.omp_runtime);
    bool gomp = false, llvm = false;
    char gomp_path[512] = "", path[512];
    size_t it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_module_load, &it));) {
        hpc_str_copy(path, sizeof(path), r->u.module_load.path);
        if (name_starts(path, "libgomp.so")) {
            gomp = true;
            snprintf(gomp_path, sizeof(gomp_path), "%s", path);
        } else if (name_starts(path, "libomp.so") || name_starts(path, "libiomp5.so")) {
            llvm = true;
            snprintf(rt->path, sizeof(rt->path), "%s", path);
        }
    }
    it = 0;
    for (const hpc_record *r; (r = hpc_proc_next_of(p, HPC_K_omp_runtime, &it));) {
        const hpc_rec_omp_runtime *o = &r->u.omp_runtime;
        char name[96], ver[128];
        hpc_str_copy(name, sizeof(name), o->name);
        hpc_str_copy(ver, sizeof(ver), o->version);
        snprintf(rt->name, sizeof(rt->name), "%s%s%s%s", name, *ver ? " (" : "", ver,
                 *ver ? ")" : "");
        hpc_str_copy(rt->path, sizeof(rt->path), o->path);
        rt->seen = true;
        rt->ompt |= o->ompt != 0;
        rt->replaced = o->mode == HPC_OMP_LLVM && gomp;
    }
    if (rt->seen)
        return;
    if (gomp && !llvm) {
        rt->seen = true;
        snprintf(rt->name, sizeof(rt->name), "GNU libgomp");
        snprintf(rt->path, sizeof(rt->path), "%s", gomp_path);
    } else if (llvm) {
        rt->seen = true;
        snprintf(rt->name, sizeof(rt->name), "an OpenMP runtime without an OMPT tool");
    }
}

bool hpa_omp_runtime_text(const hpa_omp_runtime *rt, char *buf, size_t cap)
{
    if (!rt->seen) {
        if (cap)
            buf[0] = 0;
        return false;
    }
    char asked[64] = "";
    if (rt->asked[0])
        snprintf(asked, sizeof(asked), " (--omp-runtime %s)", rt->asked);
    if (rt->replaced)
        snprintf(buf, cap,
                 "%s in place of the program's GNU libgomp%s: OpenMP states recorded; libomp "
                 "schedules and waits differently than libgomp (hpcollect --omp-runtime native "
                 "keeps libgomp, without OpenMP states)",
                 rt->name, asked);
    else
        snprintf(buf, cap, "%s%s: %s", rt->name, asked,
                 rt->ompt ? "OpenMP states recorded" : "no OMPT, OpenMP states unavailable");
    return true;
}

/* ---------------------------------------------------------------- rules */

uint64_t hpa_omp_region_time_end(const hpa_omp_exec *x, uint32_t seq, uint64_t end)
{
    if (x && x->t_end && x->enc_seq != seq && end > x->t_end)
        return x->t_end;
    return end;
}

unsigned hpa_omp_unreported_state(uint32_t thread_type)
{
    return thread_type == HPA_OMP_THREAD_INITIAL ? HPC_OMP_STATE_SERIAL : HPC_OMP_STATE_NONE;
}

bool hpa_omp_sample_unreported(unsigned omp_state, uint64_t region)
{
    return region == 0 && omp_state == HPC_OMP_STATE_NONE;
}

unsigned hpa_omp_sample_state(unsigned omp_state, uint64_t region, const hpa_omp_exec *x,
                              uint32_t seq, uint64_t time, uint32_t thread_type)
{
    if (hpa_omp_sample_unreported(omp_state, region))
        return hpa_omp_unreported_state(thread_type);
    if (omp_state == HPC_OMP_STATE_IMPLICIT_BARRIER && hpa_omp_region_time_end(x, seq, time) < time)
        return HPC_OMP_STATE_IDLE;
    return omp_state;
}
