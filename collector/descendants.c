/*
 * descendants.c - following fork, exec, posix_spawn and system().
 *
 *   fork     the child becomes sub-experiment "<name>.f<k>" (pthread_atfork): it drops
 *            the parent's mapped streams without touching the files, re-arms its clock
 *            and writes its own process.hpe and t0.hpe. With -F off it stops collecting.
 *   vfork    is made a fork (the child then owns its memory, as the collector needs).
 *   exec*    proc_end (reason exec) is written first; with -F on the new image is
 *            "<name>.x<k>" (its directory is made here and its name passed in
 *            HPCOLLECT_SUBEXP); with -F off our libraries and HPCOLLECT_* are removed
 *            from its environment.
 *   posix_spawn, system   the same naming for the new process; the caller goes on.
 * Anything else that starts a process with our environment (popen's internal spawn, a
 * raw clone) is caught by the new process itself (init.c, "<SUBEXP>.p<pid>").
 *
 * -F =REGEX follows only descendants whose executable's basename or sub-experiment name
 * (main.x1, main.f2) matches. The others keep our libraries and settings with an owner
 * that matches nobody ("none"), so the library in them stays inert and their own
 * descendants are matched in turn, as "<SUBEXP>.p<pid>" (init.c).
 */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"
#include "interpose.h"
#include "signals.h"
#include "source.h"

extern char **environ;

/* ------------------------------------------------------------ environment */

static int is_ours_var(const char *kv)
{
    return !strncmp(kv, HPC_SETTING_PREFIX, strlen(HPC_SETTING_PREFIX));
}

/* LD_PRELOAD value without the libraries hpcollect added; "" if nothing is left. */
static void strip_preload(const char *value, char *out, size_t cap)
{
    const char *ours = hpc_P.cfg.preload;
    size_t n = 0;
    out[0] = 0;
    for (const char *p = value; *p;) {
        size_t len = strcspn(p, ": ");
        int mine = 0;
        for (const char *q = ours; *q && len;) {
            size_t ql = strcspn(q, ":");
            if (ql == len && !strncmp(p, q, len))
                mine = 1;
            q += ql;
            if (*q)
                q++;
        }
        if (len && !mine && n + len + 2 < cap) {
            if (n)
                out[n++] = ':';
            memcpy(out + n, p, len);
            n += len;
            out[n] = 0;
        }
        p += len;
        if (*p)
            p++;
    }
}

static char *make_var(const char *name, const char *value)
{
    size_t len = strlen(name) + strlen(value) + 2;
    char *kv = malloc(len);
    if (kv)
        snprintf(kv, len, "%s=%s", name, value);
    return kv;
}

/* A variable array being filled (hpc_settings_write's callback). */
typedef struct env_out {
    char **v;
    size_t k;
} env_out;

static int add_var(void *ctx, const char *name, const char *value)
{
    env_out *o = ctx;
    o->v[o->k++] = make_var(name, value);
    return 0;
}

/*
 * The environment for a descendant: envp without HPCOLLECT_* and, when not following,
 * without our preloaded libraries; when following (name != NULL), with the full set of
 * settings naming sub-experiment `name` and our libraries in LD_PRELOAD. malloc'd array
 * (free with free_env), or NULL when out of memory.
 */
static char **descendant_env(char *const envp[], const char *name, int descent, const char *owner)
{
    HPC_GUARD_SCOPE;
    const hpc_config *c = &hpc_P.cfg;
    size_t n = 0;
    while (envp && envp[n])
        n++;
    char **v = calloc(n + HPC_NSETTINGS + 2, sizeof *v);
    if (!v)
        return NULL;
    env_out o = {v, 0};
    const char *preload = NULL;
    for (size_t i = 0; i < n; i++) {
        if (is_ours_var(envp[i]))
            continue;
        if (!strncmp(envp[i], "LD_PRELOAD=", 11)) {
            preload = envp[i] + 11;
            continue;
        }
        v[o.k++] = strdup(envp[i]);
    }
    char pl[8192];
    strip_preload(preload ? preload : "", pl, sizeof pl);
    if (name) {
        size_t len = strlen(pl);
        snprintf(pl + len, sizeof pl - len, "%s%s", len ? ":" : "", c->preload);
        /* every setting as this process read it, but those of the descendant itself */
        hpc_settings s = c->set;
        snprintf(s.subexp, sizeof s.subexp, "%s", name);
        snprintf(s.parent, sizeof s.parent, "%s", hpc_P.name);
        s.descent = descent;
        snprintf(s.owner, sizeof s.owner, "%s", owner);
        s.start_paused = hpc_P.paused;
        hpc_settings_write(&s, HPC_WHO_LAUNCHER | HPC_WHO_PROCESS | HPC_WHO_USER, add_var, &o);
    }
    if (pl[0])
        v[o.k++] = make_var("LD_PRELOAD", pl);
    v[o.k] = NULL;
    for (size_t i = 0; i < o.k; i++)
        if (!v[i]) { /* a strdup/malloc failed: give up on the whole */
            for (size_t j = 0; j < o.k; j++)
                free(v[j]);
            free(v);
            return NULL;
        }
    return v;
}

static void free_env(char **v)
{
    HPC_GUARD_SCOPE;
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* ------------------------------------------------------------ -F =REGEX */

static regex_t follow_re;
static int follow_re_state; /* 0 not compiled yet, 1 compiled, -1 bad (follow nothing) */

/* Is a descendant running exe, to be named lineage, followed? NOT signal-safe (regexec
 * may allocate): called in normal context only. */
static int follow_matches(const char *exe, const char *lineage)
{
    const hpc_config *c = &hpc_P.cfg;
    if (!c->follow)
        return 0;
    if (!c->follow_regex[0])
        return 1;
    if (!follow_re_state)
        follow_re_state =
            regcomp(&follow_re, c->follow_regex, REG_EXTENDED | REG_NOSUB) == 0 ? 1 : -1;
    if (follow_re_state < 0)
        return 0;
    const char *slash = strrchr(exe, '/');
    return regexec(&follow_re, slash ? slash + 1 : exe, 0, NULL, 0) == 0 ||
           regexec(&follow_re, lineage, 0, NULL, 0) == 0;
}

/* A descendant -F =REGEX does not follow passes our settings on, inert (see the top). */
static char **passthrough_env(char *const envp[])
{
    if (!hpc_P.cfg.follow || !hpc_P.cfg.follow_regex[0])
        return descendant_env(envp, NULL, 0, NULL);
    return descendant_env(envp, hpc_P.name, HPC_DESCENT_SPAWN, "none");
}

static void self_exe(char *buf, size_t cap)
{
    ssize_t n = readlink("/proc/self/exe", buf, cap - 1);
    buf[n > 0 ? n : 0] = 0;
}

int hpc_follow_unexpected(void)
{
    char exe[PATH_MAX], lineage[320];
    self_exe(exe, sizeof exe);
    snprintf(lineage, sizeof lineage, "%s.p%ld", hpc_P.cfg.subexp, (long)getpid());
    return follow_matches(exe, lineage);
}

/* Would the next "<name>.x<k>" descendant running path be followed? */
static int follow_next_exec(const char *path)
{
    char want[320];
    snprintf(want, sizeof want, "%s.x%u", hpc_P.name, hpc_P.exec_count + 1);
    return follow_matches(path, want);
}

/* Make the next "<name>.x<k>" sub-experiment directory; returns 0 and its name. */
static int next_exec_name(char *name, size_t cap)
{
    HPC_GUARD_SCOPE;
    char want[320];
    snprintf(want, sizeof want, "%s.x%u", hpc_P.name, ++hpc_P.exec_count);
    return hpc_layout_subexp(name, cap, hpc_P.cfg.exp, want);
}

static void remove_subexp(const char *name)
{
    char dir[PATH_MAX + 256];
    snprintf(dir, sizeof dir, "%s/%s", hpc_P.cfg.exp, name);
    rmdir(dir);
}

/* ------------------------------------------------------------------- exec */

/* No more SIGPROF for this thread: a pending one would kill the new image (handlers
 * are reset by exec, pending signals are not). */
static void quiesce_clock(hpc_thread_priv *t)
{
    sigset_t prof, old;
    sigemptyset(&prof);
    sigaddset(&prof, HPC_CLOCK_SIGNAL);
    hpc_real.pthread_sigmask(SIG_BLOCK, &prof, &old);
    if (t)
        hpc_clock_stop(t);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&prof, NULL, &zero) > 0)
        ;
    hpc_real.pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int execve_followed(const char *path, char *const argv[], char *const envp[])
{
    char name[256], owner[64];
    char **env;
    int follow = follow_next_exec(path);
    if (follow && next_exec_name(name, sizeof name) == 0) {
        snprintf(owner, sizeof owner, "pid:%ld", (long)getpid());
        env = descendant_env(envp, name, HPC_DESCENT_EXEC, owner);
    } else if (!follow) {
        env = passthrough_env(envp);
    } else {
        follow = 0;
        env = descendant_env(envp, NULL, 0, NULL);
    }
    hpc_thread_priv *t = hpc_self();
    if (t) { /* this image's last CPU time is its own */
        hpcollect_write_begin(&t->pub);
        hpc_tail_charge(t, hpc_thread_cpu_ns());
        hpcollect_write_end(&t->pub);
    }
    hpc_process_end(HPC_END_EXEC, 0);
    quiesce_clock(t);
    hpc_signals_before_exec();
    bool took = hpc_fd_limit_hold(0); /* not in the middle of a move (sigsafe_fds.c) */
    hpc_real.execve(path, argv, env ? env : envp);
    /* still here: the exec failed; carry on collecting in this image */
    int err = errno;
    hpc_fd_limit_release(took);
    hpc_signals_thread_init(hpc_user_blocked);
    if (t) {
        char note[160];
        hpc_clock_arm(t, hpc_P.cfg.clock_ns, hpc_P.cfg.clock_choice, false, note, sizeof note);
        hpc_clock_start(t);
    }
    hpc_P.ended = 0;
    hpc_points_start();
    hpc_stream *s = hpc_proc_lock();
    if (s) {
        hpc_write_sample_point_locked(s, HPC_SAMPLE_RESUME, "exec failed");
        hpc_proc_unlock();
    }
    if (follow)
        remove_subexp(name);
    free_env(env);
    errno = err;
    return -1;
}

static int execve_impl(const char *path, char *const argv[], char *const envp[])
{
    hpc_real_init();
    /* Bookkeeping only when the exec can succeed; else fail as libc would. */
    if (!hpc_P.active || access(path, X_OK) != 0)
        return hpc_real.execve(path, argv, envp);
    return execve_followed(path, argv, envp);
}

HPC_INTERPOSE int execve(const char *path, char *const argv[], char *const envp[])
{
    return execve_impl(path, argv, envp);
}

HPC_INTERPOSE int execv(const char *path, char *const argv[])
{
    return execve_impl(path, argv, environ);
}

/* A file without #! that the kernel refuses (ENOEXEC) is run by /bin/sh, as execvp does. */
static int exec_script(const char *path, char *const argv[], char *const envp[])
{
    size_t n = 0;
    while (argv[n])
        n++;
    char **v = calloc(n + 2, sizeof *v);
    if (!v)
        return -1;
    v[0] = "/bin/sh";
    v[1] = (char *)path;
    for (size_t i = 1; i < n; i++)
        v[i + 1] = argv[i];
    execve_impl("/bin/sh", v, envp);
    free(v);
    return -1;
}

static int execvpe_impl(const char *file, char *const argv[], char *const envp[])
{
    if (!*file) {
        errno = ENOENT;
        return -1;
    }
    if (strchr(file, '/')) {
        execve_impl(file, argv, envp);
        if (errno == ENOEXEC)
            exec_script(file, argv, envp);
        return -1;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin";
    int eacces = 0;
    char cand[PATH_MAX];
    for (const char *p = path;; p++) {
        const char *end = strchrnul(p, ':');
        int len = (int)(end - p);
        snprintf(cand, sizeof cand, "%.*s%s%s", len, p, len ? "/" : "", file);
        execve_impl(cand, argv, envp);
        switch (errno) {
        case EACCES:
            eacces = 1;
            break;
        case ENOENT:
        case ENOTDIR:
        case ESTALE:
        case ENODEV:
        case ETIMEDOUT:
            break;
        case ENOEXEC:
            exec_script(cand, argv, envp);
            return -1;
        default:
            return -1;
        }
        if (!*end)
            break;
        p = end;
    }
    if (eacces)
        errno = EACCES;
    return -1;
}

HPC_INTERPOSE int execvpe(const char *file, char *const argv[], char *const envp[])
{
    hpc_real_init();
    return execvpe_impl(file, argv, envp);
}

HPC_INTERPOSE int execvp(const char *file, char *const argv[])
{
    hpc_real_init();
    return execvpe_impl(file, argv, environ);
}

/* execl and friends: collect the variadic arguments into an argv array. */
#define COLLECT_ARGS(arg0, ap, argv)                                                               \
    size_t argc_ = 1;                                                                              \
    va_start(ap, arg0);                                                                            \
    while (va_arg(ap, char *))                                                                     \
        argc_++;                                                                                   \
    va_end(ap);                                                                                    \
    char *argv[argc_ + 1];                                                                         \
    argv[0] = (char *)arg0;                                                                        \
    va_start(ap, arg0);                                                                            \
    for (size_t i_ = 1; i_ <= argc_; i_++)                                                         \
        argv[i_] = va_arg(ap, char *);

HPC_INTERPOSE int execl(const char *path, const char *arg0, ...)
{
    va_list ap;
    COLLECT_ARGS(arg0, ap, argv);
    va_end(ap);
    return execve_impl(path, argv, environ);
}

HPC_INTERPOSE int execlp(const char *file, const char *arg0, ...)
{
    va_list ap;
    COLLECT_ARGS(arg0, ap, argv);
    va_end(ap);
    hpc_real_init();
    return execvpe_impl(file, argv, environ);
}

HPC_INTERPOSE int execle(const char *path, const char *arg0, ...)
{
    va_list ap;
    COLLECT_ARGS(arg0, ap, argv);
    char *const *envp = va_arg(ap, char *const *);
    va_end(ap);
    return execve_impl(path, argv, envp);
}

/* ---------------------------------------------------------- spawn, system */

typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
                        const posix_spawnattr_t *, char *const[], char *const[]);

static int spawn_followed(spawn_fn real, pid_t *pid, const char *path,
                          const posix_spawn_file_actions_t *fa, const posix_spawnattr_t *attr,
                          char *const argv[], char *const envp[])
{
    if (!hpc_P.active)
        return real(pid, path, fa, attr, argv, envp);
    char name[256], owner[64];
    int follow = follow_next_exec(path);
    char **env;
    if (follow && next_exec_name(name, sizeof name) == 0) {
        snprintf(owner, sizeof owner, "ppid:%ld", (long)getpid());
        env = descendant_env(envp, name, HPC_DESCENT_SPAWN, owner);
    } else if (!follow) {
        env = passthrough_env(envp);
    } else {
        follow = 0;
        env = descendant_env(envp, NULL, 0, NULL);
    }
    bool took = hpc_fd_limit_hold(0); /* the child's limit: the program's (sigsafe_fds.c) */
    int rc = real(pid, path, fa, attr, argv, env ? env : envp);
    hpc_fd_limit_release(took);
    if (rc != 0 && follow)
        remove_subexp(name);
    free_env(env);
    return rc;
}

HPC_INTERPOSE int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                              const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
    hpc_real_init();
    return spawn_followed(hpc_real.posix_spawn, pid, path, fa, attr, argv, envp);
}

HPC_INTERPOSE int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                               const posix_spawnattr_t *attr, char *const argv[],
                               char *const envp[])
{
    hpc_real_init();
    return spawn_followed(hpc_real.posix_spawnp, pid, file, fa, attr, argv, envp);
}

/* system() as POSIX describes it (SIGINT and SIGQUIT ignored and SIGCHLD blocked in the
 * caller while the command runs), spawned through the path above so /bin/sh is named
 * as a descendant. glibc's own system() spawns internally, out of our reach. */
HPC_INTERPOSE int system(const char *cmd)
{
    hpc_real_init();
    if (!hpc_P.active || !cmd)
        return hpc_real.system(cmd);
    struct sigaction ign, old_int, old_quit;
    sigset_t chld, old_mask, dfl;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGINT, &ign, &old_int);
    sigaction(SIGQUIT, &ign, &old_quit);
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old_mask);

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigemptyset(&dfl);
    if (old_int.sa_handler != SIG_IGN)
        sigaddset(&dfl, SIGINT);
    if (old_quit.sa_handler != SIG_IGN)
        sigaddset(&dfl, SIGQUIT);
    posix_spawnattr_setsigdefault(&attr, &dfl);
    posix_spawnattr_setsigmask(&attr, &old_mask);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    char *argv[] = {"sh", "-c", (char *)cmd, NULL};
    pid_t pid;
    int status = -1;
    int rc = spawn_followed(hpc_real.posix_spawn, &pid, "/bin/sh", NULL, &attr, argv, environ);
    posix_spawnattr_destroy(&attr);
    if (rc == 0) {
        while (waitpid(pid, &status, 0) < 0) {
            if (errno != EINTR) {
                status = -1;
                break;
            }
        }
    } else {
        status = 127 << 8; /* as if the shell could not run */
    }
    int err = errno;
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGQUIT, &old_quit, NULL);
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    errno = err;
    return status;
}

/* ------------------------------------------------------------------- fork */

static unsigned forking_k;
static int forking_follow;
static bool forking_took; /* the descriptor limit, held over the fork (sigsafe_fds.c) */

static void atfork_prepare(void)
{
    HPC_GUARD_SCOPE;
    if (hpc_P.active) { /* before any lock: regexec may allocate */
        char exe[PATH_MAX], want[320];
        self_exe(exe, sizeof exe);
        snprintf(want, sizeof want, "%s.f%u", hpc_P.name, hpc_P.fork_count + 1);
        forking_follow = follow_matches(exe, want);
    }
    hpc_dl_fork_prepare();
    hpc_threads_lock();
    forking_k = ++hpc_P.fork_count;
    forking_took = hpc_fd_limit_hold(0); /* last: its holder waits for nothing else */
}

static void atfork_parent(void)
{
    HPC_GUARD_SCOPE;
    hpc_fd_limit_release(forking_took);
    hpc_threads_unlock();
    hpc_dl_fork_parent();
}

static void atfork_child(void)
{
    HPC_GUARD_SCOPE;
    uint64_t blocked = hpc_user_blocked; /* the program's mask, as the forking thread had it */
    hpc_fd_limit_reset();
    hpc_points_forget();
    hpc_dl_fork_child();
    hpc_last_thread_fork_child();
    hpc_threads_unlock();
    if (!hpc_P.active)
        return;
    hpc_thread_priv *self = hpc_self();
    hpc_set_self(NULL);
    hpc_P.active = 0;
    hpc_gate_update();
    hpc_P.fd_moments = 0; /* their holders are threads the child does not have */
    hpc_proc_lock_reset();
    hpc_stream_abandon(&hpc_P.proc);
    hpc_threads_abandon_others(NULL);
    (void)self; /* freed with the others: the child starts a fresh t0 */
    if (!forking_follow)
        return;
    char want[320], name[256], parent[256];
    snprintf(want, sizeof want, "%s.f%u", hpc_P.name, forking_k);
    snprintf(parent, sizeof parent, "%s", hpc_P.name);
    if (hpc_layout_subexp(name, sizeof name, hpc_P.cfg.exp, want) < 0)
        return;
    hpc_threads_reset_seq(0);
    hpc_thread_priv *t = hpc_thread_alloc(-1, 0);
    if (t && hpc_process_begin(name, parent, HPC_DESCENT_FORK, t) == 0) {
        hpc_user_blocked = blocked; /* the same thread: the program's view of its mask */
        hpc_signals_fork_hold(blocked);
    }
}

/* vfork's child borrows the parent's memory, where the collector's state lives: make
 * it a fork. */
HPC_INTERPOSE pid_t vfork(void)
{
    hpc_real_init();
    return hpc_real.fork();
}

void hpc_descendants_init(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}
