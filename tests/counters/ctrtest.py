"""Helpers for the counter tests: per-function rows of hpanalyze's JSON reports, and the
process records hpexp-dump gives (tests/collector/expdata.py)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "collector"))
from expdata import load  # noqa: E402
from hpctest import analyze, check, share_tol  # noqa: E402,F401


def functions(exp, *args):
    """{name: row} of `functions` (JSON keys excl_<metric>, incl_<metric>)."""
    rep = analyze(exp, *args, "functions")
    return {f["name"]: f for f in rep["functions"]}


def metric(rows, name, key):
    """rows[name][key], 0 when the function is absent."""
    return rows.get(name, {}).get(key, 0)


def periods(exp, proc="main"):
    """The sample periods of process `proc` from `overview`."""
    rep = analyze(exp, "overview")
    for p in rep["processes"]:
        if p["name"] == proc:
            return p["periods"]
    sys.exit(f"FAIL: {exp}: no process {proc} in overview")


def counter_samples(exp):
    """Every sample_counter record of the experiment (hpexp-dump), as dicts with "file"."""
    import json
    import subprocess
    from expdata import DUMP
    out = subprocess.run([DUMP, exp], capture_output=True, text=True).stdout
    return [d for d in map(json.loads, out.splitlines()) if d.get("record") == "sample_counter"]
