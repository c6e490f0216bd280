"""Helpers for the OpenMP tests (tests/omp/test_*.sh): run hpanalyze, walk call trees.

Used with tests/hpctest.py (check, near); run by Debian's /usr/bin/python3.
"""
import json
import os
import subprocess
import sys

from hpctest import check

BIN = os.environ.get("HPC_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "bin"))
HPANALYZE = os.path.join(BIN, "hpanalyze")


def run(*args, expect=0):
    """Run hpanalyze; return (stdout, stderr); fail unless it exits with expect."""
    p = subprocess.run([HPANALYZE] + list(args), capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"FAIL: hpanalyze {' '.join(args)}: exit {p.returncode}, expected {expect}\n"
                 f"stderr: {p.stderr}")
    return p.stdout, p.stderr


def js(exp, *args, opts=()):
    return json.loads(run("--format", "json", *opts, exp, *args)[0])


def omp(exp, *opts):
    """The omp report as JSON."""
    return js(exp, "omp", opts=opts)


def calltree(exp, view="user", threads=None):
    """Call tree nodes as a list of dicts with an added "path" (names from the root's
    child down to the node)."""
    opts = ["--view", view]
    if threads is not None:
        opts += ["--threads", str(threads)]
    nodes = js(exp, "calltree", opts=opts)["nodes"]
    byid = {n["id"]: n for n in nodes}
    for n in nodes:
        path, x = [], n
        while x["parent"] >= 0:
            path.append(x["name"])
            x = byid[x["parent"]]
        n["path"] = list(reversed(path))
    return nodes


def under(nodes, path):
    """Attributed CPU seconds of the nodes whose path ends with this one (from main on:
    the frames above main, _start ..., are not the test's business)."""
    path = list(path)
    return sum(n["attr_cpu_s"] for n in nodes if n["path"][-len(path):] == path)


def called_from(nodes, name):
    """The distinct paths leading to nodes called name, from main on."""
    out = set()
    for n in nodes:
        if n["name"] == name:
            p = n["path"]
            out.add(tuple(p[p.index("main"):] if "main" in p else p))
    return out


def paths_of(nodes, name):
    return [n["path"] for n in nodes if n["name"] == name]


def total(nodes):
    return next(n["attr_cpu_s"] for n in nodes if n["parent"] < 0)


def truths(path):
    """The "truth thread=T what=W cpu_ns=N wall_ns=N delay_ns=N" lines a program printed,
    as {(thread, what): (cpu_s, wall_s, delay_s)} (delay: run delay inside the windows)."""
    out = {}
    for line in open(path):
        if not line.startswith("truth "):
            continue
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        out[(int(f["thread"]), f["what"])] = (int(f["cpu_ns"]) * 1e-9, int(f["wall_ns"]) * 1e-9,
                                              int(f.get("delay_ns", 0)) * 1e-9)
    return out


def truth_sum(t, what, wall=False, delay=False):
    return sum(v[2 if delay else 1 if wall else 0] for (th, w), v in t.items() if w == what)


def traced_within(got, t, what, tol, label):
    """A traced wait `got` (s) inside the program's own windows around it: no longer than
    their wall clock, and shorter by at most tol (a share) plus the run delay inside them
    (preemption between the window's edge and the tracer's callback is not the wait's)."""
    wall, delay = truth_sum(t, what, wall=True), truth_sum(t, what, delay=True)
    check(wall - delay - tol * wall - 0.005 <= got <= wall + 0.005,
          f"{label}: {got:.4f} s, the program's {wall:.4f} s (run delay {delay:.4f} s) "
          f"or up to {100 * tol:.0f}% and the run delay less")


def rank_truths(path):
    """The "truth rank=R thread=T what=W cpu_ns=N wall_ns=N" lines of an MPI program's
    ranks, as {(rank, thread, what): (cpu_s, wall_s)}."""
    out = {}
    for line in open(path):
        if not line.startswith("truth "):
            continue
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        out[(int(f["rank"]), int(f["thread"]), f["what"])] = (int(f["cpu_ns"]) * 1e-9,
                                                              int(f["wall_ns"]) * 1e-9)
    return out


def recorded_mpi_calls(exp):
    """Every mpi_call record of the experiment, as hpanalyze dump prints it:
    {(rank, thread seq): [(time_enter, time_leave), ...]} in stream order."""
    import re
    text, _ = run(exp, "dump")
    calls, where = {}, None
    for line in text.splitlines():
        m = re.match(r"== .*/rank(\d+)/t(\d+)\.hpe ", line)
        if line.startswith("=="):
            where = (int(m.group(1)), int(m.group(2))) if m else None
            continue
        if where and line.startswith("mpi_call "):
            f = dict(kv.split("=", 1) for kv in line.split()[2:] if "=" in kv)
            calls.setdefault(where, []).append((int(f["time_enter"]), int(f["time_leave"])))
    return calls


def otf2_mpi_calls(archive):
    """The MPI calls of an OTF2 archive per location, {(rank, thread seq): [(enter, leave)]},
    and the broken promises: Leaves that do not match the Enter on top, MPI collective
    events outside an MPI region."""
    import otf2
    from otf2.events import (CallingContextEnter, CallingContextLeave, Enter, Leave,
                             MpiCollectiveBegin, MpiCollectiveEnd)
    calls, stacks, errors = {}, {}, []
    with otf2.reader.open(archive) as r:
        for loc, ev in r.events:
            key = (loc._ref >> 32, loc._ref & 0xffffffff)
            st = stacks.setdefault(key, [])
            # hpmerge writes regions as calling contexts (OTF2's hybrid encoding)
            region = (ev.calling_context.region
                      if isinstance(ev, (CallingContextEnter, CallingContextLeave))
                      else getattr(ev, "region", None))
            if isinstance(ev, (Enter, CallingContextEnter)):
                st.append((region, ev.time))
            elif isinstance(ev, (Leave, CallingContextLeave)):
                if not st or st[-1][0] != region:
                    errors.append(f"{key}: Leave {region.name} at {ev.time} with "
                                  f"{[s[0].name for s in st]} open")
                    continue
                region, t0 = st.pop()
                if region.paradigm == otf2.Paradigm.MPI:
                    calls.setdefault(key, []).append((t0, ev.time))
            elif isinstance(ev, (MpiCollectiveBegin, MpiCollectiveEnd)):
                if not st or st[-1][0].paradigm != otf2.Paradigm.MPI:
                    errors.append(f"{key}: {type(ev).__name__} at {ev.time} outside an MPI call "
                                  f"({[s[0].name for s in st]} open)")
    return calls, errors


def chrome_overlaps(path):
    """Slices of one thread in a Chrome trace that overlap without nesting: OpenMP slices
    against the MPI calls of the same thread, as [(omp slice, MPI slice)]."""
    import json
    events = [e for e in json.load(open(path))["traceEvents"] if e.get("ph") == "X"]
    by = {}
    for e in events:
        by.setdefault((e["pid"], e["tid"]), []).append(e)
    bad = []
    for evs in by.values():
        mpi = [e for e in evs if e["cat"] == "MPI"]
        for o in (e for e in evs if e["cat"] == "OpenMP"):
            ob, oe = o["ts"], o["ts"] + o["dur"]
            for m in mpi:
                mb, me = m["ts"], m["ts"] + m["dur"]
                inside = ob <= mb and me <= oe or mb <= ob and oe <= me
                if mb < oe and ob < me and not inside:
                    bad.append((o["name"], ob, oe, m["name"], mb, me))
    return bad
