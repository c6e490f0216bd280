# mpi_wrap/ - lib/libhpcollect-mpi.so, the PMPI wrappers, generated at build time from
# the prototype tables mpi_wrap/protos/*.txt by mpi_wrap/gen_wrappers.py.
#
# The generator reads mpi.h as the compiler sees it (MPIW_DECLS) and stops the build if
# a table entry does not match the header or the header has an MPI function no table
# lists. Generated sources go to $(OBJDIR)/mpi_wrap/gen/, never into the tree.

MPICC       ?= mpicc
MPI_CFLAGS  := $(shell $(MPICC) --showme:compile 2>/dev/null)
MPI_LDFLAGS := $(shell $(MPICC) --showme:link 2>/dev/null)

MPIW_LIB    := $(LIBDIR)/libhpcollect-mpi.so
MPIW_GEN    := $(OBJDIR)/mpi_wrap/gen
MPIW_PROTOS := $(sort $(wildcard mpi_wrap/protos/*.txt))
MPIW_DECLS  := $(MPIW_GEN)/mpi_decls.i
MPIW_GENSRC := $(MPIW_GEN)/mpiw_fns.c $(MPIW_GEN)/wrappers_c.c $(MPIW_GEN)/wrappers_f.c
MPIW_OBJS   := $(call objs,$(wildcard mpi_wrap/*.c)) $(MPIW_GENSRC:.c=.o)

# Open MPI hides the MPI-1 functions MPI-3 removed (MPI_Address ...) unless asked; the
# library still has them and the reference lists them, so they are wrapped too. Calling
# the deprecated ones through PMPI is what a wrapper must do: no warning for that.
$(OBJDIR)/mpi_wrap/%.o: CFLAGS += $(MPI_CFLAGS) -Impi_wrap -I$(MPIW_GEN) \
    -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 -Wno-deprecated-declarations

$(MPIW_DECLS): mpi_wrap/module.mk
	@mkdir -p $(dir $@)
	echo '#include <mpi.h>' | $(CC) -E -P -DOMPI_OMIT_MPI1_COMPAT_DECLS=0 $(MPI_CFLAGS) -x c - > $@

$(MPIW_GEN)/mpiw_fns.h $(MPIW_GENSRC) &: mpi_wrap/gen_wrappers.py $(MPIW_PROTOS) $(MPIW_DECLS)
	/usr/bin/python3 mpi_wrap/gen_wrappers.py --decls $(MPIW_DECLS) --out $(MPIW_GEN) $(MPIW_PROTOS)

$(MPIW_GEN)/%.o: $(MPIW_GEN)/%.c
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(call objs,$(wildcard mpi_wrap/*.c)): | $(MPIW_GEN)/mpiw_fns.h

$(MPIW_LIB): $(MPIW_OBJS) $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -o $@ $(MPIW_OBJS) $(EXP_LIB) $(MPI_LDFLAGS) -ldl -lpthread

ALL_TARGETS += $(MPIW_LIB)
INSTALL_LIB += $(MPIW_LIB)

# tests/mpi programs need MPI flags; the top Makefile includes only */module.mk
-include tests/mpi/module.mk
