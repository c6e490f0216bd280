#!/bin/bash
# hpcollect's command line: bad options, values and programs name themselves and exit
# 2/126/127 (the shell's statuses) without creating anything; good runs return the
# program's status; the user's LD_PRELOAD is kept; -q, -V, --help.
source "$HPC_ROOT/tests/lib.sh"

# expect STATUS PATTERN ARGS...: hpcollect ARGS exits STATUS with PATTERN on stderr
expect() {
    local want=$1 pattern=$2
    shift 2
    set +e
    "$HPCOLLECT" "$@" >out.txt 2>err.txt
    local rc=$?
    set -e
    [ "$rc" = "$want" ] || fail "hpcollect $*: exit $rc, expected $want ($(cat err.txt))"
    grep -qF -- "$pattern" err.txt || fail "hpcollect $*: stderr lacks '$pattern': $(cat err.txt)"
    echo "ok: hpcollect $* -> $rc: $(head -1 err.txt)"
}

expect 2 "-p: bad value 'fast'" -p fast true
expect 2 "-p: bad value '0'" -p 0 true
expect 2 "-p: bad value '5000'" -p 5000 true
expect 2 "-p: bad value '1x'" -p 1x true
expect 2 "-p: bad value '-3'" -p -3 true
expect 2 "-p: missing value" -p
expect 2 "-F: bad value 'maybe'" -F maybe true
expect 2 "-L: bad value '0'" -L 0 true
expect 2 "-L: bad value '1.5'" -L 1.5 true
expect 2 "-L: bad value 'lots'" -L lots true
expect 2 "-t: bad value '5-2'" -t 5-2 true
expect 2 "-t: bad value 'soon'" -t soon true
expect 2 "-d: /no/such/dir: No such file or directory" -d /no/such/dir true
expect 2 "-o: bad value 'a/..'" -o a/.. true
expect 2 "-F: bad regular expression '('" -F '=(' true
expect 2 "-a: bad value 'all'" -a all true
expect 2 "-t: bad value '2h'" -t 2h true
expect 2 "-m: bad value 'yes'" -m yes true
expect 2 "-s: bad value 'some'" -s some true
expect 2 "-s: bad value '-5'" -s -5 true
expect 2 "--omp-runtime: bad value 'gnu'" --omp-runtime gnu true
expect 2 "--bogus: unknown option" --bogus true
expect 2 "-x: unknown option" -x true
expect 2 "no program given" -p on
expect 127 "hpcollect: no_such_program_hpc: command not found" no_such_program_hpc
expect 127 "hpcollect: ./missing: No such file or directory" ./missing
echo 'echo hi' >noexec.sh
chmod 644 noexec.sh
expect 126 "hpcollect: ./noexec.sh: Permission denied" ./noexec.sh
mkdir adir
expect 126 "hpcollect: ./adir: Is a directory" ./adir
ls -d ./*.hpc 2>/dev/null && fail "a bad command line created an experiment"
echo "ok: no experiment created by any bad command line"

# the program's exit status and death
set +e
"$HPCOLLECT" -q -o st sh -c 'exit 5'; rc=$?
"$HPCOLLECT" -q -o sig sh -c 'kill -TERM $$'; rc2=$?
set -e
[ $rc = 5 ] || fail "exit status 5 came back as $rc"
[ $rc2 = 143 ] || fail "death by SIGTERM came back as $rc2, expected 143"
echo "ok: exit status 5 and death by SIGTERM (143) returned"

# -q: nothing from hpcollect; without it one line naming the experiment
"$HPCOLLECT" -q -o quiet true 2>err.txt
[ ! -s err.txt ] || fail "-q printed: $(cat err.txt)"
"$HPCOLLECT" -o loud true 2>err.txt
grep -qx "hpcollect: experiment loud.hpc" err.txt || fail "no experiment line: $(cat err.txt)"
"$HPCOLLECT" true 2>err.txt
grep -qx "hpcollect: experiment true.1.hpc" err.txt || fail "default name: $(cat err.txt)"
"$HPCOLLECT" true 2>err.txt
grep -qx "hpcollect: experiment true.2.hpc" err.txt || fail "next free number: $(cat err.txt)"
echo "ok: -q, experiment line, default names true.1.hpc and true.2.hpc"

"$HPCOLLECT" -V | grep -qx "hpcollect $(cat "$HPC_ROOT/VERSION")" || fail "-V"
"$HPCOLLECT" --help >help.txt
for o in -o -O -d -p -h -S -l -y -m -s -F -L -t -a -C -n --omp-runtime -q -V --help; do
    grep -q -- "^  $o" help.txt || fail "--help does not list $o"
done
echo "ok: -V and --help (every option listed)"

# the user's LD_PRELOAD stays first; ours is appended; -d puts the experiment there
lib=$(ls /lib/x86_64-linux-gnu/libm.so.6)
# a sanitized hpcollect needs the ASan runtime first in its own LD_PRELOAD
[ "$SANITIZE" = 1 ] && lib="$(gcc -print-file-name=libasan.so):$lib"
mkdir out
ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD=$lib "$HPCOLLECT" -q -d out -o pre sh -c 'echo "$LD_PRELOAD"' >pre.txt
grep -qx "$lib:$(cd "$HPC_LIB" && pwd -P)/libhpcollect.so" pre.txt ||
    fail "LD_PRELOAD in the program: $(cat pre.txt)"
[ -d out/pre.hpc/main ] || fail "-d out: no out/pre.hpc/main"
echo "ok: user's LD_PRELOAD kept first: $(cat pre.txt)"

# a statically linked program runs, with a warning that nothing can be preloaded
set +e
"$HPCOLLECT" -o static "$PROGS/collector/static_prog" >static.out 2>static.err
rc=$?
set -e
[ $rc = 4 ] || fail "static program: exit $rc, expected 4"
grep -q "static_prog is statically linked" static.err || fail "no warning: $(cat static.err)"
echo "ok: statically linked program ran (exit 4) with a warning"
