#!/bin/bash
# timeout: 150
# Pictures and files from one real run of progs/phases.c (spin 50%, kernel_x 30%,
# kernel_y 20%; thread 0 runs phase_a/phase_b, thread 1 spin):
#   - folded: every stack once; the values of a function's stacks add up to its time (us)
#   - flamegraph: the SVG parses; each function's frames are as wide as its inclusive
#     share (px and metric units); filters and views apply; in headless Chromium it loads
#     without console messages, and "#zoom=" zooms (the frame spans the width, others hide)
#   - html: the page's data holds the functions report as `functions` prints it, the
#     metrics' totals and a flame graph whose cells add up to them; nothing is loaded from
#     elsewhere (what the page shows in a browser: tests/analyzer/test_html.sh);
#     --threads, --view and --metrics apply to the page as to the reports; with the I/O
#     tracer and no thread states (io/io_pattern), the I/O section has its metrics and the
#     ioactivity report, and where the time goes an I/O part = the I/O calls' time (but what
#     computing left of the thread's life: the CPU sampled in them is computing)
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/analyzer"
"$HPCOLLECT" -q -p hi -o ph.hpc "$PROGS/analyzer/phases" >/dev/null
H=$HPANALYZE
$H ph.hpc export folded >ph.folded
$H ph.hpc export flamegraph -o ph.svg >/dev/null
$H ph.hpc --threads 1 export flamegraph -o t1.svg >/dev/null
$H ph.hpc --view machine export flamegraph -o machine.svg >/dev/null
$H ph.hpc export html -o report.html >/dev/null
$H ph.hpc --threads 1 --view machine --metrics e.samples:name export html -o t1.html >/dev/null
# several exports and a report in one call: the JSON array holds what each wrote
$H --format json ph.hpc export folded -o a.folded export flamegraph -o a.svg functions >multi.json
# the I/O tracer without thread states: the I/O section and the summary's I/O part
mkdir -p iodata
HPCOLLECT_STATES=0 "$HPCOLLECT" -q -i on -o io.hpc "$PROGS/io/io_pattern" "$PWD/iodata" || fail "io_pattern: exit $?"
$H io.hpc export html -o io.html >/dev/null
rc=0
$H --format json ph.hpc export folded functions >/dev/null 2>err.txt || rc=$?
[ $rc = 2 ] && grep -q "give -o FILE" err.txt || fail "export to stdout inside a JSON array: exit $rc"

$SYSPY - <<'PY'
import json, re, xml.etree.ElementTree as ET
from hpctest import check, near
from anatest import *

f = funcs("ph.hpc")
tot = f["<Total>"]["incl_cpu_s"]

# folded stacks
lines = [l.rsplit(" ", 1) for l in open("ph.folded").read().splitlines()]
stacks = [s for s, _ in lines]
check(len(stacks) == len(set(stacks)), "folded: every stack once")
by_leaf = {}
for s, v in lines:
    by_leaf[s.split(";")[-1]] = by_leaf.get(s.split(";")[-1], 0) + int(v)
for name in ("spin", "kernel_x", "kernel_y"):
    near(by_leaf[name] / 1e6, f[name]["excl_cpu_s"], 1e-6 * len(lines), f"folded: {name}'s stacks (s)")
check(any(s.endswith("main;phase_a;kernel_x") for s in stacks), "folded: main;phase_a;kernel_x")
near(sum(int(v) for _, v in lines) / 1e6, tot, 1e-6 * len(lines), "folded: all stacks = total (s)")

# flame graph
NS = "{http://www.w3.org/2000/svg}"
def frames(path):
    root = ET.parse(path).getroot()
    out = []
    for g in root.iter(NS + "g"):
        if g.get("class") != "f":
            continue
        t = g.find(NS + "title").text
        out.append({"id": g.get("id"), "name": t[:t.rindex(" (")], "w": int(g.get("data-w")),
                    "d": int(g.get("data-d")), "px": float(g.find(NS + "rect").get("width"))})
    return root, out
root, fr = frames("ph.svg")
check(root.tag == NS + "svg" and root.find(NS + "script") is not None, "flamegraph: an SVG with its script")
full = [x for x in fr if x["d"] == 0][0]
check(full["name"] == "<Total>" and abs(full["w"] / 1e9 - tot) < 1e-6, "flamegraph: the root is <Total>")
for name in ("spin", "kernel_x", "kernel_y", "phase_a", "phase_b", "main"):
    mine = [x for x in fr if x["name"] == name]
    near(100 * sum(x["px"] for x in mine) / full["px"], 100 * f[name]["incl_cpu_s"] / tot, 0.01,
         f"flamegraph: {name}'s width (% of the root)")
    near(sum(x["w"] for x in mine) / 1e9, f[name]["incl_cpu_s"], 1e-6, f"flamegraph: {name}'s data-w (s)")
_, t1 = frames("t1.svg")
names1 = {x["name"] for x in t1}
check("spin" in names1 and "kernel_x" not in names1, "flamegraph --threads 1: only thread 1's stacks")
near(t1[0]["w"] / 1e9, funcs("ph.hpc", "--threads", "1")["<Total>"]["incl_cpu_s"], 1e-6,
     "flamegraph --threads 1: root = thread 1's total")
mroot, mfr = frames("machine.svg")
check(any("machine view" in (t.text or "") for t in mroot.iter(NS + "text")), "flamegraph --view machine says so")
check(mfr[0]["w"] == full["w"] and {x["name"] for x in fr} <= {x["name"] for x in mfr},
      "flamegraph --view machine: same total, every user-view function and maybe more")
kx = [x for x in fr if x["name"] == "kernel_x"][0]
open("zoom.txt", "w").write(kx["id"] + " " + [x for x in fr if x["name"] == "spin"][0]["id"] + "\n")

# html: the page's data holds the functions report as `functions` prints it, every
# metric's total, and the flame graph's call tree whose leaves add up to the total
page = page_data("report.html")
html = open("report.html").read()
check(not re.search(r'<(script|link|img)[^>]*(src|href)=', html), "html: nothing loaded from elsewhere")
check(page["reports"]["functions"] == js("ph.hpc", "functions"),
      "html: the functions report as `functions --format json` prints it")
check(page["reports"]["mpi"].get("ranks", []) == [], "html: no MPI here")
m = {x["key"]: x for x in page["metrics"]}
near(m["cpu"]["total"], tot, 1e-6, "html: the CPU metric's total")
fl = page["flame"]
cpu = [v for v in fl["vals"] if page["metrics"][v["m"]]["key"] == "cpu"][0]
near(sum(cpu["v"]) * m["cpu"]["scale"], tot, 1e-6, "html: the flame graph's cells add up to the total")
names = {i: fl["names"][f][0] for i, f in enumerate(fl["fn"])}
spin = sum(v for c, v in zip(cpu["cell"], cpu["v"]) if names[fl["node"][c]] == "spin")
near(spin * m["cpu"]["scale"], f["spin"]["excl_cpu_s"], 1e-6, "html: spin's leaf cells = its exclusive CPU")
nthreads = sum(p["threads"] for e in js("ph.hpc", "experiment_list")["experiments"] for p in e["processes"])
check([r["label"].split()[-2:] for r in page["rows"]] == [["thread", str(i)] for i in range(nthreads)],
      f"html: a row per thread {[r['label'] for r in page['rows']]}")

# the options apply to the page as to the reports: --threads, --view, --metrics
t1 = page_data("t1.html")
check([r["seq"] for r in t1["rows"]] == [1] and t1["view"] == "machine", "html --threads 1: thread 1's row alone")
check(t1["reports"]["functions"] == js("ph.hpc", "--threads", "1", "--view", "machine", "--metrics", "e.samples:name",
                                       "functions"), "html --threads 1 --view machine --metrics: the functions report so")
check([c["key"] for c in t1["columns"]] == ["excl_samples"], f"html --metrics e.samples: its column {t1['columns']}")
m1 = {x["key"]: x for x in t1["metrics"]}
near(m1["cpu"]["total"], funcs("ph.hpc", "--threads", "1")["<Total>"]["incl_cpu_s"], 1e-6, "html --threads 1: the CPU total")

# I/O traced, thread states off: the I/O section has its metrics and ioactivity, and where
# the time goes has an I/O part = the I/O calls' time (no MPI here: all of it), but what
# the parts before it leave of the thread's life (the CPU sampled in I/O calls is computing)
io = page_data("io.html")
tr = [t for t in io["tracers"] if t["key"] == "io"][0]
keys = [io["metrics"][k]["key"] for k in tr["metrics"]]
check({"ioreadtime", "iowritetime", "ioreadbytes", "iowritebytes"} <= set(keys) and tr["reports"] == ["tracer_io_ioactivity"]
      and io["reports"]["tracer_io_ioactivity"] == js("io.hpc", "ioactivity"), f"html: the I/O section's metrics and report {keys} {tr['reports']}")
part = [k for k, x in enumerate(io["parts"]) if x["key"] == "io"][0]
it = funcs("io.hpc")["<Total>"]
want = sum(it.get(f"excl_io{c}time_s", 0) for c in ("read", "write", "other", "error"))
check(want > 0, f"html: io_pattern spent time in I/O calls ({want})")
r = io["rows"][0]  # one thread; parts in seconds, each what the ones before it leave of its life
check(len(io["rows"]) == 1, f"html: io_pattern's one thread {len(io['rows'])}")
near(r["parts"][part], min(want, r["life_s"] - sum(r["parts"][:part])), 1e-6,
     "html: the summary's I/O part = the I/O calls' time, but what computing left of the thread's life")
near(sum(r["parts"]), r["life_s"], 1e-6, "html: the parts add up to the thread's life")

# several commands in JSON
arr = json.load(open("multi.json"))
check([x["report"] for x in arr] == ["export", "export", "functions"] and arr[1]["file"] == "a.svg"
      and arr[1]["bytes"] > 1000, "exports in a JSON array of results")
PY

# headless Chromium: the pages load without console messages, scripts run, zoom works
command -v chromium >/dev/null || skip "chromium not installed (make deps installs it)"
chrome() { # chrome NAME URL ARGS...: run headless Chromium, console to NAME.log
    local name=$1 url=$2
    shift 2
    rm -rf "prof-$name"
    timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$PWD/prof-$name" --enable-logging=stderr --v=0 "$@" "$url" \
        2>"$name.log" || fail "chromium $url: exit $?"
    if grep "CONSOLE" "$name.log"; then fail "$url: console messages"; fi
    rm -rf "prof-$name"
}
read -r KX SPIN <zoom.txt
chrome svg "file://$PWD/ph.svg#zoom=$KX" --dump-dom >zoom.dom
$SYSPY - "$KX" "$SPIN" <<'PY'
import re, sys
from hpctest import check
kx, spin = sys.argv[1], sys.argv[2]
dom = open("zoom.dom").read()
check(re.search(r'data-zoom="%s"' % kx, dom) and 'data-ready="1"' in dom, "flamegraph: zoomed by #zoom=")
g = re.search(r'<g[^>]*id="%s"[^>]*>.*?<rect[^>]*width="([0-9.]+)"' % kx, dom, re.S)
check(g and abs(float(g.group(1)) - 1180) < 0.01, f"flamegraph: the zoomed frame spans the width ({g and g.group(1)})")
check(re.search(r'<g[^>]*id="%s"[^>]*style="display: none;"' % spin, dom), "flamegraph: spin is hidden when zoomed to kernel_x")
PY
