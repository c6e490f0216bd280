#!/bin/bash
# analyze_scale.sh MKJOB HPANALYZE [SIZES] [RUNS] [BEFORE] - hpanalyze's time and memory on
# many-rank jobs (issue 25; make bench-analyze-scale): mkjob jobs of N ranks x 2 threads,
# 100 iterations (about 5 300 events per rank: 352 MB at 4096 ranks, as
# bench/merge_scale.sh makes them), in a tmpfs (/dev/shm) so that the disk does not set
# the pace. Per report (`mpi ranks`, `header`, `functions`) and RUNS rounds: wall, CPU
# (user + sys) and max RSS of the command, the 1-minute load average beside each row.
# BEFORE: another hpanalyze (an older build) run alternately with HPANALYZE, so that a
# change of load hits both alike; compare them by CPU seconds and memory, which depend on
# the load much less than wall time does.
set -eu
MKJOB=$1 H=$2 SIZES=${3:-256 1024 4096} RUNS=${4:-1} BEFORE=${5:-}
WORK=$(mktemp -d /dev/shm/hpanalyze-scale.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
echo "hpanalyze on many ranks, $(date -u '+%Y-%m-%d %H:%M'), $(nproc) cores"
echo
echo "| ranks x 2 | input MB | hpanalyze | report | wall s | CPU s | max RSS MB | load |"
echo "|---|---|---|---|---|---|---|---|"
for n in $SIZES; do
    exp="$WORK/j$n.hpc"
    "$MKJOB" "$exp" --ranks "$n" --threads 2 --iters 100 >/dev/null
    input=$(du -sm "$exp" | cut -f1)
    for _ in $(seq "$RUNS"); do
        for report in "mpi ranks" "header" "functions"; do
            for bin in ${BEFORE:+"$BEFORE"} "$H"; do
                load=$(cut -d' ' -f1 /proc/loadavg)
                # shellcheck disable=SC2086
                m=$(/usr/bin/time -f "%e %U %S %M" "$bin" "$exp" $report 2>&1 >/dev/null | tail -1)
                read -r wall user sys rss <<<"$m"
                printf '| %d | %d | %s | `%s` | %.2f | %.2f | %d | %s |\n' "$n" "$input" "$bin" \
                    "$report" "$wall" "$(echo "$user + $sys" | bc -l)" "$((rss / 1024))" "$load"
            done
        done
    done
    rm -rf "$exp"
done
