#!/bin/bash
# timeout: 120
# Known traffic (progs/traffic.c, 4 ranks), under Open MPI (mpirun) and MPICH (Hydra's
# mpiexec): one job experiment (no -o: the launchers agree on traffic.1.hpc), exact
# sends, receives and bytes per rank and per MPI function; blocking, non-blocking
# (MPI_STATUS(ES)_IGNORE, MPI_ANY_SOURCE into larger buffers: the size received, not the
# buffer's), persistent, MPI_PROC_NULL, collectives and their bytes, a Comm_split
# communicator (peers in world ranks), the communication matrix (messages and bytes from
# world rank to world rank), the call site of the ring's MPI_Send, CSV and
# text against JSON, --ranks 3 in every title, `mpi ranks calls`; hpmerge's trace passes
# otf2-print -Werror and tests/otf2validate.py.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
source "$HPC_ROOT/tests/mpi/mpilibs.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/mpi"
SRC="$HPC_ROOT/tests/mpi/progs/traffic.c"
for lib in $MPI_LIBS; do
mkdir "$lib" && cd "$lib" || fail "mkdir $lib"
mpi_run $lib 4 "$HPCOLLECT" -q "$(mpi_prog $lib traffic)"
exps=$(ls -d ./*.hpc)
[ "$exps" = "./traffic.1.hpc" ] || fail "$lib: one job experiment traffic.1.hpc expected, got: $exps"
[ "$(ls -d traffic.1.hpc/rank* | wc -l)" = 4 ] || fail "$lib: not 4 ranks in traffic.1.hpc"
mv traffic.1.hpc traffic.hpc
"$HPANALYZE" traffic.hpc mpi >report.txt
"$HPANALYZE" --format csv traffic.hpc mpi >ranks.csv
"$HPANALYZE" --format csv traffic.hpc mpi matrix >matrix.csv
# --ranks names itself in every title; several tables at once
"$HPANALYZE" --ranks 3 traffic.hpc mpi ranks calls >r3.txt || fail "$lib: mpi ranks calls refused"
grep -q "^MPI time per rank (rank 3;" r3.txt && grep -q "^Aggregate time by call (rank 3;" r3.txt ||
    fail "$lib: --ranks 3 not in the titles: $(grep -E '^(MPI|Aggregate)' r3.txt)"
grep -q "all ranks" r3.txt && fail "$lib: --ranks 3 report says 'all ranks'"
[ "$(awk '$1 ~ /^[0-9]+$/ && NF > 8' r3.txt | awk '{print $1}' | sort -u)" = 3 ] ||
    fail "$lib: --ranks 3 shows other ranks"
grep -q "^Aggregate time by call site" r3.txt && fail "$lib: mpi ranks calls printed the sites"
"$HPMERGE" -q traffic.hpc || fail "$lib: hpmerge failed"
otf2-print -Werror traffic.hpc/otf2/traces.otf2 >otf2.txt 2>otf2.err ||
    fail "$lib: otf2-print -Werror: $(head -3 otf2.err)"
$SYSPY - "$(grep -n 'SITE ring_send' "$SRC" | head -1 | cut -d: -f1)" "$lib" <<'PY'
import csv, sys
from hpctest import check
from mpitest import *

ring_line, lib = int(sys.argv[1]), sys.argv[2]
rep = mpi_report("traffic.hpc")
init = records("traffic.hpc/rank0/process.hpe", "mpi_init")
want_lib = {"openmpi": "Open MPI", "mpich": "MPICH"}[lib]
check(len(init) == 1 and init[0]["library"].startswith(want_lib),
      f"{lib}: the program ran on {want_lib}: {[i['library'] for i in init]}")
rk = ranks(rep)
check(sorted(rk) == [0, 1, 2, 3], f"ranks {sorted(rk)}")
for r in range(4):
    low = r in (0, 1)   # ranks 0, 1 send in the split communicator, 2, 3 receive
    expect(rk[r], f"rank {r}", mpi_sends=10 if low else 9, mpi_bytes_sent=7048 if low else 5000,
           mpi_receives=9 if low else 10, mpi_bytes_received=5000 if low else 7048,
           mpi_other_calls=21, ended_early=False)
    check(0 < rk[r]["mpi_time_s"] <= rk[r]["app_time_s"], f"rank {r}: 0 < MPI time <= AppTime")

want = {  # function: (calls, sends, bytes sent, receives, bytes received) for ranks 0/1 and 2/3
    "MPI_Send": ((5, 4, 5048, 0, 0), (4, 3, 3000, 0, 0)),
    "MPI_Recv": ((3, 0, 0, 3, 3000), (4, 0, 0, 4, 5048)),
    "MPI_Isend": ((3, 3, 1680, 0, 0),) * 2,
    "MPI_Irecv": ((3, 0, 0, 0, 0),) * 2,
    "MPI_Waitall": ((3, 0, 0, 4, 1536),) * 2,
    "MPI_Wait": ((2, 0, 0, 1, 400),) * 2,
    "MPI_Sendrecv": ((1, 1, 64, 1, 64),) * 2,
    "MPI_Startall": ((2, 2, 256, 0, 0),) * 2,
    "MPI_Send_init": ((1, 0, 0, 0, 0),) * 2,
    "MPI_Recv_init": ((1, 0, 0, 0, 0),) * 2,
    "MPI_Request_free": ((2, 0, 0, 0, 0),) * 2,
    "MPI_Comm_split": ((1, 0, 0, 0, 0),) * 2,
    "MPI_Comm_rank": ((2, 0, 0, 0, 0),) * 2,
}
for name, (lo, hi) in want.items():
    per = per_rank_call(rep, name)
    for r in range(4):
        c, s, bs, rc, br = lo if r in (0, 1) else hi
        expect(per.get(r, {}), f"{name} on rank {r}", calls=c, sends=s, bytes_sent=bs,
               receives=rc, bytes_received=br)
coll = {  # function: (calls, coll bytes sent, coll bytes received) for rank 0 / the others
    "MPI_Bcast": ((1, 400, 0), (1, 0, 400)),
    "MPI_Allreduce": ((2, 84, 84), (2, 84, 84)),
    "MPI_Gather": ((1, 4, 16), (1, 4, 0)),
    "MPI_Barrier": ((1, 0, 0), (1, 0, 0)),
}
for name, (r0, rest) in coll.items():
    per = per_rank_call(rep, name)
    for r in range(4):
        c, s, rv = r0 if r == 0 else rest
        expect(per.get(r, {}), f"{name} on rank {r}", calls=c, coll_bytes_sent=s,
               coll_bytes_received=rv)
check({c["name"] for c in rep["calls"]}.isdisjoint({"MPI_Init", "MPI_Finalize"}),
      "MPI_Init and MPI_Finalize are not in the call table")

# the communication matrix: sends from world rank to world rank (A-E to next, B to r+2,
# H from ranks 0, 1 to 2, 3; F to MPI_PROC_NULL is none)
want_cells = {}
for r in range(4):
    want_cells[(r, (r + 1) % 4)] = (8, 3000 + 512 + 400 + 64 + 256)
    want_cells[(r, (r + 2) % 4)] = (2, 768 + 2048) if r < 2 else (1, 768)
got_cells = {(c["from"], c["to"]): (c["messages"], c["bytes"]) for c in rep["matrix"]}
check(got_cells == want_cells and rep["matrix_unknown"] == 0,
      f"{lib}: communication matrix {sorted(got_cells.items())}")
mcsv = list(csv.DictReader(open("matrix.csv")))
check({(int(x["from"]), int(x["to"])): (int(x["messages"]), int(x["bytes"])) for x in mcsv} == want_cells,
      f"{lib}: the CSV matrix is the JSON one")

# call site: the ring's MPI_Send (one line, two calls in the source: even and odd ranks)
ring = [s for s in rep["sites"] if s["name"] == "MPI_Send" and s["line"] == ring_line]
check(len(ring) == 1 and ring[0]["file"].endswith("traffic.c") and
      ring[0]["function"] in ("ring", "main"),  # main if the compiler inlined ring
      f"one MPI_Send site at ring traffic.c:{ring_line}: {[(s['function'], s['line']) for s in ring]}")
check(ring and {r["rank"]: r["calls"] for r in ring[0]["ranks"]} == {0: 3, 2: 3},
      "even ranks call MPI_Send 3 times at the first ring line")

# the split communicator: members and the peers of its messages in world ranks
for r in range(4):
    comms = {c["id"]: c for c in records(f"traffic.hpc/rank{r}/process.hpe", "mpi_comm")}
    split = [c for c in comms.values() if c["kind"] == 4]
    check(len(split) == 1 and varints(split[0]["members"]) == [r % 2, r % 2 + 2],
          f"rank {r}: split communicator members {[varints(c['members']) for c in split]}")
    p2p = [p for p in records(f"traffic.hpc/rank{r}/t0.hpe", "mpi_p2p")
           if split and p["comm"] == split[0]["id"]]
    want_peer = (1, r + 2) if r < 2 else (0, r - 2)
    check([(p["peer"], p["peer_world"], p["bytes"]) for p in p2p] == [want_peer + (2048,)],
          f"rank {r}: message in the split communicator: peer (comm, world) {want_peer}")

# CSV and text agree with JSON
rows = list(csv.DictReader(open("ranks.csv")))
check([int(x["mpi_bytes_sent"]) for x in rows] == [rk[r]["mpi_bytes_sent"] for r in range(4)],
      "csv mpi_bytes_sent matches json")
text = open("report.txt").read()
check("MPI time per rank" in text and "ENDED EARLY" not in text, "text report, no rank ended early")
PY
note "ok: $lib: exact counts and bytes per rank, one job experiment, valid OTF2"
cd ..
done
