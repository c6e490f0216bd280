#!/bin/bash
# Threads and processes shorter than a clock interval are accounted in full: the CPU time
# after a thread's last sample is charged as one more sample when it ends (tail.c), and
# an exec'd image is charged only its own CPU time (proc_begin's rusage is subtracted).
# Ground truth is the kernel's: each process's rusage against its sampled CPU, within 5%
# or 3 ms (a sample weighs exact CPU time, so only what runs between the two readings
# differs).
#   threads 300 x 2 ms   (sampled at 0.27 of their CPU before)
#   forks 60 x 5 ms      (0.38), each child's time in child_work, where it called exit
#   exec 200 ms + 100 ms the exec'd image is charged 0.1 s, not the pid's 0.3 s
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/collector/short_lives"
"$HPCOLLECT" -q -a off -o t.hpc "$PROG" threads 300 2 >t.out || fail "threads: $(cat t.out)"
"$HPCOLLECT" -q -a off -o f.hpc "$PROG" forks 60 5 >f.out || fail "forks: $(cat f.out)"
"$HPCOLLECT" -q -a off -o e.hpc "$PROG" exec 200 100 >e.out || fail "exec: $(cat e.out)"
for e in t f e; do "$HPANALYZE" --format json $e.hpc statistics >$e.json || fail "$e: statistics"; done
"$HPANALYZE" --format json f.hpc functions >f.fn.json || fail "f: functions"
check_py '
import json
def procs(e):
    return {p["process"]: p for p in json.load(open(e + ".json"))["processes"]}
def near(what, sampled, os):
    # 5%, or 3 ms for a process of little CPU: the steps of the collector at its end, between
    # its last charge and its rusage read (the forks parent: 21.5 against 19.6 ms once)
    check(abs(sampled - os) <= max(0.05 * os, 0.003),
          f"{what}: sampled CPU {sampled:.4f} s, the kernel says {os:.4f} s (within 5% or 3 ms)")
t = procs("t")["main"]
near("300 short threads (with main)", t["sampled_cpu_s"], t["os_cpu_s"])
ths = [x for x in t["thread_list"] if x["seq"] > 0]
check(len(ths) == 300, f"{len(ths)} threads recorded, want 300")
f = procs("f")
kids = [p for n, p in f.items() if n != "main"]
check(len(kids) == 60, f"{len(kids)} fork children recorded, want 60")
near("60 short fork children", sum(p["sampled_cpu_s"] for p in kids), sum(p["os_cpu_s"] for p in kids))
near("forks: the parent", f["main"]["sampled_cpu_s"], f["main"]["os_cpu_s"])
fn = {r["name"]: r for r in json.load(open("f.fn.json"))["functions"]}
cw = fn.get("child_work", {}).get("incl_cpu_s", 0)
check(cw >= 0.95 * 60 * 0.005, f"child_work inclusive {cw:.4f} s: the children burnt 60 x 5 ms there")
e = procs("e")
near("exec: the image before", e["main"]["sampled_cpu_s"], e["main"]["os_cpu_s"])
near("exec: the exec'"'"'d image", e["main.x1"]["sampled_cpu_s"], e["main.x1"]["os_cpu_s"])
x1 = e["main.x1"]["os_cpu_s"]
check(0.1 <= x1 <= 0.12, f"the exec'"'"'d image is charged {x1:.4f} s of the OS CPU: it burnt 0.1 s (the pid: 0.3 s)")
'
