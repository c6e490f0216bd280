/*
 * layout.c - choosing the job experiment directory, race-free across launchers, and
 * never through a symbolic link someone else planted.
 *
 * `mpirun -np 4 hpcollect ./x` starts four launchers at once; they must end up in one
 * prog.N.hpc. Under an exclusive flock on DIR/.hpcollect.lock, a launcher with a job id
 * looks for an experiment whose .job_id file holds the same id and joins it; otherwise
 * it creates the next free prog.N.hpc (or the -o name) and writes its id there before
 * the lock is released. Without a job id every launcher makes its own experiment.
 *
 * Everything is created relative to a descriptor of DIR (openat, mkdirat) with
 * O_NOFOLLOW: a symbolic link planted as the lock file or as the experiment's name is
 * refused (HPC_E_SYMLINK), never followed, and a directory is used only after fstat says
 * it is a real directory owned by us. DIR itself (the user's -d or the -o path's parent)
 * may be reached through links: the user chose it.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "experiment.h"

#define LOCK_FILE   ".hpcollect.lock"
#define JOB_ID_FILE ".job_id"

static int err_from_errno(void)
{
    return errno == ENOENT || errno == ENOTDIR ? HPC_E_NOTFOUND : HPC_E_IO;
}

/* Close fd keeping errno. */
static void close_keep(int fd)
{
    int e = errno;
    close(fd);
    errno = e;
}

/*
 * Open name inside dfd as a directory we own, without following a link. Returns the
 * descriptor, or -1 with the hpc_err in *err: HPC_E_SYMLINK for a link, HPC_E_NOTDIR for
 * anything else that is not a directory, HPC_E_NOTOURS for another user's directory.
 */
static int open_own_dir(int dfd, const char *name, int *err)
{
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        if (errno == ELOOP || errno == ENOTDIR) {
            int e = errno;
            bool link = fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
            errno = e;
            *err = link ? HPC_E_SYMLINK : HPC_E_NOTDIR;
        } else {
            *err = err_from_errno();
        }
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid()) {
        close_keep(fd);
        *err = HPC_E_NOTOURS;
        return -1;
    }
    return fd;
}

/* A directory stream of its own for the directory fd (a dup would share fd's offset). */
static DIR *dir_stream(int fd)
{
    int own = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = own >= 0 ? fdopendir(own) : NULL;
    if (!d && own >= 0)
        close_keep(own);
    return d;
}

/* Does the directory expfd hold a .job_id of exactly job_id? */
static bool job_id_matches(int expfd, const char *job_id)
{
    char buf[1024];
    int fd = openat(expfd, JOB_ID_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    size_t len = strlen(job_id);
    return n >= 0 && (size_t)n == len && memcmp(buf, job_id, len) == 0;
}

/* Is the directory dfd/name (ours, no link) the experiment of job_id? */
static bool is_job_of(int dfd, const char *name, const char *job_id)
{
    int err, fd = open_own_dir(dfd, name, &err);
    if (fd < 0)
        return false;
    bool yes = job_id_matches(fd, job_id);
    close(fd);
    return yes;
}

/* Write .job_id into a directory we just made (a fresh file: O_EXCL). */
static int job_id_write(int expfd, const char *job_id)
{
    int fd = openat(expfd, JOB_ID_FILE, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return HPC_E_IO;
    size_t len = strlen(job_id);
    ssize_t n = write(fd, job_id, len);
    int rc = close(fd);
    return n == (ssize_t)len && rc == 0 ? 0 : HPC_E_IO;
}

/* mkdir dfd/name and check what was made is our directory. Returns 1 made, 0 it existed
 * (errno EEXIST), or a negative hpc_err. */
static int make_dir(int dfd, const char *name)
{
    if (mkdirat(dfd, name, 0755) != 0)
        return errno == EEXIST ? 0 : err_from_errno();
    int err, fd = open_own_dir(dfd, name, &err); /* replaced between mkdir and here? */
    if (fd < 0)
        return err;
    close(fd);
    return 1;
}

/* N of "<base>.<N>.hpc", 0 if name is not of that form. */
static unsigned long exp_number(const char *name, const char *base)
{
    size_t b = strlen(base);
    if (strncmp(name, base, b) != 0 || name[b] != '.' || name[b + 1] < '1' || name[b + 1] > '9')
        return 0;
    char *end;
    unsigned long n = strtoul(name + b + 1, &end, 10);
    return strcmp(end, HPC_EXP_SUFFIX) == 0 ? n : 0;
}

/*
 * In dfd: join the experiment of job_id, or create <base>.<max N + 1>.hpc; its name goes
 * to leaf. Called with the lock held. Returns 1 created, 0 joined, or a negative hpc_err.
 */
static int numbered_create_or_join(int dfd, char *leaf, size_t cap, const char *base,
                                   const char *job_id)
{
    DIR *d = dir_stream(dfd);
    if (!d)
        return err_from_errno();
    unsigned long max = 0;
    int joined = 0;
    for (struct dirent *e; (e = readdir(d));) {
        unsigned long n = exp_number(e->d_name, base);
        if (!n)
            continue;
        if (n > max)
            max = n;
        if (job_id && !joined && is_job_of(dfd, e->d_name, job_id)) {
            joined = 1;
            snprintf(leaf, cap, "%s", e->d_name);
        }
    }
    closedir(d);
    if (joined)
        return 0;
    for (unsigned long n = max + 1;; n++) {
        if ((size_t)snprintf(leaf, cap, "%s.%lu%s", base, n, HPC_EXP_SUFFIX) >= cap) {
            errno = ENAMETOOLONG;
            return HPC_E_INVAL;
        }
        int rc = make_dir(dfd, leaf);
        if (rc != 0)
            return rc; /* made, or an error; 0: taken (maybe by a link), try the next */
    }
}

/* ------------------------------------------------------------ -O: replacing */

/* Remove everything in the directory fd (closed here), never following a link: a link
 * inside is removed itself. Returns 0 or -1 (errno). */
static int remove_contents(int fd)
{
    DIR *d = dir_stream(fd);
    close_keep(fd);
    if (!d)
        return -1;
    int rc = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        if (unlinkat(dirfd(d), e->d_name, 0) == 0)
            continue;
        if (errno != EISDIR && errno != EPERM) {
            rc = -1;
            continue;
        }
        int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0 || remove_contents(sub) != 0 || unlinkat(dirfd(d), e->d_name, AT_REMOVEDIR))
            rc = -1;
    }
    int e = errno;
    closedir(d);
    errno = e;
    return rc;
}

/* Is the directory fd an hpcollect experiment: job.hpe, or a sub-directory with
 * process.hpe (a job whose job.hpe was lost)? */
static bool is_experiment(int fd)
{
    struct stat st;
    if (fstatat(fd, HPC_JOB_FILE, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
        return true;
    DIR *d = dir_stream(fd);
    if (!d)
        return false;
    bool found = false;
    char path[NAME_MAX + 32];
    for (struct dirent *e; !found && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s", e->d_name, HPC_PROCESS_FILE);
        found = fstatat(fd, path, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
    }
    closedir(d);
    return found;
}

static bool is_empty_dir(int fd)
{
    DIR *d = dir_stream(fd);
    if (!d)
        return false;
    bool empty = true;
    for (struct dirent *e; empty && (e = readdir(d));)
        empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
    closedir(d);
    return empty;
}

/*
 * -o/-O NAME in dfd (the leaf name, ".hpc" already there). Called with the lock held.
 * An existing NAME is joined when it is this job's, taken when it is an empty directory
 * of ours, replaced with HPC_LAYOUT_OVERWRITE when it is an experiment of ours, and
 * refused otherwise. Returns 1 created, 0 joined, or a negative hpc_err.
 */
static int named_create_or_join(int dfd, const char *leaf, const char *job_id, unsigned flags)
{
    int rc = make_dir(dfd, leaf);
    if (rc != 0)
        return rc;
    int err, fd = open_own_dir(dfd, leaf, &err);
    if (fd < 0)
        return err;
    if (job_id && job_id_matches(fd, job_id)) {
        close(fd);
        return 0; /* another launcher of this job made it */
    }
    if (is_empty_dir(fd)) {
        close(fd);
        return 1;
    }
    if (!(flags & HPC_LAYOUT_OVERWRITE)) {
        close(fd);
        return HPC_E_EXISTS;
    }
    if (!is_experiment(fd)) {
        close(fd);
        return HPC_E_NOTEXP;
    }
    if (remove_contents(fd) != 0)
        return HPC_E_IO;
    return 1;
}

/* ------------------------------------------------------------------ entry */

static const char *prog_base(const char *prog)
{
    if (!prog || !*prog)
        return "experiment";
    const char *slash = strrchr(prog, '/');
    return slash && slash[1] ? slash + 1 : prog;
}

/* mkdir -p of path (relative to the cwd or absolute). Returns 0 or -1 (errno). */
static int make_parents(const char *path)
{
    char buf[PATH_MAX];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0755) != 0 && errno != EEXIST)
                return -1;
            *p = c;
            if (!c)
                return 0;
        }
    }
}

/*
 * Split -o NAME into the directory to create it in and its leaf (".hpc" appended). A bare
 * name goes into dir (-d, default "."); a name with '/' is a path of its own, whose
 * missing parents are made. Returns 0 or a negative hpc_err.
 */
static int split_name(const char *name, const char *dir, char *parent, size_t pcap, char *leaf,
                      size_t lcap, bool make)
{
    char buf[PATH_MAX];
    size_t n = strlen(name);
    while (n > 1 && name[n - 1] == '/')
        n--; /* "run1.hpc/" */
    if (n == 0 || n >= sizeof buf) {
        errno = n ? ENAMETOOLONG : EINVAL;
        return HPC_E_INVAL;
    }
    memcpy(buf, name, n);
    buf[n] = 0;
    char *slash = strrchr(buf, '/');
    const char *base = slash ? slash + 1 : buf;
    if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
        errno = EINVAL;
        return HPC_E_INVAL;
    }
    size_t b = strlen(base), s = strlen(HPC_EXP_SUFFIX);
    const char *suffix = b >= s && !strcmp(base + b - s, HPC_EXP_SUFFIX) ? "" : HPC_EXP_SUFFIX;
    int len = snprintf(leaf, lcap, "%s%s", base, suffix);
    if (len < 0 || (size_t)len >= lcap || len > NAME_MAX) {
        errno = ENAMETOOLONG;
        return HPC_E_INVAL;
    }
    if (!slash) {
        snprintf(parent, pcap, "%s", dir ? dir : ".");
        return 0;
    }
    if (slash == buf)
        slash++; /* "/run1.hpc": the root */
    *slash = 0;
    snprintf(parent, pcap, "%s", buf);
    return !make || make_parents(parent) == 0 ? 0 : err_from_errno();
}

/* -n of an existing directory NAME: taken (1), replaced (2), or refused. */
static int would_replace(int dfd, const char *leaf, unsigned flags)
{
    int err, fd = open_own_dir(dfd, leaf, &err);
    if (fd < 0)
        return err;
    int rc = is_empty_dir(fd)                  ? 1
             : !(flags & HPC_LAYOUT_OVERWRITE) ? HPC_E_EXISTS
             : is_experiment(fd)               ? 2
                                               : HPC_E_NOTEXP;
    close(fd);
    return rc;
}

/*
 * -n: what hpc_layout_job_dir would do, doing nothing. Returns 1 (would create, or take
 * an empty directory; path to out), 2 (-O would replace the experiment there), or the
 * hpc_err it would meet.
 */
static int dry_run(char *out, size_t cap, const char *dir, const char *name, const char *prog,
                   unsigned flags)
{
    char parent[PATH_MAX], leaf[NAME_MAX + 1];
    int rc = name ? split_name(name, dir, parent, sizeof parent, leaf, sizeof leaf, false) : 0;
    if (rc < 0)
        return rc;
    char absdir[PATH_MAX];
    const char *where = name ? parent : dir ? dir : ".";
    if (!realpath(where, absdir))
        snprintf(absdir, sizeof absdir, "%s", where); /* to be made */
    int dfd = open(absdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (name) {
        snprintf(out, cap, "%s%s%s", absdir, strcmp(absdir, "/") ? "/" : "", leaf);
        struct stat st;
        if (dfd < 0 || fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) != 0)
            rc = 1;
        else if (S_ISLNK(st.st_mode))
            rc = HPC_E_SYMLINK;
        else if (!S_ISDIR(st.st_mode))
            rc = HPC_E_NOTDIR;
        else
            rc = would_replace(dfd, leaf, flags);
    } else {
        unsigned long max = 0;
        DIR *d = dfd >= 0 ? dir_stream(dfd) : NULL;
        for (struct dirent *e; d && (e = readdir(d));) {
            unsigned long n = exp_number(e->d_name, prog_base(prog));
            max = n > max ? n : max;
        }
        if (d)
            closedir(d);
        snprintf(out, cap, "%s/%s.%lu%s", absdir, prog_base(prog), max + 1, HPC_EXP_SUFFIX);
        rc = 1;
    }
    if (dfd >= 0)
        close(dfd);
    return rc;
}

/* Open DIR/.hpcollect.lock (never through a link, only a regular file) and lock it.
 * Returns the descriptor or a negative hpc_err. */
static int lock_dir(int dfd)
{
    int lfd = openat(dfd, LOCK_FILE, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    struct stat st;
    if (lfd < 0)
        return errno == ELOOP ? HPC_E_SYMLINK : err_from_errno();
    if (fstat(lfd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(lfd);
        errno = EINVAL;
        return HPC_E_NOTREG;
    }
    while (flock(lfd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            close_keep(lfd);
            return HPC_E_IO;
        }
    }
    return lfd;
}

int hpc_layout_job_dir(char *out, size_t cap, const char *dir, const char *name, const char *prog,
                       const char *job_id, unsigned flags)
{
    char parent[PATH_MAX], absdir[PATH_MAX], leaf[NAME_MAX + 1], path[PATH_MAX + NAME_MAX + 2];
    if (!out || cap == 0 || (name && !*name)) {
        errno = EINVAL;
        return HPC_E_INVAL;
    }
    out[0] = 0;
    if (job_id && !*job_id)
        job_id = NULL;
    if (flags & HPC_LAYOUT_DRYRUN)
        return dry_run(out, cap, dir, name, prog, flags);
    int rc = name ? split_name(name, dir, parent, sizeof parent, leaf, sizeof leaf, true) : 0;
    if (rc < 0)
        return rc;
    if (!realpath(name ? parent : dir ? dir : ".", absdir))
        return err_from_errno();
    int dfd = open(absdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return err_from_errno();
    int lfd = lock_dir(dfd);
    if (lfd < 0) {
        snprintf(out, cap, "%s/%s", absdir, LOCK_FILE);
        close_keep(dfd);
        return lfd;
    }
    rc = name ? named_create_or_join(dfd, leaf, job_id, flags)
              : numbered_create_or_join(dfd, leaf, sizeof leaf, prog_base(prog), job_id);
    if (rc == 1 && job_id) {
        int err, efd = open_own_dir(dfd, leaf, &err);
        rc = efd < 0 ? err : job_id_write(efd, job_id);
        rc = rc == 0 ? 1 : rc;
        if (efd >= 0)
            close(efd);
    }
    snprintf(path, sizeof path, "%s%s%s", absdir, strcmp(absdir, "/") ? "/" : "", leaf);
    if (rc >= 0 && strlen(path) >= cap) {
        if (rc == 1) { /* nobody can use what we cannot name */
            int efd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (efd >= 0 && remove_contents(efd) == 0)
                unlinkat(dfd, leaf, AT_REMOVEDIR);
        }
        errno = ENAMETOOLONG;
        rc = HPC_E_INVAL;
    }
    int e = errno;
    close(lfd); /* releases the lock */
    close(dfd);
    errno = e;
    snprintf(out, cap, "%s", path); /* on failure too: names what was refused */
    return rc;
}
