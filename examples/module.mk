# examples/ - programs to try the tools on, and `make demo`.
#
#   make demo    install dependencies, build, profile examples/stencil.c, print reports,
#                then the tracers on examples/pipeline.c (demo-trace: locks, heap, I/O,
#                thread states), then the MPI + OpenMP solver under mpirun (examples/mpi.mk,
#                demo-mpi), then hpmerge on its experiment and its summary
#                (merge/module.mk, demo-merge)

EXAMPLES_DIR := $(OUT)/build/examples
EXAMPLE_STENCIL := $(EXAMPLES_DIR)/stencil

$(EXAMPLE_STENCIL): examples/stencil.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -o $@ $< -lm

EXAMPLE_PIPELINE := $(EXAMPLES_DIR)/pipeline

$(EXAMPLE_PIPELINE): examples/pipeline.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -pthread -o $@ $<

DEMO_DIR := $(OUT)/build/demo

demo: deps
	$(MAKE) all $(EXAMPLE_STENCIL)
	rm -rf $(DEMO_DIR) && mkdir -p $(DEMO_DIR)
	cd $(DEMO_DIR) && $(abspath $(BINDIR))/hpcollect -p hi -o stencil.hpc \
	    $(abspath $(EXAMPLE_STENCIL))
	$(BINDIR)/hpanalyze $(DEMO_DIR)/stencil.hpc functions --limit 8
	$(BINDIR)/hpanalyze $(DEMO_DIR)/stencil.hpc callers-callees sweep
	@echo "demo: the experiment is $(DEMO_DIR)/stencil.hpc; try '$(BINDIR)/hpanalyze $(DEMO_DIR)/stencil.hpc lines'"
	@$(MAKE) --no-print-directory demo-trace
	@$(MAKE) --no-print-directory demo-mpi
	@$(MAKE) --no-print-directory demo-merge

# The tracers on a threaded program with a known lock mistake, leak and write pattern
# (examples/pipeline.c says what to find).
TRACE_DEMO_EXP := $(DEMO_DIR)/pipeline.hpc

.PHONY: demo-trace
demo-trace: deps
	$(MAKE) --no-print-directory all $(EXAMPLE_PIPELINE)
	mkdir -p $(DEMO_DIR) && rm -rf $(TRACE_DEMO_EXP)
	cd $(DEMO_DIR) && $(abspath $(BINDIR))/hpcollect -s all -H on -i on -o pipeline.hpc \
	    $(abspath $(EXAMPLE_PIPELINE))
	$(BINDIR)/hpanalyze --limit 2 $(TRACE_DEMO_EXP) syncs
	$(BINDIR)/hpanalyze --limit 1 $(TRACE_DEMO_EXP) leaks
	$(BINDIR)/hpanalyze $(TRACE_DEMO_EXP) ioactivity
	$(BINDIR)/hpanalyze --limit 8 --sort i.total_thread \
	    --metrics i.%total_thread:i.user:i.user_lock:i.other_wait:i.wait_cpu $(TRACE_DEMO_EXP) functions
	@echo "demo: the producers compute checksum_locked while holding queue_lock (syncs: held by"
	@echo "      producer), remember() leaks every tenth block (leaks), the writer writes"
	@echo "      512-byte pieces (ioactivity); the thread states say where each thread's time went"

include examples/mpi.mk
