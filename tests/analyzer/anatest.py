"""Helpers for analyzer tests: run hpanalyze in every format and parse the results.

Used with tests/hpctest.py (check, near) by the tests/analyzer/test_*.sh scripts.
"""
import csv
import io
import json
import os
import re
import subprocess
import sys

BIN = os.environ.get("HPC_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "bin"))
HPANALYZE = os.path.join(BIN, "hpanalyze")


def run(*args, expect=0):
    """Run hpanalyze with args; return (stdout, stderr); fail unless the exit status is expect."""
    p = subprocess.run([HPANALYZE] + list(args), capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"FAIL: hpanalyze {' '.join(args)}: exit {p.returncode}, expected {expect}\n"
                 f"stderr: {p.stderr}")
    return p.stdout, p.stderr


def js(exp, *args):
    return json.loads(run("--format", "json", exp, *args)[0])


def csv_rows(exp, *args):
    return list(csv.DictReader(io.StringIO(run("--format", "csv", exp, *args)[0])))


def funcs(exp, *args):
    """functions as {name: row} from JSON."""
    return {f["name"]: f for f in js(exp, "functions", *args)["functions"]}


def text_rows(text):
    """er_print text table rows -> list of (values, name, marked)."""
    rows = []
    for line in text.splitlines():
        m = re.match(r"^((?:\s*[0-9.]+\s+[0-9.]+)+)\s+(\*?)(\S.*)$", line)
        if m and re.match(r"^\s*[0-9]", line):
            vals = [float(v) for v in m.group(1).split()]
            rows.append((vals, m.group(3), m.group(2) == "*"))
    return rows


def text_funcs(exp, *args):
    """functions text -> {name: (excl_s, excl_pct, incl_s, incl_pct)}."""
    return {name: vals for vals, name, _ in text_rows(run(exp, "functions", *args)[0])}


def share(rows, name, total, key="excl_cpu_s"):
    return 100.0 * rows[name][key] / total


def page_data(path):
    """The data object a page of `export html` carries (its script draws the page from it)."""
    html = open(path, encoding="utf-8").read()
    m = re.search(r'<script type="application/json" id="hpa-data">\n(.*?)</script>', html, re.S)
    if not m:
        sys.exit(f"FAIL: {path}: no hpa-data element")
    return json.loads(m.group(1))
