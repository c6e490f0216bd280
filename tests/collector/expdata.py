"""Read an experiment through hpexp-dump (the experiment library's own reader) for the
collector tests: per process, its process-level records and, per thread, the samples.

    e = load("prog.1.hpc")
    p = e.procs["main"]
    p.settings["clock_source"], p.launcher_exit["status"], p.stats["samples"]
    t = p.threads[0]; t.samples, t.cpu_ns, t.end["cpu_ns"]
"""
import json
import os
import subprocess
import sys

DUMP = os.path.join(os.environ.get("HPC_TESTDIR", "build/tests"), "tools", "hpexp-dump")


class Thread:
    def __init__(self, seq):
        self.seq = seq
        self.begin = None
        self.end = None
        self.samples = 0
        self.cpu_ns = 0          # sum of sample weights
        self.nodes = {}          # id -> (parent, pc)
        self.leaf_cpu = {}       # leaf node -> cpu_ns
        self.leaf_n = {}         # leaf node -> samples
        self.stats = {}

    def stack(self, node):
        """pcs of a node, leaf first."""
        out = []
        while node:
            parent, pc = self.nodes[node]
            out.append(pc)
            node = parent
        return out


class Proc:
    def __init__(self, name):
        self.name = name
        self.records = []
        self.threads = {}
        self.stats = {}
        self.summary = {}

    def first(self, kind):
        for r in self.records:
            if r["record"] == kind:
                return r
        return None

    def all(self, kind):
        return [r for r in self.records if r["record"] == kind]

    settings = property(lambda self: self.first("settings"))
    begin = property(lambda self: self.first("proc_begin"))
    end = property(lambda self: self.first("proc_end"))
    launcher_exit = property(lambda self: self.first("launcher_exit"))

    def sampled_cpu_ns(self):
        return sum(t.cpu_ns for t in self.threads.values())

    def samples(self):
        return sum(t.samples for t in self.threads.values())


class Experiment:
    def __init__(self):
        self.procs = {}
        self.job = None
        self.damage = ""


def load(path):
    r = subprocess.run([DUMP, path], capture_output=True, text=True)
    if r.returncode not in (0, 1):
        sys.exit(f"FAIL: hpexp-dump {path}: exit {r.returncode}: {r.stderr.strip()}")
    e = Experiment()
    e.damage = r.stderr
    life = {}  # stream file -> seq of the thread whose records follow
    for line in r.stdout.splitlines():
        d = json.loads(line)
        if d.get("record") == "job_begin":
            e.job = d
            continue
        if "proc" in d and "record" not in d:
            p = e.procs.setdefault(d["proc"], Proc(d["proc"]))
            p.summary = d
            p.stats = d.get("stats", {})
            continue
        if "proc" in d:
            e.procs.setdefault(d["proc"], Proc(d["proc"])).records.append(d)
            continue
        if "summary" in d:
            f = d["summary"]
            if "/t" in f:
                pname, tfile = f.rsplit("/", 1)
                seq = int(tfile[1:].split(".")[0])
                p = e.procs.setdefault(pname, Proc(pname))
                p.threads.setdefault(seq, Thread(seq)).stats = d.get("stats", {})
            continue
        f = d.get("file", "")
        if "/t" not in f:
            continue
        pname, tfile = f.rsplit("/", 1)
        kind = d["record"]
        # a stream holds the lives of the threads that reused it, each from its
        # thread_begin on (process.hpe's thread_life records say where)
        if kind == "thread_begin":
            life[f] = d["seq"]
        seq = life.get(f, int(tfile[1:].split(".")[0]))
        p = e.procs.setdefault(pname, Proc(pname))
        t = p.threads.setdefault(seq, Thread(seq))
        if kind == "thread_begin":
            t.begin = d
        elif kind == "thread_end":
            t.end = d
        elif kind == "cct_node":
            t.nodes[d["id"]] = (d["parent"], d["pc"])
        elif kind == "sample_clock":
            t.samples += 1
            t.cpu_ns += d["cpu_ns"]
            t.leaf_cpu[d["node"]] = t.leaf_cpu.get(d["node"], 0) + d["cpu_ns"]
            t.leaf_n[d["node"]] = t.leaf_n.get(d["node"], 0) + 1
    return e


def symbols(exe):
    """name -> (start, end) of the functions of an executable (nm), file addresses."""
    out = subprocess.run(["nm", "-S", "--defined-only", exe], capture_output=True,
                         text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[2] in "tT":
            syms[f[3]] = (int(f[0], 16), int(f[0], 16) + int(f[1], 16))
    return syms


def function_cpu(proc, exe, names, samples=False):
    """CPU ns per function of `names` by leaf pc (exclusive), for the main executable;
    with samples=True, the number of samples instead."""
    syms = symbols(exe)
    main = [r for r in proc.all("module_load") if r["flags"] & 1][0]
    bias = main["bias"]
    cpu = {n: 0 for n in names}
    for t in proc.threads.values():
        for node, ns in (t.leaf_n if samples else t.leaf_cpu).items():
            if not node:
                continue
            pc = t.nodes[node][1] - bias
            for n in names:
                lo, hi = syms[n]
                if lo <= pc < hi:
                    cpu[n] += ns
    return cpu


def fail(msg):
    sys.exit(f"FAIL: {msg}")


def check(cond, what):
    if not cond:
        fail(what)
    print(f"ok: {what}")


def accounted(stats_json, name, burned):
    """Process name (a sub-experiment) sampled in full: its sampled CPU is what the kernel
    accounted for it within 5% or 3 ms (a sample weighs exact CPU time), and that is at
    least the CPU it burned (a fixed window around the burn fails when start-up, a fork
    or the collector's end cost more on a loaded machine: 0.236 s for a 0.2 s burn once).
    stats_json: `hpanalyze --format json EXP statistics` written to a file."""
    import json
    q = {x["process"]: x for x in json.load(open(stats_json))["processes"]}[name]
    s, k = q["sampled_cpu_s"], q["os_cpu_s"]
    check(k >= burned and abs(s - k) <= max(0.05 * k, 0.003),
          f"{name}: sampled {s:.3f} s of CPU, the kernel says {k:.3f} s (burned {burned} s)")
