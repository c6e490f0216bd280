/*
 * test_exp_layout.c - naming job experiment directories: four launchers of one job
 * started at the same moment make exactly one directory; distinct job ids and runs
 * without an id get distinct numbers; -o NAME is used as given, as a bare name or a
 * path (missing parents made); an existing experiment is refused, replaced with -O
 * (only an experiment), joined by its own job; planted symbolic links (the lock file, the
 * experiment's name) are refused and never followed; -n makes nothing.
 */
#include <dirent.h>
#include <stdbool.h>
#include <sys/wait.h>

#include "exp_test.h"

/* Run n children that call hpc_layout_job_dir at once (released together by closing a
 * pipe); collect their results and paths. */
static void race(unsigned n, const char *dir, const char *const *job_ids, int *created,
                 char paths[][1200])
{
    int go[2];
    REQUIRE(pipe(go) == 0, "pipe");
    int outs[8][2];
    pid_t pids[8];
    for (unsigned i = 0; i < n; i++) {
        REQUIRE(pipe(outs[i]) == 0, "pipe");
        pids[i] = fork();
        REQUIRE(pids[i] >= 0, "fork");
        if (pids[i] == 0) {
            char c, out[1200];
            close(go[1]);
            (void)!read(go[0], &c, 1); /* wait for the start */
            int rc =
                hpc_layout_job_dir(out, sizeof out, dir, NULL, "/usr/bin/solver", job_ids[i], 0);
            dprintf(outs[i][1], "%d %s", rc, rc >= 0 ? out : "-");
            _exit(0);
        }
        close(outs[i][1]);
    }
    close(go[0]);
    close(go[1]); /* go */
    for (unsigned i = 0; i < n; i++) {
        char buf[1300] = {0};
        ssize_t len = read(outs[i][0], buf, sizeof buf - 1);
        close(outs[i][0]);
        waitpid(pids[i], NULL, 0);
        created[i] = -100;
        paths[i][0] = 0;
        if (len > 0)
            sscanf(buf, "%d %1199s", &created[i], paths[i]);
    }
}

static unsigned count_dirs(const char *dir, const char *prefix)
{
    unsigned n = 0;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void test_one_job(const char *dir)
{
    const char *ids[4] = {"job-A", "job-A", "job-A", "job-A"};
    int created[4];
    char paths[4][1200];
    race(4, dir, ids, created, paths);
    int made = 0;
    for (unsigned i = 0; i < 4; i++) {
        CHECK(created[i] == 0 || created[i] == 1, "launcher %u: %d", i, created[i]);
        made += created[i] == 1;
        CHECK(strcmp(paths[i], paths[0]) == 0, "launcher %u in %s, launcher 0 in %s", i, paths[i],
              paths[0]);
    }
    CHECK_EQ(made, 1);
    CHECK_EQ(count_dirs(dir, "solver."), 1);
    CHECK(strstr(paths[0], "/solver.1.hpc") != NULL && paths[0][0] == '/', "path %s", paths[0]);
}

static void test_distinct_jobs(const char *dir)
{
    const char *ids[4] = {"job-B", "job-C", NULL, NULL};
    int created[4];
    char paths[4][1200];
    race(4, dir, ids, created, paths);
    for (unsigned i = 0; i < 4; i++) {
        CHECK_EQ(created[i], 1);
        for (unsigned j = 0; j < i; j++)
            CHECK(strcmp(paths[i], paths[j]) != 0, "distinct: %s", paths[i]);
    }
    CHECK_EQ(count_dirs(dir, "solver."), 5); /* 1 from before + 4 */
    char p[1300];
    snprintf(p, sizeof p, "%s/solver.5.hpc", dir);
    CHECK(exp_test_file_size(p) >= 0, "numbers 2..5 were taken (%s)", p);
    /* job-A again joins its experiment, not a new one */
    char out[1200];
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, NULL, "solver", "job-A", 0), 0);
    CHECK(strstr(out, "/solver.1.hpc") != NULL, "joined %s", out);
}

static void touch(const char *dir, const char *name)
{
    char p[1300];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    REQUIRE(f != NULL, "create %s", p);
    fclose(f);
}

static bool exists(const char *dir, const char *name)
{
    char p[1300];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0;
}

static void test_named(const char *dir)
{
    char out[1200], name[1300];
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "mine", "solver", NULL, 0), 1);
    CHECK(strstr(out, "/mine.hpc") != NULL, "suffix appended: %s", out);
    /* still empty: taken as it is */
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "mine.hpc", "solver", NULL, 0), 1);
    CHECK(strstr(out, "/mine.hpc") != NULL && !strstr(out, ".hpc.hpc"), "as given: %s", out);
    /* an experiment now: refused without -O, replaced with it */
    touch(out, HPC_JOB_FILE);
    mkdir(exp_test_path("layout/mine.hpc/main"), 0755);
    touch(exp_test_path("layout/mine.hpc/main"), HPC_PROCESS_FILE);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "mine.hpc", "solver", NULL, 0), HPC_E_EXISTS);
    CHECK(strstr(out, "/mine.hpc") != NULL, "the refusal names it: %s", out);
    CHECK(exists(out, "main/" HPC_PROCESS_FILE), "refused: nothing removed");
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "mine", "solver", NULL, HPC_LAYOUT_OVERWRITE),
             1);
    CHECK(!exists(out, HPC_JOB_FILE) && !exists(out, "main"), "-O emptied %s", out);
    /* -O replaces only experiments */
    mkdir(exp_test_path("layout/notexp.hpc"), 0755);
    touch(exp_test_path("layout/notexp.hpc"), "thesis.tex");
    CHECK_EQ(
        hpc_layout_job_dir(out, sizeof out, dir, "notexp", "solver", NULL, HPC_LAYOUT_OVERWRITE),
        HPC_E_NOTEXP);
    CHECK(exists(exp_test_path("layout/notexp.hpc"), "thesis.tex"),
          "-O left a non-experiment alone");
    touch(dir, "plain.hpc");
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "plain", "solver", NULL, 0), HPC_E_NOTDIR);
    /* the experiment of the same job is joined */
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "job.hpc", "solver", "job-J", 0), 1);
    touch(out, HPC_JOB_FILE);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "job.hpc", "solver", "job-J", 0), 0);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "job.hpc", "solver", "job-J",
                                HPC_LAYOUT_OVERWRITE),
             0);
    CHECK(exists(out, HPC_JOB_FILE), "-O of the own job's experiment joins, removes nothing");
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "job.hpc", "solver", "job-K", 0),
             HPC_E_EXISTS);

    /* paths: relative to the cwd or absolute, -d does not apply, parents are made */
    snprintf(name, sizeof name, "%s/deep/er/run1.hpc", dir);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, "/nonexistent", name, "solver", NULL, 0), 1);
    CHECK(strstr(out, "/layout/deep/er/run1.hpc") != NULL && exists(out, "."), "absolute: %s", out);
    REQUIRE(chdir(dir) == 0, "chdir");
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, NULL, "rel/run2", "solver", NULL, 0), 1);
    CHECK(out[0] == '/' && strstr(out, "/layout/rel/run2.hpc") != NULL, "relative: %s", out);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, NULL, "rel/run2.hpc/", "solver", NULL, 0), 1);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, NULL, "/run3.hpc/..", "solver", NULL, 0),
             HPC_E_INVAL);

    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, exp_test_path("no/such/dir"), NULL, "x", NULL, 0),
             HPC_E_NOTFOUND);
    CHECK_EQ(hpc_layout_job_dir(out, 10, dir, NULL, "solver", NULL, 0), HPC_E_INVAL);
}

/* Planted links: refused with HPC_E_SYMLINK, nothing created where they point. */
static void test_symlinks(const char *base)
{
    char dir[1200], out[1200], victim[1200];
    snprintf(dir, sizeof dir, "%s/links", base);
    snprintf(victim, sizeof victim, "%s/victim", base);
    mkdir(dir, 0755);
    mkdir(victim, 0755);
    /* NAME.hpc -> a directory elsewhere */
    char link[1300];
    snprintf(link, sizeof link, "%s/planted.hpc", dir);
    REQUIRE(symlink(victim, link) == 0, "symlink %s", link);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "planted", "x", NULL, 0), HPC_E_SYMLINK);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "planted", "x", NULL, HPC_LAYOUT_OVERWRITE),
             HPC_E_SYMLINK);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "planted", "x", "job-L", 0), HPC_E_SYMLINK);
    CHECK(!exists(victim, ".job_id"), "nothing written through the link");
    /* a numbered name taken by a link is skipped, never joined */
    snprintf(link, sizeof link, "%s/x.1.hpc", dir);
    REQUIRE(symlink(victim, link) == 0, "symlink %s", link);
    FILE *f = fopen(exp_test_path("victim/.job_id"), "w");
    REQUIRE(f != NULL, "job id");
    fputs("job-L", f);
    fclose(f);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, NULL, "x", "job-L", 0), 1);
    CHECK(strstr(out, "/links/x.2.hpc") != NULL, "next free number, not the link: %s", out);
    /* the lock file as a link to a file that must not be created */
    char ldir[1200], target[1300];
    snprintf(ldir, sizeof ldir, "%s/lockdir", base);
    mkdir(ldir, 0755);
    snprintf(link, sizeof link, "%s/.hpcollect.lock", ldir);
    snprintf(target, sizeof target, "%s/created_by_lock", victim);
    REQUIRE(symlink(target, link) == 0, "symlink %s", link);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, ldir, NULL, "x", NULL, 0), HPC_E_SYMLINK);
    CHECK(strstr(out, "/.hpcollect.lock") != NULL, "the refusal names the lock: %s", out);
    CHECK(!exists(victim, "created_by_lock"), "the lock link was not followed");
    CHECK(!exists(ldir, "x.1.hpc"), "nothing made beside a planted lock");
    /* a FIFO as the lock: refused, not opened for a wait */
    snprintf(ldir, sizeof ldir, "%s/fifodir", base);
    mkdir(ldir, 0755);
    snprintf(link, sizeof link, "%s/.hpcollect.lock", ldir);
    REQUIRE(mkfifo(link, 0644) == 0, "mkfifo");
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, ldir, NULL, "x", NULL, 0), HPC_E_NOTREG);
    /* a stream file planted as a link: not created through it */
    hpc_stream s;
    snprintf(link, sizeof link, "%s/t0.hpe", dir);
    snprintf(target, sizeof target, "%s/stream_target", victim);
    REQUIRE(symlink(target, link) == 0, "symlink %s", link);
    errno = 0;
    CHECK_EQ(hpc_stream_create(&s, link, HPC_STREAM_THREAD, 0, 0, NULL, 0), HPC_E_IO);
    CHECK(errno == ELOOP && !exists(victim, "stream_target"), "stream through a link: errno %d",
          errno);
}

/* -n: names what would be made, makes nothing (not even the lock file). */
static void test_dry_run(const char *base)
{
    char dir[1200], out[1200];
    snprintf(dir, sizeof dir, "%s/dry", base);
    mkdir(dir, 0755);
    mkdir(exp_test_path("dry/prog.4.hpc"), 0755);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, NULL, "prog", NULL, HPC_LAYOUT_DRYRUN), 1);
    CHECK(strstr(out, "/dry/prog.5.hpc") != NULL, "next number: %s", out);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "prog.4", "prog", NULL, HPC_LAYOUT_DRYRUN),
             1); /* empty: taken as it is */
    touch(exp_test_path("dry/prog.4.hpc"), HPC_JOB_FILE);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "prog.4", "prog", NULL, HPC_LAYOUT_DRYRUN),
             HPC_E_EXISTS);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "a/b/c", "prog", NULL, HPC_LAYOUT_DRYRUN), 1);
    CHECK(!exists(dir, "prog.5.hpc") && !exists(dir, ".hpcollect.lock") && !exists(dir, "a"),
          "the dry run made nothing");
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "prog.4", "prog", NULL,
                                HPC_LAYOUT_DRYRUN | HPC_LAYOUT_OVERWRITE),
             2);
    CHECK(exists(exp_test_path("dry/prog.4.hpc"), HPC_JOB_FILE), "-n -O removed nothing");
    mkdir(exp_test_path("dry/other.hpc"), 0755);
    touch(exp_test_path("dry/other.hpc"), "notes.txt");
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "other", "prog", NULL,
                                HPC_LAYOUT_DRYRUN | HPC_LAYOUT_OVERWRITE),
             HPC_E_NOTEXP);
}

int main(void)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/layout", exp_test_dir());
    mkdir(dir, 0755);
    test_one_job(dir);
    test_distinct_jobs(dir);
    test_named(dir);
    test_symlinks(exp_test_dir());
    test_dry_run(exp_test_dir());
    return exp_test_done("test_exp_layout");
}
