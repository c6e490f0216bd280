#!/bin/bash
# timeout: 120
# Experiments that travel: a program built here (PIE executable, a linked and a dlopen'd
# library, sources in src/) is collected with -a usedsrc, with -a off and archived after
# the fact (`hpanalyze EXP archive src`, `hpcollect-archive`), with the default -a
# ldobjects, and with -a off never archived. Then the binary and the libraries are
# deleted and src/ moved away:
#   - the archived experiments give the same functions, lines, source and disasm as
#     before, with no warning;
#   - the unarchived one says each object is missing and not archived;
#   - once the program is rebuilt (other code, same path), the unarchived one says its
#     build id differs, and archiving it after the fact refuses the changed binary.
source "$HPC_ROOT/tests/lib.sh"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
mkdir src lib
cp "$HPC_ROOT/tests/analyzer/progs/libs.c" src/
cp "$HPC_ROOT/tests/analyzer/progs/lib/ana_shared.c" "$HPC_ROOT/tests/analyzer/progs/lib/ana_dl.c" src/
build() {
    gcc -O1 -g -fPIC -shared -o lib/libana_shared.so src/ana_shared.c
    gcc -O1 -g -fPIC -shared -o lib/libana_dl.so src/ana_dl.c
    gcc -O1 -g -I"$HPC_ROOT/tests/include" -o app src/libs.c "$@" -L lib -lana_shared -Wl,-rpath,"$PWD/lib" -ldl
}
build
N=30000000
"$HPCOLLECT" -q -p hi -a usedsrc -o used ./app "$PWD/lib/libana_dl.so" $N
"$HPCOLLECT" -q -p hi -a off -o late ./app "$PWD/lib/libana_dl.so" $N
"$HPCOLLECT" -q -p hi -o objs ./app lib/libana_dl.so $N # dlopen'd by a relative path
"$HPCOLLECT" -q -p hi -a off -o bare ./app "$PWD/lib/libana_dl.so" $N
"$HPANALYZE" late.hpc archive src >late.txt
grep -q "late.hpc (-a src): archived [0-9]* load objects and [1-9][0-9]* source files" late.txt ||
    fail "hpanalyze archive: $(cat late.txt)"
"$HPANALYZE" late.hpc archive src >again.txt
grep -q "archived 0 load objects and 0 source files (0.0 MB); [0-9]* there already" again.txt ||
    fail "archiving twice copies again: $(cat again.txt)"
"$HPCOLLECT-archive" objs.hpc 2>objs.txt
grep -q "objs.hpc (-a ldobjects): archived 0 load objects .* there already" objs.txt ||
    fail "hpcollect-archive after hpcollect's own: $(cat objs.txt)"
[ -d objs.hpc/archive/objects ] && [ ! -e objs.hpc/archive/sources ] || fail "ldobjects: $(ls -R objs.hpc/archive)"
[ ! -e bare.hpc/archive ] || fail "-a off archived something"
# used objects only: liblzma (loaded by the collector's libunwind, never sampled) is left
# out of used.hpc, not of objs.hpc; the three with the program's code are in both
for e in used objs; do
    for o in app libana_shared.so libana_dl.so; do
        ls $e.hpc/archive/objects | grep -q "^$o\.[0-9a-f]*$" || fail "$e.hpc: $o not archived"
    done
done
ls objs.hpc/archive/objects | grep -q '^liblzma' || fail "ldobjects: liblzma not archived"
ls used.hpc/archive/objects | grep -q '^liblzma' && fail "usedsrc archived liblzma, which has no samples"
[ "$(ls used.hpc/archive/sources/$PWD/src)" = "ana_dl.c
ana_shared.c
libs.c" ] || fail "usedsrc: the sources of sampled lines: $(ls -R used.hpc/archive/sources | head)"
ls used.hpc/archive/objects late.hpc/archive/objects | grep -q '\.part$' && fail "a .part left behind"
note "used.hpc/archive: $(ls used.hpc/archive/objects | tr '\n' ' ')"

reports() { # reports EXP PREFIX: functions, lines, source, disasm of EXP (stderr apart)
    for r in functions lines "source exe_work" "source shared_work" "disasm dl_work"; do
        # shellcheck disable=SC2086
        "$HPANALYZE" --format json "$1" $r >"$2.${r// /_}.json" 2>>"$2.err" || true
    done # (checked below: without its objects, bare.hpc has no exe_work to show)
}
for e in used late objs bare; do reports $e.hpc before.$e; done
rm app lib/libana_shared.so lib/libana_dl.so
mv src moved
for e in used late objs bare; do reports $e.hpc after.$e; done

$SYSPY - <<'PY'
import json
from hpctest import check

def load(p):
    return json.load(open(p))

def rows(d, key):
    return sorted((r["name"], r["module"], r["excl_cpu_s"]) if key == "functions" else
                  (r["function"], r["file"], r["line"], r["excl_cpu_s"]) for r in d[key])

for e in ("used", "late"):
    for r in ("functions", "lines"):
        b, a = load(f"before.{e}.{r}.json"), load(f"after.{e}.{r}.json")
        check(rows(a, r) == rows(b, r), f"{e}: {r} the same from the archive")
    f = {x["name"]: x for x in load(f"after.{e}.functions.json")["functions"]}
    for name, module in (("exe_work", "app"), ("shared_work", "libana_shared.so"), ("dl_work", "libana_dl.so")):
        check(name in f and f[name]["module"] == module, f"{e}: {name} in {module}")
    for fn in ("exe_work", "shared_work"):
        b, a = load(f"before.{e}.source_{fn}.json"), load(f"after.{e}.source_{fn}.json")
        check(a["readable"] and a["lines"] == b["lines"] and a["file"] == b["file"],
              f"{e}: source {fn}: the text and metrics of {a['file']} from the archive")
    b, a = load(f"before.{e}.disasm_dl_work.json"), load(f"after.{e}.disasm_dl_work.json")
    check(a == b and len(a["instructions"]) > 3 and "archive/objects/libana_dl.so." in a["object_file"],
          f"{e}: disasm dl_work the same, from {a['object_file']}")
    check(open(f"after.{e}.err").read() == "", f"{e}: no warning: {open(f'after.{e}.err').read()}")

# ldobjects: symbols and disassembly from the archive; the sources are gone
b, a = load("before.objs.functions.json"), load("after.objs.functions.json")
check(rows(a, "functions") == rows(b, "functions"), "objs: functions the same from the archive")
check(load("after.objs.disasm_dl_work.json") == load("before.objs.disasm_dl_work.json"), "objs: disasm the same")
err = open("after.objs.err").read()
check("cannot read" in err and "cannot open object" not in err, "objs: only the sources are missing: " + err)

# never archived: every object of ours missing, said once per object and run
err = open("after.bare.err").read()
for obj in ("app", "libana_shared.so", "libana_dl.so"):
    check(f"/{obj}: cannot open object file (No such file or directory); the experiment has no "
          f"archived copy" in err, f"bare: {obj} missing and not archived")
f = {x["name"] for x in load("after.bare.functions.json")["functions"]}
check("exe_work" not in f and "app" in f, "bare: the executable's code shown as the module")
PY

# rebuilt: other code at the same path
mv moved src
build -DREBUILT=1 -O2
"$HPANALYZE" bare.hpc functions >/dev/null 2>bare_rebuilt.err
grep -q "/app: build id [0-9a-f]* differs from the recorded [0-9a-f]*: the file changed since the experiment; the experiment has no archived copy" bare_rebuilt.err ||
    fail "rebuilt: $(cat bare_rebuilt.err)"
"$HPANALYZE" used.hpc functions >/dev/null 2>used_rebuilt.err
[ ! -s used_rebuilt.err ] || fail "the archived experiment warns: $(cat used_rebuilt.err)"
"$HPCOLLECT-archive" bare.hpc 2>late_bare.txt
grep -q "/app: load object not archived: its build id differs from the recorded one" late_bare.txt &&
    grep -q "not archived: 0 missing, 1 changed since the run" late_bare.txt ||
    fail "archiving a rebuilt binary: $(cat late_bare.txt)"
ls bare.hpc/archive/objects | grep -q '^app\.' && fail "the rebuilt binary was archived"
echo "ok: rebuilt: the build id differs (unarchived), the archived experiment is unaffected"
