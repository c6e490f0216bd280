#!/bin/bash
# timeout: 120
# MPI metrics on call paths (progs/twopaths.c, 2 ranks, under Open MPI and MPICH):
# MPI_Allreduce is reached through one call site from two paths, main -> phase_a ->
# reduce_step (30 calls) and main -> phase_b -> reduce_step (70 calls), whose frames have
# the same size. The ground truth is each rank's own mpi_call records (the first 30
# MPI_Allreduce calls are phase_a's): `calltree --metrics i.mpi_time:i.mpi_other` gives
# each path exactly the sum of its calls' durations (to the ns printed) and its number
# of calls; `callers-callees reduce_step` attributes the same to phase_a and phase_b;
# `functions` gives MPI_Allreduce that total as its exclusive MPI time; `--sort
# e.mpi_time export folded` weighs each path by its MPI time (microseconds); --ranks 1
# keeps rank 1's calls only. In hpmerge's OTF2 trace each rank's MPI_Allreduce regions sit
# at their own paths: 30 under phase_a, 70 under phase_b.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
source "$HPC_ROOT/tests/mpi/mpilibs.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
for lib in $MPI_LIBS; do
    mpi_run $lib 2 "$HPCOLLECT" -q -o $lib.hpc "$(mpi_prog $lib twopaths)"
    for r in "" 1; do
        sel=(--metrics i.mpi_time:i.mpi_other)
        [ -n "$r" ] && sel+=(--ranks "$r")
        "$HPANALYZE" --format json "${sel[@]}" $lib.hpc calltree >tree$r.json || fail "$lib: calltree"
        "$HPANALYZE" --format json --metrics a.mpi_time:a.mpi_other "${sel[@]:2}" $lib.hpc \
            callers-callees reduce_step >cc$r.json || fail "$lib: callers-callees"
        "$HPANALYZE" --format json --metrics e.mpi_time:e.mpi_other "${sel[@]:2}" $lib.hpc \
            functions >fn$r.json || fail "$lib: functions"
    done
    "$HPANALYZE" --sort e.mpi_time $lib.hpc export folded >mpi.folded || fail "$lib: export folded"
    "$HPMERGE" -q $lib.hpc || fail "$lib: hpmerge"
    $SYSPY - $lib <<'PY'
import json, sys
from hpctest import check
from mpitest import *

lib = sys.argv[1]
truth = {}  # rank -> {"phase_a": (ns, calls), "phase_b": (ns, calls)}
for r in (0, 1):
    fns = {f["id"]: f["name"] for f in records(f"{lib}.hpc/rank{r}/process.hpe", "mpi_fn")}
    calls = [c for c in records(f"{lib}.hpc/rank{r}/t0.hpe", "mpi_call")
             if fns.get(c["fn"]) == "MPI_Allreduce"]
    check(len(calls) == 100, f"{lib}: rank {r}: 100 MPI_Allreduce calls, got {len(calls)}")
    check(all(c.get("node", 0) > 0 for c in calls), f"{lib}: rank {r}: every call has a context")
    ns = [c["time_leave"] - c["time_enter"] for c in calls]
    truth[r] = {"phase_a": (sum(ns[:30]), 30), "phase_b": (sum(ns[30:]), 70)}

def path_sums(tree, leaf_path):
    """attr values of the node reached by names leaf_path below main"""
    nodes = {n["id"]: n for n in tree["nodes"]}
    def path(n):
        p = []
        while n["parent"] >= 0:
            p.append(n["name"]); n = nodes[n["parent"]]
        return p[::-1]
    hits = [n for n in tree["nodes"] if path(n)[-len(leaf_path):] == leaf_path]
    return hits

for suffix, ranks in (("", (0, 1)), ("1", (1,))):
    tree = json.load(open(f"tree{suffix}.json"))
    cc = json.load(open(f"cc{suffix}.json"))["functions"][0]
    fn = {f["name"]: f for f in json.load(open(f"fn{suffix}.json"))["functions"]}
    total = 0
    for ph in ("phase_a", "phase_b"):
        ns = sum(truth[r][ph][0] for r in ranks); n = sum(truth[r][ph][1] for r in ranks)
        total += ns
        hits = path_sums(tree, ["main", ph, "reduce_step", "MPI_Allreduce"])
        check(len(hits) == 1, f"{lib}{suffix}: one node main/{ph}/reduce_step/MPI_Allreduce, got {len(hits)}")
        got = hits[0]["attr_mpi_time_s"]
        check(abs(got - ns / 1e9) < 1.5e-9,
              f"{lib} ranks {ranks}: {ph} path MPI time {got:.9f} s, its calls sum {ns / 1e9:.9f} s")
        check(hits[0]["attr_mpi_other"] == n, f"{lib} ranks {ranks}: {ph} path {hits[0]['attr_mpi_other']} calls, want {n}")
        caller = [c for c in cc["callers"] if c["name"] == ph]
        check(len(caller) == 1 and abs(caller[0]["attr_mpi_time_s"] - ns / 1e9) < 1.5e-9 and
              caller[0]["attr_mpi_other"] == n,
              f"{lib} ranks {ranks}: callers-callees reduce_step: {ph} attributed {caller}")
    if suffix == "":
        folded = {}
        for line in open("mpi.folded"):
            stack, v = line.rsplit(" ", 1)
            folded[stack] = int(v)
        for ph in ("phase_a", "phase_b"):
            ns = sum(truth[r][ph][0] for r in ranks)
            got = [v for k, v in folded.items() if k.endswith(f"main;{ph};reduce_step;MPI_Allreduce")]
            check(got == [(ns + 500) // 1000] or (ns < 500 and got == []),
                  f"{lib}: folded export, {ph} path: {got} us, want {ns / 1e3:.1f}")
    a = fn["MPI_Allreduce"]
    if suffix == "":
        import collections, otf2
        paths = collections.Counter()
        with otf2.reader.open(f"{lib}.hpc/otf2/traces.otf2") as tr:
            for loc, ev in tr.events:
                cc = getattr(ev, "calling_context", None)
                if type(ev).__name__ != "CallingContextEnter" or cc is None or \
                        cc.region.name != "MPI_Allreduce":
                    continue
                up = []
                while cc is not None:
                    up.append(cc.region.name)
                    cc = cc.parent
                ph = [n for n in up if n in ("phase_a", "phase_b")]
                paths[(loc.group._ref, ph[0] if len(ph) == 1 else str(up))] += 1
        want = {(r, ph): n for r in (0, 1) for ph, n in (("phase_a", 30), ("phase_b", 70))}
        check(dict(paths) == want, f"{lib}: OTF2 MPI_Allreduce regions by path {dict(paths)}")
    check(abs(a["excl_mpi_time_s"] - total / 1e9) < 1.5e-9 and a["excl_mpi_other"] == 100 * len(ranks),
          f"{lib} ranks {ranks}: MPI_Allreduce exclusive MPI time {a['excl_mpi_time_s']}, want {total / 1e9}")
PY
    note "ok: $lib: each path's MPI time exact"
done
