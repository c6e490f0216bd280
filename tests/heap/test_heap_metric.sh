#!/bin/bash
# timeout: 120
# Heap in use over time (-H) against ground truth (tests/heap/progs/heap_known.c), in the
# three places that show it, all from model/heap.c's points: the OTF2 metric "heap in
# use" (hpmerge), the Chrome export's counter track, overview's sample points.
#   - OTF2 (read with otf2-print -Werror and the Python reader): one MetricInstance per
#     process (an ABSTRACT class, member ABSOLUTE_POINT in bytes), recorded by the
#     process's first location, scoped to its location group; times never decrease; the
#     peak exact (1075072 bytes) at the moment the 10th malloc(100000) returned (its
#     heap_alloc record); exactly 75072 bytes at the sample point "peak_done", after
#     peak_p freed its 10 blocks; the last value the heap report's end_bytes; each interval
#     of the heap report's timeline has its most among the values, in order; the fork
#     child's own 999.
#   - Chrome: the same values in the same order, per process.
#   - overview: 75072 at "peak_done".
source "$HPC_ROOT/tests/lib.sh"
cd "$HPC_TMP"
P=$PROGS/heap/heap_known
"$HPCOLLECT" -q -H on -o k.hpc "$P" >/dev/null || fail "heap_known under -H on: exit $?"
"$HPMERGE" -q k.hpc >/dev/null 2>merge.err || fail "hpmerge: $(cat merge.err)"
otf2-print -Werror k.hpc/otf2/traces.otf2 >/dev/null 2>print.err || fail "otf2-print -Werror: $(head -5 print.err)"
"$HPANALYZE" k.hpc export chrome -o k.json || fail "export chrome"
"$HPANALYZE" k.hpc dump | grep -E '^(heap_alloc|sample_point) ' >records.txt || fail "dump: no records"
check_py "
import json, otf2
recs = [(l.split()[0], dict(kv.split('=', 1) for kv in l.split()[2:])) for l in open('records.txt')]
peak_t = max(int(f['time']) + int(f['duration']) for k, f in recs if k == 'heap_alloc' and f['size'] == '100000')
done_t = [int(f['time']) for k, f in recs if k == 'sample_point' and f['label'] == '\"peak_done\"']
check(len(done_t) == 1, f'one sample point peak_done: {done_t}')
heap = {p['process']: p for p in analyze('k.hpc', 'heap')['processes']}

vals = {}  # location group name -> [(time, bytes)]
with otf2.reader.open('k.hpc/otf2/traces.otf2') as tr:
    for loc, ev in tr.events:
        if type(ev).__name__ != 'Metric' or type(ev.metric).__name__ != 'MetricInstance':
            continue
        m = ev.metric
        mm = m.metric_class.members[0]
        check(mm.name == 'heap in use' and mm.unit == 'bytes', f'instance of {mm.name} ({mm.unit})')
        check(str(mm.metric_mode) == 'MetricMode.ABSOLUTE_POINT', f'heap in use: {mm.metric_mode}')
        check(str(m.metric_class.recorder_kind) == 'RecorderKind.ABSTRACT', 'heap in use: an abstract class')
        check(str(m.metric_scope) == 'MetricScope.LOCATION_GROUP' and m.scope == loc.group, f'heap in use of {m.scope.name} recorded in {loc.group.name}: scoped to its process')
        check(m.recorder == loc and loc.name == 'thread 0', f'heap in use recorded by its recorder, the first thread ({loc.name})')
        vals.setdefault(loc.group.name, []).append((ev.time, ev.values[0]))
check(sorted(vals) == ['main', 'main.f1'], f'one heap metric per process: {sorted(vals)}')
for g, v in vals.items():
    check(all(a[0] <= b[0] for a, b in zip(v, v[1:])), f'{g}: {len(v)} values, times never decrease')
    check(v[-1][1] == heap[g]['end_bytes'], f'{g}: last value {v[-1][1]} == the heap report end {heap[g][\"end_bytes\"]}')
    want = [p['max_bytes'] for p in heap[g]['timeline']]
    it = iter(b for t, b in v)
    check(all(any(b == w for b in it) for w in want), f'{g}: each timeline interval has its most among the values, in order')
m = vals['main']
top = max(b for t, b in m)
check(top == 1075072, f'main: most {top} == 1075072 (the peak, exact)')
first = min(t for t, b in m if b == top)
check(first == peak_t, f'main: the peak at {first} == the 10th malloc(100000) returned at {peak_t}')
at = [b for t, b in m if t == done_t[0]]
check(at and all(b == 75072 for b in at), f'main: at peak_done {at} == [75072] (in use after peak_p freed its blocks)')
check(max(b for t, b in vals['main.f1']) == 999, 'the fork child: its own 999 bytes')

ev = [e for e in json.load(open('k.json'))['traceEvents'] if e.get('name') == 'heap in use']
chrome = {}
for e in ev:
    chrome.setdefault(e['pid'], []).append((e['ts'], e['args']['bytes']))
for pid, c in chrome.items():
    check(all(a[0] <= b[0] for a, b in zip(c, c[1:])), f'chrome pid {pid}: times never decrease')
check(sorted([b for t, b in c] for c in chrome.values()) == sorted([b for t, b in v] for v in vals.values()),
      'chrome: the counter track has the OTF2 metric values, in order, per process')

o = analyze('k.hpc', 'overview')
pts = {p['label']: p['heap_in_use'] for q in o['processes'] if q['name'] == 'main' for p in q['periods']}
check(pts.get('peak_done') == 75072, f'overview: heap in use at peak_done {pts.get(\"peak_done\")} == 75072')
"
note "ok: heap in use in OTF2, Chrome and overview: the peak, a known free, the end, exact"
