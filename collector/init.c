/*
 * init.c - start and end of collection in a process.
 *
 * The constructor does little: read the HPCOLLECT_* settings, take over the collector's
 * signals, open process.hpe and the main thread's stream, arm the main thread's clock.
 * The end is written by whichever comes first: exit (an on_exit handler; returning from
 * main is an exit too), _exit, exec (descendants.c), or a fatal signal (signal-safe). A
 * SIGKILLed process has no proc_end; the launcher's launcher.hpe still has its status.
 */
#define UNW_LOCAL_ONLY
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "collector.h"
#include "control.h"
#include "job_env.h"
#include "interpose.h"
#include "source.h"

#ifndef HPC_VERSION
#define HPC_VERSION "0.0.0"
#endif
#define STR_(x) #x
#define STR(x)  STR_(x)

hpc_process hpc_P;

/* ------------------------------------------------------------- begin */

static char cmdline[32768];
static uint32_t cmdline_len;

static void read_cmdline(void)
{
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n, total = 0;
    while ((n = read(fd, cmdline + total, sizeof cmdline - (size_t)total)) > 0)
        total += n;
    close(fd);
    cmdline_len = (uint32_t)total;
}

static void write_proc_begin(hpc_stream *s)
{
    hpc_job_env je;
    hpc_job_env_read(&je);
    char host[256] = "", cwd[PATH_MAX] = "", exe[PATH_MAX] = "", os[512] = "";
    struct utsname u;
    gethostname(host, sizeof host - 1);
    if (!getcwd(cwd, sizeof cwd))
        cwd[0] = 0;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = 0;
    if (uname(&u) == 0)
        snprintf(os, sizeof os, "%s %s %s", u.sysname, u.release, u.machine);
    hpc_usage before;
    hpc_get_usage(&before);
    hpc_rec_proc_begin r = {
        .time = hpc_P.start_ns,
        .real_time = hpc_realtime_ns(),
        .pid = (uint64_t)getpid(),
        .ppid = (uint64_t)getppid(),
        .name = hpc_cstr(hpc_P.name),
        .parent = hpc_cstr(hpc_P.parent),
        .descent = (uint64_t)hpc_P.descent,
        .rank = je.rank,
        .world_size = je.size,
        .host = hpc_cstr(host),
        .cwd = hpc_cstr(cwd),
        .exe = hpc_cstr(exe),
        .argv = {cmdline, cmdline_len},
        .page_size = (uint64_t)sysconf(_SC_PAGESIZE),
        .ncpus = (uint64_t)sysconf(_SC_NPROCESSORS_ONLN),
        .os = hpc_cstr(os),
        .version = hpc_cstr(HPC_VERSION),
        .utime_ns = before.utime_ns,
        .stime_ns = before.stime_ns,
    };
    hpc_write_proc_begin(s, &r);
}

static void write_settings(hpc_stream *s)
{
    const hpc_config *c = &hpc_P.cfg;
    static const char unwinder[] =
        "libunwind " STR(UNW_VERSION_MAJOR) "." STR(UNW_VERSION_MINOR) "." STR(UNW_VERSION_EXTRA);
    hpc_rec_settings r = {
        .clock_source = (uint64_t)hpc_P.clock_source,
        .clock_interval_ns = c->clock_ns,
        .clock_note = hpc_cstr(hpc_P.clock_note),
        .follow = (uint64_t)c->follow,
        .size_limit = c->limit_bytes,
        .tstart_ns = c->tstart_ns,
        .tend_ns = c->tend_ns,
        .mpi_trace = (uint64_t)c->mpi_trace,
        .omp_runtime = hpc_cstr(c->omp_runtime),
        .sample_period_ns = c->sample_ns,
        .sample_signal = (uint64_t)c->sample_sig,
        .pause_signal = (uint64_t)c->pause_sig,
        .start_paused = (uint64_t)(c->pause_sig && c->start_paused),
        .unwinder = hpc_cstr(unwinder),
        .archive = c->archive,
        .follow_regex = hpc_cstr(c->follow_regex),
        .throttle_pct = c->throttle_pct,
        .heap_trace = (uint64_t)(c->heap != 0),
        .io_trace = (uint64_t)c->io_trace,
        .states = (uint64_t)hpc_P.states_source,
        .states_note = hpc_cstr(hpc_P.states_note),
    };
    hpc_write_settings(s, &r);
    hpc_counters_write_defs(s);
    hpc_sync_write_settings(s);
}

int hpc_process_begin(const char *name, const char *parent, int descent,
                      hpc_thread_priv *main_thread)
{
    HPC_GUARD_SCOPE;
    char path[PATH_MAX + 64];
    snprintf(hpc_P.dir, sizeof hpc_P.dir, "%s/%s", hpc_P.cfg.exp, name);
    snprintf(hpc_P.name, sizeof hpc_P.name, "%s", name);
    snprintf(hpc_P.parent, sizeof hpc_P.parent, "%s", parent);
    hpc_P.descent = descent;
    hpc_P.ended = 0;
    hpc_P.limit_noted = hpc_P.window_start_noted = hpc_P.window_end_noted = 0;
    hpc_P.exit_status_known = 0;
    hpc_P.fork_count = hpc_P.exec_count = 0;
    hpc_P.sample_index = 0;
    memset(&hpc_P.budget, 0, sizeof hpc_P.budget);
    hpc_P.budget.limit = hpc_P.cfg.limit_bytes;
    snprintf(path, sizeof path, "%s/%s", hpc_P.dir, HPC_PROCESS_FILE);
    /* process.hpe is outside the -L budget: it is small, and must be able to say that
     * the limit was reached */
    int err = hpc_stream_create(&hpc_P.proc, path, HPC_STREAM_PROCESS, 0, 0, NULL, 1);
    if (err < 0) {
        fprintf(stderr, "hpcollect: %s: %s; not collecting in process %ld\n", path,
                hpc_errtext(err, errno), (long)getpid());
        return -1;
    }
    hpc_P.proc.fd = hpc_fd_keep_high(hpc_P.proc.fd); /* not among the program's (fds.c) */
    hpc_P.proc.keep_fd = hpc_P.proc.fd >= 0;
    hpc_P.start_ns = hpc_now_ns();
    hpc_control_init();
    hpc_P.active = 1;
    hpc_gate_update();
    /* the start point is read before the main thread's clock starts: a sample during the
     * module scan would otherwise fall before it, in no sample period */
    hpc_usage start_usage;
    hpc_get_usage(&start_usage);
    uint64_t start_time = hpc_now_ns();
    if (hpc_thread_begin(main_thread) != 0)
        hpc_thread_free(main_thread);
    hpc_stream *s = hpc_proc_lock();
    if (s) {
        write_proc_begin(s);
        write_settings(s); /* after thread_begin: it decides how states are read */
        hpc_proc_unlock();
    }
    hpc_modules_init();
    if ((s = hpc_proc_lock())) {
        hpc_control_write_point_at(s, start_time, HPC_SAMPLE_START, "start", &start_usage);
        hpc_proc_unlock();
    }
    hpc_points_start();
    if (hpc_self())
        hpc_states_here(hpc_self()); /* the setup's own waits, at its own stack */
    return 0;
}

/* A process started with HPCOLLECT_* that the collector did not see coming (a raw
 * clone+exec, or popen's internal spawn): record it as "<SUBEXP>.p<pid>". */
static int unexpected_descendant(char *name, size_t cap)
{
    char want[320];
    snprintf(want, sizeof want, "%s.p%ld", hpc_P.cfg.subexp, (long)getpid());
    return hpc_layout_subexp(name, cap, hpc_P.cfg.exp, want);
}

/* The normal end. on_exit handlers get the status given to exit(), also the one glibc
 * passes after main returns. Ours is registered before the program starts, so it runs
 * after the program's atexit handlers and after the destructors (ld.so registers its
 * fini later): everything the program does is recorded. */
static void on_exit_status(int status, void *arg)
{
    (void)arg;
    hpc_P.exit_status = status;
    hpc_P.exit_status_known = 1;
    hpc_process_end(HPC_END_EXIT, status);
}

/* Close fd if it is a pipe (libunwind's, see unwinder_init). */
static void close_new_pipe_end(int fd)
{
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
        close(fd);
}

/* Our unwinds read memory through our own accessor (sigsafe_unwind.c says why); the pipe
 * libunwind opens for its own check is closed, so the program's descriptors stay its own.
 * Before any other libunwind call: its first call opens the pipe. */
static void unwinder_init(void)
{
    int probe[2];
    bool known = pipe2(probe, O_CLOEXEC) == 0; /* the two lowest free numbers */
    if (known) {
        close(probe[0]);
        close(probe[1]);
    }
    unw_accessors_t *acc = unw_get_accessors(unw_local_addr_space); /* opens its pipe */
    if (acc && acc->access_mem != hpc_unwind_access_mem) {
        hpc_unwind_lib_access_mem = acc->access_mem;
        acc->access_mem = hpc_unwind_access_mem;
    }
    if (known) { /* libunwind's pipe took them, unless another thread was quicker */
        close_new_pipe_end(probe[0]);
        close_new_pipe_end(probe[1]);
    }
}

__attribute__((constructor)) static void hpc_init(void)
{
    HPC_GUARD_SCOPE;
    int saved = errno;
    hpc_interpose_init();
    hpc_config_init(&hpc_P.cfg);
    if (!hpc_P.cfg.active)
        goto out;
    char name[256];
    const char *parent = hpc_P.cfg.parent;
    int descent = hpc_P.cfg.descent;
    if (hpc_P.cfg.owner_ok) {
        snprintf(name, sizeof name, "%s", hpc_P.cfg.subexp);
    } else {
        if (!hpc_follow_unexpected() || unexpected_descendant(name, sizeof name) < 0)
            goto out;
        parent = hpc_P.cfg.subexp;
        descent = HPC_DESCENT_SPAWN;
    }
    read_cmdline();
    hpc_schema_hash();
    /* Debian's libunwind has no per-thread cache: this gives its global cache, under a
     * lock held across its dl_iterate_phdr calls (sigsafe_dl_guard.c) */
    unwinder_init();
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
    hpc_signals_install();
    hpc_signals_thread_init(0);
    hpc_descendants_init();
    hpc_tail_init();
    hpc_sync_init();
    on_exit(on_exit_status, NULL);
    hpc_last_thread_init();
    hpc_heap_init();
    hpc_io_init();
    hpc_thread_priv *t = hpc_thread_alloc(-1, 0);
    if (t)
        hpc_process_begin(name, parent, descent, t);
out:
    errno = saved;
}

/* ------------------------------------------------------------- end */

/* Notes a -t window end that passed while no sample came to write it. */
static void note_window_end(void)
{
    const hpc_config *c = &hpc_P.cfg;
    if (c->tend_ns && hpc_now_ns() - hpc_P.start_ns >= c->tend_ns)
        hpc_note_limit(HPC_LIMIT_TIME_END, hpc_P.start_ns + c->tend_ns,
                       "end of the -t window: recording stopped");
}

void hpc_process_end(int reason, int status)
{
    HPC_GUARD_SCOPE;
    if (!hpc_P.active || __atomic_exchange_n(&hpc_P.ended, 1, __ATOMIC_ACQ_REL))
        return;
    hpc_points_stop();
    hpc_usage u;
    hpc_get_usage(&u); /* next to the main thread's last CPU time (its tail sample) */
    if (reason != HPC_END_EXEC)
        hpc_thread_end();
    if (hpc_P.end_hook)
        hpc_P.end_hook(0);
    note_window_end();
    hpc_stream *s = hpc_proc_lock();
    if (!s)
        return;
    hpc_write_sample_point_locked(s, HPC_SAMPLE_END, "end");
    hpc_record_proc_end(s, reason, status, &u);
    if (reason != HPC_END_EXEC) {
        hpc_P.active = 0;
        hpc_gate_update();
        hpc_stream_close(s);
    }
    hpc_proc_unlock();
    if (reason != HPC_END_EXEC)
        hpc_threads_close();
}

HPC_INTERPOSE void _exit(int status)
{
    hpc_real_init();
    hpc_process_end(HPC_END_EXIT, status);
    hpc_real._exit(status);
    __builtin_unreachable(); /* the table's pointer type does not say noreturn */
}

HPC_INTERPOSE void _Exit(int status)
{
    hpc_real_init();
    hpc_process_end(HPC_END_EXIT, status);
    hpc_real._Exit(status);
    __builtin_unreachable();
}
