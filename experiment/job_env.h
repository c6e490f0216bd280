/*
 * job_env.h - which rank am I, of how many, in which job: what the MPI launcher told
 * this process in its environment. The one place that knows the launchers' variables;
 * the launcher (experiment name, sub-experiment name), the collector (proc_begin), the
 * MPI wrappers (the launcher's rank next to MPI_COMM_WORLD's) and hpmerge (whether it
 * runs under a launcher) all ask here.
 *
 *   launcher        rank                  size                    job id
 *   Open MPI        OMPI_COMM_WORLD_RANK  OMPI_COMM_WORLD_SIZE    PMIX_NAMESPACE, else
 *                                                                 OMPI_MCA_ess_base_jobid
 *   PMIx (prterun,  PMIX_RANK             PMIX_SIZE               PMIX_NAMESPACE
 *   srun --mpi=pmix)
 *   Hydra (MPICH,   PMI_RANK              PMI_SIZE                "hydra:HOST:PORT.PGID": the
 *   Intel MPI)                                                    control port of mpiexec and
 *                                                                 the process group, from the
 *                                                                 parent hydra_pmi_proxy's
 *                                                                 command line
 *   PMI-2 (srun     PMI_RANK              PMI_SIZE                PMI_JOBID, else Slurm's
 *   --mpi=pmi2)
 *   Slurm (srun)    SLURM_PROCID          SLURM_STEP_NUM_TASKS,   "JOB.STEP" (SLURM_JOB_ID,
 *                                         else SLURM_NTASKS       SLURM_STEP_ID)
 *
 * The first launcher in this order that gives a rank wins, and the job id comes from the
 * same launcher: a Slurm allocation's variables are inherited by everything started in
 * it (mpirun's or mpiexec's ranks included), so they count only when nothing else does.
 * Hydra puts no job id into the environment; the proxy that started us is named by the
 * control port its mpiexec listens on, shared by every proxy of the job, on every node.
 */
#ifndef HPC_JOB_ENV_H
#define HPC_JOB_ENV_H

#ifndef HPC_API
#define HPC_API
#endif

typedef struct hpc_job_env {
    const char *launcher; /* "Open MPI", "PMIx", "Hydra", "PMI", "Slurm"; NULL: none */
    long rank;            /* -1 when not announced */
    long size;            /* -1 when not announced */
    char job[256];        /* id the job's processes share; "" when none is known */
} hpc_job_env;

/* Fill e from the environment (and, under Hydra, the parent's /proc/PID/cmdline). Not
 * signal-safe (getenv, open); call it at start-up. */
HPC_API void hpc_job_env_read(hpc_job_env *e);

#endif
