#!/bin/bash
# Two threads contend for one global mutex, 20 times: hold_lock keeps it 5 ms (a sleep)
# while wait_for_lock asks for it (mutex_hold.c). With -s all and -s on: Sync Wait Time
# of wait_for_lock within 5% of the program's own clock around its lock calls, its Sync
# Wait Count exactly 20 (the holder keeps the lock until the waiter waits); `syncs` names the mutex by its symbol
# at the address the program printed, its top call site wait_for_lock, and the holder of
# all 20 waits hold_lock, holding it at least 5 ms each. Output and exit status unchanged.
# -s on writes its calibrated threshold (6 x the measured call) in the header. `syncs
# --time` keeps the waits requested in the range (10 of 20 on each side of a cut).
source "$HPC_ROOT/tests/lib.sh"

PROG="$PROGS/sync/mutex_hold"
"$PROG" >plain.out || fail "mutex_hold failed without hpcollect"
for s in all on; do
    "$HPCOLLECT" -q -s $s -o $s "$PROG" >$s.out || fail "-s $s: exit $?"
    [ "$(sed 's/0x[0-9a-f]* //; s/waited_ns.*//' $s.out)" = "$(sed 's/0x[0-9a-f]* //; s/waited_ns.*//' plain.out)" ] ||
        fail "-s $s: output changed: $(cat $s.out)"
done

check_py "$(cat <<'PY'

for s in ("all", "on"):
    f = open(s + ".out").read().split()
    addr, truth = f[1], int(f[5]) * 1e-9
    fn = {x["name"]: x for x in analyze(s + ".hpc", "functions")["functions"]}
    w = fn["wait_for_lock"]
    check(truth > 0, f"-s {s}: the program waited {truth:.4f} s")
    near(w["incl_sync_wait_s"], truth, 0.05 * truth, f"-s {s}: Sync Wait Time of wait_for_lock")
    check(w["incl_sync_count"] == 20, f"-s {s}: Sync Wait Count of wait_for_lock {w['incl_sync_count']} = 20")
    o = [x for x in analyze(s + ".hpc", "syncs")["objects"] if x["name"] == "the_lock"][0]
    check(o["address"] == addr and o["kind"] == "mutex",
          f"-s {s}: {o['kind']} {o['name']} at {o['address']} (the program: {addr})")
    site = o["sites"][0]
    check(site["function"] == "wait_for_lock" and site["waits"] == 20,
          f"-s {s}: top call site {site['location']}, {site['waits']} waits")
    h = o["holders"][0]
    check(h["function"] == "hold_lock" and h["waits"] == 20 and o["held_waits"] == 20,
          f"-s {s}: holder of {h['waits']} of 20 waits: {h['location']}")
    # (a waiter's wait may outlast the hold by its wake-up: no bound from the waits)
    check(h["hold_s"] >= 20 * 0.005, f"-s {s}: hold time {h['hold_s']:.4f} s: 20 x 5 ms at least")
    if s == "all":
        check(fn["hold_lock"]["incl_sync_count"] == 20, "-s all: hold_lock s 20 uncontended locks recorded")
# --time keeps the waits by their request: a cut between the 10th and the 11th wait for
# the_lock (from the records, relative to the process's start) keeps 10 on each side
import re
dump = analyze("on.hpc", "dump", fmt="text")
t0 = int(re.search(r"^proc_begin \S+ time=(\d+)", dump, re.M).group(1))
obj = int(open("on.out").read().split()[1], 16)
req = sorted(int(m.group(1)) for m in re.finditer(r"^sync_wait \S+ time_request=(\d+) .*object=(\d+)", dump, re.M)
             if int(m.group(2)) == obj)
check(len(req) == 20, f"-s on: 20 waits for the_lock recorded ({len(req)})")
cut = ((req[9] + req[10]) / 2 - t0) * 1e-9
for rng, want in ((f"0-{cut:.9f}", 10), (f"{cut:.9f}-", 10)):
    got = [x["waits"] for x in analyze("on.hpc", "--time", rng, "syncs")["objects"] if x["name"] == "the_lock"]
    check(got == [want], f"-s on: syncs --time {rng}: the_lock waited for {got}, want [{want}]")
hd = analyze("on.hpc", "header")
t = hd["experiments"][0]["processes"][0]["sync_trace"]
check(t["calibrated"] and t["call_ns"] > 0 and t["threshold_ns"] == 6 * t["call_ns"],
      f"-s on: threshold {t['threshold_ns']} ns = 6 x {t['call_ns']} ns, calibrated")
PY
)"
"$HPANALYZE" on.hpc header | grep -q "Synchronization wait tracing, threshold .* (calibrated: 6 x" ||
    fail "header text: $("$HPANALYZE" on.hpc header | grep -i sync)"
