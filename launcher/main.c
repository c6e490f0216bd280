/*
 * main.c - hpcollect, the launcher: hpcollect [options] [--] program [args]
 *
 * Checks every option and the program first (nothing is created for a bad command
 * line; -n stops there and shows what would be collected), creates or joins the job
 * experiment and this process's sub-experiment, runs the program with libhpcollect.so
 * preloaded and the settings in HPCOLLECT_*. launcher.hpe gets launcher_begin when the
 * program has started and, after it ends, launcher_exit with its exit status and rusage
 * (the one record that survives even a SIGKILLed program; without it, launcher_begin
 * tells that hpcollect itself was killed, and its program with it). The experiment is
 * then archived (-a, hpcollect-archive) and hpcollect ends as the program did.
 */
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <spawn.h>
#include <time.h>
#include <unistd.h>

#include "environ.h"
#include "experiment.h"
#include "job_env.h"
#include "losses.h"
#include "options.h"
#include "resolve.h"
#include "run.h"
#include "dry_run.h"

#ifndef HPC_VERSION
#define HPC_VERSION "0.0.0"
#endif

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* "rank<R>" under an MPI launcher, else "main". */
static void founder_name(const hpc_job_env *je, char *buf, size_t cap)
{
    if (je->rank >= 0)
        snprintf(buf, cap, "rank%ld", je->rank);
    else
        snprintf(buf, cap, "main");
}

/* Our lib/ directory: ../lib/hpcollect (installed) or ../lib (build tree). */
static int find_libdir(char *out, size_t cap)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        fprintf(stderr, "hpcollect: /proc/self/exe: %s\n", strerror(errno));
        return -1;
    }
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    *slash = 0;
    static const char *const cands[] = {"../lib/hpcollect", "../lib"};
    for (size_t i = 0; i < 2; i++) {
        char path[PATH_MAX + 64], real[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s/libhpcollect.so", exe, cands[i]);
        if (access(path, R_OK) == 0 && realpath(path, real)) {
            *strrchr(real, '/') = 0;
            snprintf(out, cap, "%s", real);
            return 0;
        }
    }
    fprintf(stderr,
            "hpcollect: libhpcollect.so not found in %s/../lib (is hpcollect "
            "installed completely?)\n",
            exe);
    return -1;
}

/* A statically linked program cannot have the collector preloaded: say so (it still
 * runs; the experiment then only has what the launcher records). */
static void warn_if_static(const char *path)
{
    Elf64_Ehdr eh;
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    int dynamic = 1;
    if (fread(&eh, sizeof eh, 1, f) == 1 && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_phentsize == sizeof(Elf64_Phdr)) {
        dynamic = 0;
        for (unsigned i = 0; i < eh.e_phnum; i++) {
            Elf64_Phdr ph;
            if (fseek(f, (long)(eh.e_phoff + i * sizeof ph), SEEK_SET) != 0 ||
                fread(&ph, sizeof ph, 1, f) != 1)
                break;
            if (ph.p_type == PT_INTERP)
                dynamic = 1;
        }
    }
    fclose(f);
    if (!dynamic)
        fprintf(stderr,
                "hpcollect: warning: %s is statically linked: the collector cannot be "
                "preloaded into it; only its exit status and rusage are recorded\n",
                path);
}

/* NUL-separated copy of argv for the records. */
static hpc_str join_args(char **argv, char *buf, size_t cap)
{
    size_t n = 0;
    for (; *argv; argv++) {
        size_t len = strlen(*argv) + 1;
        if (n + len > cap)
            break;
        memcpy(buf + n, *argv, len);
        n += len;
    }
    return (hpc_str){buf, (uint32_t)n};
}

static hpc_str cstr(const char *s)
{
    return (hpc_str){s, (uint32_t)strlen(s)};
}

/* Returns 0, or -1 after saying why (nothing can be recorded: a full disk). */
static int write_job_begin(const char *exp, const hpc_job_env *je, char **argv, const hpc_opts *o)
{
    char path[PATH_MAX + 16], host[256] = "", cwd[PATH_MAX] = "";
    static char args[32768], comments[HPC_MAX_COMMENTS * 1024];
    hpc_stream s;
    snprintf(path, sizeof path, "%s/%s", exp, HPC_JOB_FILE);
    gethostname(host, sizeof host - 1);
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = 0;
    int err = hpc_stream_create(&s, path, HPC_STREAM_JOB, 0, 0, NULL, 1);
    if (err < 0) {
        fprintf(stderr, "hpcollect: %s: %s\n", path, hpc_errtext(err, errno));
        return -1;
    }
    hpc_rec_job_begin r = {
        .time = clock_ns(CLOCK_MONOTONIC),
        .real_time = clock_ns(CLOCK_REALTIME),
        .job_id = cstr(je->job),
        .host = cstr(host),
        .cwd = cstr(cwd),
        .argv = join_args(argv, args, sizeof args),
        .world_size = je->size,
        .version = cstr(HPC_VERSION),
        .comments = join_args((char **)o->comments, comments, sizeof comments),
    };
    err = hpc_write_job_begin(&s, &r);
    int e = errno;
    if (hpc_stream_close(&s) != 0 && !err)
        err = HPC_E_IO, e = errno;
    if (err) {
        fprintf(stderr, "hpcollect: %s: %s\n", path, hpc_errtext(err, e));
        return -1;
    }
    return 0;
}

/* launcher.hpe, open from the program's start to its end. */
static int launcher_stream_open(hpc_stream *s, const char *subdir)
{
    char path[2 * PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", subdir, HPC_LAUNCHER_FILE);
    int err = hpc_stream_create(s, path, HPC_STREAM_LAUNCHER, 0, 0, NULL, 1);
    if (err < 0)
        fprintf(stderr, "hpcollect: %s: %s\n", path, hpc_errtext(err, errno));
    return err;
}

static void write_launcher_begin(hpc_stream *s, pid_t pid)
{
    hpc_rec_launcher_begin r = {
        .time = clock_ns(CLOCK_MONOTONIC),
        .pid = (uint64_t)pid,
        .launcher_pid = (uint64_t)getpid(),
        .death_signal = HPC_RUN_DEATH_SIGNAL,
    };
    hpc_write_launcher_begin(s, &r);
}

static void write_launcher_exit(hpc_stream *s, const hpc_child_result *c)
{
    const struct rusage *ru = &c->ru;
    hpc_rec_launcher_exit r = {
        .time = c->end_ns,
        .pid = (uint64_t)c->pid,
        .exited = WIFEXITED(c->status) ? 1 : 0,
        .status = WIFEXITED(c->status) ? WEXITSTATUS(c->status) : WTERMSIG(c->status),
        .core_dumped = WIFSIGNALED(c->status) && WCOREDUMP(c->status),
        .utime_ns = (uint64_t)ru->ru_utime.tv_sec * 1000000000ULL + ru->ru_utime.tv_usec * 1000ULL,
        .stime_ns = (uint64_t)ru->ru_stime.tv_sec * 1000000000ULL + ru->ru_stime.tv_usec * 1000ULL,
        .maxrss_kb = (uint64_t)ru->ru_maxrss,
        .minflt = (uint64_t)ru->ru_minflt,
        .majflt = (uint64_t)ru->ru_majflt,
        .nvcsw = (uint64_t)ru->ru_nvcsw,
        .nivcsw = (uint64_t)ru->ru_nivcsw,
        .inblock = (uint64_t)ru->ru_inblock,
        .oublock = (uint64_t)ru->ru_oublock,
    };
    hpc_write_launcher_exit(s, &r);
}

/* The experiment's name as the user would type it: relative to the cwd when inside it. */
static const char *display_name(const char *exp)
{
    static char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd)) {
        size_t n = strlen(cwd);
        if (!strncmp(exp, cwd, n) && exp[n] == '/')
            return exp + n + 1;
    }
    return exp;
}

/*
 * -a: archive this launcher's processes (its founder and descendants) with
 * hpcollect-archive from our bin/ directory, and wait for it. Objects other launchers
 * of the job archived already are not copied again.
 */
static void archive_run(const hpc_opts *o, const char *exp, const char *sub)
{
    char tool[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", tool, sizeof tool - 32);
    if (n <= 0)
        return;
    tool[n] = 0;
    strcpy(strrchr(tool, '/') + 1, "hpcollect-archive");
    char *argv[] = {tool,        "-q",        "-a", (char *)hpc_archive_mode_name(o->archive),
                    "--process", (char *)sub, "--", (char *)exp,
                    NULL};
    extern char **environ;
    pid_t pid;
    int rc = posix_spawn(&pid, tool, NULL, NULL, argv, environ), status = 0;
    if (rc == 0)
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fprintf(stderr,
                "hpcollect: warning: %s: archiving failed (%s); `hpcollect-archive %s` "
                "can do it later, while the program's files are in place\n",
                exp, rc ? strerror(rc) : "see above", exp);
}

/* Why the experiment cannot be made, and what to do. */
static void layout_error(const hpc_opts *o, const char *path, int err)
{
    const char *shown = *path ? display_name(path) : o->name ? o->name : o->dir ? o->dir : ".";
    const char *hint = "";
    if (err == HPC_E_EXISTS)
        hint = "; use another -o name, or -O to replace it";
    else if (err == HPC_E_SYMLINK)
        hint = "; remove the link, or choose another name or directory";
    else if (err == HPC_E_NOTEXP)
        hint = "; -O replaces only an experiment";
    int e = errno;
    if (err == HPC_E_IO || err == HPC_E_NOTFOUND || err == HPC_E_INVAL)
        fprintf(stderr, "hpcollect: cannot create the experiment %s: %s\n", shown,
                hpc_errtext(err, e));
    else
        fprintf(stderr, "hpcollect: %s %s%s\n", shown, hpc_strerror(err), hint);
}

int main(int argc, char **argv)
{
    hpc_opts o;
    if (hpc_opts_parse(&o, argc, argv) != 0)
        return 2;
    if (o.help) {
        hpc_opts_usage();
        return 0;
    }
    if (o.version) {
        printf("hpcollect %s\n", HPC_VERSION);
        return 0;
    }
    if (o.list_counters)
        return hpc_counters_list();
    if (!o.argv[0]) {
        fprintf(stderr, "hpcollect: no program given; try 'hpcollect --help'\n");
        return 2;
    }
    if (hpc_counters_probe(&o) != 0) /* -h events this machine cannot count, -l = -y */
        return 2;
    static char program[PATH_MAX], libdir[PATH_MAX], exp[PATH_MAX], sub[256], subdir[PATH_MAX];
    int rc = hpc_resolve_program(o.argv[0], program, sizeof program);
    if (rc)
        return rc;
    if (find_libdir(libdir, sizeof libdir) != 0)
        return 2;
    if (!o.quiet)
        warn_if_static(program);

    char want[64];
    hpc_job_env je;
    hpc_job_env_read(&je);
    const char *id = je.job[0] ? je.job : NULL;
    const char *base = strrchr(o.argv[0], '/') ? strrchr(o.argv[0], '/') + 1 : o.argv[0];
    unsigned flags = (o.overwrite ? HPC_LAYOUT_OVERWRITE : 0) | (o.dry_run ? HPC_LAYOUT_DRYRUN : 0);
    int created = hpc_layout_job_dir(exp, sizeof exp, o.dir, o.name, base, id, flags);
    if (o.dry_run)
        return hpc_dry_run(&o, program, libdir, exp, created);
    if (created < 0) {
        layout_error(&o, exp, created);
        return 2;
    }
    if (created && write_job_begin(exp, &je, argv, &o) != 0) {
        fprintf(stderr, "hpcollect: %s cannot be recorded: the program is not run\n",
                display_name(exp));
        return 2;
    }
    founder_name(&je, want, sizeof want);
    int err = hpc_layout_subexp(sub, sizeof sub, exp, want);
    if (err < 0) {
        fprintf(stderr, "hpcollect: %s/%s: %s\n", exp, want, hpc_errtext(err, errno));
        return 2;
    }
    if ((size_t)snprintf(subdir, sizeof subdir, "%s/%s", exp, sub) >= sizeof subdir) {
        fprintf(stderr, "hpcollect: %s: path too long\n", exp);
        return 2;
    }

    hpc_env env;
    hpc_env_from_current(&env);
    hpc_launch l = {&o, program, libdir, exp, sub};
    if (hpc_env_prepare(&env, &l) != 0)
        return 2;

    hpc_stream ls;
    if (launcher_stream_open(&ls, subdir) != 0) {
        fprintf(stderr, "hpcollect: %s cannot be recorded: the program is not run\n",
                display_name(exp));
        return 2;
    }
    int have_ls = 1;
    pid_t pid;
    hpc_child_result res;
    if (hpc_run_start(program, o.argv, env.v, &pid) != 0)
        return 126;
    if (have_ls)
        write_launcher_begin(&ls, pid);
    if (hpc_run_wait(pid, &res) != 0)
        return 126;
    if (have_ls) {
        write_launcher_exit(&ls, &res);
        hpc_stream_close(&ls);
    }
    if (o.archive)
        archive_run(&o, exp, sub);
    if (!o.quiet)
        hpc_losses_report(exp, display_name(exp), sub);
    if (!o.quiet && created)
        fprintf(stderr, "hpcollect: experiment %s\n", display_name(exp));
    hpc_exit_like(res.status);
}
