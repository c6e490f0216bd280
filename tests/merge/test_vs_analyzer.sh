#!/bin/bash
# The summary's MPI numbers are hpanalyze's: per rank (app and MPI time, sends, bytes,
# receives, other calls, collectives), per call and per call site (calls, time, min, max,
# COV) equal `hpanalyze mpi` exactly, on a synthetic job with clock offsets and drift
# (durations on each rank's own clock); the top functions' exclusive times equal
# `hpanalyze functions`.
source "$HPC_ROOT/tests/lib.sh"
"$PROGS/merge/mkjob" job.hpc --ranks 3 --threads 2 --iters 7 --offset-ns 123456 --drift-ppm 80
"$HPMERGE" -q job.hpc || fail "hpmerge failed"
"$HPANALYZE" --format json job.hpc mpi >mpi.json || fail "hpanalyze mpi failed"
"$HPANALYZE" --format json job.hpc functions >functions.json || fail "hpanalyze functions failed"
check_py "
import json
a = json.load(open('mpi.json'))
s = json.load(open('job.hpc/summary.json'))
procs = [p for p in s['processes'] if p['rank'] is not None]
check(len(a['ranks']) == len(procs) == 3, 'three ranks in both')
keys = ('app_time_s', 'mpi_time_s', 'mpi_calls', 'mpi_sends', 'mpi_bytes_sent', 'mpi_receives',
        'mpi_bytes_received', 'mpi_other_calls', 'coll_calls', 'coll_bytes_sent', 'coll_bytes_received')
for ra, ps in zip(a['ranks'], procs):
    check(ra['rank'] == ps['rank'], f'rank {ra[\"rank\"]} in the same order')
    for k in keys:
        near(ps[k], ra[k], 1e-9, f'rank {ra[\"rank\"]}: {k}')
def same_rows(rows_a, rows_s, what, key_a, key_s):
    sa = {key_a(r): r for r in rows_a}
    ss = {key_s(r): r for r in rows_s}
    check(set(sa) == set(ss), f'{what}: the same rows ({sorted(sa)})')
    for k in sa:
        x, y = sa[k], ss[k]
        check(x['calls'] == y['calls'], f'{what} {k}: {x[\"calls\"]} calls')
        near(y['time_s'], x['time_s'], 1e-9, f'{what} {k}: time')
        near(y['min_call_s'], x['min_s'], 1e-9, f'{what} {k}: shortest call')
        near(y['max_call_s'], x['max_s'], 1e-9, f'{what} {k}: longest call')
        near(y['cov'], x['cov'], 1e-6, f'{what} {k}: COV across ranks')
        for f in ('sends', 'bytes_sent', 'receives', 'bytes_received', 'coll_bytes_sent', 'coll_bytes_received'):
            check(x[f] == y[f], f'{what} {k}: {f} {x[f]}')
same_rows(a['calls'], s['mpi_calls'], 'call', lambda r: r['name'], lambda r: r['call'])
same_rows(a['sites'], s['mpi_callsites'], 'site', lambda r: (r['name'], r['location']),
          lambda r: (r['call'], r['site']))
f = json.load(open('functions.json'))
rows = {r['name']: r for r in f['functions']}
for fn in s['functions']:
    if fn['function'] in rows:
        near(fn['exclusive_s'], rows[fn['function']]['excl_cpu_s'], 1e-9, f'function {fn[\"function\"]}: exclusive CPU time')
        near(fn['inclusive_s'], rows[fn['function']]['incl_cpu_s'], 1e-9, f'function {fn[\"function\"]}: inclusive CPU time')
excl = rows
check(any(fn['function'] in excl for fn in s['functions']), 'functions compared with hpanalyze')
"
