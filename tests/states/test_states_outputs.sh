#!/bin/bash
# timeout: 90
# Thread states in every output, the same numbers everywhere (pipe ping-pong: both
# threads block 5000 times): hpanalyze statistics per thread = hpmerge's summary.json
# per thread = the last value of each thread-state metric on each OTF2 location (read
# back with the OTF2 Python reader; the trace passes tests/otf2validate.py through
# hpmerge-checked); summary.txt has the table; `export folded --metric other_wait` adds
# up to the Other Wait total and a flame graph of it is titled by it; er_print's names
# select the metrics; an unknown --metric is a usage error naming it.
source "$HPC_ROOT/tests/lib.sh"

"$HPCOLLECT" -q -o pp "$PROGS/states/pingpong" 5000 >pp.out || fail "pingpong: $(cat pp.out)"
"$HPMERGE" -q pp.hpc || fail "hpmerge failed"
grep -q "^Thread states (seconds)" pp.hpc/summary.txt || fail "summary.txt has no thread states"
"$HPANALYZE" pp.hpc export folded --metric other_wait >other.folded || fail "export folded --metric"
"$HPANALYZE" pp.hpc export flamegraph --metric other -o other.svg >/dev/null ||
    fail "export flamegraph --metric other"
grep -q "Other Wait" other.svg || fail "the flame graph does not name its metric"
set +e
"$HPANALYZE" pp.hpc export folded --metric sleepiness >bad.out 2>bad.err
rc=$?
set -e
[ $rc = 2 ] && grep -q "sleepiness" bad.err || fail "unknown --metric: exit $rc, $(cat bad.err)"

check_py '
import otf2
st = analyze("pp.hpc", "statistics")["processes"][0]
summ = json.load(open("pp.hpc/summary.json"))["processes"][0]
keys = ("user", "system", "wait_cpu", "user_lock", "text_pf", "data_pf", "other_wait")
names = ("User CPU", "System CPU", "Wait CPU", "User Lock", "Text Page Fault",
         "Data Page Fault", "Other Wait")
last = {}
with otf2.reader.open("pp.hpc/otf2/traces.otf2") as tr:
    for loc, ev in tr.events:
        if type(ev).__name__ == "Metric" and ev.metric is not None:
            last[(loc.name, ev.metric.members[0].name)] = ev.values[0] * 1e-9
for th in st["thread_list"]:
    seq = th["seq"]
    ms = [t for t in summ["threads"] if t["thread"] == seq][0]
    for k, n in zip(keys, names):
        a, m = th[k + "_s"], ms[k + "_s"]
        near(m, a, 1e-6, f"thread {seq}: summary.json {k} = statistics")
        o = [v for (l, mn), v in last.items() if mn == n and l.endswith(f"thread {seq}")]
        near(o[0] if o else 0.0, a, 1e-6, f"thread {seq}: OTF2 metric {n} = statistics")
    near(ms["total_thread_s"], th["total_thread_s"], 1e-6, f"thread {seq}: Total Thread")
check(summ["thread_states"]["other_wait_s"] > 0.01, "summary.json: the process has Other Wait")
folded = sum(int(l.rsplit(" ", 1)[1]) for l in open("other.folded")) * 1e-6
total = analyze("pp.hpc", "--metrics", "e.other:i.total", "functions")["functions"][0]
near(folded, total["excl_other_wait_s"], 1e-3 * len(open("other.folded").readlines()) + 1e-3,
     "export folded --metric other_wait adds up to Other Wait")
check("incl_total_thread_s" in total, "er_print names: other, total")
'
