/*
 * test_exp_layout.c - naming job experiment directories: four launchers of one job
 * started at the same moment make exactly one directory; distinct job ids and runs
 * without an id get distinct numbers; -o NAME is used as given.
 */
#include <dirent.h>
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
            int rc = hpc_layout_job_dir(out, sizeof out, dir, NULL, "/usr/bin/solver", job_ids[i]);
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
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, NULL, "solver", "job-A"), 0);
    CHECK(strstr(out, "/solver.1.hpc") != NULL, "joined %s", out);
}

static void test_named(const char *dir)
{
    char out[1200];
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "mine", "solver", NULL), 1);
    CHECK(strstr(out, "/mine.hpc") != NULL, "suffix appended: %s", out);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, dir, "mine.hpc", "solver", NULL), 0);
    CHECK(strstr(out, "/mine.hpc") != NULL && !strstr(out, ".hpc.hpc"), "as given: %s", out);
    CHECK_EQ(hpc_layout_job_dir(out, sizeof out, exp_test_path("no/such/dir"), NULL, "x", NULL),
             HPC_E_NOTFOUND);
    CHECK_EQ(hpc_layout_job_dir(out, 10, dir, NULL, "solver", NULL), HPC_E_INVAL);
}

int main(void)
{
    char dir[1200];
    snprintf(dir, sizeof dir, "%s/layout", exp_test_dir());
    mkdir(dir, 0755);
    test_one_job(dir);
    test_distinct_jobs(dir);
    test_named(dir);
    return exp_test_done("test_exp_layout");
}
