#!/bin/bash
# A merge killed halfway (SIGKILL after 3 locations, through the test hook
# HPMERGE_TEST_KILL_AFTER) or interrupted (SIGINT, exit 130) leaves the previous outputs
# byte for byte as they were; the next merge cleans up the dead merge's temporary
# directory and replaces the outputs.
source "$HPC_ROOT/tests/lib.sh"
"$PROGS/merge/mkjob" job.hpc --ranks 4 --threads 2 --iters 20
"$HPMERGE" -q job.hpc || fail "first merge failed"
snapshot() { (cd job.hpc && find otf2 summary.txt summary.json -type f | sort | xargs md5sum); }
snapshot >before.md5
[ "$(wc -l <before.md5)" -ge 10 ] || fail "the first merge wrote too few files"
# more data, so a complete second merge would change the outputs
rm -rf job2.hpc && "$PROGS/merge/mkjob" job2.hpc --ranks 4 --threads 2 --iters 30
for r in 0 1 2 3; do cp job2.hpc/rank$r/t*.hpe job.hpc/rank$r/; done
rc=0
HPMERGE_TEST_KILL_AFTER=3 "$HPMERGE" -q job.hpc 2>kill.err || rc=$?
[ $rc = 137 ] || fail "the test hook did not kill the merge (exit $rc): $(cat kill.err)"
snapshot >after.md5
cmp before.md5 after.md5 || fail "a killed merge changed the previous outputs"
ls -d job.hpc/.hpmerge-*.tmp >/dev/null 2>&1 || fail "expected the killed merge's temporary directory"
note "killed merge: outputs unchanged, temporary directory left: $(ls -d job.hpc/.hpmerge-*.tmp)"
# SIGINT: hpmerge stops at the next location, cleans up, exits 130
rc=0
HPMERGE_TEST_STOP_AFTER=2 "$HPMERGE" -q job.hpc 2>int.err || rc=$?
[ $rc = 130 ] || fail "interrupted merge: exit $rc, expected 130: $(cat int.err)"
grep -q "interrupted; the previous outputs of job.hpc are unchanged" int.err || fail "no message: $(cat int.err)"
snapshot >after2.md5
cmp before.md5 after2.md5 || fail "an interrupted merge changed the previous outputs"
"$HPMERGE" -q job.hpc || fail "merge after the interruptions failed"
ls -d job.hpc/.hpmerge-*.tmp >/dev/null 2>&1 && fail "temporary directories left: $(ls -d job.hpc/.hpmerge-*.tmp)"
snapshot >final.md5
cmp -s before.md5 final.md5 && fail "the complete merge did not replace the outputs"
otf2-print --silent -Werror job.hpc/otf2/traces.otf2 >/dev/null || fail "new archive unreadable"
grep -q '"samples": 0' job.hpc/summary.json && fail "summary lost its samples"
exit 0
