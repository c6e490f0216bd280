# mpi_wrap/ - lib/libhpcollect-mpi.so, the PMPI wrappers, generated at build time from
# the prototype tables mpi_wrap/protos/*.txt by mpi_wrap/gen_wrappers.py.
#
# The generator reads mpi.h as the compiler sees it (MPIW_DECLS) and stops the build if
# a table entry does not match the header or the header has an MPI function no table
# lists. Generated sources go to $(OBJDIR)/mpi_wrap/gen/, never into the tree.
#
# The library is preloaded into the program like libhpcollect.so, so it is built the
# same way (collector/module.mk): PRELOAD_CFLAGS (UBSan only under SANITIZE=1) and the
# experiment writer compiled with those flags ($(EXP_WRITER_LIB)).

MPICC       ?= mpicc
MPI_CFLAGS  := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LDFLAGS := $(shell $(MPICC) --showme:link 2>/dev/null)

MPI_SONAME  := $(shell objdump -p $(firstword $(shell $(MPICC) --showme:libdirs 2>/dev/null))/libmpi.so \
                 2>/dev/null | awk '/SONAME/ {print $$2}')

MPIW_LIB    := $(LIBDIR)/libhpcollect-mpi.so
MPIW_GEN    := $(OBJDIR)/mpi_wrap/gen
MPIW_PROTOS := $(sort $(wildcard mpi_wrap/protos/*.txt))
MPIW_DECLS  := $(MPIW_GEN)/mpi_decls.i
MPIW_GENSRC := $(MPIW_GEN)/mpiw_fns.c $(MPIW_GEN)/wrappers_c.c $(MPIW_GEN)/wrappers_f.c
MPIW_SRCOBJ := $(call preload_objs,$(wildcard mpi_wrap/*.c))
MPIW_OBJS   := $(MPIW_SRCOBJ) $(MPIW_GENSRC:.c=.o)

# Open MPI hides the MPI-1 functions MPI-3 removed (MPI_Address ...) unless asked; the
# library still has them and the reference lists them, so they are wrapped too. Calling
# the deprecated ones through PMPI is what a wrapper must do: no warning for that.
MPIW_CFLAGS := $(MPI_CFLAGS) -Icollector -Impi_wrap -I$(MPIW_GEN) -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 \
               -Wno-deprecated-declarations
$(MPIW_SRCOBJ): PRELOAD_CFLAGS += $(MPIW_CFLAGS)
$(MPIW_SRCOBJ): | $(MPIW_GEN)/mpiw_fns.h

$(MPIW_DECLS): mpi_wrap/module.mk
	@mkdir -p $(dir $@)
	echo '#include <mpi.h>' | $(CC) -E -P -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 $(MPI_CFLAGS) -x c - > $@

$(MPIW_GEN)/mpiw_fns.h $(MPIW_GENSRC) &: mpi_wrap/gen_wrappers.py $(MPIW_PROTOS) $(MPIW_DECLS)
	/usr/bin/python3 mpi_wrap/gen_wrappers.py --decls $(MPIW_DECLS) --out $(MPIW_GEN) $(MPIW_PROTOS)

$(MPIW_GEN)/%.o: $(MPIW_GEN)/%.c
	$(CC) $(PRELOAD_CFLAGS) $(MPIW_CFLAGS) -MMD -MP -c $< -o $@

$(MPIW_LIB): $(MPIW_OBJS) $(EXP_WRITER_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared $(PRELOAD_LDFLAGS) -o $@ $(MPIW_OBJS) $(EXP_WRITER_LIB) $(MPI_LDFLAGS) -ldl -lpthread

# The launcher preloads the wrappers into programs that need this very MPI library.
$(OBJDIR)/launcher/mpi_preload.o: CFLAGS += $(if $(MPI_SONAME),-DHPC_MPI_SONAME='"$(MPI_SONAME)"')

ALL_TARGETS += $(MPIW_LIB)
INSTALL_LIB += $(MPIW_LIB)

# tests/mpi programs need MPI flags; the top Makefile includes only */module.mk
include tests/mpi/module.mk
include bench/mpi.mk
