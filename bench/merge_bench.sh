#!/bin/bash
# merge_bench.sh MKJOB HPMERGE [RUNS] - hpmerge speed and memory (make bench-merge).
#
# Synthetic jobs written by tests/merge/progs/mkjob.c (MPI calls with messages and
# collectives, OpenMP regions with barriers, clock samples inside MPI calls and loops,
# so part of every location's events come out of stream order):
#   8 ranks x 1 M events     (1 thread per rank)
#   8 ranks x 4 M events     the same, 4x longer: memory must not grow
#   256 ranks x 40 k events  (1 thread per rank)
# Each is merged RUNS times (default 3) serially; the median is reported: events written
# per second of CPU time (user + system: "on one core", independent of the other users
# of the machine) and of wall time, and the peak anonymous memory hpmerge --stats
# measures. Then once with `mpirun -np 2` (the machine has 2 cores).
# Inputs and outputs live in a tmpfs (/dev/shm) so that the disk does not set the pace.
set -eu
MKJOB=$1 HPMERGE=$2 RUNS=${3:-3}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /dev/shm/hpmerge-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

stat_of() { # stat_of FIELD FILE: a number from the --stats line
    case $1 in
    events) sed -n 's/.*, \([0-9]*\) events written.*/\1/p' "$2" ;;
    cpu) sed -n 's/.* cpu \([0-9.]*\) s.*/\1/p' "$2" ;;
    wall) sed -n 's/.* wall \([0-9.]*\) s.*/\1/p' "$2" ;;
    anon) sed -n 's/.*peak anon memory \([0-9]*\) kB.*/\1/p' "$2" ;;
    esac
}
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

run() { # run NAME RANKS ITERS
    local name=$1 ranks=$2 iters=$3 exp="$WORK/$1.hpc"
    "$MKJOB" "$exp" --ranks "$ranks" --threads 1 --iters "$iters" --samples 4
    local cpus=() walls=() anons=() events=0
    for r in $(seq "$RUNS"); do
        "$HPMERGE" -q --stats --no-progress "$exp" 2>"$WORK/stats"
        events=$(stat_of events "$WORK/stats")
        cpus+=("$(stat_of cpu "$WORK/stats")")
        walls+=("$(stat_of wall "$WORK/stats")")
        anons+=("$(stat_of anon "$WORK/stats")")
    done
    local cpu wall anon
    cpu=$(printf '%s\n' "${cpus[@]}" | median)
    wall=$(printf '%s\n' "${walls[@]}" | median)
    anon=$(printf '%s\n' "${anons[@]}" | median)
    local input
    input=$(du -sm "$exp" --exclude=otf2 | cut -f1)
    printf '| %-22s | %9d | %6s MB | %7.2f | %7.2f | %8.2f | %8.2f | %7d |\n' "$name" "$events" \
        "$input" "$cpu" "$wall" "$(echo "$events / $cpu / 1000000" | bc -l)" \
        "$(echo "$events / $wall / 1000000" | bc -l)" "$((anon / 1024))"
    if command -v mpirun >/dev/null; then
        rm -rf "$exp/otf2"
        local t0 t1
        t0=$(date +%s.%N)
        mpirun --oversubscribe -np 2 "$HPMERGE" -q --no-progress "$exp"
        t1=$(date +%s.%N)
        printf '|   (mpirun -np 2)       |           |           |         | %7.2f |          | %8.2f |         |\n' \
            "$(echo "$t1 - $t0" | bc -l)" "$(echo "$events / ($t1 - $t0) / 1000000" | bc -l)"
    fi
    rm -rf "$exp"
}

echo "hpmerge benchmark, $(date -u +%Y-%m-%d), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| job                    | events    | input     | cpu s   | wall s  | M ev/s cpu | M ev/s wall | anon MB |"
echo "|------------------------|-----------|-----------|---------|---------|----------|----------|---------|"
run "8 ranks x 1 M events" 8 24400
run "8 ranks x 4 M events" 8 97600
run "256 ranks x 40 k events" 256 976
