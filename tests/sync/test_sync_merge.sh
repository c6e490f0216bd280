#!/bin/bash
# hpmerge of sync waits (-s all on sync_kinds.c: waits of every pthread kind, and
# mutex_hold.c: 20 contended and 20 uncontended locks, 40 semaphore waits, a join):
# summary.json's per-thread sync_waits and sync_wait_s are hpanalyze's Sync Wait Count
# and Time of the same thread (exact), the process's their sums; the OTF2 trace (read
# back, the validator's rules, otf2-print -Werror) holds one region Enter per recorded
# pthread wait, under its kind's name, as many as the records, each with the record's
# object as its "sync object" attribute; summary.txt has the table.
source "$HPC_ROOT/tests/lib.sh"

for p in sync_kinds mutex_hold; do
    "$HPCOLLECT" -q -s all -o $p "$PROGS/sync/$p" >/dev/null || fail "$p: exit $?"
    "$HPMERGE" -q $p.hpc || fail "hpmerge $p.hpc"
    otf2-print -Werror $p.hpc/otf2/traces.otf2 >/dev/null 2>$p.print.err ||
        fail "otf2-print -Werror on $p: $(head -3 $p.print.err)"
    grep -q "^Synchronization waits" $p.hpc/summary.txt || fail "$p: no sync table in summary.txt"
    "$HPANALYZE" $p.hpc dump | grep '^sync_wait ' | sed 's/.* kind=\([0-9]*\) .*/\1/' |
        sort | uniq -c >$p.kinds
    "$HPANALYZE" $p.hpc dump | grep '^sync_wait ' | sed 's/.* object=\([0-9]*\) .*/\1/' >$p.objects
    otf2-print $p.hpc/otf2/traces.otf2 | sed -n 's/.*"sync object" <[0-9]*>; UINT64; \([0-9]*\)).*/\1/p' \
        >$p.attrs
done

check_py "$(cat <<'PY'

import json, sys, os
sys.path.insert(0, os.environ["HPC_ROOT"] + "/tests/merge")
import otf2check
names = {1: "mutex lock", 2: "pthread_rwlock_rdlock", 3: "pthread_rwlock_wrlock",
         4: "condition wait", 5: "pthread_barrier_wait", 6: "thread join", 7: "sem_wait",
         8: "pthread_spin_lock"}
for p in ("sync_kinds", "mutex_hold"):
    s = json.load(open(f"{p}.hpc/summary.json"))
    proc = s["processes"][0]
    total_n = total_s = 0
    for th in proc["threads"]:
        f = analyze(f"{p}.hpc", "--threads", str(th["thread"]), "--metrics",
                    "i.sync_wait:i.sync_count", "functions")["functions"]
        tot = [x for x in f if x["name"] == "<Total>"][0] if f else {}
        n, t = tot.get("incl_sync_count", 0), tot.get("incl_sync_wait_s", 0)
        check(th["sync_waits"] == n, f"{p}: thread {th['thread']}: {n} waits in summary and hpanalyze")
        near(th["sync_wait_s"], t, 1e-6, f"{p}: thread {th['thread']}: wait time")
        total_n += n
        total_s += t
    check(proc["sync_waits"] == total_n, f"{p}: process sync_waits {proc['sync_waits']} = {total_n}")
    near(proc["sync_wait_s"], total_s, 1e-6, f"{p}: process sync_wait_s")
    tr = otf2check.read(f"{p}.hpc/otf2/traces.otf2")
    check(not tr.errors, f"{p}: archive consistent: " + "; ".join(tr.errors[:5]))
    total = 0
    for line in open(f"{p}.kinds"):
        n, k = map(int, line.split())
        got = sum(c for r, c in tr.regions.items() if r.startswith(names[k]))
        check(got == n, f"{p}: {got} Enters of '{names[k]}...' for {n} recorded waits")
        total += n
    objs = sorted(int(x) for x in open(f"{p}.attrs").read().split())
    want = sorted(int(x) for x in open(f"{p}.objects").read().split())
    check(objs == want, f"{p}: {len(objs)} Enters carry the sync object attribute: the records' objects")
PY
)"
