#!/bin/bash
# A launcher killed by a signal it cannot catch (SIGKILL, as a batch system or `kill -9`
# does) takes its program with it: the program (which would wait for ever) is gone, and
# the experiment is readable and says how the run ended: killed with its launcher.
source "$HPC_ROOT/tests/lib.sh"

# dead: the process is gone, or a zombie nobody reaped yet
dead() { local s; s=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 0; [ -z "$s" ] || [ "$s" = Z ]; }

"$HPCOLLECT" -q -o k "$PROGS/collector/burn_wait" ready.txt &
launcher=$!
for i in $(seq 1 400); do [ -s ready.txt ] && break; sleep 0.05; done
[ -s ready.txt ] || fail "the program did not start"
prog=$(cat ready.txt)
kill -KILL $launcher
wait $launcher 2>/dev/null || true
for i in $(seq 1 200); do dead "$prog" && break; sleep 0.05; done
if ! dead "$prog"; then
    kill -KILL "$prog"
    fail "the program (pid $prog) outlived its SIGKILLed launcher"
fi
echo "ok: the program (pid $prog) ended with its SIGKILLed launcher"

"$HPANALYZE" k.hpc header >hdr.txt || fail "header of the killed run"
grep -q "Experiment ended: .* s, killed with its launcher: hpcollect (pid $launcher) was killed while the program ran; the kernel sent the program SIGKILL" hdr.txt ||
    fail "header: $(cat hdr.txt)"
grep -q "Ended early: hpcollect was killed, and the program with it" hdr.txt || fail "early: $(cat hdr.txt)"
check_py "import json, subprocess
def js(*a):
    return json.loads(subprocess.run(['$HPANALYZE', '--format', 'json', 'k.hpc'] + list(a), capture_output=True, text=True).stdout)
p = js('header')['experiments'][0]['processes'][0]
check(p['ended_early'] and p['end'].startswith('killed with its launcher'), 'json header: ' + p['end'])
f = {r['name']: r for r in js('functions')['functions']}
near(f['<Total>']['incl_cpu_s'], 0.2, 0.03, 'its samples are readable: the 0.2 s it burned (s)')"
[ ! -e k.hpc/archive ] || fail "a killed launcher archived"
"$HPMERGE" -q k.hpc || fail "hpmerge of the killed run"
ls k.hpc/archive/objects | grep -q '^burn_wait\.[0-9a-f]*$' || fail "hpmerge did not archive what the launcher could not"
grep -q "killed with its launcher" k.hpc/summary.txt || fail "summary: $(grep -i kill k.hpc/summary.txt)"
echo "ok: header, functions and hpmerge's summary say the run was killed with its launcher; hpmerge archived its objects"
