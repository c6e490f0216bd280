#!/bin/bash
# timeout: 240
# Bad input gives a clear message naming what is wrong and a non-zero exit, never a
# crash: usage errors (exit 2), things that are not experiments (exit 1), and damaged
# experiments (bytes overwritten anywhere, files cut short or emptied, for 30 seeds):
# those merge what is readable (exit 0) into an archive that still reads back cleanly.
source "$HPC_ROOT/tests/lib.sh"
expect_exit() { # expect_exit CODE PATTERN CMD...
    local want=$1 pat=$2 rc=0
    shift 2
    "$@" >out.txt 2>err.txt || rc=$?
    [ $rc = "$want" ] || fail "$*: exit $rc, expected $want: $(cat err.txt)"
    grep -q -- "$pat" err.txt || fail "$*: message lacks '$pat': $(cat err.txt)"
}
expect_exit 2 "no experiment given" "$HPMERGE"
expect_exit 2 "give exactly one experiment" "$HPMERGE" a.hpc b.hpc
expect_exit 2 "unrecognized option" "$HPMERGE" --frobnicate x.hpc
expect_exit 2 "\-\-top abc: expected a number" "$HPMERGE" --top abc x.hpc
expect_exit 2 "\-\-sort-memory 3: expected a number of events" "$HPMERGE" --sort-memory 3 x.hpc
expect_exit 1 "nothere.hpc: no such experiment directory" "$HPMERGE" nothere.hpc
echo hello >plain.txt
expect_exit 1 "plain.txt: not a directory" "$HPMERGE" plain.txt
mkdir empty.hpc
expect_exit 1 "empty.hpc: not an experiment" "$HPMERGE" empty.hpc
[ "$(wc -l <err.txt)" = 1 ] || fail "empty directory: one failure, $(wc -l <err.txt) lines: $(cat err.txt)"
expect_exit 1 "empty.hpc: not an experiment" "$HPC_BIN/hpcollect-archive" empty.hpc
[ "$(wc -l <err.txt)" = 1 ] || fail "archive, empty directory: $(wc -l <err.txt) lines: $(cat err.txt)"
mkdir junk.hpc junk.hpc/rank0 && head -c 5000 /dev/urandom >junk.hpc/job.hpe &&
    head -c 5000 /dev/urandom >junk.hpc/rank0/process.hpe && head -c 300 /dev/urandom >junk.hpc/rank0/t0.hpe
rc=0; "$HPMERGE" -q junk.hpc 2>junk.err || rc=$?
[ $rc -lt 128 ] && [ $rc != 0 ] || fail "random bytes: exit $rc: $(cat junk.err)"
grep -q "junk.hpc" junk.err || fail "random bytes: the message does not name the experiment"
"$PROGS/merge/mkjob" base.hpc --ranks 3 --threads 2 --iters 6 --counters
check_py "
import os, random, shutil, subprocess, sys
sys.path.insert(0, '$HPC_ROOT/tests/merge')
import otf2check
files = sorted(os.path.join(d, f) for d, _, fs in os.walk('base.hpc') for f in fs if f.endswith('.hpe'))
for seed in range(30):
    rnd = random.Random(seed)
    shutil.rmtree('fz.hpc', ignore_errors=True)
    shutil.copytree('base.hpc', 'fz.hpc')
    victims = rnd.sample(files, 2)
    for v in victims:
        p = v.replace('base.hpc', 'fz.hpc', 1)
        data = bytearray(open(p, 'rb').read())
        how = rnd.choice(['bytes', 'cut', 'empty'])
        if how == 'bytes':
            for _ in range(rnd.randint(1, 40)):
                i = rnd.randrange(len(data))
                data[i] = rnd.randrange(256)
        elif how == 'cut':
            data = data[:rnd.randrange(len(data))]
        else:
            data = b''
        open(p, 'wb').write(data)
    r = subprocess.run(['$HPMERGE', '-q', 'fz.hpc'], capture_output=True, text=True)
    if r.returncode < 0 or r.returncode >= 128 or 'AddressSanitizer' in r.stderr or 'runtime error' in r.stderr:
        sys.exit(f'FAIL: seed {seed} ({victims}): hpmerge crashed: {r.returncode} {r.stderr[-800:]}')
    if r.returncode == 0:
        t = otf2check.read('fz.hpc/otf2/traces.otf2')
        if t.errors:
            sys.exit(f'FAIL: seed {seed}: the archive of a damaged job is inconsistent: {t.errors[:3]}')
        if not r.stderr:
            sys.exit(f'FAIL: seed {seed}: damage in {victims} went unreported')
    elif 'fz.hpc' not in r.stderr:
        sys.exit(f'FAIL: seed {seed}: error without naming the experiment: {r.stderr}')
print('ok: 30 damaged experiments merged or refused cleanly')
"
