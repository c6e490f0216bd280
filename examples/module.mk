# examples/ - programs to try the tools on, and `make demo`.
#
#   make demo    install dependencies, build, profile examples/stencil.c, print reports,
#                then the MPI + OpenMP solver under mpirun (examples/mpi.mk, demo-mpi),
#                then hpmerge on its experiment and its summary (merge/module.mk, demo-merge)

EXAMPLES_DIR := $(OUT)/build/examples
EXAMPLE_STENCIL := $(EXAMPLES_DIR)/stencil

$(EXAMPLE_STENCIL): examples/stencil.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $< -lm

DEMO_DIR := $(OUT)/build/demo

demo: deps
	$(MAKE) all $(EXAMPLE_STENCIL)
	rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	cd $(DEMO_DIR) && $(abspath $(BINDIR))/hpcollect -p hi -o stencil.hpc \
	    $(abspath $(EXAMPLE_STENCIL))
	$(BINDIR)/hpanalyze $(DEMO_DIR)/stencil.hpc functions --limit 8
	$(BINDIR)/hpanalyze $(DEMO_DIR)/stencil.hpc callers-callees sweep
	@echo "demo: the experiment is $(DEMO_DIR)/stencil.hpc; try '$(BINDIR)/hpanalyze $(DEMO_DIR)/stencil.hpc lines'"
	@$(MAKE) --no-print-directory demo-mpi
	@$(MAKE) --no-print-directory demo-merge

include examples/mpi.mk
