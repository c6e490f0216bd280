#!/bin/bash
# A job where rank 2 left nothing, rank 3 was killed halfway (no end records) and rank 4's
# main thread stream is damaged: hpmerge merges what is there (exit 0, a valid archive),
# the intact ranks' numbers are all there, every lone message involves a broken rank, and
# both stderr and the summary say what is missing.
source "$HPC_ROOT/tests/lib.sh"
"$PROGS/merge/mkjob" job.hpc --ranks 5 --threads 2 --iters 10 --missing 2 --kill 3 --damage 4 \
    --expect expect.json
"$HPMERGE" -q job.hpc 2>merge.err || { cat merge.err; fail "hpmerge failed on a damaged job"; }
cat merge.err
grep -q "rank 2 of 5 left no sub-experiment" merge.err || fail "stderr does not name the missing rank"
grep -q "rank3.*ended early (killed by signal 9)" merge.err || fail "stderr does not name the killed rank"
grep -q "rank4/t0.hpe.*damaged records skipped" merge.err || fail "stderr does not name the damaged file"
grep -q "rank4/t0.hpe: offset [0-9]*:" merge.err || fail "stderr does not say where the damage is"
[ "$(grep -c 'offset 2080' merge.err)" -le 1 ] || fail "damage reported twice (once per pass)"
otf2-print --silent -Werror job.hpc/otf2/traces.otf2 >/dev/null 2>print.err || fail "otf2-print failed"
[ ! -s print.err ] || fail "otf2-print complained: $(head -3 print.err)"
for f in job.hpc/summary.txt; do
    grep -q "Problems" $f && grep -q "rank 2 of 5 left no sub-experiment" $f &&
        grep -q "damaged records skipped" $f || fail "summary.txt does not list the problems"
done
check_py "
import json, sys
sys.path.insert(0, '$HPC_ROOT/tests/merge')
import otf2check
e = json.load(open('expect.json'))
t = otf2check.read('job.hpc/otf2/traces.otf2')
check(not t.errors, 'archive is consistent: ' + '; '.join(t.errors[:5]))
check(len(t.locations) == 1 + 2 * 4, 'a location per thread, and one for the missing rank')
for r in (0, 1, 3):   # intact, and killed-halfway (its data up to its death is intact)
    pr, c = e['per_rank'][r], t.by_rank[r]
    check(c['MpiSend'] + c['MpiIsend'] == pr['sends'], f'rank {r}: {pr[\"sends\"]} sends')
    check(c['samples_clock'] == pr['samples'], f'rank {r}: {pr[\"samples\"]} samples')
check(e['per_rank'][3]['iters'] == e['iters'] // 2, 'the killed rank stopped halfway')
c4 = t.by_rank[4]
check(0 < c4['samples_clock'] < e['per_rank'][4]['samples'], 'the damaged rank keeps what is readable')
check(sum(t.by_rank[2].values()) == 0, 'the missing rank has no events')
pairs, lone_s, lone_r = otf2check.match(t)
broken = {2, 3, 4}
check(all(s[1] in broken or s[2] in broken for s in lone_s + lone_r), 'every lone message involves a broken rank')
check(sum(1 for s, r in pairs if (s[1], s[2]) == (0, 1)) == e['per_rank'][0]['sends'], 'rank 0 -> 1 messages all matched')
s = json.load(open('job.hpc/summary.json'))
p = {x['name']: x for x in s['processes']}
check(p['rank2']['missing'] and p['rank2']['rank'] == 2, 'summary.json marks rank 2 missing')
check(p['rank3']['ended_early'] and 'signal 9' in p['rank3']['end'], 'summary.json says rank 3 was killed')
check(any('rank4/t0.hpe' in x and 'damaged' in x for x in s['problems']), 'summary.json lists the damage')
check(any('no partner' in x for x in s['problems']), 'summary.json says messages lack partners')
check(s['processes'][0]['mpi_sends'] == e['per_rank'][0]['sends'], 'intact rank 0 numbers in the summary')
"
