# mpi_wrap/ - the PMPI wrappers, one library per MPI ABI, generated at build time from
# the prototype tables mpi_wrap/protos/*.txt by mpi_wrap/gen_wrappers.py:
#
#   lib/libhpcollect-mpi.so        Open MPI (libmpi.so.40), from mpicc (Open MPI, the
#                                  default alternative) or MPICC_OPENMPI
#   lib/libhpcollect-mpi-mpich.so  the MPICH ABI (libmpi.so.12, Debian's libmpich.so.12:
#                                  MPICH, Intel MPI, MVAPICH, Cray MPICH), from mpicc.mpich
#                                  or MPICC_MPICH; built only where that mpicc exists
#
# The generator reads each ABI's mpi.h as the compiler sees it (its decls.i, with the
# header's MPI version appended) and stops the build if a table entry does not match
# the header or the header has an MPI function no table lists. Generated sources go to
# $(OBJDIR)/mpi_wrap/<abi>/gen/, never into the tree; the hand-written mpi_wrap/*.c are
# compiled once per ABI into $(OBJDIR)/preload/mpi_wrap/<abi>/.
#
# The libraries are preloaded into the program like libhpcollect.so, so they are built
# the same way (collector/module.mk): PRELOAD_CFLAGS (UBSan only under SANITIZE=1) and
# the experiment writer compiled with those flags ($(EXP_WRITER_LIB)). The MPICH-ABI
# library has no DT_NEEDED on an MPI library: its PMPI_ references bind to whichever
# libmpi.so.12 the program loaded (an Intel MPI program's too). Open MPI's is linked
# against its libmpi.

MPICC       ?= mpicc
MPICC_OPENMPI ?= $(MPICC)
MPICC_MPICH ?= $(if $(shell command -v mpicc.mpich 2>/dev/null),mpicc.mpich)

# Open MPI: the flags of the default MPI (tests/mpi programs, hpmerge) are Open MPI's.
MPI_CFLAGS  := $(shell $(MPICC_OPENMPI) --showme:compile 2>/dev/null)
MPI_LDFLAGS := $(shell $(MPICC_OPENMPI) --showme:link 2>/dev/null)
MPIW_openmpi_CFLAGS  := $(MPI_CFLAGS)
MPIW_openmpi_LDFLAGS := $(MPI_LDFLAGS)
MPIW_openmpi_LIB     := $(LIBDIR)/libhpcollect-mpi.so
MPIW_openmpi_FORTRAN := openmpi
MPIW_openmpi_CFLAGS  += -DHPCW_FORTRAN_WRAPPERS

# MPICH: `mpicc -compile_info` prints the whole command line; keep its -I/-D flags.
ifneq ($(MPICC_MPICH),)
MPICH_CFLAGS  := $(filter -I% -D%,$(shell $(MPICC_MPICH) -compile_info 2>/dev/null))
MPICH_LDFLAGS := $(filter -L% -l% -Wl%,$(shell $(MPICC_MPICH) -link_info 2>/dev/null))
MPIW_mpich_CFLAGS  := $(MPICH_CFLAGS)
MPIW_mpich_LDFLAGS :=
MPIW_mpich_LIB     := $(LIBDIR)/libhpcollect-mpi-mpich.so
# Its mpi_f08 binding's entry points, as its Fortran library defines them (gen_wrappers.py
# --fortran mpich); without that library, no mpi_f08 wrappers.
MPICH_FORT_LIB     := $(realpath $(shell $(CC) -print-file-name=libmpichfort.so))
MPIW_mpich_FORTRAN := mpich --fortran-symbols $(OBJDIR)/mpi_wrap/mpich/gen/fortran_symbols.txt
MPIW_mpich_CFLAGS  += -DHPCW_MPICH_F08
MPIW_ABIS := openmpi mpich
else
MPIW_ABIS := openmpi
endif

MPIW_PROTOS := $(sort $(wildcard mpi_wrap/protos/*.txt))
MPIW_SRCS   := $(wildcard mpi_wrap/*.c)

# Open MPI hides the MPI-1 functions MPI-3 removed (MPI_Address ...) unless asked; the
# library still has them and the reference lists them, so they are wrapped too. Calling
# the deprecated ones through PMPI is what a wrapper must do: no warning for that.
MPIW_COMMON_CFLAGS := -Icollector -Impi_wrap -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 \
                      -Wno-deprecated-declarations

# $(call mpiw_abi,ABI): the wrapper library of one ABI.
define mpiw_abi
MPIW_$(1)_GEN  := $$(OBJDIR)/mpi_wrap/$(1)/gen
MPIW_$(1)_OBJ  := $$(OBJDIR)/preload/mpi_wrap/$(1)
MPIW_$(1)_DECLS := $$(MPIW_$(1)_GEN)/mpi_decls.i
MPIW_$(1)_GENSRC := $$(addprefix $$(MPIW_$(1)_GEN)/,mpiw_fns.c wrappers_c.c wrappers_f.c)
MPIW_$(1)_SRCOBJ := $$(patsubst mpi_wrap/%.c,$$(MPIW_$(1)_OBJ)/%.o,$$(MPIW_SRCS))
MPIW_$(1)_OBJS := $$(MPIW_$(1)_SRCOBJ) $$(MPIW_$(1)_GENSRC:.c=.o)
MPIW_$(1)_ALLCFLAGS := $$(MPIW_$(1)_CFLAGS) $$(MPIW_COMMON_CFLAGS) -I$$(MPIW_$(1)_GEN)

$$(MPIW_$(1)_OBJ)/%.o: mpi_wrap/%.c | $$(MPIW_$(1)_GEN)/mpiw_fns.h
	@mkdir -p $$(dir $$@)
	$$(CC) $$(PRELOAD_CFLAGS) $$(MPIW_$(1)_ALLCFLAGS) -MMD -MP -c $$< -o $$@

$$(MPIW_$(1)_DECLS): mpi_wrap/module.mk
	@mkdir -p $$(dir $$@)
	printf '#include <mpi.h>\nint hpcw_mpi_version_ = MPI_VERSION * 100 + MPI_SUBVERSION;\n' | \
	    $$(CC) -E -P -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 $$(MPIW_$(1)_CFLAGS) -x c - > $$@

$$(MPIW_$(1)_GEN)/fortran_symbols.txt: mpi_wrap/module.mk
	@mkdir -p $$(dir $$@)
	$$(if $$(MPICH_FORT_LIB),nm -D --defined-only $$(MPICH_FORT_LIB),true) > $$@

$$(MPIW_$(1)_GEN)/mpiw_fns.h $$(MPIW_$(1)_GENSRC) &: mpi_wrap/gen_wrappers.py $$(MPIW_PROTOS) $$(MPIW_$(1)_DECLS) $$(MPIW_$(1)_GEN)/fortran_symbols.txt
	/usr/bin/python3 mpi_wrap/gen_wrappers.py --decls $$(MPIW_$(1)_DECLS) --out $$(MPIW_$(1)_GEN) \
	    --fortran $$(MPIW_$(1)_FORTRAN) $$(MPIW_PROTOS)

$$(MPIW_$(1)_GEN)/%.o: $$(MPIW_$(1)_GEN)/%.c
	$$(CC) $$(PRELOAD_CFLAGS) $$(MPIW_$(1)_ALLCFLAGS) -MMD -MP -c $$< -o $$@

$$(MPIW_$(1)_LIB): $$(MPIW_$(1)_OBJS) $$(EXP_WRITER_LIB)
	@mkdir -p $$(dir $$@)
	$$(CC) -shared $$(PRELOAD_LDFLAGS) -o $$@ $$(MPIW_$(1)_OBJS) $$(EXP_WRITER_LIB) \
	    $$(MPIW_$(1)_LDFLAGS) -ldl -lpthread

ALL_TARGETS += $$(MPIW_$(1)_LIB)
INSTALL_LIB += $$(MPIW_$(1)_LIB)
endef
$(foreach abi,$(MPIW_ABIS),$(eval $(call mpiw_abi,$(abi))))

# Kept for the benchmarks and tests that name the default ABI's library.
MPIW_LIB := $(MPIW_openmpi_LIB)

# tests/mpi programs need MPI flags; the top Makefile includes only */module.mk
include tests/mpi/module.mk
include bench/mpi.mk
