#!/bin/bash
# timeout: 120
# Calling contexts beyond what one OTF2 definition chunk holds (tests/merge/progs/mkjob.c
# --contexts N: N distinct calling contexts in rank 0's main thread, a 5-ary tree, one
# sample at every 500th and at the last).
#   - 500 000 contexts: the location's mapping table (about 2 MB) is larger than OTF2's
#     default definition chunk (hpmerge used to stop with "Requested size (1934247) to
#     large for chunksize (262144)", no otf2/ and no summary), and the global definitions
#     fill more than one chunk. The archive reads back with every context defined, and
#     each sample with exactly the function path mkjob wrote.
#   - a location with more contexts than one mapping table can hold
#     (HPMERGE_TEST_MAX_CONTEXTS lowers that bound, defs.h, from about 3.3 million):
#     every sample is written at its nearest ancestor within the bound, the archive
#     passes otf2-print -Werror, and the summary's problems and stderr say how many were.
source "$HPC_ROOT/tests/lib.sh"
MKJOB="$PROGS/merge/mkjob"

cat >paths.py <<'PY'
import json, sys
import otf2
FIVE = ["synth_main", "synth_compute", "synth_exchange", "synth_worker", "synth_kernel"]
T0 = 1000000000000  # mkjob's global start; its context samples come before T0 + 1 ms

def parent(i):
    j = i - 6
    return 6 + (j - 1) // 5 if j else 1  # context 0's parent is N_MAIN (id 1)

def path(i):
    """mkjob's function path from the root to context id i."""
    names = []
    while i >= 6:
        j = i - 6
        names.append(FIVE[(j - 1) % 5] if j else "synth_main")
        i = parent(i)
    return ["synth_main"] + names[::-1]

def check(anchor, n, limit):
    with otf2.reader.open(anchor) as tr:
        ncc = len(tr.definitions.calling_contexts)
        got = []
        for loc, ev in tr.events:
            if type(ev).__name__ == "CallingContextSample" and loc.group._ref == 0 and ev.time < T0 + 1000000:
                names, c = [], ev.calling_context
                while c is not None:
                    names.append(c.region.name)
                    c = c.parent
                got.append(names[::-1])
    want = []
    for j in range(n):
        if j % 500 == 499 or j == n - 1:
            i = 6 + j
            while i >= limit:
                i = parent(i)
            want.append(path(i))
    return ncc, got, want
PY

"$MKJOB" big.hpc --ranks 2 --threads 1 --iters 1 --contexts 500000 >/dev/null
# (HPMERGE_VALIDATE=0: the validator would read the 500 000 contexts again, 20 s; this
# test reads them back below, and cut.hpc, the same shape, is validated)
HPMERGE_VALIDATE=0 "$HPMERGE" -q big.hpc 2>merge.err || fail "hpmerge big.hpc: $(cat merge.err)"
[ ! -s merge.err ] || fail "hpmerge reported problems: $(cat merge.err)"
# (otf2-print checks calling contexts in quadratic time: 10 s for 100 000, so only the
# OTF2 Python reader reads this one; otf2-print -Werror reads the smaller one below)
check_py "
import sys; sys.path.insert(0, '.')
import paths
ncc, got, want = paths.check('big.hpc/otf2/traces.otf2', 500000, 1 << 40)
check(ncc >= 500000, f'{ncc} calling contexts defined (500 000 distinct paths written)')
check(len(got) == len(want) == 1000, f'{len(got)} of {len(want)} samples of the deep tree')
bad = [k for k, (g, w) in enumerate(zip(got, want)) if g != w]
check(not bad, f'every sample has its written path ({len(bad)} differ)')
"

"$MKJOB" cut.hpc --ranks 2 --threads 1 --iters 1 --contexts 20000 >/dev/null
HPMERGE_TEST_MAX_CONTEXTS=3000 "$HPMERGE" -q cut.hpc 2>cut.err ||
    fail "hpmerge cut.hpc: $(cat cut.err)"
grep -q "35 samples in calling contexts beyond the 3000 one OTF2 mapping table holds; written at their nearest ancestor within" cut.err ||
    fail "stderr does not say what was cut: $(cat cut.err)"
otf2-print --silent -Werror cut.hpc/otf2/traces.otf2 >/dev/null 2>print.err ||
    fail "otf2-print -Werror (cut): $(head -5 print.err)"
check_py "
import json, sys; sys.path.insert(0, '.')
import paths
ncc, got, want = paths.check('cut.hpc/otf2/traces.otf2', 20000, 3000)
check(3000 <= ncc <= 3050, f'{ncc} calling contexts defined: the 3000 below the bound and the regions\' own')
check(len(got) == len(want) == 40, f'{len(got)} of {len(want)} samples kept')
check(got == want, 'each sample at its nearest ancestor below the bound')
p = json.load(open('cut.hpc/summary.json'))['problems']
check(any('35 samples in calling contexts beyond the 3000' in x for x in p),
      f'summary.json problems say so: {p}')
"
