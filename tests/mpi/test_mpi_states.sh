#!/bin/bash
# timeout: 120
# Thread states of an MPI rank that waits (progs/recv_wait.c, 2 ranks pinned to one CPU,
# under Open MPI with mpi_yield_when_idle and under MPICH): rank 1 computes 1 s of CPU
# before it sends, rank 0 waits in MPI_Recv. Rank 0's wait is shown under its MPI_Recv
# call site (MPI_Recv called from `receive`) as MPI Wait, all of it: MPI Wait there equals
# the traced duration of the MPI_Recv call (mpi_time) and what rank 0's own clocks
# measured around it, within 5% or 20 ms, and Total Thread there is the same time split
# into its states (Wait CPU while rank 1 holds the CPU: under Open MPI, which yields, most
# of it; Total CPU alone would show a fraction). MPI Work (CPU outside MPI) of rank 1
# holds its computation. In the user view MPI_Recv is a leaf (its wait is exclusive: the
# MPI library's progress loop and sched_yield hidden); the machine view shows them; hpmerge's
# summary of functions counts the same exclusive CPU as hpanalyze's functions.
source "$HPC_ROOT/tests/lib.sh"
source "$HPC_ROOT/tests/mpi/mpilibs.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
for lib in $MPI_LIBS; do
    OMPI_MCA_mpi_yield_when_idle=1 mpi_run $lib 2 "$HPCOLLECT" -q -o $lib.hpc \
        "$(mpi_prog $lib recv_wait)" >$lib.out || fail "$lib: recv_wait failed: $(cat $lib.out)"
    for r in 0 1; do
        "$HPANALYZE" --format json --ranks $r --metrics \
            e.mpi_wait:i.mpi_wait:i.mpi_work:i.mpi_time:i.total:i.wait:i.user:i.system:i.other:i.cpu \
            $lib.hpc functions >fn$r.$lib.json || fail "$lib: functions --ranks $r"
    done
    "$HPANALYZE" --format json --ranks 0 --view machine --metrics e.mpi_wait:i.mpi_wait \
        $lib.hpc functions >fnm0.$lib.json || fail "$lib: functions --view machine"
    "$HPANALYZE" --format json --metrics e.cpu:i.cpu $lib.hpc functions >fnall.$lib.json ||
        fail "$lib: functions"
    "$HPMERGE" -q --top 100000 $lib.hpc || fail "$lib: hpmerge"

    "$HPANALYZE" --format json --ranks 0 --metrics a.mpi_wait:a.total $lib.hpc \
        callers-callees MPI_Recv >cc.$lib.json || fail "$lib: callers-callees MPI_Recv"
    $SYSPY - $lib <<'PY'
import json, sys
from hpctest import check, near

lib = sys.argv[1]
truth = {}
for l in open(f"{lib}.out"):
    f = l.split()
    if f and f[0] == "wait":
        truth[f[1]] = dict(wall=float(f[2]), cpu=float(f[3]), wait=float(f[4]))
t = truth["MPI_Recv"]
fn = {x["name"]: x for x in json.load(open(f"fn0.{lib}.json"))["functions"]}
recv = fn["MPI_Recv"]
tol = lambda x: max(0.05 * x, 0.020)
near(recv["incl_mpi_wait_s"], recv["incl_mpi_time_s"], tol(recv["incl_mpi_time_s"]),
     f"{lib}: rank 0: MPI Wait in MPI_Recv = its traced time")
near(recv["incl_mpi_wait_s"], t["wall"], tol(t["wall"]),
     f"{lib}: rank 0: MPI Wait in MPI_Recv = its own clocks around the call")
# all of MPI_Recv's time is MPI Wait, but for a clock sample at one of the wrapper's edges
# (before the call is entered, after it is left: recording it): such a sample's weight,
# up to an interval of CPU (10 ms), is MPI Work on MPI_Recv's stack (MPICH, which polls:
# 8.3 ms once in about 40 runs)
extra = recv["incl_total_thread_s"] - recv["incl_mpi_wait_s"]
check(-1e-6 <= extra <= 2 * 0.010 + 1e-6,
      f"{lib}: rank 0: MPI_Recv's time is MPI Wait but for its edges' samples ({extra:.4f} s)")
states = sum(recv[f"incl_{k}_s"] for k in ("user", "system", "wait_cpu", "other_wait"))
near(states, recv["incl_total_thread_s"], tol(recv["incl_total_thread_s"]),
     f"{lib}: rank 0: MPI_Recv's User + System + Wait CPU + Other Wait")
check(recv["incl_wait_cpu_s"] >= t["wait"] - tol(t["wait"]),
      f"{lib}: rank 0: Wait CPU in MPI_Recv holds the run delay ({t['wait']:.3f} s)")
if lib == "openmpi":  # it yields: rank 1 has the CPU most of the time
    check(recv["incl_cpu_s"] < 0.5 * recv["incl_mpi_wait_s"],
          f"{lib}: rank 0: Total CPU ({recv['incl_cpu_s']:.3f} s) is a fraction of the wait")
near(recv["excl_mpi_wait_s"], recv["incl_mpi_wait_s"], 1e-6,
     f"{lib}: rank 0: the user view hides the MPI library under MPI_Recv: the wait is its own")
mrecv = next(x for x in json.load(open(f"fnm0.{lib}.json"))["functions"] if x["name"] == "MPI_Recv")
check(mrecv["excl_mpi_wait_s"] < 0.5 * mrecv["incl_mpi_wait_s"],
      f"{lib}: rank 0: the machine view shows the MPI library under MPI_Recv "
      f"(exclusive {mrecv['excl_mpi_wait_s']:.3f} of {mrecv['incl_mpi_wait_s']:.3f} s)")
# the summary lists sampled functions only: one without samples has no CPU there
none = {"exclusive_s": 0.0, "inclusive_s": 0.0}
summ = {f["function"]: f for f in json.load(open(f"{lib}.hpc/summary.json"))["functions"]}
fall = {x["name"]: x for x in json.load(open(f"fnall.{lib}.json"))["functions"]}
for name in ("MPI_Recv", "compute"):
    near(summ.get(name, none)["exclusive_s"], fall[name]["excl_cpu_s"], 1e-6,
         f"{lib}: hpmerge's summary: {name}'s exclusive CPU = hpanalyze's (an MPI call a leaf in both)")
near(summ.get("MPI_Recv", none)["exclusive_s"], summ.get("MPI_Recv", none)["inclusive_s"], 1e-6,
     f"{lib}: hpmerge's summary: MPI_Recv is a leaf")
cc = next(f for f in json.load(open(f"cc.{lib}.json"))["functions"] if f["name"] == "MPI_Recv")
callers = {c["name"]: c for c in cc["callers"]}
check("receive" in callers, f"{lib}: MPI_Recv's call site is receive ({sorted(callers)})")
near(callers["receive"]["attr_mpi_wait_s"], recv["incl_mpi_wait_s"], 1e-3,
     f"{lib}: the wait is charged to the call site in receive")
fn1 = {x["name"]: x for x in json.load(open(f"fn1.{lib}.json"))["functions"]}
check(fn1["compute"]["incl_mpi_work_s"] >= 0.9, f"{lib}: rank 1: compute is MPI Work (1 s of CPU)")
PY
done
