#!/bin/bash
# timeout: 60
# Traced calls' stacks come from a per-thread cache keyed by the call site and stack
# pointer, checked return address by return address (collector/interpose.c); the heap
# tracer's allocations use it. tests/heap/progs/heap_callers.c reaches one malloc call site
# through different callers in turn with the same stack pointer: one frame up (via_a,
# via_b), two frames up (outer_a, outer_b), 40 and 70 frames up (top_a, top_b: 40 is
# checked whole, 70 is deeper than the cache keeps), and through a 64 KiB frame (farther
# than its search of the stack): every caller's allocations, bytes, leaks and leaked bytes
# are exact (inclusive). Each case fails with its check disabled (all callers' blocks on
# the first one's stack). The program's output is what it is without the collector.
source "$HPC_ROOT/tests/lib.sh"
cd "$HPC_TMP"
P=$PROGS/heap/heap_callers

want=$("$P") || fail "heap_callers fails on its own: $want"
got=$("$HPCOLLECT" -q -H on -o c.hpc "$P") || fail "heap_callers under -H on: exit $?: $got"
[ "$got" = "$want" ] || fail "output differs under -H on: '$got', expected '$want'"

check_py "
d = analyze('c.hpc', '--metrics', 'i.heap_allocs:i.heap_bytes:i.heap_leaks:i.heap_leaked_bytes', 'functions')
rows = {r['name']: r for r in d['functions']}
keys = ['incl_heap_allocs', 'incl_heap_bytes', 'incl_heap_leaks', 'incl_heap_leaked_bytes']
truth = {  # allocations, bytes, leaks, bytes leaked
    'via_a': (300, 300 * 24, 300, 300 * 24),
    'via_b': (500, 500 * 40, 0, 0),
    'outer_a': (200, 200 * 16, 200, 200 * 16),
    'outer_b': (100, 100 * 32, 0, 0),
    'big_frame': (50, 50 * 8, 50, 50 * 8),
    'top_a': (60, 60 * 48, 60, 60 * 48),
    'top_b': (60, 60 * 56, 60, 60 * 56),
    'alloc_here': (1270, 40240, 670, 17040),
}
for fn, want in truth.items():
    check(fn in rows, f'{fn} has heap metrics')
    got = tuple(rows[fn][k] for k in keys)
    check(got == want, f'{fn}: {got} == {want} (allocations, bytes, leaks, bytes leaked)')
"
