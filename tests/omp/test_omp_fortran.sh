#!/bin/bash
# timeout: 120
# OpenMP in Fortran (progs/omp_fortran.f90, gfortran: libgomp, run on LLVM libomp): 5
# parallel regions of 2 threads with a worksharing loop and an explicit barrier. The
# program's sum is right under the tool; hpanalyze puts the region in MAIN__ at the
# directive's line; hpmerge names the constructs as Fortran writes them (!$omp parallel,
# from the compile unit's DW_AT_language), never with C's #pragma: 10 enters of the
# parallel region and of its implicit barrier (2 threads x 5).
source "$HPC_ROOT/tests/lib.sh"
[ -x "$HPCOLLECT" ] || skip "hpcollect not built yet (the collector has not landed)"
[ -x "$PROGS/omp/omp_fortran" ] || skip "omp_fortran not built (gfortran missing)"
export PYTHONPATH="$HPC_ROOT/tests:$HPC_ROOT/tests/omp:$HPC_ROOT/tests/merge"
"$HPCOLLECT" -q -p hi -o f.hpc "$PROGS/omp/omp_fortran" 5 >f.out
"$HPMERGE" -q f.hpc 2>merge.err || { cat merge.err; fail "hpmerge f.hpc failed"; }
LINE=$(grep -n '^!\$omp parallel' "$HPC_ROOT/tests/omp/progs/omp_fortran.f90" | cut -d: -f1)
LINE=$LINE $SYSPY - <<'PY'
import os
from hpctest import check
from omptest import *
import otf2check

line = int(os.environ["LINE"])
out = open("f.out").read()
check("5 regions, sum 2502500" in out, f"the program's sum is right ({out.strip()})")
regs = omp("f.hpc")["regions"]
check([(r["function"], os.path.basename(r["file"]), r["line"], r["executions"]) for r in regs]
      == [("MAIN__", "omp_fortran.f90", line, 5)], f"hpanalyze omp: one region in MAIN__ at line {line} ({regs})")
t = otf2check.read("f.hpc/otf2/traces.otf2")
check(not t.errors, "archive consistent: " + "; ".join(t.errors[:5]))
omp_names = sorted(r for r in t.regions if "omp" in r)
check(t.regions[f"!$omp parallel @omp_fortran.f90:{line}"] == 10,
      f"!$omp parallel @omp_fortran.f90:{line}: 10 enters ({omp_names})")
check(t.regions[f"!$omp implicit barrier @omp_fortran.f90:{line}"] == 10,
      f"!$omp implicit barrier @omp_fortran.f90:{line}: 10 enters")
check(not [r for r in omp_names if r.startswith("#pragma")], f"no C names for Fortran code")
PY
