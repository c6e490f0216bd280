#!/bin/bash
# Where experiments go and what is never overwritten or followed:
#   -o takes a bare name (in -d DIR) or a path, relative or absolute, its missing parents
#   made (-d then does not apply); an existing experiment is refused (exit 2, nothing
#   touched), -O replaces it, but only an experiment; a symbolic link planted as NAME.hpc,
#   as a numbered name or as DIR/.hpcollect.lock is refused or skipped, never followed;
#   -n shows the parameters and makes nothing; -C comments reach `header`; -t takes s
#   and m units.
source "$HPC_ROOT/tests/lib.sh"

run() { # run STATUS ARGS...: hpcollect ARGS exits STATUS; stderr in err.txt
    local want=$1
    shift
    set +e
    "$HPCOLLECT" "$@" >out.txt 2>err.txt
    local rc=$?
    set -e
    [ "$rc" = "$want" ] || fail "hpcollect $*: exit $rc, expected $want: $(cat err.txt)"
}

# paths: relative with missing parents, absolute with -d ignored, trailing slash
run 0 -o runs/a/r1 true
grep -qx "hpcollect: experiment runs/a/r1.hpc" err.txt || fail "relative path: $(cat err.txt)"
[ -f runs/a/r1.hpc/job.hpe ] && [ -f runs/a/r1.hpc/main/process.hpe ] || fail "no runs/a/r1.hpc"
mkdir elsewhere
run 0 -d elsewhere -o "$PWD/abs/r2.hpc/" true
[ -f abs/r2.hpc/main/process.hpe ] || fail "absolute path: no abs/r2.hpc"
[ -z "$(ls elsewhere)" ] || fail "-d applied to a path: $(ls elsewhere)"
run 0 -d elsewhere -o bare true
[ -d elsewhere/bare.hpc/main ] || fail "-d with a bare name"
echo "ok: -o relative (parents made), absolute (-d not applied), bare name in -d"

# an existing experiment: refused, untouched; -O replaces it
touch runs/a/r1.hpc/marker
before=$(find runs/a/r1.hpc -printf '%p %s %T@\n' | sort)
run 2 -o runs/a/r1.hpc sh -c 'echo ran >ran.txt'
grep -q "runs/a/r1.hpc already exists; use another -o name, or -O to replace it" err.txt ||
    fail "refusal: $(cat err.txt)"
[ ! -e ran.txt ] && [ "$(find runs/a/r1.hpc -printf '%p %s %T@\n' | sort)" = "$before" ] ||
    fail "a refused run ran or touched the experiment: $(ls runs/a/r1.hpc)"
run 5 -O runs/a/r1 sh -c 'exit 5'
[ ! -e runs/a/r1.hpc/marker ] && [ -f runs/a/r1.hpc/main/launcher.hpe ] ||
    fail "-O did not replace: $(ls runs/a/r1.hpc)"
"$HPANALYZE" runs/a/r1.hpc header | grep -q "exit status 5" || fail "-O: the new run's header"
mkdir notes.hpc && echo precious >notes.hpc/thesis.tex
run 2 -O notes true
grep -q "notes.hpc exists and is not an hpcollect experiment; -O replaces only an experiment" \
    err.txt || fail "-O of a non-experiment: $(cat err.txt)"
[ "$(cat notes.hpc/thesis.tex)" = precious ] || fail "-O touched a non-experiment"
echo "ok: an existing experiment is refused (exit 2, untouched); -O replaces only experiments"

# planted symbolic links
mkdir victim
ln -s "$PWD/victim" planted.hpc
run 2 -o planted true
grep -q "planted.hpc is a symbolic link (refused: never followed)" err.txt ||
    fail "planted NAME.hpc: $(cat err.txt)"
run 2 -O planted true
[ -z "$(ls -A victim)" ] || fail "written through the link: $(ls -A victim)"
mkdir shared
ln -s "$PWD/victim" shared/true.1.hpc
run 0 -d shared true
[ -d shared/true.2.hpc/main ] && [ -z "$(ls -A victim)" ] ||
    fail "numbered name taken by a link: $(ls shared) / $(ls -A victim)"
mkdir locked
ln -s "$PWD/victim/created" locked/.hpcollect.lock
run 2 -d locked true
grep -q "locked/.hpcollect.lock is a symbolic link (refused: never followed)" err.txt ||
    fail "planted lock: $(cat err.txt)"
[ ! -e victim/created ] && [ "$(ls locked)" = "" ] || fail "the lock link was followed"
echo "ok: planted links (NAME.hpc, a numbered name, the lock file) refused or skipped"

# -n: parameters, nothing made; a run that would be refused says so
run 0 -n -p hi -F '=^solver' -t 30s-2m -C "first" -o dry true
for want in "dry run (-n): nothing is run and nothing is created" "experiment .*/dry.hpc (new)" \
    "clock profiling *every 1.000 ms" "followed when the executable or sub-experiment name matches /^solver/" \
    "time window (-t) *30.000 s to 120.000 s" "archive (-a) *ldobjects" 'comments (-C) *"first"' \
    "preloaded .*libhpcollect.so" "thread states *context-switch records and blocking-call wrappers"; do
    grep -q -- "$want" out.txt || fail "-n output lacks '$want': $(cat out.txt)"
done
[ ! -e dry.hpc ] || fail "-n made the experiment"
# thread states follow clock profiling and the user's HPCOLLECT_STATES (collector/states.h)
HPCOLLECT_STATES=2 run 0 -n true
grep -q "thread states *blocking-call times (forced fallback)" out.txt || fail "-n, STATES=2: $(cat out.txt)"
HPCOLLECT_STATES=0 run 0 -n true
grep -q "thread states *off (HPCOLLECT_STATES=0)" out.txt || fail "-n, STATES=0: $(cat out.txt)"
run 0 -n -p off true
grep -q "thread states *off (no clock profiling)" out.txt || fail "-n -p off: $(cat out.txt)"
run 2 -n -o runs/a/r1 true
grep -q "a run would stop here: .*r1.hpc already exists" err.txt || fail "-n of a refused run"
run 0 -n -O runs/a/r1 true
grep -q "experiment .*/runs/a/r1.hpc (exists: -O replaces it)" out.txt || fail "-n -O: $(cat out.txt)"
run 2 -n -O notes true
grep -q "notes.hpc exists and is not an hpcollect experiment" err.txt || fail "-n -O of a non-experiment"
[ -f runs/a/r1.hpc/main/launcher.hpe ] && [ -f notes.hpc/thesis.tex ] || fail "-n -O removed something"
echo "ok: -n shows the parameters and makes nothing"

# -C: up to 10, in header; -t units
set -- true
for i in $(seq 1 10); do set -- -C "note $i" "$@"; done
run 0 -o notes10 "$@"
"$HPANALYZE" notes10.hpc header >hdr.txt
grep -q "^Notes (hpcollect -C) of notes10.hpc:" hdr.txt && grep -qx "  note 1" hdr.txt &&
    grep -qx "  note 10" hdr.txt || fail "header notes: $(head -12 hdr.txt)"
check_py "import json, subprocess
h = json.loads(subprocess.run(['$HPANALYZE', '--format', 'json', 'notes10.hpc', 'header'], capture_output=True, text=True).stdout)
check(h['experiments'][0]['comments'] == ['note %d' % i for i in range(10, 0, -1)], 'json comments')"
run 2 -C 11 "$@"
grep -q -- "-C: at most 10 comments" err.txt || fail "11 comments: $(cat err.txt)"
run 0 -t 2m -o tm true
run 0 -t 1.5m-150s -o tms true
"$HPANALYZE" tm.hpc header | grep -q "Time window: 0.000-120.000 secs" || fail "-t 2m"
"$HPANALYZE" tms.hpc header | grep -q "Time window: 90.000-150.000 secs" || fail "-t 1.5m-150s"
run 2 -t 5h true
grep -q -- "-t: bad value '5h'" err.txt || fail "-t 5h: $(cat err.txt)"
echo "ok: -C (10, in header text and json), -t units s and m"
