/*
 * source_counter.c - each thread's group of counter events (-h), opened with
 * perf_event_open for the thread itself (pid 0, any cpu), the first counter leading the
 * group so the kernel schedules them together (and multiplexes them together when the PMU
 * is short of registers: time_enabled/time_running then say by how much). Hardware and
 * software events take exactly the same path; the launcher has probe-opened the group
 * already, so a failure here is rare (descriptors running out in a thread-heavy program).
 *
 * Signals are routed as for the perf clock (source_perf_clock.c): O_ASYNC, F_SETSIG
 * SIGPROF, F_SETOWN_EX to the thread; no ring buffer is mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector.h"
#include "source.h"

/* ------------------------------------------------------------------ parsing */

static int field_str(const char **p, char *out, size_t cap)
{
    size_t len = strcspn(*p, "|;");
    if (len >= cap)
        return -1;
    memcpy(out, *p, len);
    out[len] = 0;
    *p += len;
    if (**p == '|')
        (*p)++;
    return 0;
}

static int field_u64(const char **p, uint64_t *out)
{
    char buf[32], *end;
    if (field_str(p, buf, sizeof buf) != 0 || !buf[0])
        return -1;
    *out = strtoull(buf, &end, 10);
    return *end ? -1 : 0;
}

static int parse_one(const char **p, hpc_counter_def *d)
{
    uint64_t type, flags, bits, precise;
    memset(d, 0, sizeof *d);
    if (field_str(p, d->name, sizeof d->name) || field_str(p, d->spec, sizeof d->spec) ||
        field_u64(p, &type) || field_u64(p, &d->config) || field_u64(p, &d->config1) ||
        field_u64(p, &d->config2) || field_u64(p, &d->interval) || field_u64(p, &flags) ||
        field_str(p, d->unit, sizeof d->unit) || field_u64(p, &d->cpu_hz) || field_u64(p, &bits) ||
        field_u64(p, &precise))
        return -1;
    if (!d->name[0] || d->interval == 0)
        return -1;
    d->type = (uint32_t)type;
    d->flags = (uint32_t)flags;
    d->attr_bits = (uint32_t)bits;
    d->precise = (uint32_t)precise;
    return 0;
}

int hpc_counters_parse(const char *text, hpc_counter_def *defs, int max)
{
    int n = 0;
    for (const char *p = text; *p;) {
        if (n == max || parse_one(&p, &defs[n]) != 0 || (*p && *p != ';'))
            return -1;
        n++;
        if (*p == ';')
            p++;
    }
    return n;
}

/* ------------------------------------------------------------------ the group */

/* Counter fds may take at most half of the descriptor limit (as the perf clock's). */
static int fd_allowed(int fd)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return 1;
    return (rlim_t)fd < rl.rlim_cur / 2;
}

static int route_signal(int fd)
{
    struct f_owner_ex owner = {F_OWNER_TID, (pid_t)syscall(SYS_gettid)};
    if (fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0 ||
        fcntl(fd, F_SETSIG, HPC_CLOCK_SIGNAL) != 0 || fcntl(fd, F_SETOWN_EX, &owner) != 0)
        return -errno;
    return 0;
}

static void close_all(hpc_counter_group *g)
{
    for (int i = g->n - 1; i >= 0; i--)
        hpc_perf_close(g->fd[i], g->id[i]);
    g->n = 0;
}

int hpc_counters_open(hpc_thread_priv *t, char *note, size_t cap)
{
    hpc_counter_group *g = &t->ctr;
    const hpc_config *c = &hpc_P.cfg;
    g->n = 0;
    if (!c->ncounters)
        return 0;
    int rc = 0;
    hpc_fd_moment_begin();
    for (int i = 0; i < c->ncounters; i++) {
        struct perf_event_attr a;
        hpc_counter_attr(&c->counter[i], &a, i == 0);
        int fd =
            (int)syscall(SYS_perf_event_open, &a, 0, -1, i ? g->fd[0] : -1, PERF_FLAG_FD_CLOEXEC);
        int err = fd < 0 ? -errno : !fd_allowed(fd) ? -EMFILE : 0;
        if (!err && (err = route_signal(fd)) == 0) {
            g->id[g->n] = hpc_perf_id(fd);
            g->fd[g->n++] = fd;
            continue;
        }
        if (fd >= 0)
            close(fd);
        close_all(g);
        snprintf(note, cap, "counter %s: %s", c->counter[i].name, strerror(-err));
        rc = err;
        break;
    }
    hpc_fd_moment_end();
    return rc;
}

void hpc_counters_start(hpc_thread_priv *t)
{
    hpc_counter_group *g = &t->ctr;
    if (g->n == 0)
        return;
    memset(g->last_value, 0, sizeof g->last_value);
    memset(g->last_enabled, 0, sizeof g->last_enabled);
    memset(g->last_running, 0, sizeof g->last_running);
    if (ioctl(g->fd[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP) != 0 ||
        ioctl(g->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP) != 0)
        close_all(g);
}

void hpc_counters_stop(hpc_thread_priv *t)
{
    hpc_counter_group *g = &t->ctr;
    if (g->n && hpc_perf_id(g->fd[0]) == g->id[0])
        ioctl(g->fd[0], PERF_EVENT_IOC_DISABLE, PERF_IOC_FLAG_GROUP);
    close_all(g);
}

void hpc_counters_abandon(hpc_thread_priv *t)
{
    close_all(&t->ctr);
}

void hpc_counters_write_defs(hpc_stream *s)
{
    const hpc_config *c = &hpc_P.cfg;
    for (int i = 0; i < c->ncounters; i++) {
        const hpc_counter_def *d = &c->counter[i];
        hpc_rec_counter_def r = {
            .index = (uint64_t)i,
            .name = hpc_cstr(d->name),
            .spec = hpc_cstr(d->spec),
            .perf_type = d->type,
            .perf_config = d->config,
            .interval = d->interval,
            .flags = d->flags,
            .unit = hpc_cstr(d->unit),
            .cpu_hz = d->cpu_hz,
        };
        hpc_write_counter_def(s, &r);
    }
}
