#!/bin/bash
# html_bench.sh MKJOB HPANALYZE NODE_MODULES [RUNS] [DEMO_EXP] - the report page's size and
# time to first draw (make bench-html). For each job: `hpanalyze export html` (wall time,
# peak memory), the page's size, the slices its timeline holds of the trace's, and the
# median over RUNS (default 3) fresh loads in headless Chromium (bench/html_bench.mjs) of
# the time from the navigation's start to the first complete drawing, and of the page
# script's share of it. Jobs:
#   the demo (DEMO_EXP, `make demo`'s build/demo-mpi/heat_mpi.hpc: 4 ranks x 2 threads)
#   a synthetic 64-rank job of about 10 M events (tests/merge/progs/mkjob: 64 ranks x 2
#   threads, 7000 iterations: 6.3 M MPI and OpenMP slices, 4 M samples, 0.9 M messages)
# Inputs and pages live in /dev/shm. Say the machine's load (uptime) with the numbers.
set -eu
MKJOB=$1 HPANALYZE=$2 MODULES=$3 RUNS=${4:-3} DEMO=${5:-}
WORK=$(mktemp -d /dev/shm/html-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
ln -s "$(realpath "$MODULES")" "$WORK/node_modules"
cp "$(dirname "$0")/html_bench.mjs" "$WORK/"

page() { # page NAME EXP: one row of the table
    local name=$1 exp=$2 t0 t1
    t0=$(date +%s.%N)
    /usr/bin/time -f %M -o "$WORK/rss" "$HPANALYZE" "$exp" export html -o "$WORK/$name.html" >/dev/null
    t1=$(date +%s.%N)
    local counts load
    counts=$(/usr/bin/python3 - "$WORK/$name.html" <<'PY'
import json, re, sys
d = json.loads(re.search(r'id="hpa-data">\n(.*?)</script>', open(sys.argv[1]).read(), re.S).group(1))
tl = d["timeline"]
print(len(d["rows"]), sum(r["slices"] for r in tl["rows"]), sum(len(r["b"]) for r in tl["rows"]),
      int(sum(r["totals"][1] for r in d["rows"])), tl["msgs"]["total"])
PY
)
    load=$(cd "$WORK" && node html_bench.mjs "$name.html" "$RUNS")
    read -r rows slices items samples msgs <<<"$counts"
    printf '| %-8s | %4d | %9d | %8d | %8d | %7d | %7.1f MB | %6.2f s | %5d MB | %s |\n' "$name" \
        "$rows" "$slices" "$items" "$samples" "$msgs" \
        "$(echo "$(stat -c %s "$WORK/$name.html") / 1048576" | bc -l)" \
        "$(echo "$t1 - $t0" | bc -l)" "$(($(cat "$WORK/rss") / 1024))" "$load"
}

echo "| job      | rows | slices    | on page  | samples  | msgs    | page      | export   | memory | load in Chromium (median of $RUNS) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
[ -n "$DEMO" ] && [ -d "$DEMO" ] && page demo "$DEMO"
"$MKJOB" "$WORK/j64.hpc" --ranks 64 --threads 2 --iters "${ITERS:-7000}" --samples 4 >/dev/null
page 64x2 "$WORK/j64.hpc"
uptime
