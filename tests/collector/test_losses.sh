#!/bin/bash
# timeout: 120
# Every loss is said where the user looks, with the same count: hpcollect's exit message,
# `functions` (a "Note:" line; JSON not_recorded), `statistics`, hpmerge's problems
# (stderr, summary.txt, summary.json). deepstack makes a new 600-deep stack per sample.
#   - a 2 MB file system (tmpfs; skipped where it cannot be mounted): the samples that no
#     longer fit are counted as "disk full", never as an input/output error; an
#     experiment that cannot even be created there says "disk full" and exits 2
#   - -L 1: the size limit, and when it was reached
#   - threads the collector could not follow: HPCOLLECT_DEBUG_LIFE_LOCK_FAIL=4 makes every
#     4th thread start on an ended thread's stream find process.hpe's lock held
#     (collector/thread.c: life_begin); 20 threads one after another start on thread 1's
#     stream 19 times: 4 are not recorded, counted in threads_unrecorded, the 16 others
#     and main recorded
source "$HPC_ROOT/tests/lib.sh"
PROG="$PROGS/collector/deepstack"

# check_said EXP STAT WORDS: the count of statistic STAT is > 0 and said in all places
# as "main: COUNT WORDS"
check_said() {
    local exp=$1 stat=$2 words=$3
    "$HPANALYZE" --format json "$exp" statistics >$exp.stats.json || fail "$exp: statistics"
    "$HPANALYZE" --format json "$exp" functions >$exp.fn.json || fail "$exp: functions"
    "$HPANALYZE" "$exp" functions >$exp.fn.txt || fail "$exp: functions (text)"
    "$HPMERGE" -q "$exp" 2>$exp.merge.err || fail "$exp: hpmerge: $(cat $exp.merge.err)"
    EXP=$exp STAT=$stat WORDS="$words" check_py '
import json, os, re
exp, stat, words = os.environ["EXP"], os.environ["STAT"], os.environ["WORDS"]
n = json.load(open(exp + ".stats.json"))["processes"][0]["stats"][stat]
check(n > 0, f"{exp}: statistics: {n} {stat}")
line = f"main: {n} {words}"
said = open(exp + ".out").read()
check(line in said, f"{exp}: hpcollect says \"{line}\"")
nr = [l for l in json.load(open(exp + ".fn.json"))["not_recorded"] if l["stat"] == stat]
check(len(nr) == 1 and nr[0]["count"] == n, f"{exp}: functions JSON not_recorded {nr}")
check("Note: " + line in open(exp + ".fn.txt").read(), f"{exp}: functions text says it")
check(line in open(exp + ".merge.err").read(), f"{exp}: hpmerge says it on stderr")
probs = json.load(open(exp + "/summary.json"))["problems"]
check(any(line in p for p in probs), f"{exp}: summary.json problems say it")
check(line in open(exp + "/summary.txt").read(), f"{exp}: summary.txt says it")
'
}

mkdir -p small
if mount -t tmpfs -o size=2m hpc-test-small small 2>/dev/null; then
    trap 'umount "$HPC_TMP/small" 2>/dev/null || true' EXIT
    "$HPCOLLECT" -a off -p hi -o small/d.hpc "$PROG" 2 >/dev/null 2>d.hpc.out ||
        fail "deepstack on a full disk: exit $?: $(cat d.hpc.out)"
    grep -qi "input/output" d.hpc.out && fail "a full disk called an I/O error: $(cat d.hpc.out)"
    rm -rf d.hpc && cp -r small/d.hpc d.hpc # hpmerge needs room for its output
    check_said d.hpc disk_full "samples not recorded: disk full"
    # a disk full from the start
    dd if=/dev/zero of=small/fill bs=64k 2>/dev/null || true
    rc=0
    "$HPCOLLECT" -a off -o small/none.hpc true 2>none.err || rc=$?
    [ $rc = 2 ] || fail "an experiment on a full disk: exit $rc, want 2: $(cat none.err)"
    grep -q "disk full" none.err || fail "an experiment on a full disk: $(cat none.err)"
    note "ok: an experiment on a full disk: $(head -1 none.err)"
else
    note "cannot mount a small tmpfs here: the disk-full part skipped"
fi

"$HPCOLLECT" -a off -p hi -L 1 -o lim.hpc "$PROG" 2 >/dev/null 2>lim.hpc.out ||
    fail "deepstack -L 1: $(cat lim.hpc.out)"
check_said lim.hpc dropped_limit "samples not recorded: size limit (-L) reached after"

HPCOLLECT_DEBUG_LIFE_LOCK_FAIL=4 "$HPCOLLECT" -a off -o lives.hpc "$PROGS/collector/threads" 20 1 2 \
    >lives.prog 2>lives.hpc.out || fail "threads, every 4th start unrecorded: $(cat lives.hpc.out)"
grep -qx "joined 20 threads" lives.prog || fail "threads: $(cat lives.prog)"
check_said lives.hpc threads_unrecorded "threads not recorded (their time is in no report)"
"$HPANALYZE" --format json lives.hpc statistics >lives.json || fail "lives: statistics"
check_py '
import json
p = json.load(open("lives.json"))["processes"][0]
n, threads = p["stats"]["threads_unrecorded"], p["threads"]
check(n == 4, f"threads_unrecorded {n}: 4 of the 19 starts on a reused stream")
check(threads == 17, f"{threads} threads recorded: main and the 16 others")
'

