#!/bin/bash
# merge_scale.sh MKJOB HPMERGE [SIZES] [KS] [RUNS] - hpmerge's time and memory per merge
# rank as the job grows (ranks x 2 threads, 100 iterations: about 5 300 events per rank)
# and as merge ranks are added (make bench-merge-scale).
#
# For each job size N (default 256 1024 4096), RUNS rounds (default 1) of one merge per K
# (default 1 2 4, in turn, so that a change of load hits every K alike; K > 1 runs
# `mpirun --oversubscribe -np K`: on 2 cores K = 4 shares them). Per merge: wall time of
# the whole command (mpirun's start-up included), CPU seconds summed over the merge ranks,
# rank 0's peak anonymous memory and the largest of the other ranks' (hpmerge --stats),
# the largest max RSS, and rank 0's wall time per phase (open, merge, gather,
# definitions, summary). The 1-minute load average is printed with every row: other users
# of the machine change wall times (CPU seconds much less).
# Inputs and outputs live in a tmpfs (/dev/shm) so that the disk does not set the pace.
set -eu
MKJOB=$1 HPMERGE=$2 SIZES=${3:-256 1024 4096} KS=${4:-1 2 4} RUNS=${5:-1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /dev/shm/hpmerge-scale.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# stat RE FILE: the numbers the --stats lines give for the regex's group, one per line
stat() { sed -n "s/$1/\1/p" "$2"; }

echo "hpmerge scaling, $(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, $HPMERGE"
echo
echo "| ranks x 2 | input MB | K | wall s | CPU s (sum) | rank 0 anon MB | others' anon MB (max) | max RSS MB | rank 0 phases: open / merge / gather / defs / summary s | load |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
    exp="$WORK/j$n.hpc"
    "$MKJOB" "$exp" --ranks "$n" --threads 2 --iters 100
    input=$(du -sm "$exp" | cut -f1)
    for run in $(seq "$RUNS"); do
        for k in $KS; do
            rm -rf "$exp/otf2" "$exp"/summary.*
            load=$(cut -d' ' -f1 /proc/loadavg)
            t0=$(date +%s.%N)
            if [ "$k" = 1 ]; then
                "$HPMERGE" -q --stats --no-progress "$exp" 2>"$WORK/stats"
            else
                mpirun --oversubscribe -np "$k" "$HPMERGE" -q --stats --no-progress "$exp" \
                    2>"$WORK/stats"
            fi
            t1=$(date +%s.%N)
            cpu=$(stat '.* cpu \([0-9.]*\) s.*' "$WORK/stats" | paste -sd+ | bc -l)
            anon0=$(stat '.*rank 0: .*peak anon memory \([0-9]*\) kB.*' "$WORK/stats")
            others=$(stat '.*rank [1-9][0-9]*: .*peak anon memory \([0-9]*\) kB.*' "$WORK/stats" |
                sort -n | tail -1)
            rss=$(stat '.*max rss \([0-9]*\) kB.*' "$WORK/stats" | sort -n | tail -1)
            phases=$(sed -n 's/.*rank 0: phases (wall s): //p' "$WORK/stats" |
                sed 's/[a-z][a-z]* \([0-9.][0-9.]*\)/\1/g; s/, / \/ /g')
            printf '| %d | %d | %d | %.2f | %.2f | %d | %s | %d | %s | %s |\n' "$n" "$input" "$k" \
                "$(echo "$t1 - $t0" | bc -l)" "$cpu" "$((anon0 / 1024))" \
                "$([ -n "$others" ] && echo $((others / 1024)) || echo -)" "$((rss / 1024))" \
                "$phases" "$load"
        done
    done
    rm -rf "$exp"
done
