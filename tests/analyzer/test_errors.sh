#!/bin/bash
# Bad commands, options, values and experiments: a message naming what is wrong and
# exit 2 (usage) or 1 (data); damaged data: warnings and a report of the good part.
source "$HPC_ROOT/tests/lib.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
"$PROGS/analyzer/synth" s.hpc
H=$HPANALYZE

# expect STATUS WORD cmd...: exit status STATUS and WORD in stderr
expect() {
    local want=$1 word=$2 rc=0
    shift 2
    "$@" >out.txt 2>err.txt || rc=$?
    [ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want; stderr: $(cat err.txt)"
    grep -qF -- "$word" err.txt || fail "$*: stderr does not name '$word': $(cat err.txt)"
    note "ok: $* -> exit $rc: $(head -1 err.txt)"
}

expect 2 bogus $H s.hpc bogus
expect 2 bogus $H s.hpc functions bogus
expect 2 --bogus $H --bogus s.hpc functions
expect 2 xml $H --format xml s.hpc functions
expect 2 -3 $H --limit -3 s.hpc functions
expect 2 nosuchmetric $H --sort nosuchmetric s.hpc functions
expect 2 weird $H --view weird s.hpc functions
expect 2 "1-x" $H --threads 1-x s.hpc functions
expect 2 "no command" $H s.hpc </dev/null
expect 2 "no experiment" $H functions
expect 2 nosuchfunc $H s.hpc callers-callees nosuchfunc
expect 2 nosuchfunc $H s.hpc csingle nosuchfunc
expect 2 nosuchfunc $H s.hpc disasm nosuchfunc
expect 2 nosuch.c $H s.hpc source nosuch.c
expect 2 "e.bogus" $H s.hpc metrics e.bogus:i.cpu
expect 2 "e.bogus" $H --metrics e.bogus s.hpc functions
expect 2 "x.cpu" $H s.hpc sort x.cpu
expect 2 "'-1'" $H s.hpc limit -1
expect 2 bogus $H s.hpc export bogus
expect 2 "needs a value" $H s.hpc export flamegraph -o
expect 2 maybe $H --compare maybe s.hpc functions
expect 2 "two or more" $H --compare delta s.hpc functions
expect 0 "no sample point is labelled '1-x-2'" $H --samples 1-x-2 s.hpc functions
expect 2 nosuchscript $H -script nosuchscript s.hpc
expect 1 "/nonexistent/" $H s.hpc export folded -o /nonexistent/out
expect 1 missing.hpc $H missing.hpc functions
# one failure, one line, and no source line of ours: it is the user's input, not damage
[ "$(wc -l <err.txt)" = 1 ] || fail "missing experiment: $(wc -l <err.txt) lines: $(cat err.txt)"
grep -q '\.c:[0-9]' err.txt && fail "missing experiment: a source line of ours: $(cat err.txt)"
echo "not an experiment" >plain.txt
expect 1 plain.txt $H plain.txt functions
mkdir -p empty.hpc
expect 1 "empty.hpc: not an experiment" $H empty.hpc functions
[ "$(wc -l <err.txt)" = 1 ] || fail "empty directory: $(wc -l <err.txt) lines: $(cat err.txt)"
mkdir -p garbage.hpc/main
head -c 3000 /dev/urandom >garbage.hpc/main/process.hpe
cp garbage.hpc/main/process.hpe garbage.hpc/main/t0.hpe
expect 1 garbage.hpc $H garbage.hpc functions
[ -s out.txt ] && fail "output for an unreadable experiment"

# stdout write errors are caught
if [ -w /dev/full ]; then
    rc=0
    $H s.hpc functions >/dev/full 2>err.txt || rc=$?
    [ $rc = 1 ] && grep -q "write error" err.txt || fail "write error: exit $rc $(cat err.txt)"
fi

# a stale object file: a warning naming the build id, names still resolved
"$PROGS/analyzer/synth" stale.hpc --stale-build-id
$H stale.hpc functions >out.txt 2>err.txt || fail "stale build id: exit $?"
grep -q "build id" err.txt || fail "no build-id warning: $(cat err.txt)"
grep -q "leaf_a" out.txt || fail "stale build id: names lost"

# a call chain of 100000 frames (the collector keeps at most 512): no crash, recursion
# counted once
"$PROGS/analyzer/synth" deep.hpc --deep 100000
for c in functions calltree "callers-callees rec" lines; do
    for fmt in text json; do
        $H --format $fmt deep.hpc $c >out.txt 2>err.txt || fail "deep: $c --format $fmt: exit $?"
    done
done
$SYSPY -c '
from hpctest import near
from anatest import funcs
f = funcs("deep.hpc")
near(f["rec"]["incl_cpu_s"], 0.11, 1e-9, "deep chain: rec inclusive counted once per sample")
'

# a call-tree node id of 10^9 in a file of a few kB: bounded by what the file can hold
# (it would size the reader's arrays: 12 GB), named with its file and offset, its samples
# <no stack>, the rest reported; under a 2 GB address-space limit
"$PROGS/analyzer/synth" huge.hpc --huge-id 1000000000
# (not under ASan: its shadow memory alone is terabytes of address space)
vlimit=2000000
[ "${SANITIZE:-0}" = 1 ] && vlimit=unlimited
(ulimit -v $vlimit && $H --format json huge.hpc functions >huge.json 2>err.txt) ||
    fail "node id 10^9: exit $?: $(cat err.txt)"
grep -Eq "huge.hpc/main/t2.hpe.*(offset|@) ?[0-9]+.*node id 1000000000 out of range" err.txt ||
    fail "node id 10^9: no warning naming the file, the offset and the id: $(cat err.txt)"
$SYSPY -c '
import json
from hpctest import near
f = {x["name"]: x for x in json.load(open("huge.json"))["functions"]}
near(f["leaf_c"]["excl_cpu_s"], 0.2 + 0.01, 1e-9, "huge id: the good node'"'"'s 10 samples kept")
near(f["leaf_a"]["excl_cpu_s"], 0.5, 1e-9, "huge id: leaf_a has thread 0'"'"'s only")
near(f["<no stack>"]["excl_cpu_s"], 0.01 + 0.01, 1e-9, "huge id: its samples are <no stack>")
'

# a FIFO in place of a thread stream: never opened for a wait (readers open regular files
# only), named, the other threads reported
cp -r s.hpc fifo.hpc
rm fifo.hpc/main/t1.hpe
mkfifo fifo.hpc/main/t1.hpe
timeout 60 $H --format json fifo.hpc functions >fifo.json 2>err.txt || fail "FIFO stream: exit $?: $(cat err.txt)"
grep -q "fifo.hpc/main/t1.hpe" err.txt || fail "FIFO stream: not named: $(cat err.txt)"
$SYSPY -c '
import json
from hpctest import near
f = {x["name"]: x for x in json.load(open("fifo.json"))["functions"]}
near(f["leaf_a"]["excl_cpu_s"], 0.5, 1e-9, "FIFO stream: thread 0 reported")
'

# damaged thread streams: warnings, the good part reported
cp -r s.hpc trunc.hpc
size=$(stat -c %s trunc.hpc/main/t0.hpe)
truncate -s $((size / 2 + 7)) trunc.hpc/main/t0.hpe
$H --format json trunc.hpc functions >trunc.json 2>err.txt || fail "truncated: exit $?"
cp -r s.hpc garbled.hpc
printf '\xff%.0s' $(seq 1 200) | dd of=garbled.hpc/main/t0.hpe bs=1 seek=2000 conv=notrunc 2>/dev/null
$H --format json garbled.hpc functions >garbled.json 2>gerr.txt || fail "garbled: exit $?"
note "garbled warnings: $(head -3 gerr.txt)"
$H garbled.hpc statistics calltree lines dump >/dev/null 2>&1 || fail "garbled: other reports"
check_py '
import json
for name in ("trunc.json", "garbled.json"):
    f = {x["name"]: x for x in json.load(open(name))["functions"]}
    check(0 < f["<Total>"]["incl_cpu_s"] < 1.16, name + ": partial total %.3f" % f["<Total>"]["incl_cpu_s"])
    near(f["rec"]["incl_cpu_s"], 0.1, 1e-9, name + ": the undamaged thread is intact")
'
[ -s gerr.txt ] || fail "garbled stream: no warning"
