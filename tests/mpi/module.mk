# tests/mpi/ - MPI test programs. The C ones are built by tests/module.mk; here they get
# the MPI compiler flags (all but plain.c, the program without MPI), and the Fortran
# ones are built with mpif90. Included from mpi_wrap/module.mk (the top Makefile reads
# only */module.mk).

MPIF90 ?= mpif90
MPI_TEST_PROGS := $(filter-out plain,$(basename $(notdir $(wildcard tests/mpi/progs/*.c))))
$(foreach p,$(MPI_TEST_PROGS),$(eval PROG_FLAGS_mpi_$(p) := $$(MPI_CFLAGS)))
$(foreach p,$(MPI_TEST_PROGS),$(eval PROG_LIBS_mpi_$(p) := $$(MPI_LDFLAGS)))

MPI_FORTRAN_PROGS := $(patsubst tests/mpi/progs/%.f90,$(TESTDIR)/mpi/%,$(wildcard tests/mpi/progs/*.f90))

$(TESTDIR)/mpi/%: tests/mpi/progs/%.f90
	@mkdir -p $(dir $@)
	$(MPIF90) -O1 -g -o $@ $<

CHECK_DEPS += $(MPI_FORTRAN_PROGS)

# The same C programs built against MPICH ($(TESTDIR)/mpi/mpich/NAME), for the tests
# that run under both MPI libraries (tests/mpi/mpitest.sh: mpi_libs).
ifneq ($(MPICC_MPICH),)
MPICH_TEST_BINS := $(patsubst %,$(TESTDIR)/mpi/mpich/%,$(MPI_TEST_PROGS))
$(TESTDIR)/mpi/mpich/%: tests/mpi/progs/%.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) $(MPICH_CFLAGS) -o $@ $< $(MPICH_LDFLAGS)
CHECK_DEPS += $(MPICH_TEST_BINS)
endif

# The Fortran programs built against MPICH (mpif90.mpich), for test_fortran.
MPICH_F90 := $(if $(MPICC_MPICH),$(shell command -v mpif90.mpich 2>/dev/null))
ifneq ($(MPICH_F90),)
MPICH_FORTRAN_PROGS := $(patsubst tests/mpi/progs/%.f90,$(TESTDIR)/mpi/mpich/%,$(wildcard tests/mpi/progs/*.f90))
$(MPICH_FORTRAN_PROGS): $(TESTDIR)/mpi/mpich/%: tests/mpi/progs/%.f90
	@mkdir -p $(dir $@)
	$(MPICH_F90) -O1 -g -J $(dir $@) -o $@ $<
CHECK_DEPS += $(MPICH_FORTRAN_PROGS)
endif
