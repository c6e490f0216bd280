#!/bin/bash
# merge_scale.sh MKJOB HPMERGE [SIZES] [KS] - hpmerge's time and memory per merge rank as
# the job grows (ranks x 2 threads, 100 iterations: about 5 300 events per rank) and as
# merge ranks are added (make bench-merge-scale).
#
# For each job size N (default 256 1024 4096) and each K (default 1 2 4; K > 1 runs
# `mpirun --oversubscribe -np K`, so on 2 cores K = 4 shares them), one merge: wall time
# of the whole command (mpirun's start-up included) and, over the merge ranks, the
# largest peak anonymous memory and max RSS that hpmerge --stats reports. The load
# average is printed with every row: other users of the machine change wall times.
# Inputs and outputs live in a tmpfs (/dev/shm) so that the disk does not set the pace.
set -eu
MKJOB=$1 HPMERGE=$2 SIZES=${3:-256 1024 4096} KS=${4:-1 2 4}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$(mktemp -d /dev/shm/hpmerge-scale.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

echo "hpmerge scaling, $(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores, $HPMERGE"
echo
echo "| ranks x 2 threads | input MB | K | wall s | peak anon MB per merge rank (max) | max RSS MB (max) | load (1 min) |"
echo "|---|---|---|---|---|---|---|"
for n in $SIZES; do
    exp="$WORK/j$n.hpc"
    "$MKJOB" "$exp" --ranks "$n" --threads 2 --iters 100
    input=$(du -sm "$exp" | cut -f1)
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
        anon=$(sed -n 's/.*peak anon memory \([0-9]*\) kB.*/\1/p' "$WORK/stats" | sort -n | tail -1)
        rss=$(sed -n 's/.*max rss \([0-9]*\) kB.*/\1/p' "$WORK/stats" | sort -n | tail -1)
        printf '| %d | %d | %d | %.2f | %d | %d | %s |\n' "$n" "$input" "$k" \
            "$(echo "$t1 - $t0" | bc -l)" "$((anon / 1024))" "$((rss / 1024))" "$load"
    done
    rm -rf "$exp"
done
