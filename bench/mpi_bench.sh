#!/bin/bash
# mpi_bench.sh - time added per MPI call by hpcollect's MPI wrappers (counting and
# tracing on), as ratios to the plain run, over ROUNDS alternating runs of each:
#
#   plain     mpirun -np P mpi_overhead MODE N
#   traced    mpirun -np P hpcollect MODE N            (defaults: -m on, clock profiling)
#   m-off     mpirun -np P hpcollect -m off MODE N     (wrappers only mark samples)
#
# MODE pingpong (2 ranks, 4 calls per round trip), calls (1 rank, MPI_Comm_rank),
# requests (1 rank, MPI_Irecv + MPI_Isend + MPI_Waitall to itself). Each run reports the
# best of 15 timed loops; the table gives the median over the rounds and the time added
# per MPI call: (traced - plain) / calls per op.
#
# usage: bench/mpi_bench.sh PATH/TO/mpi_overhead [ROUNDS]     (make bench-mpi)
#        MPIRUN=mpiexec.mpich bench/mpi_bench.sh PATH/TO/mpich/mpi_overhead   (MPICH)
set -eu
BENCH=$1
ROUNDS=${2:-7}
BIN=${HPC_BIN:-$(dirname "$0")/../bin}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# run NP CONDITION MODE N: print ns/op
run() {
    local np=$1 cond=$2 mode=$3 n=$4 pre=()
    case $cond in
    traced) pre=("$BIN/hpcollect" -q -d "$work" -o t.hpc) ;;
    m-off) pre=("$BIN/hpcollect" -q -m off -d "$work" -o t.hpc) ;;
    esac
    rm -rf "$work/t.hpc"
    case ${MPIRUN:-mpirun} in
    mpirun) mpirun --oversubscribe -np "$np" "${pre[@]}" "$BENCH" "$mode" "$n" ;;
    *) "$MPIRUN" -n "$np" "${pre[@]}" "$BENCH" "$mode" "$n" ;;
    esac | awk '{print $3, $4}'
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }

printf '| mode | calls/op | plain ns/op | traced ns/op | ratio | added ns/call | -m off ns/op | added ns/call (-m off) | tracing ns/call (traced - m-off) |\n'
printf '|---|---|---|---|---|---|---|---|---|\n'
for spec in "pingpong 2 20000" "calls 1 200000" "requests 1 50000"; do
    set -- $spec
    mode=$1 np=$2 n=$3
    : >"$work/plain" >"$work/traced" >"$work/m-off"
    for ((i = 0; i < ROUNDS; i++)); do
        for cond in plain traced m-off; do
            read -r ns per < <(run "$np" "$cond" "$mode" "$n")
            echo "$ns" >>"$work/$cond"
        done
    done
    p=$(median <"$work/plain") t=$(median <"$work/traced") o=$(median <"$work/m-off")
    awk -v m="$mode" -v c="$per" -v p="$p" -v t="$t" -v o="$o" 'BEGIN {
        printf "| %s | %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.1f | %.1f |\n",
               m, c, p, t, t / p, (t - p) / c, o, (o - p) / c, (t - o) / c }'
done
