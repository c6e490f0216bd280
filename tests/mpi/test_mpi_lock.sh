#!/bin/bash
# timeout: 120
# An MPI library's own lock as User Lock (progs/io_lock.c, one rank with two threads in
# MPI-IO, under Open MPI and MPICH). MPICH's ROMIO holds its global critical section, a
# pthread mutex, while the main thread is blocked in MPI_File_open of a FIFO: the other
# thread's MPI_File_open waits for it, and that wait is User Lock under MPI_File_open
# called from lock_waiter, equal to what lock_waiter's clocks measured around the call
# (wall - CPU - run delay: its time asleep) within 5% or 20 ms. Open MPI holds no lock
# there: no User Lock (under 20 ms). The main thread's blocked open is Other Wait (its
# time asleep), never User Lock.
source "$HPC_ROOT/tests/lib.sh"
source "$HPC_ROOT/tests/mpi/mpilibs.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
for lib in $MPI_LIBS; do
    mpi_run $lib 1 "$HPCOLLECT" -q -o $lib.hpc "$(mpi_prog $lib io_lock)" >$lib.out ||
        fail "$lib: io_lock failed: $(cat $lib.out)"
    "$HPANALYZE" --format json --metrics a.user_lock:a.other_wait:a.total_thread $lib.hpc \
        callers-callees MPI_File_open >cc.$lib.json || fail "$lib: callers-callees MPI_File_open"
    $SYSPY - $lib <<'PY'
import json, sys
from hpctest import check, near

lib = sys.argv[1]
truth = {}
for l in open(f"{lib}.out"):
    f = l.split()
    if f and f[0] == "wait":
        truth[f[1]] = dict(wall=float(f[2]), cpu=float(f[3]), delay=float(f[4]))
tol = lambda x: max(0.05 * x, 0.020)
cc = next(f for f in json.load(open(f"cc.{lib}.json"))["functions"] if f["name"] == "MPI_File_open")
callers = {c["name"]: c for c in cc["callers"]}
check({"main", "lock_waiter"} <= set(callers), f"{lib}: MPI_File_open called from main and lock_waiter ({sorted(callers)})")
w, m = truth["lock_waiter"], truth["main"]
asleep = lambda t: t["wall"] - t["cpu"] - t["delay"]
off = asleep(w)
if lib == "mpich":  # the program premise: the second open waited for the first
    check(off >= 0.4, f"{lib}: lock_waiter waited {off:.3f} s for ROMIO lock (0.5 s planned)")
    near(callers["lock_waiter"]["attr_user_lock_s"], off, tol(off),
         f"{lib}: lock_waiter: User Lock under MPI_File_open = its time asleep")
else:  # no lock: nothing asleep to speak of (the clocks read around a short call can be
    # preempted apart: a negative sleep of a time slice, so no exact truth here)
    near(callers["lock_waiter"]["attr_user_lock_s"], 0, 0.020,
         f"{lib}: lock_waiter: no User Lock (the library holds no lock across the first open)")
moff = asleep(m)
check(moff >= 0.4, f"{lib}: main blocked {moff:.3f} s in the FIFO open (0.5 s planned)")
near(callers["main"]["attr_other_wait_s"], moff, tol(moff),
     f"{lib}: main: Other Wait under MPI_File_open = its time asleep")
near(callers["main"]["attr_user_lock_s"], 0, 0.020, f"{lib}: main: no User Lock (it held the lock)")
PY
done
