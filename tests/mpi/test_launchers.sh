#!/bin/bash
# timeout: 60
# One job experiment under each launcher, from its variables alone (there is no Slurm or
# PMIx server here; Open MPI's mpirun and Hydra's mpiexec run for real in test_traffic):
# two hpcollect started at once with srun's variables (SLURM_PROCID, SLURM_JOB_ID,
# SLURM_STEP_ID ...) make one experiment with rank0 and rank1 and job id JOB.STEP; the
# next step of the same job gets the next experiment; the same with PMIx's (PMIX_RANK,
# PMIX_NAMESPACE); mpirun's variables win over an enclosing allocation's.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
PROG="$PROGS/mpi/plain"

# job VAR=VALUE...: ranks 0 and 1 of a job at once; each rank's own variables are added
job() {
    local rank_var=$1
    shift
    for r in 0 1; do
        env "$@" "$rank_var=$r" "$HPCOLLECT" -q "$PROG" >/dev/null &
    done
    wait
}
# one_exp NAME JOBID: NAME holds rank0 and rank1 and the job id
one_exp() {
    [ -d "$1" ] || fail "$1 missing: $(ls -d ./*.hpc)"
    [ "$(cd "$1" && ls -d rank* | tr '\n' ' ')" = "rank0 rank1 " ] ||
        fail "$1: $(cd "$1" && ls -d rank* main* 2>/dev/null | tr '\n' ' ')"
    [ "$(cat "$1/.job_id")" = "$2" ] || fail "$1: job id $(cat "$1/.job_id"), want $2"
}
slurm=(SLURM_JOB_ID=4242 SLURM_STEP_NUM_TASKS=2 SLURM_NTASKS=2)
job SLURM_PROCID "${slurm[@]}" SLURM_STEP_ID=0
job SLURM_PROCID "${slurm[@]}" SLURM_STEP_ID=1
one_exp plain.1.hpc 4242.0
one_exp plain.2.hpc 4242.1
[ "$(ls -d ./*.hpc | wc -l)" = 2 ] || fail "two srun steps: $(ls -d ./*.hpc)"
note "ok: srun's variables: one experiment per job step"

rm -rf ./*.hpc
job PMIX_RANK PMIX_NAMESPACE=prterun-vm-99@1 PMIX_SIZE=2
one_exp plain.1.hpc prterun-vm-99@1
note "ok: PMIx's variables"

rm -rf ./*.hpc
job OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE=2 PMIX_NAMESPACE=ompi-7 SLURM_PROCID=0 \
    SLURM_JOB_ID=4242 SLURM_STEP_ID=0
one_exp plain.1.hpc ompi-7
note "ok: mpirun inside an allocation: Open MPI's variables decide"
