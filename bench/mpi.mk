# bench/mpi.mk - the MPI wrapper overhead benchmark (make bench-mpi; part of make bench).
# Results, with the command that produced them, go to bench/RESULTS.md by hand.

MPI_BENCH := $(TESTDIR)/bench/mpi_overhead
MPI_BENCH_MPICH := $(TESTDIR)/bench/mpich/mpi_overhead

$(MPI_BENCH): bench/mpi_overhead.c
	@mkdir -p $(dir $@)
	$(MPICC) -O2 -g -o $@ $<

# the same program on MPICH (run under Hydra's mpiexec.mpich by mpi_bench.sh)
$(MPI_BENCH_MPICH): bench/mpi_overhead.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -g $(MPICH_CFLAGS) -o $@ $< $(MPICH_LDFLAGS)

.PHONY: bench-mpi
bench-mpi: $(MPI_BENCH) $(HPCOLLECT_BIN) $(LIBHPCOLLECT) $(MPIW_LIB) \
           $(if $(MPICC_MPICH),$(MPI_BENCH_MPICH) $(MPIW_mpich_LIB))
	HPC_BIN=$(BINDIR) bench/mpi_bench.sh $(MPI_BENCH)
	$(if $(MPICC_MPICH),HPC_BIN=$(BINDIR) MPIRUN=mpiexec.mpich bench/mpi_bench.sh $(MPI_BENCH_MPICH))
bench: bench-mpi
