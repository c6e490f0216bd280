#!/bin/bash
# timeout: 150
# Ranks that end early leave their data: MPI_Abort on rank 1 (progs/abort.c) and SIGKILL
# of rank 1 (progs/kill.c), 3 ranks each, real mpirun. The job fails; the experiment
# still has every rank; the dead rank's messages up to its end are there, and so are
# the others'; ranks killed while waiting have the MPI call they died in, up to their
# end; the report and the header say which ranks ended early and how.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
if mpirun --oversubscribe -np 3 "$HPCOLLECT" -q -o abort.hpc "$PROGS/mpi/abort" 2>abort.err; then
    fail "the MPI_Abort job exited 0"
fi
if mpirun --oversubscribe -np 3 "$HPCOLLECT" -q -o kill.hpc "$PROGS/mpi/kill" 2>kill.err; then
    fail "the SIGKILL job exited 0"
fi
"$HPANALYZE" abort.hpc mpi ranks >abort.txt
"$HPANALYZE" --format json abort.hpc header >abort-header.json
"$HPANALYZE" abort.hpc header >abort-header.txt
$SYSPY - <<'PY'
import json
from hpctest import check
from mpitest import *

a = ranks(mpi_report("abort.hpc"))
check(sorted(a) == [0, 1, 2], f"MPI_Abort job: all ranks readable {sorted(a)}")
expect(a[1], "MPI_Abort job, rank 1", mpi_sends=3, mpi_bytes_sent=300, ended_early=True,
       mpi_abort=True)
check(a[1]["end"].startswith("MPI_Abort(3)"), f"rank 1 ended by MPI_Abort(3): {a[1]['end']}")
expect(a[2], "MPI_Abort job, rank 2", mpi_receives=3, mpi_bytes_received=300, ended_early=True)
expect(a[0], "MPI_Abort job, rank 0", mpi_sends=0, mpi_receives=0, ended_early=True)
for r in (0, 2):  # killed by mpirun while waiting: the wait is MPI time up to their end
    expect(a[r], f"MPI_Abort job, rank {r}", died_in="MPI_Recv")
    check(a[r]["mpi_time_s"] >= 0.9 * a[r]["app_time_s"],
          f"rank {r}: the interrupted MPI_Recv covers its wait (>= 90% of AppTime)")
text = open("abort.txt").read()
check("3 rank(s) ended early: 0 1 2" in text, "text report lists the ranks that ended early")
hdr = json.load(open("abort-header.json"))
early = {p["rank"]: p["ended_early"] for e in hdr["experiments"] for p in e["processes"]}
check(early == {0: True, 1: True, 2: True}, f"header: every rank ended early {early}")
hdr = open("abort-header.txt").read()
check(hdr.count("Ended early: it called MPI_Abort") == 1 and
      hdr.count("Ended early: it never reached MPI_Finalize") == 2, "text header says why")

k = ranks(mpi_report("kill.hpc"))
check(sorted(k) == [0, 1, 2], f"SIGKILL job: all ranks readable {sorted(k)}")
expect(k[1], "SIGKILL job, rank 1", mpi_sends=4, mpi_bytes_sent=1024, ended_early=True,
       mpi_abort=False)
check("signal 9" in k[1]["end"], f"rank 1 killed by signal 9: {k[1]['end']}")
expect(k[0], "SIGKILL job, rank 0", mpi_receives=4, mpi_bytes_received=1024, ended_early=True,
       died_in="MPI_Recv")
expect(k[2], "SIGKILL job, rank 2", ended_early=True, died_in="MPI_Recv")
PY
