#!/bin/bash
# timeout: 150
# speedscope (npm package, its built page in headless Chromium, served from 127.0.0.1)
# loads the folded and the Chrome export of the demo's MPI + OpenMP solver
# (examples/heat_mpi.c, 2 ranks x 2 threads) without a warning or error on its console,
# and the function totals it computes (from its own export, tests/web/speedscope.mjs) equal
# hpanalyze's functions report: inclusive and exclusive CPU of every function above 1 ms,
# within 50 us (the exports round to microseconds; the differences seen are about 2 us).
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet"
command -v mpirun >/dev/null || skip "mpirun not installed"
command -v chromium >/dev/null || skip "chromium not installed (make deps installs it)"
command -v node >/dev/null || skip "node not installed"
WEB="$HPC_TESTDIR/web"
[ -f "$WEB/installed" ] || skip "speedscope and puppeteer-core not installed: $(tail -2 "$WEB/npm.log" 2>/dev/null)"
OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive mpirun --oversubscribe -np 2 -x OMP_NUM_THREADS \
    -x OMP_WAIT_POLICY "$HPCOLLECT" -q -o heat.hpc "$PROGS/merge/heat_mpi" 256 150 >heat.out
mkdir site
cp -r "$WEB/node_modules/speedscope/dist/release/." site/
"$HPANALYZE" heat.hpc export folded -o site/heat.folded >/dev/null
"$HPANALYZE" heat.hpc export chrome -o site/heat.json >/dev/null
"$HPANALYZE" --format json heat.hpc functions >functions.json
$SYSPY -u -m http.server --bind 127.0.0.1 0 --directory site >http.log 2>&1 &
server=$!
trap 'kill $server 2>/dev/null' EXIT
for _ in $(seq 50); do grep -q "port" http.log && break; sleep 0.1; done
port=$(sed -n 's/.* port \([0-9]*\).*/\1/p' http.log | head -1)
[ -n "$port" ] || fail "no http server: $(cat http.log)"
ln -s "$WEB/node_modules" node_modules # ES modules resolve from the script's folder
cp "$HPC_ROOT/tests/web/speedscope.mjs" .
for f in heat.folded heat.json; do
    timeout 90 node speedscope.mjs \
        "http://127.0.0.1:$port" $f >$f.out 2>$f.err || fail "speedscope on $f: $(tail -5 $f.err)"
done
PYTHONPATH="$HPC_ROOT/tests" $SYSPY - <<'PY'
import json
from hpctest import check, near
fn = {f["name"]: f for f in json.load(open("functions.json"))["functions"]}
for f in ("heat.folded", "heat.json"):
    s = json.load(open(f + ".out"))
    bad = [c for c in s["console"] if c["type"] in ("warning", "warn", "error", "pageerror", "note")]
    check(not bad, f"{f}: speedscope's console has no warnings or errors {bad[:3]}")
    check(any("Importing as" in c["text"] for c in s["console"]), f"{f}: speedscope imported it")
    t = s["totals"]
    big = [n for n, x in fn.items() if n != "<Total>" and x["incl_cpu_s"] >= 0.001]
    check(len(big) >= 4 and "source_heat" in big and "main" in big, f"{f}: functions to compare {len(big)}")
    for n in big:
        x, got = fn[n], t.get(n, {"total": 0, "self": 0})
        # the exports round to microseconds: per folded line, per sample
        near(got["total"] / 1e6, x["incl_cpu_s"], 5e-5, f"{f}: {n}: inclusive CPU")
        near(got["self"] / 1e6, x["excl_cpu_s"], 5e-5, f"{f}: {n}: exclusive CPU")
PY
