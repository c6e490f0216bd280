"""Small OTF2 traces, each breaking one rule of tests/otf2validate.py (or none), written
with the OTF2 Python writer. tests/merge/test_validator.sh checks that the validator
finds exactly the broken rule in each.

    python3 badtraces.py DIR     # DIR/<case>/traces.otf2 for every case in CASES
"""
import os
import sys

import otf2
from otf2.enums import (Paradigm, RegionRole, InterruptGeneratorMode, GroupType, CollectiveOp,
                        IoAccessMode, IoCreationFlag, IoStatusFlag, IoOperationMode,
                        IoOperationFlag, IoParadigmClass, IoParadigmFlag, MetricMode,
                        MetricOccurrence, RecorderKind, Type)


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
        d["write"] = defs.region("write", paradigm=Paradigm.NONE, region_role=RegionRole.FILE_IO)
        posix = defs.io_paradigm("POSIX", "POSIX I/O", IoParadigmClass.SERIAL,
                                 IoParadigmFlag.OS)
        d["file"] = defs.io_regular_file("out.dat", scope=node)
        d["fd"] = defs.io_handle("out.dat", d["file"], posix)
        d["c_main"] = defs.calling_context(d["main"], parent=None)
        d["c_work"] = defs.calling_context(d["work"], parent=d["c_main"])
        d["c_send"] = defs.calling_context(d["send"], parent=d["c_main"])
        d["c_send_work"] = defs.calling_context(d["work"], parent=d["c_send"])
        d["c_bar"] = defs.calling_context(d["bar"], parent=d["c_main"])
        d["c_write"] = defs.calling_context(d["write"], parent=d["c_main"])
        world = defs.group("world", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                           members=[loc])
        cgroup = defs.group("", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
                            members=[0])
        d["comm"] = defs.comm("MPI_COMM_WORLD", cgroup)
        del world
        # a process's metric (hpmerge's heap in use): recorded by thread 0, or by thread 1
        other = defs.location("thread 1", group=group)
        member = defs.metric_member("heap in use", metric_mode=MetricMode.ABSOLUTE_POINT,
                                    value_type=Type.UINT64, unit="bytes")
        cls = defs.metric_class([member], occurrence=MetricOccurrence.ASYNCHRONOUS,
                                recorder_kind=RecorderKind.ABSTRACT)
        d["heap"] = defs.metric_instance(cls, loc, scope=group)
        d["heap_other"] = defs.metric_instance(cls, other, scope=group)
        w = trace.event_writer_from_location(loc)
        events(w, d)


def good(w, d):
    """Everything right: hybrid encoding."""
    w.metric(5, d["heap"], [100])
    w.calling_context_sample(10, d["c_work"], 3, d["clock"])
    w.calling_context_enter(20, d["c_send"], 2)
    w.calling_context_sample(30, d["c_send_work"], 2, d["clock"])
    w.calling_context_leave(40, d["c_send"])
    w.calling_context_enter(50, d["c_bar"], 2)
    w.mpi_collective_begin(51)
    w.mpi_collective_end(52, CollectiveOp.BARRIER, d["comm"], 0xffffffff, 0, 0)
    w.calling_context_leave(60, d["c_bar"])
    w.calling_context_sample(70, d["c_work"], 2, d["clock"])
    io_write(w, d, 80, create=True)


def io_write(w, d, t, create=False, begin=True, complete=True, destroy=True, ctx="c_write"):
    """An open (create), a write of 8 bytes and a close on out.dat, each in the write
    region (or the region of context ctx) at t, t + 10, t + 20; the flags leave parts out."""
    c = d[ctx]
    w.calling_context_enter(t, c, 2)
    if create:
        w.io_create_handle(t + 1, d["fd"], IoAccessMode.WRITE_ONLY, IoCreationFlag.CREATE,
                           IoStatusFlag.NONE)
    if begin:
        w.io_operation_begin(t + 2, d["fd"], IoOperationMode.WRITE, IoOperationFlag.NONE, 8, 7)
    if complete:
        w.io_operation_complete(t + 3, d["fd"], 8, 7)
    if destroy:
        w.io_destroy_handle(t + 4, d["fd"])
    w.calling_context_leave(t + 5, c)


def io_inactive(w, d):
    """I/O: a write on a handle never created."""
    io_write(w, d, 10)


def io_twice(w, d):
    """I/O: a handle created while it is active."""
    io_write(w, d, 10, create=True, destroy=False)
    io_write(w, d, 20, create=True, begin=False, complete=False)


def io_unpaired(w, d):
    """I/O: a Complete without its Begin."""
    io_write(w, d, 10, create=True, begin=False)


def io_outside(w, d):
    """I/O: an I/O record inside a region that is not an I/O call (work)."""
    w.calling_context_enter(5, d["c_main"], 1)
    io_write(w, d, 10, create=True, begin=False, complete=False, destroy=False, ctx="c_work")
    w.calling_context_leave(30, d["c_main"])


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


def metric_elsewhere(w, d):
    """A value of a metric instance written by another location than its recorder."""
    good(w, d)
    w.metric(200, d["heap_other"], [100])


CASES = {f.__name__: f for f in (good, mixed, crossed, unclosed, sample_outside, bad_unwind,
                                 coll_outside, io_inactive, io_twice, io_unpaired, io_outside,
                                 metric_elsewhere)}

if __name__ == "__main__":
    for name, f in CASES.items():
        build(os.path.join(sys.argv[1], name), f)
