#!/bin/bash
# Run every test and end with one line "N passed, N failed".
#
# A test is an executable script tests/<area>/test_*.sh or a compiled unit test
# $HPC_TESTDIR/unit/test_*. Exit 0 = pass, 77 = skip (the test prints why), anything
# else = fail. Each runs alone (timing-free, but CPU-bound tests share 2 cores badly),
# with its own scratch directory, under a timeout (default 180 s; a script may say
# "# timeout: N" in its first lines). Arguments filter tests by substring.
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
    (cd "$HPC_TMP" && timeout -k 10 "${limit:-180}" "$t") >"$logdir/$name.log" 2>&1
    rc=$?
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    case $rc in
    0) passed=$((passed + 1)); printf 'ok    %-55s %6.1fs\n' "$rel" "$secs" ;;
    77) skipped=$((skipped + 1))
        printf 'skip  %-55s %s\n' "$rel" "$(tail -1 "$logdir/$name.log")" ;;
    *) failed=$((failed + 1)); failures+=("$rel")
       printf 'FAIL  %-55s %6.1fs (exit %d)\n' "$rel" "$secs" "$rc"
       sed 's/^/      | /' "$logdir/$name.log" | tail -25 ;;
    esac
done
[ $skipped -gt 0 ] && echo "$skipped skipped"
[ $failed -gt 0 ] && printf 'failed: %s\n' "${failures[*]}"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
