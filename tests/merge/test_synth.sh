#!/bin/bash
# hpmerge on a synthetic 4-rank x 2-thread job (tests/merge/progs/mkjob.c) whose every count
# is known: the archive passes otf2-print -Werror and reads back with the OTF2 Python reader
# with the experiment's numbers of sends, receives, bytes, samples, collectives and counter
# values; every send has its receive; clock offsets of 1 s per rank and 50 ppm drift are
# corrected back to the global timeline; summary.json says the same numbers.
source "$HPC_ROOT/tests/lib.sh"
MKJOB="$PROGS/merge/mkjob"
"$MKJOB" job.hpc --ranks 4 --threads 2 --iters 12 --samples 4 --bytes 1000 \
    --offset-ns 1000000000 --drift-ppm 50 --counters --expect expect.json
"$HPMERGE" -q job.hpc 2>merge.err || { cat merge.err; fail "hpmerge failed"; }
[ -s job.hpc/otf2/traces.otf2 ] && [ -s job.hpc/summary.txt ] && [ -s job.hpc/summary.json ] ||
    fail "outputs missing"
otf2-print --silent -Werror job.hpc/otf2/traces.otf2 >print.out 2>print.err ||
    fail "otf2-print -Werror: $(cat print.err)"
[ ! -s print.err ] || fail "otf2-print complained: $(head -5 print.err)"
otf2-print job.hpc/otf2/traces.otf2 2>&1 | grep -q "INVALID\|UNDEFINED <" &&
    fail "otf2-print shows references to undefined definitions"
[ ! -s merge.err ] || fail "hpmerge reported problems on clean data: $(cat merge.err)"

check_py "
import json, sys
sys.path.insert(0, '$HPC_ROOT/tests/merge')
import otf2check
e = json.load(open('expect.json'))
t = otf2check.read('job.hpc/otf2/traces.otf2')
check(not t.errors, 'archive is consistent: ' + '; '.join(t.errors[:5]))
for pr in e['per_rank']:
    r, c = pr['rank'], t.by_rank[pr['rank']]
    check(c['MpiSend'] + c['MpiIsend'] == pr['sends'], f'rank {r}: {pr[\"sends\"]} sends')
    check(c['MpiRecv'] + c['MpiIrecv'] == pr['receives'], f'rank {r}: {pr[\"receives\"]} receives')
    check(c['bytes_sent'] == pr['bytes_sent'], f'rank {r}: {pr[\"bytes_sent\"]} bytes sent')
    check(c['bytes_received'] == pr['bytes_received'], f'rank {r}: {pr[\"bytes_received\"]} bytes received')
    check(c['samples_clock'] == pr['samples'], f'rank {r}: {pr[\"samples\"]} clock samples')
    check(c['samples_page-faults'] == pr['counter_samples'], f'rank {r}: {pr[\"counter_samples\"]} counter samples')
    check(t.metrics[(r, 'page-faults')] == pr['counter_value'], f'rank {r}: page-faults accumulate to {pr[\"counter_value\"]}')
    check(c['MpiCollectiveEnd'] == pr['collectives'], f'rank {r}: {pr[\"collectives\"]} collectives')
    check(c['coll_bytes_sent'] == pr['coll_bytes_sent'], f'rank {r}: collective bytes sent')
    check(c['ThreadFork'] == pr['omp_regions'] == c['ThreadJoin'], f'rank {r}: fork/join per region')
    check(c['ThreadTeamBegin'] == pr['omp_regions'] * e['threads'] == c['ThreadTeamEnd'], f'rank {r}: team begin/end per thread')
    # clock correction: the first send happens at the same global time on every rank
    near(t.first[(r, 'MpiSend')], pr['first_send_global'], 2, f'rank {r}: first send at its global time (ns)')
pairs, lone_s, lone_r = otf2check.match(t)
check(not lone_s and not lone_r, f'every send matched ({len(pairs)} pairs, {len(lone_s)} lone sends, {len(lone_r)} lone receives)')
check(all(s[4] == r[4] for s, r in pairs), 'matched messages have equal sizes')
check(all(r[5] >= s[5] for s, r in pairs), 'every receive ends after its send began (clocks corrected)')
check(t.regions['MPI_Sendrecv'] == e['ranks'] * e['iters'], 'one Enter per MPI_Sendrecv call')
check(t.clock.realtime_timestamp > 1.6e18, 'clock properties carry a realtime timestamp')

s = json.load(open('job.hpc/summary.json'))
for key in ('experiment', 'command', 'processes', 'mpi_calls', 'mpi_callsites', 'omp_regions', 'functions'):
    check(key in s, f'summary.json has {key}')
check(s['command'] == './solver -n 100', 'command line')
for pr, p in zip(e['per_rank'], s['processes']):
    r = pr['rank']
    check(p['rank'] == r, f'process {r} in rank order')
    for k_sum, k_exp in (('mpi_sends', 'sends'), ('mpi_receives', 'receives'), ('mpi_bytes_sent', 'bytes_sent'),
                         ('mpi_bytes_received', 'bytes_received'), ('mpi_other_calls', 'other_calls'),
                         ('mpi_calls', 'mpi_calls'), ('samples', 'samples')):
        check(p[k_sum] == pr[k_exp], f'summary rank {r}: {k_sum} = {pr[k_exp]}')
    for th in p['threads']:
        k = th['thread']
        near(th['omp_work_s'], pr['work_samples'][k] * 1e-3, 1e-9, f'rank {r} thread {k} omp_work_s')
        near(th['omp_wait_s'], pr['wait_samples'][k] * 1e-3, 1e-9, f'rank {r} thread {k} omp_wait_s')
calls = {c['call']: c for c in s['mpi_calls']}
check(calls['MPI_Sendrecv']['calls'] == e['ranks'] * e['iters'], 'MPI_Sendrecv calls across ranks')
# durations are on each rank's own clock, which runs r * drift_ppm fast
import statistics
per = [e['iters'] * 2e-3 * (1 + r * e['drift_ppm'] * 1e-6) for r in range(e['ranks'])]
near(calls['MPI_Sendrecv']['rank_time_s']['mean'], statistics.mean(per), 1e-9, 'MPI_Sendrecv time per rank (2 ms a call, own clock)')
near(calls['MPI_Sendrecv']['rank_time_s']['max'], max(per), 1e-9, 'MPI_Sendrecv slowest rank')
near(calls['MPI_Sendrecv']['cov'], statistics.pstdev(per) / statistics.mean(per), 1e-8, 'MPI_Sendrecv COV across ranks')
funcs = {f['function']: f for f in s['functions']}
near(funcs['synth_compute']['exclusive_s'], sum(p['work_samples'][0] for p in e['per_rank']) * 1e-3, 1e-9, 'synth_compute exclusive time')
near(funcs['synth_main']['inclusive_s'], sum(p['work_samples'][0] + p['samples_mpi'] for p in e['per_rank']) * 1e-3, 1e-9, 'synth_main inclusive time')
ctr = {c['counter']: c for c in s['counters']}
check(ctr['page-faults']['total'] == sum(p['counter_value'] for p in e['per_rank']), 'summary: page-faults total')
check(ctr['page-faults']['samples'] == sum(p['counter_samples'] for p in e['per_rank']), 'summary: page-faults samples')
check(all(p['counters']['page-faults'] == pr['counter_value'] for p, pr in zip(s['processes'], e['per_rank'])), 'summary: page-faults per rank')
regions = s['omp_regions']
check(len(regions) == 1 and regions[0]['instances'] == e['ranks'] * e['iters'], 'one parallel region, instances')
"
