# examples/mpi.mk - the MPI + OpenMP example (examples/heat_mpi.c) and its part of
# `make demo` (make demo-mpi alone): 4 ranks x 2 OpenMP threads under mpirun + hpcollect,
# then the reports that find its load imbalance (mpi: who waits; functions: where the
# time goes) and the report page (export html: build/demo-mpi/report.html). Included from
# examples/module.mk.

EXAMPLE_HEAT   := $(OUT)/build/examples/heat_mpi
MPI_DEMO_DIR   := $(OUT)/build/demo-mpi
MPI_DEMO_ENV   := OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
                  OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive

$(EXAMPLE_HEAT): examples/heat_mpi.c
	@mkdir -p $(dir $@)
	$(MPICC) -O2 -g -fopenmp -o $@ $< -lm

.PHONY: demo-mpi
demo-mpi: deps
	$(MAKE) --no-print-directory all $(EXAMPLE_HEAT)
	rm -rf $(MPI_DEMO_DIR)/heat_mpi.hpc && mkdir -p $(MPI_DEMO_DIR)
	cd $(MPI_DEMO_DIR) && $(MPI_DEMO_ENV) mpirun --oversubscribe -np 4 \
	    -x OMP_NUM_THREADS -x OMP_WAIT_POLICY \
	    $(abspath $(BINDIR))/hpcollect -o heat_mpi.hpc $(abspath $(EXAMPLE_HEAT))
	$(BINDIR)/hpanalyze $(MPI_DEMO_DIR)/heat_mpi.hpc mpi ranks
	$(BINDIR)/hpanalyze --limit 6 $(MPI_DEMO_DIR)/heat_mpi.hpc mpi sites
	$(BINDIR)/hpanalyze --limit 8 $(MPI_DEMO_DIR)/heat_mpi.hpc functions
	$(BINDIR)/hpanalyze $(MPI_DEMO_DIR)/heat_mpi.hpc export html -o $(MPI_DEMO_DIR)/report.html
	@echo "demo: rank 0 computes the heat sources (source_heat) while ranks 1-3 wait for it"
	@echo "      in MPI_Waitall and MPI_Allreduce; the experiment is $(MPI_DEMO_DIR)/heat_mpi.hpc"
	@echo "demo: the report page: open file://$(abspath $(MPI_DEMO_DIR))/report.html in a browser"
