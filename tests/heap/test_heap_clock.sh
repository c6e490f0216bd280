#!/bin/bash
# timeout: 60
# The heap tracer's times are the TSC mapped to CLOCK_MONOTONIC ns by one mapping for all
# threads, kept on the kernel's clock by segments (collector/interpose.c, hpc_trace_ns).
# tests/heap/progs/heap_clock.c brackets each of 400 allocations (2 threads, about a second:
# many segments) with its own CLOCK_MONOTONIC reads: every block's time (the call's end) is
# within its bracket, give or take 50 us (the mapping's error is a few us: a segment starts
# at a pair of clock reads at most 4 us apart). A preempted program only widens its
# brackets: this bounds the mapping's error, not anybody's speed.
source "$HPC_ROOT/tests/lib.sh"
cd "$HPC_TMP"
"$HPCOLLECT" -q -p off -H on -o c.hpc "$PROGS/heap/heap_clock" >brackets.txt ||
    fail "heap_clock under -H on: exit $?"
"$HPANALYZE" c.hpc dump | grep '^heap_alloc ' >allocs.txt || fail "no heap_alloc records"
check_py "
t = {}
for l in open('allocs.txt'):
    f = dict(kv.split('=', 1) for kv in l.split()[2:])
    t.setdefault(int(f['size']), []).append(int(f['time']) + int(f['duration']))
n = bad = 0
for l in open('brackets.txt'):
    _, size, a, b = l.split()
    got = t.get(int(size), [])
    check(len(got) == 1, f'one block of {size} bytes: {got}')
    n += 1
    if not int(a) - 50000 <= got[0] <= int(b) + 50000:
        bad += 1
        print(f'block of {size} bytes at {got[0]}: outside [{a}, {b}] by more than 50 us')
check(n == 400, f'{n} brackets')
check(bad == 0, f'{n - bad} of {n} blocks within their bracket (+- 50 us)')
"
