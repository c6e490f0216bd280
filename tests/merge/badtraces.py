"""Small OTF2 traces, each breaking one rule of tests/otf2validate.py (or none), written
with the OTF2 Python writer. tests/merge/test_validator.sh checks that the validator
finds exactly the broken rule in each.

    python3 badtraces.py DIR     # DIR/<case>/traces.otf2 for every case in CASES
"""
import os
import sys

import otf2
from otf2.enums import Paradigm, RegionRole, InterruptGeneratorMode, GroupType, CollectiveOp


def build(anchor_dir, events):
    """A trace of one location; events(w, d) writes its events with definitions d."""
    with otf2.writer.open(anchor_dir, timer_resolution=1000000000) as trace:
        defs = trace.definitions
        node = defs.system_tree_node("machine")
        group = defs.location_group("rank 0", system_tree_parent=node)
        loc = defs.location("thread 0", group=group)
        d = {
            "main": defs.region("main", paradigm=Paradigm.SAMPLING),
            "work": defs.region("work", paradigm=Paradigm.SAMPLING),
            "send": defs.region("MPI_Send", paradigm=Paradigm.MPI,
                                region_role=RegionRole.POINT2POINT),
            "bar": defs.region("MPI_Barrier", paradigm=Paradigm.MPI,
                               region_role=RegionRole.BARRIER),
            "clock": defs.interrupt_generator("clock", InterruptGeneratorMode.TIME, period=1000),
        }
        d["c_main"] = defs.calling_context(d["main"], parent=None)
        d["c_work"] = defs.calling_context(d["work"], parent=d["c_main"])
        d["c_send"] = defs.calling_context(d["send"], parent=d["c_main"])
        d["c_send_work"] = defs.calling_context(d["work"], parent=d["c_send"])
        d["c_bar"] = defs.calling_context(d["bar"], parent=d["c_main"])
        world = defs.group("world", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                           members=[loc])
        cgroup = defs.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                            members=[0])
        d["comm"] = defs.comm("MPI_COMM_WORLD", cgroup)
        del world
        w = trace.event_writer_from_location(loc)
        events(w, d)


def good(w, d):
    """Everything right: hybrid encoding."""
    w.calling_context_sample(10, d["c_work"], 3, d["clock"])
    w.calling_context_enter(20, d["c_send"], 2)
    w.calling_context_sample(30, d["c_send_work"], 2, d["clock"])
    w.calling_context_leave(40, d["c_send"])
    w.calling_context_enter(50, d["c_bar"], 2)
    w.mpi_collective_begin(51)
    w.mpi_collective_end(52, CollectiveOp.BARRIER, d["comm"], 0xffffffff, 0, 0)
    w.calling_context_leave(60, d["c_bar"])
    w.calling_context_sample(70, d["c_work"], 2, d["clock"])


def mixed(w, d):
    """exclusive: a plain Enter/Leave beside calling-context events."""
    w.calling_context_sample(10, d["c_work"], 3, d["clock"])
    w.enter(20, d["send"])
    w.leave(30, d["send"])


def crossed(w, d):
    """nesting: Leave of the outer region while the inner one is open."""
    w.enter(10, d["main"])
    w.enter(20, d["send"])
    w.leave(30, d["main"])
    w.leave(40, d["send"])


def unclosed(w, d):
    """pairs: a calling context entered, never left."""
    w.calling_context_enter(20, d["c_send"], 3)


def sample_outside(w, d):
    """samples: a sample inside MPI_Send whose context is not below MPI_Send's."""
    w.calling_context_enter(20, d["c_send"], 3)
    w.calling_context_sample(30, d["c_work"], 2, d["clock"])
    w.calling_context_leave(40, d["c_send"])


def bad_unwind(w, d):
    """unwind: a distance that points at a node the previous context does not hold."""
    w.calling_context_sample(10, d["c_bar"], 3, d["clock"])
    w.calling_context_sample(20, d["c_work"], 1, d["clock"])


def coll_outside(w, d):
    """pairs: a collective end outside its MPI call (the clipped-call bug)."""
    w.calling_context_enter(50, d["c_bar"], 3)
    w.mpi_collective_begin(51)
    w.calling_context_leave(52, d["c_bar"])
    w.mpi_collective_end(60, CollectiveOp.BARRIER, d["comm"], 0xffffffff, 0, 0)


CASES = {f.__name__: f for f in (good, mixed, crossed, unclosed, sample_outside, bad_unwind,
                                 coll_outside)}

if __name__ == "__main__":
    for name, f in CASES.items():
        build(os.path.join(sys.argv[1], name), f)
