#!/bin/bash
# The settings contract (collector/settings.def): every HPCOLLECT_* setting the founder
# gets, from hpcollect's options or from the user's environment, reaches a fork+exec
# descendant with the same value; only the descendant's own (who PROCESS: its name,
# parent, descent, owner) are its own. Ground truth: the founder's environment as the
# kernel kept it (/proc/PID/environ) and the child's `env`, each setting given a value
# other than its default.
source "$HPC_ROOT/tests/lib.sh"
ids=$(sed -n 's/^HPC_SETTING(\([A-Z_0-9]*\),.*/\1/p' "$HPC_ROOT/collector/settings.def")
[ "$(echo "$ids" | wc -w)" -ge 20 ] || fail "settings.def: only $(echo $ids) found"
# settings.def keeps each entry's ID and `who` on its first line
process_ids=$(sed -n 's/^HPC_SETTING(\([A-Z_0-9]*\),.*, PROCESS,.*/\1/p' "$HPC_ROOT/collector/settings.def")
for id in SUBEXP PARENT DESCENT OWNER; do
    grep -qx "$id" <<<"$process_ids" || fail "settings.def: $id is not a PROCESS setting ($(echo $process_ids))"
done

# the user's settings, not defaults
export HPCOLLECT_CLOCK_SOURCE=timer HPCOLLECT_OMP_CONTEXT=unwind HPCOLLECT_LIBOMP=/nonexistent/libomp.so.5 \
    HPCOLLECT_DEBUG_UNWIND_FAULT=1000000000 HPCOLLECT_DEBUG_UNWIND_NOCACHE=1 HPCOLLECT_THROTTLE_PCT=40 \
    HPCOLLECT_STATES=2 HPCOLLECT_DEBUG_LAZY_TIMER_MUTE=1 HPCOLLECT_DEBUG_LIFE_LOCK_FAIL=1000000000 \
    HPCOLLECT_DEBUG_FD_MOVE_WAIT=1 HPCOLLECT_DEBUG_CLOSE_WAIT=1 HPCOLLECT_DEBUG_STATES_GAP=1
# the options' settings, not defaults: -p 7 ms, -F =REGEX, -a usedsrc, -L 50, -t 1-90, -m off,
# -s 250, --omp-runtime native, -h page-faults, -S 2, -l USR1, -y USR2,r (starts paused)
"$HPCOLLECT" -q -o rt -p 7 -F '=^(env|dash|bash|sh|tr)$' -a usedsrc -L 50 -t 1-90 -m off \
    -s 250 --omp-runtime native -h page-faults,7 -S 2 -l USR1 -y USR2,r \
    sh -c 'tr "\0" "\n" </proc/$$/environ >founder.env; env >child.env; true' ||
    fail "hpcollect: exit $?"
[ -s founder.env ] && [ -s child.env ] || fail "no environment dumped"
get() { sed -n "s/^HPCOLLECT_$2=//p" "$1"; }
bad=""
for id in $ids; do
    grep -q "^HPCOLLECT_$id=" founder.env || { bad="$bad founder-lacks:$id"; continue; }
    grep -q "^HPCOLLECT_$id=" child.env || { bad="$bad child-lacks:$id"; continue; }
    f=$(get founder.env "$id") c=$(get child.env "$id")
    if grep -qx "$id" <<<"$process_ids"; then
        note "$id: founder '$f', child '$c' (its own)"
    elif [ "$f" != "$c" ]; then
        bad="$bad $id:'$f'!='$c'"
    fi
done
[ -z "$bad" ] || fail "settings not inherited:$bad"
# the child's own: a sub-experiment of its own under the founder's
[ "$(get child.env PARENT)" != "" ] && [ "$(get child.env SUBEXP)" != "$(get founder.env SUBEXP)" ] ||
    fail "child SUBEXP/PARENT: $(grep -E 'SUBEXP|PARENT' child.env)"
[ "$(get founder.env START_PAUSED)" = 1 ] || fail "-y USR2,r: START_PAUSED=$(get founder.env START_PAUSED)"
[ -d "rt.hpc/$(get child.env SUBEXP)" ] || fail "no sub-experiment $(get child.env SUBEXP): $(ls rt.hpc)"
note "$(echo $ids | wc -w) settings: every one inherited by a fork+exec descendant"

# and no code names a variable but through the table's macros (settings.h:
# HPC_SETTING_NAME, HPC_SETTING_PREFIX); test programs may look for the prefix
named=$(cd "$HPC_ROOT" && grep -rln '"HPCOLLECT_' --include='*.c' --include='*.h' . |
    grep -v '^\./\(build\|tests\)/\|^\./collector/settings\.h$' || true)
[ -z "$named" ] || fail "HPCOLLECT_* named outside collector/settings.def: $named"
