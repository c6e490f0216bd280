# bench/mpi.mk - the MPI wrapper overhead benchmark (make bench-mpi; part of make bench).
# Results, with the command that produced them, go to bench/RESULTS.md by hand.

MPI_BENCH := $(TESTDIR)/bench/mpi_overhead

$(MPI_BENCH): bench/mpi_overhead.c
	@mkdir -p $(dir $@)
	$(MPICC) -O2 -g -o $@ $<

.PHONY: bench-mpi
bench-mpi: $(MPI_BENCH) $(HPCOLLECT_BIN) $(LIBHPCOLLECT) $(MPIW_LIB)
	HPC_BIN=$(BINDIR) bench/mpi_bench.sh $(MPI_BENCH)
bench: bench-mpi
