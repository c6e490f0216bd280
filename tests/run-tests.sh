#!/bin/bash
# Run every test and end with one line "N passed, N failed".
#
# A test is an executable script tests/<area>/test_*.sh or a compiled unit test
# $HPC_TESTDIR/unit/test_*. Exit 0 = pass, 77 = skip (the test prints why), anything
# else = fail. Each runs alone (timing-free, but CPU-bound tests share 2 cores badly),
# with its own scratch directory, under a timeout (default 180 s; a script may say
# "# timeout: N" in its first lines). A test still running then gets the call stacks of
# every process it left in its log (gdb), so a hang says where it hung, and is killed
# with all of them. Arguments filter tests by substring.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "$root/${HPC_OUT:-.}" && pwd)
testdir="$root/${HPC_TESTDIR:-build/tests}"
export HPC_ROOT="$root" HPC_BIN="$out/bin" HPC_LIB="$out/lib" HPC_TESTDIR="$testdir"
export SANITIZE="${SANITIZE:-0}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
logdir="$testdir/logs"
mkdir -p "$logdir"

tests=()
for t in "$root"/tests/*/test_*.sh; do [ -x "$t" ] && tests+=("$t"); done
for t in "$testdir"/unit/test_*; do [ -x "$t" ] && [ -f "$t" ] && tests+=("$t"); done

# The process $1 and all its descendants (mpirun puts its ranks in groups of their own).
tree_of() {
    ps -e -o pid=,ppid= | awk -v root="$1" '
        { kids[$2] = kids[$2] " " $1 }
        END { n = split(root, q, " "); for (i = 1; i <= n; i++) { print q[i]; m = split(kids[q[i]], k, " ")
              for (j = 1; j <= m; j++) q[++n] = k[j] } }'
}

# Call stacks of the processes $@ (gdb where installed, else the kernel's wait channels).
stacks_of() {
    local p
    for p in "$@"; do
        echo "== hung: pid $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-200)"
        if command -v gdb >/dev/null; then
            timeout 30 gdb -p "$p" -batch -ex 'thread apply all bt' 2>/dev/null | grep -E '^(#|Thread)'
        else
            grep -H . /proc/"$p"/task/*/wchan 2>/dev/null
        fi
    done
}

# run_test SCRIPT LIMIT: run it; past LIMIT seconds, log the stacks of all its processes
# and kill them. Returns the test's status (124 on timeout).
cur_test=
trap '[ -n "$cur_test" ] && kill -KILL $(tree_of "$cur_test") 2>/dev/null; exit 130' INT TERM
run_test() {
    (cd "$HPC_TMP" && exec "$1") &
    local pid=$!
    cur_test=$pid
    sleep "$2" &
    local timer=$!
    wait -n "$pid" "$timer"
    if kill -0 "$pid" 2>/dev/null && ! kill -0 "$timer" 2>/dev/null; then
        local procs
        procs=$(tree_of "$pid")
        echo "TIMEOUT after $2 s; the stacks of the test's processes:"
        stacks_of $procs
        kill -KILL $procs 2>/dev/null
        wait "$pid"
        return 124
    fi
    kill "$timer" 2>/dev/null
    wait "$timer" 2>/dev/null
    wait "$pid"
}

passed=0 failed=0 skipped=0 failures=()
for t in "${tests[@]}"; do
    rel=${t#"$root"/}
    if [ $# -gt 0 ]; then
        keep=0
        for f in "$@"; do case "$rel" in *"$f"*) keep=1 ;; esac; done
        [ $keep = 1 ] || continue
    fi
    name=$(echo "$rel" | tr '/' '_')
    limit=$(sed -n '1,10s/^# timeout: *\([0-9]*\).*/\1/p' "$t" 2>/dev/null | head -1)
    export HPC_TMP="$testdir/tmp/$name"
    rm -rf "$HPC_TMP" && mkdir -p "$HPC_TMP"
    start=$(date +%s.%N)
    run_test "$t" "${limit:-180}" >"$logdir/$name.log" 2>&1
    rc=$?
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    case $rc in
    0) passed=$((passed + 1)); printf 'ok    %-55s %6.1fs\n' "$rel" "$secs" ;;
    77) skipped=$((skipped + 1))
        printf 'skip  %-55s %s\n' "$rel" "$(tail -1 "$logdir/$name.log")" ;;
    *) failed=$((failed + 1)); failures+=("$rel")
       printf 'FAIL  %-55s %6.1fs (exit %d)\n' "$rel" "$secs" "$rc"
       sed 's/^/      | /' "$logdir/$name.log" | tail -$([ $rc = 124 ] && echo 400 || echo 60) ;;
    esac
done
[ $skipped -gt 0 ] && echo "$skipped skipped"
[ $failed -gt 0 ] && printf 'failed: %s\n' "${failures[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
