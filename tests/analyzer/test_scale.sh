#!/bin/bash
# timeout: 300
# hpanalyze's memory per job rank (issue 25): the same synthetic job (tests/merge/progs/mkjob,
# 1 thread per rank, 4 iterations, rank 3 killed halfway so that ranks differ) at 512 and
# 2048 ranks; `hpanalyze EXP mpi`'s peak RSS (getrusage of the child). What each added
# job rank costs (the slope between the two sizes, which cancels what does not grow:
# the program, libdw, the symbol table) is at most 16 KiB. The model: a process opened
# slim (hpc_exp_open_slim: its ~20 records of 248 bytes and their strings, about 6 KiB;
# no schema reader, no communicator member lists), its hpa_process (1.1 KiB) and its
# summary row (0.3 KiB); 7.6 KiB measured. Before, the whole process was held (its
# schema reader, every communicator's N members) and every sample of every thread was
# loaded first: 118 KiB per job rank between 512 and 2048 ranks, growing with the job.
#
# The numbers do not depend on how they are read:
#   - `mpi` reads no samples; after `functions` has loaded them, the same `mpi` JSON;
#   - the COV of each call and call-site row, computed one rank at a time (no sum per
#     rank and row is held), equals the COV of the per-rank sums the JSON lists, and
#     some row's COV is not 0 (the killed rank made fewer calls).
source "$HPC_ROOT/tests/lib.sh"
peak_rss() { # kB of the largest resident set of the command
    $SYSPY -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"
}
for n in 512 2048; do
    "$PROGS/merge/mkjob" j$n.hpc --ranks $n --threads 1 --iters 4 --samples 2 --kill 3 >/dev/null ||
        fail "mkjob $n ranks failed"
    rss[$n]=$(peak_rss "$HPANALYZE" j$n.hpc mpi) || fail "hpanalyze j$n.hpc mpi failed"
done
slope=$(((rss[2048] - rss[512]) * 1000 / 1536)) # bytes per job rank (kB * 1000 / ranks)
note "mpi: peak RSS ${rss[512]} kB at 512 ranks, ${rss[2048]} kB at 2048:" \
    "$((slope / 1000)).$(((slope % 1000) / 100)) kB per job rank"
if [ "${SANITIZE:-0}" = 1 ]; then
    note "SANITIZE=1: memory bound not checked (ASan's shadow and quarantine); outputs still are"
else
    [ "$slope" -le 16384 ] || fail "hpanalyze mpi holds $((slope / 1000)) kB per job rank (more than 16)"
fi

"$HPANALYZE" --format json j512.hpc mpi >alone.json || fail "mpi (JSON) failed"
"$HPANALYZE" --format json j512.hpc functions mpi >both.json || fail "functions mpi (JSON) failed"
$SYSPY - alone.json both.json <<'EOF' || fail "mpi's numbers differ (see above)"
import json, math, sys
alone = json.load(open(sys.argv[1]))
both = json.load(open(sys.argv[2]))
if [r for r in both if r.get("report") == "mpi"] != [alone]:
    sys.exit("mpi without samples differs from mpi after functions loaded them")
nonzero = 0
for table in ("calls", "sites"):
    for row in alone[table]:
        t = [r["time_s"] for r in row["ranks"] if r["calls"]]
        cov = 0.0
        if len(t) >= 2 and sum(t) > 0:
            mean = sum(t) / len(t)
            var = sum(x * x for x in t) / len(t) - mean * mean
            cov = math.sqrt(var) / mean if var > 0 else 0.0
        if abs(cov - row["cov"]) > 1e-6 * max(cov, 1e-3):
            sys.exit(f"{table} {row['name']}: COV {row['cov']}, per-rank sums give {cov}")
        nonzero += row["cov"] > 0
if not nonzero:
    sys.exit("no row has a COV above 0: the check above could not fail")
print(f"# {len(alone['calls'])} calls and {len(alone['sites'])} sites: COVs as the per-rank "
      f"sums give ({nonzero} above 0); mpi alone == mpi after functions")
EOF

# Reports that only sum paths fold each process into their sums as it is read and drop
# its call trees and buckets (hpa_ctx_plan, hpa_profile_load_folded): `functions` holds
# the call graph and one process at a time, so what a job rank adds is its slim process
# and its threads' counts, as for `mpi` (16 KiB bound). Before, every thread's call tree
# and buckets were held (1024 nodes and 256 buckets of every metric allocated per
# thread: 45 KiB per rank of 2 threads at 4096 ranks).
for n in 512 2048; do
    frss[$n]=$(peak_rss "$HPANALYZE" j$n.hpc functions) || fail "hpanalyze j$n.hpc functions failed"
done
fslope=$(((frss[2048] - frss[512]) * 1000 / 1536))
note "functions: peak RSS ${frss[512]} kB at 512 ranks, ${frss[2048]} kB at 2048:" \
    "$((fslope / 1000)).$(((fslope % 1000) / 100)) kB per job rank"
if [ "${SANITIZE:-0}" != 1 ]; then
    [ "$fslope" -le 16384 ] ||
        fail "hpanalyze functions holds $((fslope / 1000)) kB per job rank (more than 16)"
fi

# Folded or not, the same numbers: the four folding reports alone (folded) and followed by
# `header`, which reads no paths but keeps the run from folding, in every view (the
# OpenMP views make pseudo functions as they go), on the 512-rank job (a killed rank) and
# on one of 16 ranks x 3 threads whose rank 0 has 3000 calling contexts (a deeper tree).
"$PROGS/merge/mkjob" ctx.hpc --ranks 16 --threads 3 --iters 4 --samples 3 --contexts 3000 \
    --kill 5 >/dev/null || fail "mkjob ctx.hpc failed"
for run in j512 ctx.user ctx.expert ctx.machine; do
    exp=${run%%.*}.hpc view=${run#*.}
    [ "$view" = j512 ] && view=user
    "$HPANALYZE" --view $view --format json $exp functions calltree lines callers-callees \
        >fold.$run.json || fail "folded reports ($run) failed"
    "$HPANALYZE" --view $view --format json $exp functions calltree lines callers-callees \
        header >whole.$run.json || fail "reports with header ($run) failed"
    $SYSPY - fold.$run.json whole.$run.json $run <<'EOF' || fail "folded reports differ ($run)"
import json, sys
fold, whole = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
if len(fold) != 4 or fold != whole[:4]:
    sys.exit("the folded reports differ from those of the loaded profile")
fns = [f for f in fold[0]["functions"] if f["name"] != "<Total>"]
if len(fns) < 3 or len(fold[1]["nodes"]) < 3:
    sys.exit(f"{len(fns)} functions, {len(fold[1]['nodes'])} call-tree nodes: too few to compare")
print(f"# {sys.argv[3]}: {len(fns)} functions, {len(fold[1]['nodes'])} call-tree nodes: "
      "folded == loaded")
EOF
done
