# ompt/ - the OpenMP tool (OMPT), linked into lib/libhpcollect.so: collector/module.mk
# (read before this file) compiles preloaded objects with PRELOAD_CFLAGS and lets other
# stages add theirs as prerequisites of $(LIBHPCOLLECT). context.c uses libunwind, which
# the library links anyway.
OMPT_SRCS := $(sort $(wildcard ompt/*.c))
# omp-tools.h comes with libomp-dev (LLVM's resource directory); -idirafter so that the
# compiler's own headers keep priority over the rest of that directory.
OMPT_INC  := $(patsubst %/omp-tools.h,%,$(firstword $(wildcard /usr/include/omp-tools.h \
               /usr/lib/llvm-*/lib/clang/*/include/omp-tools.h)))
ifdef LIBHPCOLLECT
OMPT_OBJS := $(call preload_objs,$(OMPT_SRCS))
$(LIBHPCOLLECT): $(OMPT_OBJS)
$(OMPT_OBJS): PRELOAD_CFLAGS += -Icollector -idirafter $(OMPT_INC)
else
OMPT_OBJS := $(call objs,$(OMPT_SRCS))   # until the collector lands: compiled, not linked
$(OMPT_OBJS): CFLAGS += -Icollector -idirafter $(OMPT_INC)
ALL_TARGETS += $(OMPT_OBJS)
endif

# tests/omp ground-truth programs, each built by both compilers: tests/module.mk's rule
# makes the gcc variant $(TESTDIR)/omp/NAME (libgomp; hpcollect runs it on libomp), the
# rule below the clang variant $(TESTDIR)/omp/NAME.clang (libomp).
OMP_TEST_PROGS := $(basename $(notdir $(wildcard tests/omp/progs/*.c)))
$(foreach n,$(OMP_TEST_PROGS),$(eval PROG_FLAGS_omp_$(n) := -fopenmp))
$(foreach n,$(OMP_TEST_PROGS),$(eval $(TESTDIR)/omp/$(n): tests/omp/progs/omp_common.h))
$(TESTDIR)/omp/%.clang: tests/omp/progs/%.c tests/omp/progs/omp_common.h
	@mkdir -p $(dir $@)
	clang $(PROG_CFLAGS) $(PROG_FLAGS_omp_$*) -o $@ $< $(PROG_LIBS_omp_$*)
PROG_LIBS_omp_omp_kitchen := -latomic  # long double atomics (clang calls libatomic)
# MPI + OpenMP (mpi_wrap/module.mk's flags: Open MPI's compile and link lines)
PROG_FLAGS_omp_omp_mpi := -fopenmp $(MPI_CFLAGS)
PROG_LIBS_omp_omp_mpi := $(MPI_LDFLAGS)
# what -O2 does to OpenMP code (tail calls, inlining): built as a user would build it
PROG_FLAGS_omp_omp_tail := -fopenmp -O2
PROG_FLAGS_omp_omp_loops := -fopenmp -O2
# a program without OpenMP that opens an OpenMP library RTLD_LOCAL (both compilers' library)
PROG_FLAGS_omp_omp_dlopen :=
PROG_LIBS_omp_omp_dlopen := -ldl
$(TESTDIR)/omp/libomp_plugin.gcc.so: tests/omp/progs/plugin/omp_plugin.c
	@mkdir -p $(dir $@)
	$(CC) $(PROG_CFLAGS) -fopenmp -fPIC -shared -o $@ $<
$(TESTDIR)/omp/libomp_plugin.clang.so: tests/omp/progs/plugin/omp_plugin.c
	@mkdir -p $(dir $@)
	clang $(PROG_CFLAGS) -fopenmp -fPIC -shared -o $@ $<
CHECK_DEPS += $(TESTDIR)/omp/libomp_plugin.gcc.so $(TESTDIR)/omp/libomp_plugin.clang.so
CHECK_DEPS += $(patsubst %,$(TESTDIR)/omp/%.clang,$(OMP_TEST_PROGS))

# Fortran programs of tests/omp: gfortran -fopenmp (libgomp; hpcollect runs them on libomp).
OMP_FORTRAN_PROGS := $(patsubst tests/omp/progs/%.f90,$(TESTDIR)/omp/%,$(wildcard tests/omp/progs/*.f90))
$(TESTDIR)/omp/%: tests/omp/progs/%.f90
	@mkdir -p $(dir $@)
	gfortran -O1 -g -fopenmp -J $(dir $@) -o $@ $<
CHECK_DEPS += $(OMP_FORTRAN_PROGS)
