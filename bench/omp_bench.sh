#!/bin/bash
# omp_bench.sh - cost of the OMPT tool (make bench, or bench/omp_bench.sh [RUNS]).
#
# Runs bench/omp_overhead (clang -O2 -fopenmp, LLVM libomp) under five setups and keeps
# the best (smallest) wall-clock time of RUNS runs (default 7) for each:
#   plain       the program alone
#   collector   hpcollect -p off with OMP_TOOL=disabled: the collector preloaded, no OMPT
#   ompt        hpcollect -p off: OMPT callbacks and records, no clock samples
#   ompt-unwind as ompt, with the construct call-path cache off (HPCOLLECT_OMP_CONTEXT=unwind)
#   full        hpcollect -p on (the default: clock samples every 10 ms and OMPT)
# The OMPT cost is ompt - collector; per event it is divided by the callbacks one
# operation makes. The results replace the "OpenMP (OMPT)" section of bench/RESULTS.md.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${1:-7}
out="$root/build/bench"
mkdir -p "$out"
clang -O2 -fopenmp -o "$out/omp_overhead" "$root/bench/omp_overhead.c"
prog="$out/omp_overhead"
hpc="$root/bin/hpcollect"
cd "$out"

# best SETUP ARGS...: smallest seconds reported by the program over $runs runs
best() {
    local setup=$1 b=""
    shift
    for _ in $(seq "$runs"); do
        local s
        case $setup in
        plain) s=$("$prog" "$@") ;;
        collector) s=$(OMP_TOOL=disabled "$hpc" -q -p off -o b.hpc "$prog" "$@") ;;
        ompt) s=$("$hpc" -q -p off -o b.hpc "$prog" "$@") ;;
        ompt-unwind) s=$(HPCOLLECT_OMP_CONTEXT=unwind "$hpc" -q -p off -o b.hpc "$prog" "$@") ;;
        full) s=$("$hpc" -q -o b.hpc "$prog" "$@") ;;
        esac
        rm -rf b.hpc
        s=$(echo "$s" | awk '{print $3}')
        if [ -z "$b" ] || awk "BEGIN{exit !($s < $b)}"; then b=$s; fi
    done
    echo "$b"
}

declare -A T
cases=("empty 20000" "barrier 50000" "loop 2000 200")
for c in "${cases[@]}"; do
    for setup in plain collector ompt ompt-unwind full; do
        T["$c/$setup"]=$(best "$setup" $c)
        echo "$c $setup ${T["$c/$setup"]} s" >&2
    done
done

# callbacks per operation (2 threads): an empty region is parallel begin/end, 2 implicit
# task begin/end, 2 join barriers (sync region and wait, begin and end): 14; a barrier is
# 2 x 4. Records: 8 per region, 2 per barrier.
per_op() { awk "BEGIN{printf \"%.0f\", ($1 - $2) * 1e9 / $3}"; }
pct() { awk "BEGIN{printf \"%.2f\", ($1 - $2) * 100 / $2}"; }
host="$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
e0=${T["empty 20000/collector"]} e1=${T["empty 20000/ompt"]} e2=${T["empty 20000/ompt-unwind"]}
b0=${T["barrier 50000/collector"]} b1=${T["barrier 50000/ompt"]}
l0=${T["loop 2000 200/collector"]} l1=${T["loop 2000 200/ompt"]} lp=${T["loop 2000 200/plain"]}
lf=${T["loop 2000 200/full"]}
section=$(cat <<MD
## OpenMP (OMPT)

Command: \`bench/omp_bench.sh $runs\` (best wall-clock time of $runs runs per setup;
$(date -u +%Y-%m-%d), $host). Program: \`bench/omp_overhead.c\`, clang -O2 -fopenmp,
LLVM libomp 14, 2 threads.

| case | plain | collector, no OMPT | OMPT | OMPT, no path cache | hpcollect default |
|---|---|---|---|---|---|
| 20000 empty parallel regions (s) | ${T["empty 20000/plain"]} | $e0 | $e1 | $e2 | ${T["empty 20000/full"]} |
| 50000 barriers (s) | ${T["barrier 50000/plain"]} | $b0 | $b1 | ${T["barrier 50000/ompt-unwind"]} | ${T["barrier 50000/full"]} |
| 2000 regions of 2 x 200 us (s) | $lp | $l0 | $l1 | ${T["loop 2000 200/ompt-unwind"]} | $lf |

- OMPT cost per empty parallel region: $(per_op "$e1" "$e0" 20000) ns (14 callbacks, 8
  records: $(per_op "$e1" "$e0" 280000) ns per callback).
- OMPT cost per barrier: $(per_op "$b1" "$b0" 50000) ns (8 callbacks, 2 records:
  $(per_op "$b1" "$b0" 400000) ns per callback).
- Call path at the construct: the per-thread cache saves $(per_op "$e2" "$e1" 20000) ns per
  region over unwinding at every construct.
- Regions of 200 us: OMPT adds $(pct "$l1" "$l0")% (target: at most 1%); hpcollect's
  default (clock samples and OMPT) adds $(pct "$lf" "$lp")% to the plain program.

Differences smaller than the run-to-run spread (a few percent on this shared 2-CPU
machine) are noise; negative numbers mean no measurable cost.
MD
)
res="$root/bench/RESULTS.md"
[ -f "$res" ] || printf '# Benchmarks\n\n' >"$res"
SECTION="$section" python3 - "$res" <<'PY'
import os, re, sys
path = sys.argv[1]
text = open(path).read()
new = os.environ["SECTION"].rstrip() + "\n"
pat = re.compile(r"^## OpenMP \(OMPT\)\n.*?(?=^## |\Z)", re.S | re.M)
text = pat.sub(lambda m: new + "\n", text) if pat.search(text) else text.rstrip() + "\n\n" + new
open(path, "w").write(text)
PY
echo "$section"
