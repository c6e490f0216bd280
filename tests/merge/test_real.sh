#!/bin/bash
# timeout: 180
# hpmerge on real runs: the known-traffic MPI program (tests/mpi/progs/traffic.c, 4 ranks
# under mpirun and hpcollect) and the imbalanced OpenMP program (tests/omp/progs/
# omp_imbalance.c, 10 regions of 2 threads on LLVM libomp). The archives pass otf2-print
# -Werror and read back with the OTF2 Python reader with exactly the experiment's counts
# (sends, receives, bytes and samples per rank, from hpexp-dump) and the program's known
# traffic (ranks 0,1: 10 sends of 7048 bytes, 9 receives of 5000; ranks 2,3 the reverse);
# every send has its receive; the summary's MPI and OpenMP numbers equal hpanalyze's.
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -f "$HPC_LIB/libhpcollect-mpi.so" ] || skip "lib/libhpcollect-mpi.so not built (MPI wrappers)"
command -v mpirun >/dev/null || skip "mpirun not installed"
DUMP="$HPC_TESTDIR/tools/hpexp-dump"
mpirun --oversubscribe -np 4 "$HPCOLLECT" -q -o traffic.hpc "$PROGS/mpi/traffic" >traffic.out
OMP_WAIT_POLICY=active "$HPCOLLECT" -q -p hi -o omp.hpc "$PROGS/omp/omp_imbalance.clang" 10 5 explicit >omp.out
for e in traffic omp; do
    "$HPMERGE" -q $e.hpc 2>$e.merge.err || { cat $e.merge.err; fail "hpmerge $e.hpc failed"; }
    otf2-print --silent -Werror $e.hpc/otf2/traces.otf2 >/dev/null 2>$e.print.err ||
        fail "otf2-print -Werror on $e: $(cat $e.print.err)"
    [ ! -s $e.print.err ] || fail "otf2-print complained on $e: $(head -3 $e.print.err)"
    "$DUMP" $e.hpc >$e.dump.jsonl 2>/dev/null || true
    "$HPANALYZE" --format json $e.hpc mpi >$e.mpi.json 2>/dev/null || true
    "$HPANALYZE" --format json $e.hpc omp >$e.omp.json 2>/dev/null || true
done
check_py "
import json, sys, collections
sys.path.insert(0, '$HPC_ROOT/tests/merge')
import otf2check

def truth(dump):
    # ground truth straight from the experiment's records, per process
    c = collections.defaultdict(collections.Counter)
    for line in open(dump):
        r = json.loads(line)
        rec = r.get('record')
        where = (r.get('file') or r.get('proc') or '').split('/')[0]
        if rec == 'mpi_p2p' and r['peer'] >= 0:
            if r['op'] in (1, 2):
                c[where]['sends'] += 1; c[where]['bytes_sent'] += r['bytes']
            elif r['op'] in (4, 6):
                c[where]['receives'] += 1; c[where]['bytes_received'] += r['bytes']
        elif rec == 'mpi_coll':
            c[where]['colls'] += 1
        elif rec in ('sample_clock', 'sample_state'):
            # thread states' off-CPU time is a sample of the clock's generator too
            c[where]['samples'] += 1
        elif rec == 'omp_parallel_begin':
            c[where]['regions'] += 1
    return c

# ---- MPI
t = otf2check.read('traffic.hpc/otf2/traces.otf2')
check(not t.errors, 'traffic archive consistent: ' + '; '.join(t.errors[:5]))
tr = truth('traffic.dump.jsonl')
known = {0: (10, 7048, 9, 5000), 1: (10, 7048, 9, 5000), 2: (9, 5000, 10, 7048), 3: (9, 5000, 10, 7048)}
for r in range(4):
    c, x = t.by_rank[r], tr[f'rank{r}']
    sends, recvs = c['MpiSend'] + c['MpiIsend'], c['MpiRecv'] + c['MpiIrecv']
    check((sends, c['bytes_sent'], recvs, c['bytes_received']) == known[r],
          f'rank {r}: sends, bytes, receives, bytes {known[r]}')
    check(sends == x['sends'] and c['bytes_sent'] == x['bytes_sent'], f'rank {r}: sends as recorded')
    check(recvs == x['receives'] and c['bytes_received'] == x['bytes_received'], f'rank {r}: receives as recorded')
    check(c['MpiCollectiveEnd'] == x['colls'], f'rank {r}: {x[\"colls\"]} collectives as recorded')
    check(c['samples_clock'] == x['samples'], f'rank {r}: {x[\"samples\"]} clock samples as recorded')
pairs, lone_s, lone_r = otf2check.match(t)
check(len(pairs) == 38 and not lone_s and not lone_r, f'every send matched ({len(pairs)} pairs, {len(lone_s)}, {len(lone_r)} lone)')
check(all(s[4] == r[4] for s, r in pairs), 'matched messages have equal sizes')
a = json.load(open('traffic.mpi.json'))
s = json.load(open('traffic.hpc/summary.json'))
procs = {p['rank']: p for p in s['processes'] if p['rank'] is not None}
for ra in a['ranks']:
    ps = procs[ra['rank']]
    for k in ('app_time_s', 'mpi_time_s', 'mpi_calls', 'mpi_sends', 'mpi_bytes_sent', 'mpi_receives',
              'mpi_bytes_received', 'mpi_other_calls', 'coll_calls', 'coll_bytes_sent', 'coll_bytes_received'):
        near(ps[k], ra[k], 1e-9, f'summary = hpanalyze mpi: rank {ra[\"rank\"]} {k}')
calls = {c['call']: c for c in s['mpi_calls']}
for ca in a['calls']:
    check(calls[ca['name']]['calls'] == ca['calls'], f'summary = hpanalyze mpi: {ca[\"name\"]} calls')
    near(calls[ca['name']]['time_s'], ca['time_s'], 1e-9, f'summary = hpanalyze mpi: {ca[\"name\"]} time')
    near(calls[ca['name']]['cov'], ca['cov'], 1e-6, f'summary = hpanalyze mpi: {ca[\"name\"]} COV')
check(len(s['mpi_callsites']) == len(a['sites']), f'{len(a[\"sites\"])} call sites in both')

# ---- OpenMP
t = otf2check.read('omp.hpc/otf2/traces.otf2')
check(not t.errors, 'OpenMP archive consistent: ' + '; '.join(t.errors[:5]))
x = truth('omp.dump.jsonl')['main']
check(x['regions'] == 10, 'the program ran 10 parallel regions')
check(t.count['ThreadFork'] == t.count['ThreadJoin'] == 10, 'a fork and a join per region')
check(t.count['ThreadTeamBegin'] == t.count['ThreadTeamEnd'] == 20, 'a team begin and end per thread and region')
# C code: the directives as C writes them, at the program's lines
src = open('$HPC_ROOT/tests/omp/progs/omp_imbalance.c').read().split(chr(10))
par = 1 + next(i for i, l in enumerate(src) if l.startswith('#pragma omp parallel'))
bar = 1 + next(i for i, l in enumerate(src) if l.startswith('#pragma omp barrier'))
check(t.regions[f'#pragma omp parallel @omp_imbalance.c:{par}'] == 20, 'the parallel region entered by both threads, 10 times')
check(t.regions[f'#pragma omp barrier @omp_imbalance.c:{bar}'] == 20, 'the explicit barrier entered by both threads, 10 times')
check(not [r for r in t.regions if r.startswith('!\$omp')], 'no Fortran names for C code')
check(t.count['CallingContextSample'] == x['samples'], f'{x[\"samples\"]} samples as recorded')
# regions say where their code is; the system tree names the machine the job ran on
import otf2, socket
with otf2.reader.open('omp.hpc/otf2/traces.otf2') as tr:
    d = tr.definitions
    mains = [r for r in d.regions if r.name == 'main' and r.paradigm == otf2.Paradigm.SAMPLING]
    mline = 1 + next(i for i, l in enumerate(src) if l.startswith('int main('))
    # the line of the function's first instruction: its declaration's (gcc) or the
    # opening brace's below it (clang)
    check(len(mains) == 1 and mains[0].source_file.endswith('omp_imbalance.c')
          and mains[0].begin_line_number in (mline, mline + 1),
          f'function main: omp_imbalance.c:{mline} (or its brace)')
    roots = [n for n in d.system_tree_nodes if n.parent is None]
    check(len(roots) == 1 and roots[0].name == socket.gethostname(), 'the machine is named after the host')
o = json.load(open('omp.omp.json'))
s = json.load(open('omp.hpc/summary.json'))
th = {th['thread']: th for th in s['processes'][0]['threads']}
for ta in o['threads']:
    near(th[ta['thread']]['omp_work_s'], ta['omp_work_s'], 1e-9, f'summary = hpanalyze omp: thread {ta[\"thread\"]} work')
    near(th[ta['thread']]['omp_wait_s'], ta['omp_wait_s'], 1e-9, f'summary = hpanalyze omp: thread {ta[\"thread\"]} wait')
check(len(s['omp_regions']) == len(o['regions']) == 1, 'one parallel construct in both')
for k in ('omp_work_s', 'omp_wait_s', 'wall_s'):
    near(s['omp_regions'][0][k], o['regions'][0][k], 1e-9, f'summary = hpanalyze omp: region {k}')
check(s['omp_regions'][0]['instances'] == o['regions'][0]['executions'] == 10, 'region executions')
"
