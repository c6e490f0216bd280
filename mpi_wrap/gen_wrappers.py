#!/usr/bin/python3
"""gen_wrappers.py - generate the PMPI wrappers of lib/libhpcollect-mpi.so.

    gen_wrappers.py --decls MPI_DECLS.i --out DIR [--fortran openmpi|mpich|none]
                    [--fortran-symbols FILE] protos/*.txt

Reads the prototype tables (protos/*.txt), checks them against the MPI functions the
installed mpi.h declares (MPI_DECLS.i is mpi.h run through the preprocessor), and writes
into DIR:

    mpiw_fns.h    enum hpcw_fn: one id per wrapped function (HPCW_FN_MPI_Send ...)
    mpiw_fns.c    hpcw_fn_table[]: name, family and collective of every id
    wrappers_c.c  one C wrapper per function:       MPI_Send -> PMPI_Send
    wrappers_f.c  two Fortran wrappers per function: mpi_send_ -> pmpi_send_ (mpif.h and
                  `use mpi`), mpi_send_f08_ -> pmpi_send_f08_ (`use mpi_f08`)

It stops with a message naming the file and line when a table entry does not match the
header, when the header declares an MPI_ function no table lists (protos/unwrapped.txt
names the ones left out on purpose), or when a directive is unknown.

ONE TABLE, EVERY MPI. The same tables serve every MPI library's mpi.h (Open MPI's,
MPICH's): a table prototype matches the header's when the types are the same after an
array parameter decays to a pointer (`MPI_Status[]` = `MPI_Status *`) and a function
typedef is replaced by the function type it names (MPICH's MPI_Comm_errhandler_function
and Open MPI's MPI_Handler_function). A function that came with a later MPI version than
some library implements carries `since VERSION`: it is wrapped where the header declares
it, skipped where the header's MPI_VERSION is older, and an error where the header claims
that version but lacks it. The large-count variants of MPI 4 (MPI_Send_c ...) are not
tables of their own: `large` on the base function wraps NAME_c where the header declares
it, with the header's prototype (MPI_Count counts, MPI_Aint displacements) and the base
function's directives. unwrapped.txt may name functions a header lacks.

TABLE FORMAT. A prototype on one line, exactly as mpi.h declares it, followed by
indented directive lines: a verb and role=PARAMETER pairs naming the wrapper's own
parameters. The verbs:

  send     count type peer tag comm        a blocking send
  recv     type comm status                a blocking receive (source and size from status)
  isend / irecv   count type peer tag comm request    a non-blocking send / receive
  send_init / recv_init   same roles       a persistent request, created inactive
  mprobe   comm message                    a matched probe hands a message on
  mrecv    type message status             receive of a matched message
  imrecv   count type message request      non-blocking receive of a matched message
  coll     op=OP comm [root count type scount stype rcount rtype scounts rcounts
           stypes rtypes sbuf rbuf neighbor=1]    a collective (coll.c has the byte rules)
  icoll    as coll, plus request           a non-blocking collective
  request  request                         some other request to follow (I/O, RMA ...)
  complete one|all|any|some  count requests [status statuses flag index outcount indices]
                                           requests that may complete here (Wait/Test)
  start    count requests                  persistent requests started
  release  request                         MPI_Request_free
  cancel   request                         MPI_Cancel
  newcomm  new parent kind=KIND [agree=no] a communicator created (comms.c)
  freecomm handle                          a communicator freed
  comm     PARAMETER | none                the call's communicator, when not the first
                                           MPI_Comm parameter
  ioopen   fileptr name amode            MPI-IO as I/O (-i, io.c): a file opened
  ioclose  fileptr                         a file closed
  ioxfer   fn=read|write file count type [status at pointer=shared]
                                           a transfer: at an explicit offset (at), the
                                           shared file pointer, else the individual one;
                                           without status it completes later (bytes asked)
  ioother  fn=sync|seek|set_size file      a call on the file that moves no bytes
  iodelete name                            MPI_File_delete
                                           (from Fortran too: the file handle through
                                           PMPI_File_f2c, the name's blanks trimmed, so both
                                           languages reach the same io.c code)
  special                                  written by hand in special.c (C and Fortran)
  fortran  none                            no Fortran binding
  family   NAME                            overrides the family the file name gives
  since    VERSION                         came with MPI VERSION (4.0): see ONE TABLE
  large                                    also wrap the large-count variant NAME_c

Every wrapper comes from the two templates below; each directive adds one or more
calls of hand-written helpers (mpiw.h) at fixed places in them: declarations, before
the PMPI call, after it (always, while MPI tracing is on: following requests and
communicators), and in the record section (only while recording).

FORTRAN (--fortran openmpi, the default). Open MPI's Fortran bindings (libmpi_mpifh: mpif.h and `use mpi`) call the
C PMPI_ functions directly, and the `use mpi_f08` ones (libmpi_usempif08) call
libmpi_mpifh's internal ompi_*_f, so the C wrappers never see Fortran calls. Each
Fortran wrapper takes the binding's arguments (every C parameter by reference, then
ierr, then one hidden length per character argument; the f08 handles are derived
types holding the same integer), calls the binding's PMPI entry (pmpi_send_,
pmpi_send_f08_), and records what it needs after converting handles with PMPI_*_f2c.
MPICH's mpif.h binding (libmpichfort) calls the C MPI_ functions, which the C wrappers
interpose already, and so do the routines of its mpi_f08 binding that have a choice
buffer (mpi_send_f08ts_, through a descriptor helper): wrapping them too would count each
call twice. Its other mpi_f08 routines (mpi_barrier_f08_ ...) call PMPI_ functions:
--fortran mpich writes wrappers of those, for the names --fortran-symbols lists (the
library's defined symbols), calling the library's own (MPICH_F08 below). --fortran none
writes none.

Output is marked generated and carries no time, host or user, so builds are reproducible.
"""

import argparse
import os
import re
import sys

# ------------------------------------------------------------------ templates

C_TEMPLATE = """\
/* {name}: {where} */
HPCW_EXPORT {ret} {name}({cparams})
{{
    hpcw_call c;
{decls}\
    hpcw_enter(&c, HPCW_FN_{name}, __builtin_return_address(0), 0);
    c.cfa = (uintptr_t)__builtin_dwarf_cfa();
{before}\
    {ret} rc = P{name}({cargs});
    if (rc == MPI_SUCCESS && hpcw_tracking()) {{
{after}\
    }}
    if (hpcw_leave(&c, rc, {comm})) {{
{record}\
        hpcw_done(&c);
    }}
{end}\
    return rc;
}}

"""

F_TEMPLATE = """\
/* {name}: {where} */
typedef void hpcw_{fname}fn({fparams});
HPCW_EXPORT void {fname}({fparams})
{{
    static hpcw_{fname}fn *real;
    hpcw_call c;
{decls}\
    hpcw_enter(&c, HPCW_FN_{name}, __builtin_return_address(0), HPC_MPI_CALL_FORTRAN);
    c.cfa = (uintptr_t)__builtin_dwarf_cfa();
{before}\
    if (!real)
        real = (hpcw_{fname}fn *)hpcw_fortran_real("{real}");
    real({fargs});
    int rc = {rc};
    if (rc == MPI_SUCCESS && hpcw_tracking()) {{
{after}\
    }}
    if (hpcw_leave(&c, rc, {comm})) {{
{record}\
        hpcw_done(&c);
    }}
{end}\
}}
{aliases}
"""

# The two Fortran bindings differ only in names and in IERROR: mpif.h / `use mpi`
# (mpi_send_, also spelled mpi_send, mpi_send__, MPI_SEND) always passes it; `use
# mpi_f08` (mpi_send_f08_) passes NULL when the program leaves the optional argument out.
F_BINDINGS = {
    "mpif": {"fname": "{lname}_", "real": "p{lname}_", "rc": "*ierr",
             "aliases": "HPCW_FORTRAN_ALIASES({lname}_, {lname}, {lname}__, {uname})\n"},
    "f08": {"fname": "{lname}_f08_", "real": "p{lname}_f08_", "rc": "ierr ? *ierr : MPI_SUCCESS",
            "aliases": ""},
}
# MPICH's `use mpi_f08` binding (--fortran mpich): its routines without a choice buffer
# (mpi_barrier_f08_, mpi_waitall_f08_, mpi_file_open_f08_ ..., as its library defines them:
# --fortran-symbols) call MPICH's PMPI_ functions, so the C wrappers never see them, and
# have no pmpi_ entry: the wrapper calls the library's own, the next definition of its
# name. Its statuses are MPI_Status of mpi_f08 (MPI_SOURCE, MPI_TAG, MPI_ERROR first:
# PMPI_Status_f082c) and its MPI_STATUS(ES)_IGNORE objects of its own (fortran.c). The
# routines with a choice buffer (mpi_send_f08ts_, TS 29113) call the C MPI_ function
# through a descriptor helper: the C wrappers see those.
MPICH_F08 = {"rc": "ierr ? *ierr : MPI_SUCCESS", "aliases": ""}

# What each verb adds, per section. {role} is replaced by the role's value converted for
# the language (see value()); C and Fortran differ only where a helper takes Fortran
# arrays or statuses.
SNIPPETS = {
    "send": {
        "record": "hpcw_rec_send(&c, {count}, {type}, {peer}, {tag}, {comm});",
    },
    "recv": {
        "decls": "{status_decl}\n{fstatus_decl}",
        "before": "{status_sub}",
        "record": "hpcw_rec_recv(&c, {type}, {comm}, {status});",
    },
    "isend": {
        "decls": "hpcw_req *req = NULL;",
        "after": "req = hpcw_req_add(HPCW_REQ_SEND, {request}, {count}, {type}, {peer}, {tag}, "
                 "{comm}, 0);",
        "record": "hpcw_rec_req_start(&c, req);",
    },
    "irecv": {
        "decls": "hpcw_req *req = NULL;",
        "after": "req = hpcw_req_add(HPCW_REQ_RECV, {request}, {count}, {type}, {peer}, {tag}, "
                 "{comm}, 0);",
        "record": "hpcw_rec_req_start(&c, req);",
    },
    "send_init": {
        "after": "hpcw_req_add(HPCW_REQ_SEND, {request}, {count}, {type}, {peer}, {tag}, "
                 "{comm}, 1);",
    },
    "recv_init": {
        "after": "hpcw_req_add(HPCW_REQ_RECV, {request}, {count}, {type}, {peer}, {tag}, "
                 "{comm}, 1);",
    },
    "mprobe": {
        "after": "hpcw_msg_add({message}, {comm});",
    },
    "mrecv": {
        "decls": "hpcw_req msg;\n{status_decl}\n{fstatus_decl}",
        "before": "hpcw_msg_take({message}, &msg);\n{status_sub}",
        "record": "hpcw_rec_mrecv(&c, &msg, {type}, {status});",
    },
    "imrecv": {
        "decls": "hpcw_req msg, *req = NULL;",
        "before": "hpcw_msg_take({message}, &msg);",
        "after": "req = hpcw_req_add_msg({request}, &msg, {count}, {type});",
        "record": "hpcw_rec_req_start(&c, req);",
    },
    "coll": {
        "record": "hpcw_rec_coll(&c, HPC_COLL_{op}, {comm}, &(hpcw_coll_args){{{collargs}}});",
    },
    "icoll": {
        "after": "hpcw_req_add_other({request});",
        "record": "hpcw_rec_coll(&c, HPC_COLL_{op}, {comm}, &(hpcw_coll_args){{{collargs}}});",
    },
    "request": {
        "after": "hpcw_req_add_other({request});",
    },
    "complete": {
        "decls": "hpcw_pend pend;\n{status_decl}",
        "before": "hpcw_pend_init{F}(&pend, {count}, {requests});\n{status_sub}{statuses_sub}",
        "after": "{flag_if}{complete_call}",
        "record": "hpcw_rec_pend(&c, &pend);",
        "end": "hpcw_pend_free(&pend);",
    },
    "start": {
        "decls": "hpcw_pend pend;",
        "before": "hpcw_pend_init{F}(&pend, {count}, {requests});",
        "after": "hpcw_pend_start(&pend);",
        "record": "hpcw_rec_pend(&c, &pend);",
        "end": "hpcw_pend_free(&pend);",
    },
    "release": {
        "decls": "hpcw_pend pend;",
        "before": "hpcw_pend_init{F}(&pend, 1, {request_raw});",
        "after": "hpcw_pend_release(&pend);",
        "end": "hpcw_pend_free(&pend);",
    },
    "cancel": {
        "decls": "hpcw_pend pend;",
        "before": "hpcw_pend_init{F}(&pend, 1, {request_raw});",
        "after": "hpcw_pend_cancel(&pend);",
        "end": "hpcw_pend_free(&pend);",
    },
    "ioopen": {
        "decls": "hpcw_io io;",
        "before": "hpcw_io_begin(&c, &io);\n{open_null}",
        "after": "hpcw_io_opened(&io, {fileptr});",
        "record": "hpcw_rec_io_open(&c, &io, {name}, {name_len}, {amode});",
        "end": "hpcw_io_end(&c, &io);",
    },
    "ioclose": {
        "decls": "hpcw_io io;",
        "before": "hpcw_io_begin(&c, &io);\nhpcw_io_closing(&io, {fileptr});",
        "record": "hpcw_rec_io_other(&c, &io, HPC_IO_FN_MPI_File_close);",
        "end": "hpcw_io_end(&c, &io);",
    },
    "ioxfer": {
        "decls": "hpcw_io io;\n{status_decl}\n{fstatus_decl}",
        "before": "hpcw_io_begin(&c, &io);\n{io_where}\n{status_sub}",
        "record": "hpcw_rec_io_xfer(&c, &io, HPC_IO_FN_MPI_File_{fn}, {count}, {type}, "
                  "{io_status});",
        "end": "hpcw_io_end(&c, &io);",
    },
    "ioother": {
        "decls": "hpcw_io io;",
        "before": "hpcw_io_begin(&c, &io);\nhpcw_io_on_file(&io, {file});",
        "record": "hpcw_rec_io_other(&c, &io, HPC_IO_FN_MPI_File_{fn});",
        "end": "hpcw_io_end(&c, &io);",
    },
    "iodelete": {
        "decls": "hpcw_io io;",
        "before": "hpcw_io_begin(&c, &io);",
        "record": "hpcw_rec_io_delete(&c, &io, {name}, {name_len});",
        "end": "hpcw_io_end(&c, &io);",
    },
    "newcomm": {
        "after": "hpcw_comm_created({new}, {parent}, HPC_COMM_{kind}, {agree});",
    },
    "freecomm": {
        "decls": "MPI_Comm freed;",
        "before": "freed = {handle};",
        "after": "hpcw_comm_freed(freed);",
    },
}

# How each completion shape finds what completed.
COMPLETE_CALLS = {
    "one": "hpcw_pend_done{F}(&pend, 0, {status_raw});",
    "any": "hpcw_pend_done{F}(&pend, {index}, {status_raw});",
    "all": "hpcw_pend_all{F}(&pend, {statuses_raw});",
    "some": "hpcw_pend_some{F}(&pend, {outcount}, {indices_raw}, {statuses_raw});",
}

ROLES = {  # role -> how its value is taken from the parameter
    "count": "value", "type": "value", "peer": "value", "tag": "value", "comm": "value",
    "root": "value", "parent": "value", "scount": "value", "stype": "value",
    "rcount": "value", "rtype": "value",
    "request": "handle", "new": "handle", "message": "handle", "handle": "handle",
    "flag": "deref", "outcount": "deref", "index": "index",
    "requests": "raw", "indices": "raw", "scounts": "raw", "rcounts": "raw",
    "stypes": "types", "rtypes": "types", "sbuf": "buf", "rbuf": "buf",
    "status": "status", "statuses": "raw",
    "op": "literal", "kind": "literal", "neighbor": "literal", "agree": "literal",
    "fileptr": "handle", "file": "value", "name": "raw", "amode": "value", "at": "value",
    "fn": "literal", "pointer": "literal",
}
COLL_FIELDS = ["root", "count", "type", "scount", "stype", "rcount", "rtype", "scounts",
               "rcounts", "stypes", "rtypes", "sbuf", "rbuf", "neighbor"]
VERB_ROLES = {
    "send": {"count", "type", "peer", "tag", "comm"},
    "recv": {"type", "comm", "status"},
    "isend": {"count", "type", "peer", "tag", "comm", "request"},
    "irecv": {"count", "type", "peer", "tag", "comm", "request"},
    "send_init": {"count", "type", "peer", "tag", "comm", "request"},
    "recv_init": {"count", "type", "peer", "tag", "comm", "request"},
    "mprobe": {"comm", "message"},
    "mrecv": {"type", "message", "status"},
    "imrecv": {"count", "type", "message", "request"},
    "coll": {"op", "comm"} | set(COLL_FIELDS),
    "icoll": {"op", "comm", "request"} | set(COLL_FIELDS),
    "request": {"request"},
    "complete": {"count", "requests", "status", "statuses", "flag", "index", "outcount",
                 "indices"},
    "start": {"count", "requests"},
    "release": {"request"},
    "cancel": {"request"},
    "newcomm": {"new", "parent", "kind", "agree"},
    "freecomm": {"handle"},
    "ioopen": {"fileptr", "name", "amode"},
    "ioclose": {"fileptr"},
    "ioxfer": {"fn", "file", "count", "type", "status", "at", "pointer"},
    "ioother": {"fn", "file"},
    "iodelete": {"name"},
}
IO_FNS = {"ioxfer": ("read", "write"), "ioother": ("sync", "seek", "set_size")}
REQUIRED = {
    "send": {"count", "type", "peer", "tag", "comm"}, "recv": {"type", "comm", "status"},
    "isend": {"count", "type", "peer", "tag", "comm", "request"},
    "irecv": {"count", "type", "peer", "tag", "comm", "request"},
    "send_init": {"count", "type", "peer", "tag", "comm", "request"},
    "recv_init": {"count", "type", "peer", "tag", "comm", "request"},
    "mprobe": {"comm", "message"}, "mrecv": {"type", "message", "status"},
    "imrecv": {"count", "type", "message", "request"}, "coll": {"op", "comm"},
    "icoll": {"op", "comm", "request"}, "request": {"request"},
    "complete": {"count", "requests"}, "start": {"count", "requests"},
    "release": {"request"}, "cancel": {"request"}, "newcomm": {"new", "kind"},
    "freecomm": {"handle"},
    "ioopen": {"fileptr", "name", "amode"}, "ioclose": {"fileptr"},
    "ioxfer": {"fn", "file", "count", "type"}, "ioother": {"fn", "file"}, "iodelete": {"name"},
}
FAMILIES = {  # file -> enum hpc_mpi_family
    "p2p": "HPC_MPI_P2P", "coll": "HPC_MPI_COLL", "completion": "HPC_MPI_WAIT",
    "comm": "HPC_MPI_COMM", "dynamic": "HPC_MPI_COMM", "onesided": "HPC_MPI_ONESIDED",
    "io": "HPC_MPI_IO", "env": "HPC_MPI_ENV", "datatype": "HPC_MPI_OTHER",
    "tool": "HPC_MPI_OTHER",
}
FAMILY_NAMES = {"p2p": "HPC_MPI_P2P", "coll": "HPC_MPI_COLL", "wait": "HPC_MPI_WAIT",
                "comm": "HPC_MPI_COMM", "onesided": "HPC_MPI_ONESIDED", "io": "HPC_MPI_IO",
                "env": "HPC_MPI_ENV", "other": "HPC_MPI_OTHER"}
F2C = {"MPI_Datatype": "PMPI_Type_f2c", "MPI_Comm": "PMPI_Comm_f2c",
       "MPI_Request": "PMPI_Request_f2c", "MPI_Message": "PMPI_Message_f2c",
       "MPI_File": "PMPI_File_f2c"}
# Integer kinds the Fortran wrappers pass through as void * (fortran_params): a value of
# one is read through its C type (INTEGER(KIND=MPI_OFFSET_KIND) is an MPI_Offset ...).
F_WIDE = ("MPI_Offset", "MPI_Aint", "MPI_Count")


class TableError(Exception):
    pass


# ------------------------------------------------------------------ parsing

class Param:
    """One C parameter: its type text, name and array suffix, as the table writes it."""

    def __init__(self, text):
        self.text = text.strip()
        m = re.match(r"^(?P<type>.*?)(?P<name>\w+)\s*(?P<arr>(\[[^\]]*\]\s*)*)$", self.text)
        if not m or not m.group("type").strip():
            raise TableError(f"cannot read parameter '{text}'")
        self.name = m.group("name")
        self.arr = re.sub(r"\s+", "", m.group("arr"))
        self.type = normalize_type(m.group("type"))

    def signature(self):
        """Type without the name, for comparison with the header."""
        return self.type + self.arr

    def base(self):
        """The type without const and pointer/array marks: MPI_Comm, int, char ..."""
        return re.sub(r"\bconst\b|\*", "", self.type).strip()

    def is_pointer(self):
        return "*" in self.type or bool(self.arr)


def normalize_type(t):
    """'MPI_Comm * ' -> 'MPI_Comm *', 'char**' -> 'char **'."""
    t = re.sub(r"\s+", " ", t).strip()
    t = re.sub(r"\s*\*\s*", "*", t)
    return re.sub(r"(?<=\w)\*", " *", t)


def split_params(text):
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [p.strip() for p in out]


PROTO_RE = re.compile(r"^(?P<ret>[A-Za-z_][\w ]*?)\s*\b(?P<name>MPI_\w+)\s*\((?P<params>.*)\)\s*$")


class Function:
    def __init__(self, proto, where, family):
        m = PROTO_RE.match(proto)
        if not m:
            raise TableError(f"{where}: not a prototype: {proto}")
        self.name = m.group("name")
        self.ret = m.group("ret").strip()
        self.where = where
        self.family = family
        self.vararg = False
        self.params = []
        for p in split_params(m.group("params")):
            if p == "void":
                continue
            if p == "...":
                self.vararg = True
                continue
            try:
                self.params.append(Param(p))
            except TableError as e:
                raise TableError(f"{where}: {self.name}: {e}")
        self.directives = []  # (verb, {role: value}, where)
        self.special = False
        self.fortran = True
        self.comm = None  # explicit call communicator
        self.since = None  # (major, minor): came with this MPI version
        self.large = False  # NAME_c exists from MPI 4 on

    def param(self, name, where):
        for p in self.params:
            if p.name == name:
                return p
        raise TableError(f"{where}: {self.name} has no parameter '{name}'")

    def signature(self):
        return [p.signature() for p in self.params] + (["..."] if self.vararg else [])


def read_table(path):
    """Parse one protos/*.txt file into Functions."""
    family = FAMILIES.get(os.path.splitext(os.path.basename(path))[0])
    if family is None:
        raise TableError(f"{path}: unknown table (known: {', '.join(sorted(FAMILIES))})")
    funcs, cur = [], None
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            where = f"{path}:{lineno}"
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if not line[0].isspace():
                cur = Function(line.strip(), where, family)
                funcs.append(cur)
                continue
            if cur is None:
                raise TableError(f"{where}: directive before any prototype")
            read_directive(cur, line.split(), where)
    return funcs


def read_directive(fn, words, where):
    verb, args = words[0], words[1:]
    if verb == "special":
        fn.special = True
    elif verb == "fortran":
        if args != ["none"]:
            raise TableError(f"{where}: only 'fortran none' is known")
        fn.fortran = False
    elif verb == "since":
        if len(args) != 1 or not re.fullmatch(r"\d+\.\d+", args[0]):
            raise TableError(f"{where}: since takes an MPI version, e.g. 'since 4.0'")
        fn.since = tuple(int(x) for x in args[0].split("."))
    elif verb == "large":
        if args:
            raise TableError(f"{where}: large takes no arguments")
        fn.large = True
    elif verb == "family":
        if len(args) != 1 or args[0] not in FAMILY_NAMES:
            raise TableError(f"{where}: family must be one of {', '.join(FAMILY_NAMES)}")
        fn.family = FAMILY_NAMES[args[0]]
    elif verb == "comm":
        if len(args) != 1:
            raise TableError(f"{where}: comm takes one parameter name or 'none'")
        fn.comm = args[0] if args[0] == "none" else fn.param(args[0], where).name
    elif verb in SNIPPETS:
        roles, shape = {}, None
        for a in args:
            if "=" not in a:
                if verb == "complete" and a in COMPLETE_CALLS and shape is None:
                    shape = a
                    continue
                raise TableError(f"{where}: '{a}' is not role=value")
            k, v = a.split("=", 1)
            if k not in VERB_ROLES[verb]:
                raise TableError(f"{where}: {verb} has no role '{k}'")
            if ROLES[k] != "literal" and not re.fullmatch(r"\d+", v):
                fn.param(v, where)  # must name a parameter
            roles[k] = v
        missing = REQUIRED[verb] - roles.keys()
        if missing:
            raise TableError(f"{where}: {verb} needs {', '.join(sorted(missing))}")
        if verb in IO_FNS and roles["fn"] not in IO_FNS[verb]:
            raise TableError(f"{where}: {verb} fn= must be one of {', '.join(IO_FNS[verb])}")
        if roles.get("pointer", "shared") != "shared":
            raise TableError(f"{where}: pointer= can only be 'shared'")
        if verb == "complete":
            if shape is None:
                raise TableError(f"{where}: complete needs one of {', '.join(COMPLETE_CALLS)}")
            roles["shape"] = shape
        fn.directives.append((verb, roles, where))
    else:
        raise TableError(f"{where}: unknown directive '{verb}' (see gen_wrappers.py)")


def read_unwrapped(path):
    names = {}
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            words = line.split(None, 1)
            if len(words) < 2:
                raise TableError(f"{path}:{lineno}: give a reason for leaving {words[0]} out")
            names[words[0]] = words[1].strip()
    return names


def strip_attributes(text):
    """Remove __attribute__((...)) groups, which may nest parentheses."""
    while True:
        i = text.find("__attribute__")
        if i < 0:
            return text
        j, depth = text.index("(", i), 0
        for k in range(j, len(text)):
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            if depth == 0:
                break
        text = text[:i] + text[k + 1:]


FNTYPE_RE = re.compile(r"^typedef (?P<ret>[\w ]+?) ?\( ?\*? ?(?P<name>\w+) ?\) ?\((?P<params>.*)\)$")
VERSION_RE = re.compile(r"hpcw_mpi_version_\s*=\s*(\d+)\s*\*\s*100\s*\+\s*(\d+)")


class Header:
    """What the generator needs of one preprocessed mpi.h."""

    def __init__(self, decls, fntypes, version):
        self.decls = decls      # name -> Function
        self.fntypes = fntypes  # function typedef name -> its signature text
        self.version = version  # (MPI_VERSION, MPI_SUBVERSION)

    def get(self, name):
        return self.decls.get(name)

    def __contains__(self, name):
        return name in self.decls

    def __iter__(self):
        return iter(self.decls)

    def canonical(self, sig):
        """A parameter type as the compiler sees it: arrays decayed, typedefs of function
        types spelled out."""
        sig = re.sub(r"\[\w*\]$", "", sig) + (" *" if re.search(r"\[\w*\]$", sig) else "")
        base = re.sub(r"\bconst\b|\*", "", sig).strip()
        if base in self.fntypes:
            sig = sig.replace(base, self.fntypes[base])
        return normalize_type(sig)

    def matches(self, fn):
        h = self.decls[fn.name]
        if normalize_type(h.ret) != normalize_type(fn.ret) or h.vararg != fn.vararg:
            return False
        hs, ts = h.signature(), fn.signature()
        return len(hs) == len(ts) and all(self.canonical(a) == self.canonical(b)
                                          for a, b in zip(hs, ts))


def unnamed(param):
    """A parameter's type without its name: 'MPI_Comm *comm' -> 'MPI_Comm *'."""
    p = normalize_type(param)
    m = re.match(r"^(.*[\w*]\s*[*\s])\s*\w+$", p)
    return normalize_type(m.group(1)) if m and re.search(r"\w", m.group(1)) else p


def read_header(path):
    """The MPI_ functions, function typedefs and MPI version of a preprocessed mpi.h."""
    with open(path) as f:
        text = strip_attributes(f.read())
    m = VERSION_RE.search(text)
    if not m:
        raise TableError(f"{path}: no 'hpcw_mpi_version_' line (mpi_wrap/module.mk adds it)")
    version = (int(m.group(1)), int(m.group(2)))
    decls, fntypes = {}, {}
    for stmt in text.replace("\n", " ").split(";"):
        stmt = re.sub(r"\s+", " ", stmt).strip()
        stmt = re.sub(r"^.*[{}]\s*", "", stmt)  # drop the tail of a preceding block
        t = FNTYPE_RE.match(stmt)
        if t:
            params = ", ".join(unnamed(p) for p in split_params(t.group("params")))
            fntypes[t.group("name")] = f"{normalize_type(t.group('ret'))} ({params})"
            continue
        if stmt.startswith("typedef") or stmt.startswith("extern") and "(" not in stmt:
            continue
        m = PROTO_RE.match(stmt)
        if m and not stmt.startswith("typedef"):
            try:
                fn = Function(stmt, path, None)
            except TableError:
                continue
            decls[fn.name] = fn
    if len(decls) < 100:
        raise TableError(f"{path}: found only {len(decls)} MPI functions: not a preprocessed mpi.h?")
    return Header(decls, fntypes, version)


def large_variant(fn, header):
    """The Function for fn's large-count variant NAME_c: the header's prototype, fn's
    directives with each parameter named as the header names the one in its place."""
    h = header.get(fn.name + "_c")
    v = Function(f"{h.ret} {h.name}({', '.join(p.text for p in h.params)})",
                 fn.where + f" (large: {h.name})", fn.family)
    if len(h.params) != len(fn.params) and fn.directives:
        raise TableError(f"{fn.where}: {h.name} has {len(h.params)} parameters, "
                         f"{fn.name} {len(fn.params)}")
    rename = {a.name: b.name for a, b in zip(fn.params, h.params)}
    for verb, roles, where in fn.directives:
        roles = {r: rename.get(val, val) if r != "shape" and ROLES.get(r) != "literal" else val
                 for r, val in roles.items()}
        v.directives.append((verb, roles, where))
    v.comm = rename.get(fn.comm, fn.comm)
    v.fortran, v.since = False, fn.since
    return v


def check_against_header(funcs, unwrapped, header):
    """The functions to wrap for this header (tables' entries it declares, large-count
    variants added); raises TableError listing every mismatch."""
    errors, seen, out = [], {}, []
    for fn in funcs:
        if fn.name in seen:
            errors.append(f"{fn.where}: {fn.name} is listed twice (also {seen[fn.name]})")
        seen[fn.name] = fn.where
        if fn.name not in header:
            if fn.since is None or fn.since <= header.version:
                errors.append(f"{fn.where}: {fn.name} is not declared by mpi.h (MPI "
                              f"{header.version[0]}.{header.version[1]})")
            continue
        if not header.matches(fn):
            h = header.get(fn.name)
            errors.append(f"{fn.where}: {fn.name} does not match mpi.h:\n"
                          f"    table:  {fn.ret} ({', '.join(fn.signature())})\n"
                          f"    mpi.h:  {h.ret} ({', '.join(h.signature())})")
            continue
        out.append(fn)
        if fn.large and fn.name + "_c" in header:
            try:
                out.append(large_variant(fn, header))
            except TableError as e:
                errors.append(str(e))
            seen[fn.name + "_c"] = fn.where
    for name in unwrapped:
        if name in seen:
            errors.append(f"unwrapped.txt: {name} is also in {seen[name]}")
    for name in sorted(header):
        if name not in seen and name not in unwrapped:
            hint = (f" ('large' on {name[:-2]})" if name.endswith("_c") and name[:-2] in seen
                    else "")
            errors.append(f"mpi.h declares {name}, which no table lists "
                          f"(add it to a protos/*.txt table or to unwrapped.txt with a reason)"
                          + hint)
    if errors:
        raise TableError("\n".join(errors))
    return out


# ------------------------------------------------------------------ generation

def value(fn, role, v, lang):
    """The C expression for role=v in the wrapper of language lang ('c', 'f', or 'f08m':
    MPICH's mpi_f08 binding, whose statuses and buffers differ)."""
    kind = ROLES[role]
    if kind == "literal" or re.fullmatch(r"\d+", v):
        return v
    p = fn.param(v, fn.where)
    if lang == "c":
        return {"value": v, "handle": f"*{v}", "deref": f"*{v}", "index": f"*{v}",
                "raw": v, "types": v, "buf": v, "status": v}[kind]
    base = p.base()
    if kind == "value":
        if base in F2C:
            return f"{F2C[base]}(*{v})"
        return f"*({base} *){v}" if base in F_WIDE else f"*{v}"
    if kind == "handle":
        return f"{F2C[base]}(*{v})"
    if kind == "deref":
        return f"*{v}"
    if kind == "index":
        return f"hpcw_findex(*{v})"
    if kind == "buf":
        return f"hpcw_f08buf({v})" if lang == "f08m" else f"hpcw_fbuf({v})"
    if kind == "status":
        return f"hpcw_{'f08' if lang == 'f08m' else 'f'}status({v}, &fstatus)"
    return v  # raw, types


def directive_code(fn, verb, roles, lang):
    """Section -> code lines for one directive."""
    vals = {r: value(fn, r, v, lang) for r, v in roles.items() if r != "shape"}
    vals["F"] = {"c": "", "f": "_f", "f08m": "_f08"}[lang]
    for r in ("status", "statuses", "indices", "requests", "request"):
        if r in roles:
            vals[r + "_raw"] = roles[r]
    vals.setdefault("status_raw", "MPI_STATUS_IGNORE" if lang == "c" else "NULL")
    vals.setdefault("statuses_raw", "MPI_STATUSES_IGNORE" if lang == "c" else "NULL")
    vals.setdefault("indices_raw", "NULL")
    vals.setdefault("parent", "MPI_COMM_NULL")
    vals["agree"] = "0" if roles.get("agree") == "no" else "1"
    vals["status_decl"] = vals["status_sub"] = vals["statuses_sub"] = ""
    vals["fstatus_decl"] = "MPI_Status fstatus;" if lang != "c" and "status" in roles else ""
    # MPICH's Fortran binding converts the handle a failed MPI_File_open left unset
    # (MPI_File_c2f of stack garbage): the C wrapper, whose frames change that garbage,
    # sets it to MPI_FILE_NULL first (the standard leaves it undefined on failure).
    if verb == "ioopen":
        fh = roles["fileptr"]
        vals["open_null"] = f"if ({fh})\n    *{fh} = MPI_FILE_NULL;" if lang == "c" else ""
    if "name" in roles:  # a C string, or Fortran's blank-padded one and its hidden length
        vals["name_len"] = "HPCW_CSTRING" if lang == "c" else f"{roles['name']}_len"
    if "status" in roles:
        s = roles["status"]
        if lang == "c":
            vals["status_decl"] = "MPI_Status status_sub;"
            vals["status_sub"] = f"if ({s} == MPI_STATUS_IGNORE)\n    {s} = &status_sub;"
        else:
            ignore = "hpcw_f08_status_ignore" if lang == "f08m" else "MPI_F_STATUS_IGNORE"
            vals["status_decl"] = "MPI_Fint status_sub[HPCW_FSTATUS_SIZE];"
            vals["status_sub"] = f"if ({s} == {ignore})\n    {s} = status_sub;"
    if "statuses" in roles:
        s = roles["statuses"]
        vals["statuses_sub"] = f"\n{s} = hpcw_pend_statuses{vals['F']}(&pend, {s});"
    if verb in ("coll", "icoll"):
        fields = []
        for r in COLL_FIELDS:
            if r in roles:
                name = "f" + r if lang != "c" and ROLES[r] == "types" else r
                if r in ("scounts", "rcounts") and fn.param(roles[r], fn.where).base() == "MPI_Count":
                    name += "_c"  # a large-count variant's MPI_Count array
                fields.append(f".{name} = {vals[r]}")
        vals["collargs"] = ", ".join(fields)
    if verb == "ioxfer":
        vals["io_status"] = vals["status"] if "status" in roles else "NULL"
        if "at" in roles:
            vals["io_where"] = f"hpcw_io_at(&io, {vals['file']}, {vals['at']});"
        elif "pointer" in roles:
            vals["io_where"] = f"hpcw_io_on_file(&io, {vals['file']});"
        else:
            vals["io_where"] = f"hpcw_io_here(&io, {vals['file']});"
    if verb == "complete":
        call = COMPLETE_CALLS[roles["shape"]].format(**vals)
        vals["complete_call"] = call
        vals["flag_if"] = f"if ({vals['flag']})\n    " if "flag" in roles else ""
    out = {}
    for section, text in SNIPPETS[verb].items():
        try:
            code = text.format(**vals)
        except KeyError as e:
            raise TableError(f"{fn.where}: {verb} needs role {e}")
        if code.strip():
            out[section] = code
    return out


def call_comm(fn, lang):
    """The expression for the call's communicator (mpi_call.comm)."""
    name = fn.comm
    if name is None:
        for verb, roles, _ in fn.directives:
            if "comm" in roles:
                name = roles["comm"]
                break
    if name is None:
        name = next((p.name for p in fn.params if p.type == "MPI_Comm"), "none")
    if name == "none":
        return "MPI_COMM_NULL"
    return name if lang == "c" else f"PMPI_Comm_f2c(*{name})"


def indent(code, n):
    if not code:
        return ""
    pad = " " * n
    return "".join(pad + line + "\n" if line else "\n" for line in code.split("\n"))


def sections(fn, lang):
    acc = {"decls": [], "before": [], "after": [], "record": [], "end": []}
    for verb, roles, _ in fn.directives:
        for section, code in directive_code(fn, verb, roles, lang).items():
            acc[section].append(code)
    lines = {k: [ln for code in v for ln in code.split("\n") if ln.strip()] for k, v in acc.items()}
    lines["decls"] = list(dict.fromkeys(lines["decls"]))  # Sendrecv: one status_sub
    return {k: "\n".join(v) for k, v in lines.items()}


def c_wrapper(fn):
    s = sections(fn, "c")
    return C_TEMPLATE.format(
        name=fn.name, where=fn.where, ret=fn.ret,
        cparams=", ".join(p.text for p in fn.params) or "void",
        cargs=", ".join(p.name for p in fn.params), comm=call_comm(fn, "c"),
        decls=indent(s["decls"], 4), before=indent(s["before"], 4),
        after=indent(s["after"], 8), record=indent(s["record"], 8), end=indent(s["end"], 4))


def fortran_params(fn):
    """The binding's parameters: each C one by reference, ierr, hidden string lengths."""
    params, lengths = [], []
    for p in fn.params:
        if p.base() in ("void",):
            params.append(f"void *{p.name}")
        elif p.base() == "char":
            params.append(f"char *{p.name}")
            lengths.append(f"size_t {p.name}_len")
        elif p.base() in ("int", "MPI_Fint") or p.base() in F2C or p.base() in (
                "MPI_Status", "MPI_Group", "MPI_Op", "MPI_Info", "MPI_Win", "MPI_File",
                "MPI_Errhandler"):
            params.append(f"MPI_Fint *{p.name}")
        else:  # MPI_Aint, MPI_Offset, MPI_Count, callbacks: passed through untouched
            params.append(f"void *{p.name}")
    return params + ["MPI_Fint *ierr"] + lengths


def f_wrapper(fn, binding, fname=None):
    """A Fortran wrapper of fn: of a binding of F_BINDINGS, or MPICH's mpi_f08 one by its
    name in the library (fname)."""
    lang = "f08m" if fname else "f"
    s = sections(fn, lang)
    params = fortran_params(fn)
    names = {"lname": fn.name.lower(), "uname": fn.name.upper()}
    if fname:
        b = dict(MPICH_F08, fname=fname, real=fname)
    else:
        b = {k: v.format(**names) for k, v in F_BINDINGS[binding].items()}
    return F_TEMPLATE.format(
        name=fn.name, where=fn.where, **b,
        fparams=", ".join(params), fargs=", ".join(p.split()[-1].lstrip("*") for p in params),
        comm=call_comm(fn, lang),
        decls=indent(s["decls"], 4), before=indent(s["before"], 4),
        after=indent(s["after"], 8), record=indent(s["record"], 8), end=indent(s["end"], 4))


def coll_op(fn):
    for verb, roles, _ in fn.directives:
        if verb in ("coll", "icoll"):
            return "HPC_COLL_" + roles["op"]
    return "HPC_COLL_NONE"


BANNER = ("/* generated by mpi_wrap/gen_wrappers.py from the tables in mpi_wrap/protos/; do not edit.\n"
          " * {what} */\n")


def write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


# Function ids in this order: the calls a program makes most get ids below 128, which
# take one byte in every mpi_call record (ids are varints).
ID_ORDER = ["HPC_MPI_P2P", "HPC_MPI_WAIT", "HPC_MPI_COLL", "HPC_MPI_COMM", "HPC_MPI_ENV",
            "HPC_MPI_ONESIDED", "HPC_MPI_IO", "HPC_MPI_OTHER"]


def mpich_f08_name(fn, symbols):
    """The name MPICH's mpi_f08 binding gives fn in its library, when it calls MPICH's PMPI_
    function directly; None for those with a choice buffer (mpi_send_f08ts_), which call
    the C MPI_ function (MPI_Send) through a descriptor helper: the C wrapper counts them."""
    name = fn.name.lower() + "_f08_"
    return name if name in symbols else None


def fortran_wrappers(wrapped, fortran, symbols):
    """The Fortran wrappers of the --fortran mode: Open MPI's two bindings, MPICH's
    mpi_f08 one (the functions its library defines), or none."""
    if fortran == "openmpi":
        return "".join(f_wrapper(f, b) for f in wrapped if f.fortran for b in F_BINDINGS)
    if fortran == "mpich":
        return "".join(f_wrapper(f, None, mpich_f08_name(f, symbols)) for f in wrapped
                       if f.fortran and mpich_f08_name(f, symbols))
    return ""


def generate(funcs, out, fortran="openmpi", symbols=frozenset()):
    funcs = sorted(funcs, key=lambda f: (ID_ORDER.index(f.family), f.name))
    ids = "".join(f"    HPCW_FN_{f.name} = {i},\n" for i, f in enumerate(funcs, 1))
    write(os.path.join(out, "mpiw_fns.h"),
          BANNER.format(what="Ids of the wrapped MPI functions (mpi_fn records name them).") +
          "#ifndef HPCW_FNS_H\n#define HPCW_FNS_H\n\nenum hpcw_fn {\n    HPCW_FN_NONE = 0,\n" +
          ids + "    HPCW_FN_COUNT_\n};\n\n#endif\n")
    rows = "".join(f'    [HPCW_FN_{f.name}] = {{"{f.name}", {f.family}, {coll_op(f)}}},\n'
                   for f in funcs)
    write(os.path.join(out, "mpiw_fns.c"),
          BANNER.format(what="Name, family and collective of every wrapped MPI function.") +
          '#include "mpiw.h"\n\nconst hpcw_fn_desc hpcw_fn_table[HPCW_FN_COUNT_] = {\n' +
          rows + "};\n")
    wrapped = [f for f in funcs if not f.special]
    write(os.path.join(out, "wrappers_c.c"),
          BANNER.format(what="C wrappers: MPI_X records the call and calls PMPI_X.") +
          '#include "mpiw.h"\n\n' + "".join(c_wrapper(f) for f in wrapped))
    write(os.path.join(out, "wrappers_f.c"),
          BANNER.format(what="Fortran wrappers: mpi_x_ calls pmpi_x_ (mpif.h, `use mpi`), "
                             "mpi_x_f08_ calls pmpi_x_f08_ (`use mpi_f08`); MPICH's "
                             "mpi_x_f08[ts]_ call the library's own.") +
          '#include "mpiw.h"\n\n' + fortran_wrappers(wrapped, fortran, symbols))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--decls", required=True, help="mpi.h after the preprocessor")
    ap.add_argument("--out", required=True, help="directory for the generated files")
    ap.add_argument("--fortran", choices=["openmpi", "mpich", "none"], default="openmpi",
                    help="Fortran wrappers for Open MPI's bindings, for MPICH's mpi_f08 "
                         "binding (its mpif.h binding calls the C functions), or none")
    ap.add_argument("--fortran-symbols", metavar="FILE",
                    help="--fortran mpich: the names the MPICH Fortran library defines, "
                         "one per line (`nm -D --defined-only` output is fine); none: no "
                         "mpi_f08 wrappers")
    ap.add_argument("tables", nargs="+", help="protos/*.txt")
    a = ap.parse_args()
    try:
        funcs, unwrapped = [], {}
        for t in a.tables:
            if os.path.basename(t) == "unwrapped.txt":
                unwrapped = read_unwrapped(t)
            else:
                funcs += read_table(t)
        funcs = check_against_header(funcs, unwrapped, read_header(a.decls))
        symbols = set()
        if a.fortran_symbols:
            with open(a.fortran_symbols) as f:
                symbols = {w for line in f for w in line.split()[-1:]}
        os.makedirs(a.out, exist_ok=True)
        generate(funcs, a.out, a.fortran, symbols)
    except (TableError, OSError) as e:
        sys.exit(f"gen_wrappers.py: error: {e}")


if __name__ == "__main__":
    main()
