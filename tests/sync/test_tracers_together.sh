#!/bin/bash
# The sync and heap tracers at once (-s all -H on, sync_kinds.c): each keeps its own clock
# right (the sync tracer's TSC ticks, the heap tracer's ns): every sync_wait and
# heap_alloc record lies within its thread's life (thread_begin to thread_end), and the
# sync waits are all there (recorded + screened = the program's calls).
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -s all -H on -o both "$PROGS/sync/sync_kinds" 100 >both.out || fail "exit $?"
"$HPANALYZE" both.hpc dump >dump.txt

check_py "$(cat <<'PY'

import re
calls = sum(int(l.split()[1]) for l in open("both.out"))
# a thread stream may hold several threads one after the other (a state reused): each
# record lies between the thread_begin before it and the thread_end after it
bad, n = [], {"sync_wait": 0, "heap_alloc": 0}
begin, pending = None, []
for l in open("dump.txt"):
    if l.startswith("== "):
        begin, pending = None, []
        continue
    f = l.split()
    if not f:
        continue
    kv = dict(x.split("=", 1) for x in f[2:] if "=" in x)
    if f[0] == "thread_begin":
        begin, pending = int(kv["time"]), []
    elif f[0] == "thread_end":
        end = int(kv["time"])
        bad += [(w, t, begin, end) for w, t in pending if begin is None or not begin <= t <= end]
        pending = []
    elif f[0] in n:
        n[f[0]] += 1
        pending.append((f[0], int(kv.get("time_grant", kv.get("time", 0)))))
check(n["sync_wait"] == calls, f"{n['sync_wait']} sync waits recorded of {calls} calls")
check(n["heap_alloc"] > 0, f"{n['heap_alloc']} heap allocations recorded")
check(not bad, f"every record within its thread's life ({len(bad)} not: {bad[:3]})")
PY
)"
