# merge/ - hpmerge: a job experiment into one OTF2 archive and a summary.
MERGE_SRCS := $(wildcard merge/*.c)
MERGE_OBJS := $(call objs,$(MERGE_SRCS))
HPMERGE    := $(BINDIR)/hpmerge

MERGE_MPI_CFLAGS := $(shell mpicc --showme:compile 2>/dev/null)
MERGE_MPI_LIBS   := $(shell mpicc --showme:link 2>/dev/null)
MERGE_OTF2_LIBS  := $(shell pkg-config --libs otf2 2>/dev/null || echo -lopen-trace-format2)

# The data model shared with hpanalyze (model/, libhpcmodel.a): the symbol resolver, so the
# summary's functions carry the names hpanalyze's reports give them; the MPI numbers, so
# the summary's MPI tables equal `hpanalyze mpi`; the OpenMP state rules, so its OpenMP
# work and wait equal `hpanalyze omp`.
$(OBJDIR)/merge/%.o: CFLAGS += -Imodel

# parallel.c is the only file that sees MPI (OTF2_MPI_Collectives.h)
$(OBJDIR)/merge/parallel.o: CFLAGS += $(MERGE_MPI_CFLAGS)

$(HPMERGE): $(MERGE_OBJS) $(MODEL_LIB) $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(MERGE_OBJS) $(MODEL_LIB) $(EXP_LIB) \
	    $(MERGE_OTF2_LIBS) $(MERGE_MPI_LIBS) -ldw -lelf -lstdc++ -lm

ALL_TARGETS += $(HPMERGE)
CHECK_DEPS  += $(HPMERGE)
INSTALL_BIN += $(HPMERGE)

# tests/merge/progs/mkjob.c writes synthetic job experiments with the experiment writer.
PROG_FLAGS_merge_mkjob := -Iexperiment $(SANFLAGS)
PROG_LIBS_merge_mkjob  := $(OBJDIR)/libhpcexp.a -ldl
$(TESTDIR)/merge/mkjob: $(OBJDIR)/libhpcexp.a

# tests/unit/test_merge_order.c tests the ordering stage alone.
$(OBJDIR)/tests/unit/test_merge_order.o: CFLAGS += -Imerge -Imodel
UNIT_LIBS_test_merge_order := $(OBJDIR)/merge/order.o $(OBJDIR)/merge/util.o $(MODEL_LIB) $(EXP_LIB)
$(TESTDIR)/unit/test_merge_order: $(OBJDIR)/merge/order.o $(OBJDIR)/merge/util.o $(MODEL_LIB)
$(OBJDIR)/tests/unit/test_merge_util.o: CFLAGS += -Imerge -Imodel
UNIT_LIBS_test_merge_util := $(OBJDIR)/merge/util.o $(MODEL_LIB) $(EXP_LIB)
$(TESTDIR)/unit/test_merge_util: $(OBJDIR)/merge/util.o $(MODEL_LIB)

# tests/merge/test_readers.sh runs the demo's MPI + OpenMP solver, built as `make demo`
# builds it (examples/mpi.mk).
$(TESTDIR)/merge/heat_mpi: examples/heat_mpi.c
	@mkdir -p $(dir $@)
	$(MPICC) -O2 -g -fopenmp -o $@ $< -lm
CHECK_DEPS += $(TESTDIR)/merge/heat_mpi

# make bench-merge (bench/merge.mk: the top Makefile includes only */module.mk)
include bench/merge.mk

# The last step of `make demo` (examples/module.mk runs it): merge the MPI + OpenMP example
# solver's experiment (examples/mpi.mk) and print the summary.
MERGE_DEMO_EXP = $(MPI_DEMO_DIR)/heat_mpi.hpc
.PHONY: demo-merge
demo-merge: $(HPMERGE)
	@test -d $(MERGE_DEMO_EXP) || $(MAKE) --no-print-directory demo-mpi
	$(HPMERGE) $(MERGE_DEMO_EXP)
	@cat $(MERGE_DEMO_EXP)/summary.txt
	@echo "demo: OTF2 trace $(MERGE_DEMO_EXP)/otf2/traces.otf2 (otf2-print, Vampir);" \
	      "summary for scripts: $(MERGE_DEMO_EXP)/summary.json"
