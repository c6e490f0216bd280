#!/bin/bash
# hpanalyze's iocallstack, iodetail's opening stacks and the report filters of the I/O
# views, against I/O known in advance. io_pattern (tests/io/progs/io_pattern.c):
# iocallstack has each distinct stack with its calls and bytes (256 writes of 4 KiB from
# write_seq, 100 preads of 1 MiB from read_rand, 10 one-byte writes through via_a and 10
# through via_b, 50 fprintf, 51 fgets, the failing open an I/O error), sorted by I/O time,
# its totals those of functions; iodetail names the function that opened each handle.
# io_threads (tests/io/progs/io_threads.c): ioactivity, iodetail and iocallstack with
# --threads keep each thread's own files and calls, and with --time the calls before or
# after the program's pause (the cut placed in the pause as this run's handles show it),
# and with --samples the calls of the period before or after its sample point.
source "$HPC_ROOT/tests/lib.sh"
mkdir p t
"$HPCOLLECT" -q -i on -o io "$PROGS/io/io_pattern" "$PWD/p" || fail "io_pattern failed under -i on"
"$HPCOLLECT" -q -i on -o th "$PROGS/io/io_threads" "$PWD/t" || fail "io_threads failed under -i on"
check_py "
import sys; sys.path.insert(0, '$HPC_ROOT/tests/io')
from iotest import *
MiB = 1 << 20
cs = analyze('io.hpc', 'iocallstack')
st = {tuple(f['function'] for f in s['stack'][:3]): s for s in cs['stacks']}
def at(*frames):
    got = [s for k, s in st.items() if k[:len(frames)] == frames]
    equal(len(got), 1, f'stacks at {\" < \".join(frames)}')
    return got[0]
expect(at('write', 'write_seq'), 'write < write_seq', write_count=256, write_bytes=MiB, read_count=0)
expect(at('pread', 'read_rand'), 'pread < read_rand', read_count=100, read_bytes=100 * MiB)
expect(at('write', 'put', 'via_a'), 'write < put < via_a', write_count=10, write_bytes=10)
expect(at('write', 'put', 'via_b'), 'write < put < via_b', write_count=10, write_bytes=10)
expect(at('fprintf', 'stdio_text'), 'fprintf < stdio_text', write_count=50, write_bytes=450)
expect(at('fgets', 'stdio_text'), 'fgets < stdio_text', read_count=51, read_bytes=450)
expect(at('open', 'fail_open'), 'open < fail_open', error_count=1, other_count=0)
fn = functions('io.hpc')
for k in ('read_count', 'read_bytes', 'write_count', 'write_bytes', 'other_count', 'error_count'):
    cls, what = k.split('_')
    key = 'excl_io' + cls + ('cnt' if what == 'count' else 'bytes')
    equal(cs['total'][k], fn['<Total>'][key], f'iocallstack total {k}: functions\' <Total>')
times = [s['read_time_s'] + s['write_time_s'] + s['other_time_s'] + s['error_time_s']
         for s in cs['stacks']]
equal(times, sorted(times, reverse=True), 'stacks by I/O time')
hs = analyze('io.hpc', 'iodetail')['handles']
opened = {h['path'].rsplit('/', 1)[1]: [f['function'] for f in h['opened_at'][:2]] for h in hs}
equal(opened['seq.dat'], ['open', 'write_seq'], 'seq.dat opened at')
equal(opened['rand.dat'], ['open', 'read_rand'], 'rand.dat opened at')
equal(opened['ab.dat'], ['open', 'two_paths'], 'ab.dat opened at')
equal(sorted(tuple(f['function'] for f in h['opened_at'][:2]) for h in hs
             if h['path'].endswith('/text.txt')), [('fopen', 'stdio_text')] * 2, 'text.txt opened at')
txt = analyze('io.hpc', 'iodetail', 'seq.dat', fmt='text')
check('opened at open < write_seq < main' in txt, 'iodetail text: seq.dat opened at open < write_seq < main')

D = '$PWD/t'
def wr(exp, *args):
    return {p.rsplit('/', 1)[1]: (f['write_count'], f['write_bytes'])
            for p, f in files(exp, *args).items() if p.startswith(D)}
equal(wr('th.hpc'), {'a.dat': (10, 1000), 'b.dat': (20, 4000), 'c.dat': (5, 1500)}, 'all threads')
equal(wr('th.hpc', '--threads', '0'), {'a.dat': (10, 1000), 'c.dat': (5, 1500)}, '--threads 0')
equal(wr('th.hpc', '--threads', '1'), {'b.dat': (20, 4000)}, '--threads 1')
equal(sorted((h['path'].rsplit('/', 1)[1], h['write_count'])
             for h in analyze('th.hpc', '--threads', '1', 'iodetail')['handles']
             if h['path'].startswith(D) and h['write_count']), [('b.dat', 20)],
      'iodetail --threads 1')
one = analyze('th.hpc', '--threads', '1', 'iocallstack')
equal(one['total']['write_count'], 20, 'iocallstack --threads 1: writes')
hs = {h['path'].rsplit('/', 1)[1]: h for h in analyze('th.hpc', 'iodetail')['handles']
      if h['path'].startswith(D)}
before = max(hs['a.dat']['last_s'], hs['b.dat']['last_s'])
check(hs['c.dat']['first_s'] > before, 'c.dat is used after a.dat and b.dat')
cut = (before + hs['c.dat']['first_s']) / 2
equal(wr('th.hpc', '--time', f'0-{cut:.6f}'), {'a.dat': (10, 1000), 'b.dat': (20, 4000)},
      f'--time 0-{cut:.3f}')
equal(wr('th.hpc', '--time', f'{cut:.6f}-'), {'c.dat': (5, 1500)}, f'--time {cut:.3f}-')
equal(wr('th.hpc', '--samples', 'ab_done'), {'a.dat': (10, 1000), 'b.dat': (20, 4000)},
      '--samples ab_done (the period the point ends)')
equal(wr('th.hpc', '--samples', '1'), wr('th.hpc', '--samples', 'ab_done'), '--samples 1')
equal(wr('th.hpc', '--samples', '2'), {'c.dat': (5, 1500)}, '--samples 2')
equal(analyze('th.hpc', '--samples', '2', 'iocallstack')['total']['write_count'], 5,
      'iocallstack --samples 2: writes')
"
