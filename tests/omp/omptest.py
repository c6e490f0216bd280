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
    """Attributed CPU seconds of the node with exactly this path (0 if absent)."""
    return sum(n["attr_cpu_s"] for n in nodes if n["path"] == list(path))


def paths_of(nodes, name):
    return [n["path"] for n in nodes if n["name"] == name]


def total(nodes):
    return next(n["attr_cpu_s"] for n in nodes if n["parent"] < 0)
