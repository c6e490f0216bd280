#!/bin/bash
# timeout: 120
# Heap tracing in an MPI job (tests/mpi/progs/heap_ranks.c, 3 ranks): each rank's leaks
# exact on its function (rank r: r + 1 blocks of 1000 + r bytes in rank_leak; exchange's
# 10 buffers of 4096 freed), hpanalyze's per-process heap table per rank, and hpmerge's
# summary.json per rank equal to it (both read the heap through model/heap.c), and so is
# `hpanalyze mpi`'s heap per rank (JSON heap_<key> of each rank, the CSV and text memory
# table); the program's output is unchanged. The OTF2 trace has each rank's "heap in use"
# (its own metric instance, on its rank's location group): its most the rank's peak, its
# last value the rank's end, merged serially and by 2 merge ranks (whose definitions
# travel to rank 0: the metric's kind with them).
source "$HPC_ROOT/tests/lib.sh"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" # Open MPI leaks at exit (mpirun hpmerge)
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built"
cd "$HPC_TMP"
mpirun --oversubscribe -np 3 "$HPCOLLECT" -q -H on -o hm.hpc "$PROGS/mpi/heap_ranks" ||
    fail "heap_ranks under -H on: exit $?"
"$HPMERGE" -q hm.hpc >/dev/null 2>merge.err || fail "hpmerge: $(cat merge.err)"
check_py "
import json
h = {p['rank']: p for p in analyze('hm.hpc', 'heap')['processes']}
check(sorted(h) == [0, 1, 2], f'three ranks in the heap report {sorted(h)}')
S = {r['rank']: r for r in json.load(open('hm.hpc/summary.json'))['processes'] if r['rank'] is not None}
M = {r['rank']: r for r in analyze('hm.hpc', 'mpi')['ranks']}
import csv
C = {int(r['rank']): r for r in csv.DictReader(analyze('hm.hpc', 'mpi', 'memory', fmt='csv').splitlines())}
T = analyze('hm.hpc', 'mpi', fmt='text').split('Heap per rank')[1].splitlines()
for r in range(3):
    rows = {f['name']: f for f in analyze('hm.hpc', '--ranks', str(r), 'functions')['functions']}
    got = (rows['rank_leak']['excl_heap_allocs'], rows['rank_leak']['excl_heap_leaks'], rows['rank_leak']['excl_heap_leaked_bytes'])
    check(got == (r + 1, r + 1, (r + 1) * (1000 + r)), f'rank {r}: rank_leak {got}')
    got = (rows['exchange']['excl_heap_allocs'], rows['exchange']['excl_heap_bytes'], rows['exchange']['excl_heap_leaks'])
    check(got == (10, 40960, 0), f'rank {r}: exchange {got}')
    check(h[r]['ended'], f'rank {r} ended normally')
    for k in ('allocs', 'bytes', 'frees', 'leaks', 'leaked_bytes', 'peak_bytes', 'temporary', 'end_bytes'):
        check(S[r]['heap_' + k] == h[r][k], f'rank {r}: summary.json heap_{k} {S[r][\"heap_\" + k]} == hpanalyze heap {h[r][k]}')
        check(M[r]['heap_' + k] == h[r][k], f'rank {r}: mpi heap_{k} {M[r][\"heap_\" + k]} == hpanalyze heap {h[r][k]}')
        check(int(C[r]['heap_' + k]) == h[r][k], f'rank {r}: mpi memory (CSV) heap_{k} == hpanalyze heap {h[r][k]}')
    row = [l.split() for l in T if l.split()[:1] == [str(r)]]
    check(len(row) == 1 and int(row[0][4]) == h[r]['leaks'] and int(row[0][5]) == h[r]['leaked_bytes'], f'rank {r}: mpi memory (text) leaks {row}')
"
grep -q '^Heap (-H) per process' hm.hpc/summary.txt || fail "summary.txt has no heap table"
heap_metric() { # the OTF2 metric per rank against the heap report
    check_py "
import otf2
h = {p['rank']: p for p in analyze('hm.hpc', 'heap')['processes']}
v = {}
with otf2.reader.open('hm.hpc/otf2/traces.otf2') as tr:
    for loc, ev in tr.events:
        if type(ev).__name__ == 'Metric' and type(ev.metric).__name__ == 'MetricInstance':
            check(ev.metric.scope == loc.group and ev.metric.recorder == loc, f'{loc.group.name}: its own instance, on its recorder')
            v.setdefault(loc.group.name, []).append(ev.values[0])
check(sorted(v) == ['rank 0', 'rank 1', 'rank 2'], f'heap in use of each rank: {sorted(v)} ($1)')
for r in range(3):
    x = v[f'rank {r}']
    check((max(x), x[-1]) == (h[r]['peak_bytes'], h[r]['end_bytes']), f'rank {r}: most {max(x)}, last {x[-1]} == peak, end {h[r][\"peak_bytes\"]}, {h[r][\"end_bytes\"]} ($1)')
"
}
heap_metric serial
mpirun --oversubscribe -np 2 "$HPMERGE" -q hm.hpc >merge.out 2>&1 || fail "mpirun -np 2 hpmerge: $(cat merge.out)"
heap_metric "2 merge ranks"
note "ok: heap per rank exact, hpanalyze and hpmerge agree"
