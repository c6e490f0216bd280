#!/bin/bash
# timeout: 60
# Anonymous mappings cut and moved, against ground truth (tests/heap/progs/heap_maps.c, P =
# the page size): a munmap of a mapping's head, tail or middle takes those pages only, an
# mremap that grows (and may move), shrinks in place or moves to a fixed address gives
# back the old range and makes a block of the new size on its caller, an mremap of a file
# mapping is no allocation. Exact on each function: allocations, bytes, leaks and the
# bytes they still hold, blocks and bytes held at the peak (16P, what the cut mappings
# held then), temporaries; the process's peak, end, frees (none unmatched but the file
# mapping's two; one block freed unseen: the range MREMAP_FIXED replaced); the bytes in
# use at each sample point; the leaks report's stacks.
source "$HPC_ROOT/tests/lib.sh"
cd "$HPC_TMP"
P=$PROGS/heap/heap_maps
want=$("$P") || fail "heap_maps fails on its own: $want"
got=$("$HPCOLLECT" -q -H on -o m.hpc "$P") || fail "heap_maps under -H on: exit $?: $got"
[ "$got" = "$want" ] || fail "output differs under -H on: '$got', expected '$want'"
M=e.heap_allocs:e.heap_bytes:e.heap_leaks:e.heap_leaked_bytes:e.heap_peak_blocks:e.heap_peak_bytes:e.heap_temporary
check_py "
P = $(getconf PAGESIZE)
rows = {r['name']: r for r in analyze('m.hpc', '--metrics', '$M', 'functions')['functions']}
keys = ['excl_heap_allocs', 'excl_heap_bytes', 'excl_heap_leaks', 'excl_heap_leaked_bytes',
        'excl_heap_peak_blocks', 'excl_heap_peak_bytes', 'excl_heap_temporary']
truth = {  # allocs, bytes, leaks, leaked bytes, blocks at peak, bytes at peak, temporary
    'trim_head':    (1, 4 * P, 1, 3 * P, 1, 3 * P, 0),
    'trim_tail':    (1, 4 * P, 0, 0, 0, 0, 1),
    'punch_hole':   (1, 5 * P, 1, 3 * P, 1, 3 * P, 0),
    'remap_grow':   (2, 8 * P, 1, 6 * P, 1, 6 * P, 1),
    'remap_shrink': (2, 5 * P, 0, 0, 1, 4 * P, 2),
    'remap_move':   (3, 6 * P, 0, 0, 0, 0, 1),
    'file_remap':   (0, 0, 0, 0, 0, 0, 0),
}
for fn, want in truth.items():
    got = tuple(rows.get(fn, {}).get(k, 0) for k in keys)
    check(got == want, f'{fn}: {got} == {want} (allocs, bytes, leaks, leaked, at peak, bytes at peak, temporary)')
h = analyze('m.hpc', 'heap')['processes'][0]
got = {k: h[k] for k in ('peak_bytes', 'peak_blocks', 'end_bytes', 'allocs', 'bytes', 'frees', 'leaks', 'leaked_bytes', 'temporary', 'unmatched_frees', 'unseen_frees')}
want = dict(peak_bytes=16 * P, peak_blocks=4, end_bytes=12 * P, allocs=10, bytes=32 * P, frees=11, leaks=3,
            leaked_bytes=12 * P, temporary=5, unmatched_frees=2, unseen_frees=1)
check(got == want, f'heap: {got} == {want}')
pts = {p['label']: p['heap_in_use'] for q in analyze('m.hpc', 'overview')['processes'] for p in q['periods']}
want = dict(trim_head=3 * P, trim_tail=3 * P, punch_hole=6 * P, remap_grow=12 * P, remap_shrink=12 * P,
            remap_move=12 * P, end=12 * P)
check(pts == want, f'overview: in use at each sample point {pts} == {want}')
L = {s['stack'][0]['function']: (s['instances'], s['bytes']) for s in analyze('m.hpc', 'leaks')['leaks']}
check(L == {'trim_head': (1, 3 * P), 'punch_hole': (1, 3 * P), 'remap_grow': (1, 6 * P)}, f'leaks: {L}')
"
note "ok: partial munmaps and mremaps: bytes in use, leaks and the peak exact"
