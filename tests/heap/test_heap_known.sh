#!/bin/bash
# timeout: 120
# Heap tracing (-H) against ground truth known in advance (tests/heap/progs/heap_known.c):
# on each function, exactly its allocations, bytes, leaks, leaked bytes, the blocks and
# bytes it held at the peak and its temporary allocations; malloc, calloc, realloc and
# reallocarray (a chain: each block replaced, none leaked), posix_memalign, aligned_alloc,
# memalign, valloc, pvalloc, anonymous mmap/munmap; blocks freed by another thread are
# not leaks; a fork child's leaks are its own; the peak is exact (1075072 bytes in 25
# blocks: nothing of the collector's own is counted); a constructor's allocations count and held by the right functions; the
# program's output and status are what they are without the collector (it checks
# alignment, errno, ENOMEM, malloc_usable_size, mallopt, malloc_trim itself). The leaks
# report lists the same stacks (er_print's layout) and nothing of ours. A killed process
# (heap_killed.c) has the leaks of its last records, said as such.
source "$HPC_ROOT/tests/lib.sh"
cd "$HPC_TMP"
P=$PROGS/heap/heap_known

want=$("$P") || fail "heap_known fails on its own: $want"
got=$("$HPCOLLECT" -q -H on -o k.hpc "$P") || fail "heap_known under -H on: exit $?: $got"
[ "$got" = "$want" ] || fail "output differs under -H on: '$got', expected '$want'"

M=e.heap_allocs:e.heap_bytes:e.heap_leaks:e.heap_leaked_bytes:e.heap_peak_blocks:e.heap_peak_bytes:e.heap_temporary
check_py "
d = analyze('k.hpc', '--metrics', '$M', 'functions')
rows = {r['name']: r for r in d['functions']}
keys = ['excl_heap_allocs', 'excl_heap_bytes', 'excl_heap_leaks', 'excl_heap_leaked_bytes',
        'excl_heap_peak_blocks', 'excl_heap_peak_bytes', 'excl_heap_temporary']
# allocs, bytes, leaks, leaked bytes, blocks at peak, bytes at peak, temporary
truth = {
    'early':         (2, 100, 2, 100, 2, 100, 0),
    'leak_x':        (7, 7000, 7, 7000, 7, 7000, 0),
    'calloc_z':      (3, 900, 3, 900, 3, 900, 0),
    'aligned_a':     (5, 256 + 512 + 1024 + 4096 + 100, 2, 1536, 2, 1536, 1),
    'realloc_chain': (5, 100 + 200 + 400 + 800 + 1600, 0, 0, 0, 0, 5),
    'churn_y':       (50, 3200, 0, 0, 0, 0, 50),
    'map_leak':      (1, 65536, 1, 65536, 1, 65536, 0),
    'map_free':      (1, 8192, 0, 0, 0, 0, 1),
    'peak_p':        (10, 1000000, 0, 0, 10, 1000000, 1),
    'produce':       (20, 2560, 0, 0, 0, 0, 0),
    'child_leak':    (3, 999, 3, 999, 3, 999, 0),
}
for fn, want in truth.items():
    check(fn in rows, f'{fn} has heap metrics')
    got = tuple(rows[fn][k] for k in keys)
    check(got == want, f'{fn}: {got} == {want} (allocs, bytes, leaks, leaked, at peak, bytes at peak, temporary)')
for fn in ('main', 'consume', 'behaviour'):
    r = rows.get(fn, {})
    check(all(r.get(k, 0) == 0 for k in keys), f'{fn}: nothing exclusive (its callees allocate; frees are no allocations)')

h = {p['process']: p for p in analyze('k.hpc', 'heap')['processes']}
m, c = h['main'], h['main.f1']
check(m['ended'] and c['ended'], 'both processes ended normally')
check(m['peak_bytes'] == 1075072 and m['peak_blocks'] == 25, f'peak {m[\"peak_bytes\"]} bytes in {m[\"peak_blocks\"]} blocks == 1075072 in 25')
check(c['leaks'] == 3 and c['leaked_bytes'] == 999 and c['allocs'] == 3, 'the fork child: its own 3 leaks of 333')
check(m['unmatched_frees'] == 0 and m['unseen_frees'] == 0, 'every free matched a traced block')
check(max(pt['max_bytes'] for pt in m['timeline']) == m['peak_bytes'], 'the timeline reaches the peak')

L = analyze('k.hpc', 'leaks')
ours = ('hpc_', 'hpcollect', 'omptool', 'ompt_')
mine = {'early', 'leak_x', 'calloc_z', 'aligned_a', 'map_leak', 'child_leak'}
n = b = 0
for s in L['leaks']:
    names = [f['function'] for f in s['stack']]
    check(not any(x.startswith(ours) for x in names), f'leak {s[\"number\"]}: no frame of the collector ({names[0]})')
    if names[0] in mine:
        n += s['instances']; b += s['bytes']
check((n, b) == (2 + 16, 100 + 7000 + 900 + 1536 + 65536 + 999), f'leaks of the program: {n} blocks, {b} bytes')
check(L['instances'] == sum(s['instances'] for s in L['leaks']), 'leak instances add up')
check(len([s for s in L['leaks'] if s['stack'][0]['function'] == 'aligned_a']) == 2, 'aligned_a: two distinct leak stacks (aligned_alloc, memalign)')
A = analyze('k.hpc', 'allocs')
top = A['allocations'][0]
check(top['stack'][0]['function'] == 'peak_p' and top['instances'] == 10 and top['bytes'] == 1000000, 'allocs: peak_p first, 10 blocks, 1000000 bytes')
"

# exports and overview: a flame graph of bytes leaked (folded stacks of heap_leaked_bytes),
# the Chrome trace's "heap in use" counter track reaching the peak, overview's Heap column
"$HPANALYZE" --sort e.heap_leaked_bytes k.hpc export folded >leaks.folded
grep -q ';leak_x 7000$' leaks.folded || fail "folded bytes leaked: no ';leak_x 7000': $(head -5 leaks.folded)"
grep -q ';peak_p ' leaks.folded && fail "folded bytes leaked: peak_p leaked nothing"
"$HPANALYZE" k.hpc export chrome -o k.json
check_py "
import json
ev = [e for e in json.load(open('k.json'))['traceEvents'] if e.get('name') == 'heap in use']
check(ev and max(e['args']['bytes'] for e in ev) == 1075072, 'chrome: heap in use counter reaches the peak')
o = analyze('k.hpc', 'overview')
pts = [p for q in o['processes'] if q['name'] == 'main' for p in q['periods']]
end = [q for q in analyze('k.hpc', 'heap')['processes'] if q['process'] == 'main'][0]['end_bytes']
check(pts and pts[-1]['heap_in_use'] == end, f'overview: heap in use at the end point == the heap report end ({end})')
check(any(p['heap_in_use'] >= 75072 for p in pts), 'overview: the program leaks are in use at the end')
"

# the text report: er_print's layout
"$HPANALYZE" k.hpc leaks >leaks.txt
grep -q '^Summary Results: Distinct Leaks = [0-9]*, Total Instances = [0-9]*, Total Bytes Leaked = [0-9]*$' leaks.txt ||
    fail "leaks: no er_print summary line: $(head -2 leaks.txt)"
grep -A1 '^Leak #[0-9]*, Instances = 7, Bytes Leaked = 7000$' leaks.txt | grep -q '^  leak_x + 0x' ||
    fail "leaks: leak_x's 7 blocks not listed as er_print does: $(head -20 leaks.txt)"

# a killed process: the leaks of its last records, said as such
"$HPCOLLECT" -q -H on -o kill.hpc "$PROGS/heap/heap_killed" && fail "heap_killed exited 0" || true
check_py "
h = analyze('kill.hpc', 'heap')['processes'][0]
check(not h['ended'], 'killed: not ended normally')
rows = {r['name']: r for r in analyze('kill.hpc', 'functions')['functions']}
check((rows['before_kill']['excl_heap_leaks'], rows['before_kill']['excl_heap_leaked_bytes']) == (4, 2000), 'before_kill: 4 leaks, 2000 bytes')
check((rows['frees_some']['excl_heap_leaks'], rows['frees_some']['excl_heap_leaked_bytes']) == (4, 400), 'frees_some: 4 of 6 left, 400 bytes')
"
"$HPANALYZE" kill.hpc leaks | grep -q '^Note: process main did not end normally' ||
    fail "leaks of a killed process: no note"

# without -H: no heap data, and the reports say so
"$HPCOLLECT" -q -o off.hpc "$P" >/dev/null || fail "-H off run failed"
"$HPANALYZE" off.hpc leaks 2>err.txt && fail "leaks without heap data exited 0"
grep -q 'no heap tracing data.*-H on' err.txt || fail "leaks without heap data: $(cat err.txt)"
"$HPCOLLECT" -H maybe "$P" 2>err.txt && fail "-H maybe accepted"
grep -q -- "-H: bad value 'maybe'" err.txt || fail "-H maybe: $(cat err.txt)"
"$HPCOLLECT" -n -H on "$P" | grep -q 'heap tracing (-H) *on' || fail "-n does not show -H on"
note "ok: heap tracing exact on every function, peak, leaks, killed process"
