/*
 * layout.c - choosing the job experiment directory, race-free across launchers.
 *
 * `mpirun -np 4 hpcollect ./x` starts four launchers at once; they must end up in one
 * prog.N.hpc. Under an exclusive flock on DIR/.hpcollect.lock, a launcher with a job id
 * looks for an experiment whose .job_id file holds the same id and joins it; otherwise
 * it creates the next free prog.N.hpc and writes its id there before the lock is
 * released. Without a job id every launcher makes its own experiment.
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

/* Does exp/.job_id hold exactly job_id? */
static bool job_id_matches(const char *exp, const char *job_id)
{
    char path[PATH_MAX + 80], buf[1024];
    if (hpc_path_join(path, sizeof path, exp, JOB_ID_FILE) < 0)
        return false;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    size_t len = strlen(job_id);
    return n >= 0 && (size_t)n == len && memcmp(buf, job_id, len) == 0;
}

static int job_id_write(const char *exp, const char *job_id)
{
    char path[PATH_MAX + 80];
    if (hpc_path_join(path, sizeof path, exp, JOB_ID_FILE) < 0)
        return -1;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    size_t len = strlen(job_id);
    ssize_t n = write(fd, job_id, len);
    int rc = close(fd);
    return n == (ssize_t)len && rc == 0 ? 0 : -1;
}

static int unlink_job_id(const char *exp)
{
    char path[PATH_MAX + 80];
    return hpc_path_join(path, sizeof path, exp, JOB_ID_FILE) < 0 ? -1 : unlink(path);
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
 * In dir: join the experiment of job_id, or create <base>.<max N + 1>.hpc. Called with
 * the lock held. Returns 1 created, 0 joined, or a negative hpc_err.
 */
static int numbered_create_or_join(char *path, size_t cap, const char *dir, const char *base,
                                   const char *job_id)
{
    DIR *d = opendir(dir);
    if (!d)
        return err_from_errno();
    unsigned long max = 0;
    struct dirent *e;
    int joined = 0;
    while ((e = readdir(d))) {
        unsigned long n = exp_number(e->d_name, base);
        if (!n)
            continue;
        if (n > max)
            max = n;
        if (job_id && !joined)
            joined = hpc_path_join(path, cap, dir, e->d_name) > 0 && job_id_matches(path, job_id);
    }
    closedir(d);
    if (joined)
        return 0;
    for (unsigned long n = max + 1;; n++) {
        if ((size_t)snprintf(path, cap, "%s/%s.%lu%s", dir, base, n, HPC_EXP_SUFFIX) >= cap) {
            errno = ENAMETOOLONG;
            return HPC_E_INVAL;
        }
        if (mkdir(path, 0755) == 0)
            return 1;
        if (errno != EEXIST)
            return err_from_errno();
    }
}

/* -o NAME: used as given (".hpc" appended if missing), relative to dir. */
static int named_create_or_join(char *path, size_t cap, const char *dir, const char *name)
{
    size_t n = strlen(name), s = strlen(HPC_EXP_SUFFIX);
    const char *suffix = n >= s && strcmp(name + n - s, HPC_EXP_SUFFIX) == 0 ? "" : HPC_EXP_SUFFIX;
    int len = name[0] == '/' ? snprintf(path, cap, "%s%s", name, suffix)
                             : snprintf(path, cap, "%s/%s%s", dir, name, suffix);
    if (len < 0 || (size_t)len >= cap) {
        errno = ENAMETOOLONG;
        return HPC_E_INVAL;
    }
    if (mkdir(path, 0755) == 0)
        return 1;
    struct stat st;
    if (errno == EEXIST && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
        return 0; /* a rerun into the same experiment, or another launcher of the job */
    if (errno == EEXIST)
        errno = ENOTDIR;
    return err_from_errno();
}

static const char *prog_base(const char *prog)
{
    if (!prog || !*prog)
        return "experiment";
    const char *slash = strrchr(prog, '/');
    return slash && slash[1] ? slash + 1 : prog;
}

int hpc_layout_job_dir(char *out, size_t cap, const char *dir, const char *name, const char *prog,
                       const char *job_id)
{
    char absdir[PATH_MAX], path[PATH_MAX + 64], lock[PATH_MAX + 32];
    if (!out || cap == 0 || (name && !*name)) {
        errno = EINVAL;
        return HPC_E_INVAL;
    }
    if (job_id && !*job_id)
        job_id = NULL;
    if (!realpath(dir ? dir : ".", absdir))
        return err_from_errno();
    snprintf(lock, sizeof lock, "%s/%s", absdir, LOCK_FILE);
    int lfd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (lfd < 0)
        return err_from_errno();
    while (flock(lfd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            int e = errno;
            close(lfd);
            errno = e;
            return HPC_E_IO;
        }
    }
    int rc = name ? named_create_or_join(path, sizeof path, absdir, name)
                  : numbered_create_or_join(path, sizeof path, absdir, prog_base(prog), job_id);
    if (rc == 1 && job_id && job_id_write(path, job_id) != 0)
        rc = HPC_E_IO;
    if (rc >= 0 && strlen(path) >= cap) {
        if (rc == 1 && (!job_id || unlink_job_id(path) == 0))
            rmdir(path); /* nobody can use what we cannot name */
        errno = ENAMETOOLONG;
        rc = HPC_E_INVAL;
    }
    int e = errno;
    close(lfd); /* releases the lock */
    errno = e;
    if (rc < 0)
        return rc;
    strcpy(out, path);
    return rc;
}
