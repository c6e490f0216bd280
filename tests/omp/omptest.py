"""Helpers for the OpenMP tests (tests/omp/test_*.sh): run hpanalyze, walk call trees.

Used with tests/hpctest.py (check, near); run by Debian's /usr/bin/python3.
"""
import json
import os
import subprocess
import sys

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
    """The "truth thread=T what=W cpu_ns=N wall_ns=N" lines a program printed, as
    {(thread, what): (cpu_s, wall_s)}."""
    out = {}
    for line in open(path):
        if not line.startswith("truth "):
            continue
        f = dict(kv.split("=", 1) for kv in line.split()[1:])
        out[(int(f["thread"]), f["what"])] = (int(f["cpu_ns"]) * 1e-9, int(f["wall_ns"]) * 1e-9)
    return out


def truth_sum(t, what, wall=False):
    return sum(v[1 if wall else 0] for (th, w), v in t.items() if w == what)
