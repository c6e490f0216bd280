#!/bin/bash
# timeout: 240
# Memory independent of trace length: the same job 10 times longer (8.2 M events instead
# of 820 k), merged with a small in-memory sort budget so the early events spill into
# many temporary runs that get merged level by level, peaks at the same anonymous memory
# (hpmerge --stats measures RssAnon at each location's fullest point: side list, run
# buffers and OTF2 chunks all allocated; mapped input files are page cache, not counted).
# And a synthetic job of 256 ranks merges within a fixed memory bound (64 MiB).
source "$HPC_ROOT/tests/lib.sh"
peak() { sed -n 's/.*peak anon memory \([0-9]*\) kB.*/\1/p' "$1"; }
for n in 10000 100000; do
    "$PROGS/merge/mkjob" long$n.hpc --ranks 2 --threads 1 --iters $n --samples 4
    # the validator reads the 820 k events in ~8 s; the long job is the same ten times over
    HPMERGE_VALIDATE=$([ $n = 10000 ] && echo 1 || echo 0) \
        "$HPMERGE" -q --stats --sort-memory 1024 long$n.hpc 2>long$n.err || { cat long$n.err; fail "merge of $n iterations failed"; }
    cat long$n.err
    otf2-print --silent -Werror long$n.hpc/otf2/traces.otf2 >/dev/null 2>print.err && [ ! -s print.err ] ||
        fail "archive of $n iterations: $(head -3 print.err)"
done
short=$(peak long10000.err) long=$(peak long100000.err)
[ -n "$short" ] && [ -n "$long" ] || fail "no memory figures in --stats"
note "peak anonymous memory: $short kB for 820 k events, $long kB for 8.2 M"
# AddressSanitizer keeps freed memory in quarantine: its RssAnon says nothing about ours
if [ "${SANITIZE:-0}" = 1 ]; then
    note "SANITIZE=1: memory bounds not checked (ASan quarantine); outputs still are"
else
    [ "$long" -le $((short + 4096)) ] || fail "memory grew with the trace: $short kB -> $long kB"
fi
events=$(sed -n "s/.* \([0-9]*\) events written.*/\1/p" long100000.err)
[ "$events" -gt 8000000 ] || fail "the long job wrote only $events events"
check_py "
import json
s = json.load(open('long100000.hpc/summary.json'))
check(s['processes'][0]['mpi_sends'] == 2 * 100000, 'long job: every send counted')
check(s['run']['samples'] == 2 * 100000 * 5, 'long job: every sample counted')
"
# 256 ranks
"$PROGS/merge/mkjob" wide.hpc --ranks 256 --threads 1 --iters 3 --samples 2
"$HPMERGE" -q --stats wide.hpc 2>wide.err || { cat wide.err; fail "256-rank merge failed"; }
cat wide.err
wide=$(peak wide.err)
[ "${SANITIZE:-0}" = 1 ] || [ "$wide" -le 65536 ] || fail "256 ranks took $wide kB (more than 64 MiB)"
otf2-print --silent -Werror wide.hpc/otf2/traces.otf2 >/dev/null 2>print.err && [ ! -s print.err ] ||
    fail "256-rank archive: $(head -3 print.err)"
check_py "
import sys, json
sys.path.insert(0, '$HPC_ROOT/tests/merge')
import otf2check
t = otf2check.read('wide.hpc/otf2/traces.otf2')
check(not t.errors, '256-rank archive consistent: ' + '; '.join(t.errors[:3]))
check(len(t.locations) == 256, '256 locations')
pairs, lone_s, lone_r = otf2check.match(t)
check(len(pairs) == 256 * 3 * 2 and not lone_s and not lone_r, f'{len(pairs)} messages, all matched')
s = json.load(open('wide.hpc/summary.json'))
check(len(s['processes']) == 256 and s['run']['ranks'] == 256, '256 ranks in the summary')
"
