#!/bin/bash
# hpexp-dump on a synthetic job and on damaged streams: JSON lines with every record,
# per-process facts and stats; damage named by file and offset with exit 1; unusable
# input exit 2. Ground truth: mkexp writes 100*(rank+1)+thread samples per thread.
source "$HPC_ROOT/tests/lib.sh"
DUMP="$HPC_TESTDIR/tools/hpexp-dump"
MKEXP="$PROGS/experiment/mkexp"

job=$("$MKEXP" "$HPC_TMP")
[ "$job" = "$HPC_TMP/prog.1.hpc" ] || fail "experiment made at $job"
"$DUMP" "$job" >job.jsonl || fail "hpexp-dump exited $? on a clean experiment"

check_py "
import json
lines = [json.loads(l) for l in open('job.jsonl')]
procs = [l for l in lines if 'proc' in l and 'record' not in l]
check([p['proc'] for p in procs] == ['rank0', 'rank1'], 'processes sorted by rank')
check(procs[0]['ended_early'] is False and procs[1]['ended_early'] is True, 'rank1 ended early')
check(procs[0]['threads'] == [0, 1] and procs[1]['threads'] == [0, 1], 'two threads each')
check(procs[0]['stats']['samples'] == 201 and procs[1]['stats']['samples'] == 401, 'summed stats')
summ = {l['summary']: l for l in lines if 'summary' in l}
for r in (0, 1):
    for t in (0, 1):
        s = summ['rank%d/t%d.hpe' % (r, t)]
        check(s['records'] == 1 + 100 * (r + 1) + t and s['damaged'] == 0, 'records of rank%d/t%d' % (r, t))
samples = [l for l in lines if l.get('record') == 'sample_clock']
check(len(samples) == 602, 'every sample printed')
check(all(s['cpu_ns'] == 1000000 for s in samples), 'sample fields by name')
job = [l for l in lines if l.get('record') == 'job_begin']
check(len(job) == 1 and job[0]['job_id'] == 'job-7', 'job record')
mods = [l for l in lines if l.get('record') == 'module_load']
check(len(mods) == 2 and mods[0]['path'] == '/usr/bin/prog', 'module_load strings')
"

# Truncated: the good part, then a warning naming file and offset; exit 1.
t0="$job/rank0/t0.hpe"
size=$(stat -c %s "$t0")
head -c $((size - 3)) "$t0" >cut.hpe
set +e
"$DUMP" cut.hpe >cut.jsonl 2>cut.err
rc=$?
set -e
[ $rc = 1 ] || fail "truncated stream: exit $rc, expected 1"
grep -q "cut.hpe: offset [0-9]*: .*truncated" cut.err || fail "no truncation message: $(cat cut.err)"
n=$(grep -c '"record":"sample_clock"' cut.jsonl)
[ "$n" = 99 ] || fail "truncated stream: $n samples kept, expected 99 of 100"

# Killed writer: a readable prefix, the torn record counted.
set +e
"$MKEXP" --killed killed.hpe
"$DUMP" killed.hpe >killed.jsonl 2>killed.err
rc=$?
set -e
[ $rc = 1 ] || fail "killed stream: exit $rc"
grep -q "torn record" killed.err || fail "no torn record message: $(cat killed.err)"
check_py "
import json
s = [json.loads(l) for l in open('killed.jsonl')][-1]
check(s['records'] == 5000 and s['torn'] == 1 and s['stats']['samples'] == 5000, 'killed prefix: %s' % s)
"

# Every kind prints as valid JSON with every schema field, strings escaped exactly.
"$MKEXP" --every-kind every.hpe
"$DUMP" every.hpe >every.jsonl || fail "every kind: exit $?"
"$DUMP" --text every.hpe >every.txt || fail "every kind, text: exit $?"
cat >every.py <<'PY'
import json
lines = [json.loads(l) for l in open('every.jsonl')][:-1]
nkinds = 0  # the writer's own SCHEMA records come first (kind < 256); ours has kind 1000
while lines[nkinds]['record'] == 'schema' and lines[nkinds]['kind'] < 256:
    nkinds += 1
schema = {l['kind']: (l['name'], l['fields'].split()) for l in lines[:nkinds]}
recs = lines[nkinds:]
check(len(schema) > 30 and len(recs) == len(schema), '%d kinds written and printed' % len(schema))
text = 'q"b\\n\nc\x01\u00e9\u00ff'
bad = []
for r, (kind, (name, fields)) in zip(recs, sorted(schema.items())):
    if r['record'] != name:
        bad.append('%s printed as %s' % (name, r['record']))
        continue
    for i, f in enumerate(fields):
        key, typ = f.split(':')
        want = {'U': 1000 * kind + i, 'S': -i - 1, 'T': 1000000000 + i, 'STR': text,
                'BYTES': '00ff10'}[typ]
        if r.get(key) != want:
            bad.append('%s.%s = %r, expected %r' % (name, key, r.get(key), want))
check(not bad, 'every field of every kind ' + '; '.join(bad[:5]))
PY
check_py "exec(open('every.py').read())"
grep -q '^every.hpe: sample_clock @[0-9]* time=1000000000 node=22001 ' every.txt ||
    fail "text form: $(grep sample_clock every.txt | tail -1)"

# Not an experiment: a message and exit 2.
set +e
"$DUMP" /nonexistent/x.hpe 2>nf.err; rc1=$?
printf 'garbage' >garbage.hpe
"$DUMP" garbage.hpe 2>gb.err; rc2=$?
set -e
[ $rc1 = 2 ] && [ $rc2 = 2 ] || fail "unusable input: exit $rc1 / $rc2, expected 2"
grep -q "/nonexistent/x.hpe: cannot open" nf.err || fail "$(cat nf.err)"
grep -q "garbage.hpe: not an experiment stream" gb.err || fail "$(cat gb.err)"
echo "hpexp-dump: all checks passed"
