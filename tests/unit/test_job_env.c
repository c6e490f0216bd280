/*
 * test_job_env.c - which rank, of how many, in which job (experiment/job_env.c), from
 * each launcher's variables alone (no Slurm or PMIx server is needed to set them):
 * Open MPI (the PMIx namespace as job), PMIx alone, Slurm's srun (JOB.STEP), PMI-2
 * (PMI_JOBID), Hydra (the job named by the parent hydra_pmi_proxy's control port: this
 * test re-runs itself as a process named hydra_pmi_proxy, whose child reads it), Open
 * MPI's variables winning over an enclosing Slurm allocation's, and nothing set.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exp_test.h"
#include "job_env.h"

static const char *const all_vars[] = {"OMPI_COMM_WORLD_RANK",
                                       "OMPI_COMM_WORLD_SIZE",
                                       "PMIX_NAMESPACE",
                                       "OMPI_MCA_ess_base_jobid",
                                       "PMIX_RANK",
                                       "PMIX_SIZE",
                                       "PMI_RANK",
                                       "PMI_SIZE",
                                       "PMI_JOBID",
                                       "SLURM_PROCID",
                                       "SLURM_STEP_NUM_TASKS",
                                       "SLURM_NTASKS",
                                       "SLURM_JOB_ID",
                                       "SLURM_STEP_ID",
                                       NULL};

static void clear(void)
{
    for (const char *const *v = all_vars; *v; v++)
        unsetenv(*v);
}

static void expect(const char *what, const char *launcher, long rank, long size, const char *job)
{
    hpc_job_env e;
    hpc_job_env_read(&e);
    CHECK((launcher == NULL) == (e.launcher == NULL) &&
              (!launcher || !strcmp(e.launcher, launcher)),
          "%s: launcher %s, want %s", what, e.launcher ? e.launcher : "(none)",
          launcher ? launcher : "(none)");
    CHECK(e.rank == rank && e.size == size, "%s: rank %ld size %ld, want %ld %ld", what, e.rank,
          e.size, rank, size);
    CHECK(!strcmp(e.job, job), "%s: job '%s', want '%s'", what, e.job, job);
}

/* As hydra_pmi_proxy: start a child that reads its parent (us) under Hydra's variables. */
static int as_proxy(void)
{
    pid_t pid = fork();
    if (pid == 0) {
        clear();
        setenv("PMI_RANK", "3", 1);
        setenv("PMI_SIZE", "4", 1);
        expect("Hydra", "Hydra", 3, 4, "hydra:node7:41033.2");
        _exit(exp_test_failures ? 1 : 0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--control-port"))
        return as_proxy();
    clear();
    expect("nothing", NULL, -1, -1, "");

    setenv("OMPI_COMM_WORLD_RANK", "2", 1);
    setenv("OMPI_COMM_WORLD_SIZE", "4", 1);
    setenv("PMIX_NAMESPACE", "prterun-node1-123@1", 1);
    setenv("PMIX_RANK", "2", 1);
    expect("Open MPI", "Open MPI", 2, 4, "prterun-node1-123@1");
    setenv("SLURM_PROCID", "0", 1); /* mpirun inside an allocation: its variables lose */
    setenv("SLURM_JOB_ID", "77", 1);
    setenv("SLURM_STEP_ID", "0", 1);
    expect("Open MPI in Slurm", "Open MPI", 2, 4, "prterun-node1-123@1");

    clear();
    setenv("PMIX_RANK", "5", 1);
    setenv("PMIX_SIZE", "8", 1);
    setenv("PMIX_NAMESPACE", "slurm.pmix.77.3", 1);
    expect("PMIx", "PMIx", 5, 8, "slurm.pmix.77.3");

    clear();
    setenv("SLURM_PROCID", "6", 1);
    setenv("SLURM_NTASKS", "16", 1);
    setenv("SLURM_STEP_NUM_TASKS", "7", 1);
    setenv("SLURM_JOB_ID", "77", 1);
    setenv("SLURM_STEP_ID", "3", 1);
    expect("Slurm srun", "Slurm", 6, 7, "77.3");
    unsetenv("SLURM_STEP_NUM_TASKS");
    unsetenv("SLURM_STEP_ID");
    expect("Slurm, no step", "Slurm", 6, 16, "77.0");

    clear();
    setenv("PMI_RANK", "1", 1);
    setenv("PMI_SIZE", "2", 1);
    setenv("PMI_JOBID", "77.4", 1);
    expect("PMI-2 (srun --mpi=pmi2)", "PMI", 1, 2, "77.4");

    clear();
    setenv("PMI_RANK", "x1", 1); /* not a number: no rank */
    expect("bad PMI_RANK", NULL, -1, -1, "");

    /* Hydra: re-run as "hydra_pmi_proxy --control-port node7:41033 --pgid 2" */
    pid_t pid = fork();
    if (pid == 0) {
        char *args[] = {"/usr/bin/hydra_pmi_proxy",
                        "--control-port",
                        "node7:41033",
                        "--rmk",
                        "user",
                        "--pgid",
                        "2",
                        "--proxy-id",
                        "0",
                        NULL};
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "Hydra child: status %d", st);
    return exp_test_done("test_job_env");
}
