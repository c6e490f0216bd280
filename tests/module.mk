# tests/ - compiled test programs and unit tests (built by `make check`).
#
# tests/<area>/progs/NAME.c  ->  $(TESTDIR)/<area>/NAME   ground-truth programs, plain
#   gcc -O1 -g (no sanitizer: they are the profiled programs, not our code). An area may
#   set PROG_FLAGS_<area>_<NAME> / PROG_LIBS_<area>_<NAME> for special needs.
# tests/unit/test_*.c       ->  $(TESTDIR)/unit/test_*   unit tests of our libraries,
#   built with the project flags (sanitized under SANITIZE=1).

PROG_SRCS  := $(wildcard tests/*/progs/*.c)
PROG_BINS  := $(foreach s,$(PROG_SRCS),$(TESTDIR)/$(word 2,$(subst /, ,$(s)))/$(basename $(notdir $(s))))
PROG_CFLAGS := -O1 -g -Wall -Wno-unused-result -pthread -Itests/include

define prog_rule
$(TESTDIR)/$(1)/$(2): tests/$(1)/progs/$(2).c $(wildcard tests/include/*.h)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(PROG_CFLAGS) $$(PROG_FLAGS_$(1)_$(2)) -o $$@ $$< $$(PROG_LIBS_$(1)_$(2))
endef
$(foreach s,$(PROG_SRCS),$(eval $(call prog_rule,$(word 2,$(subst /, ,$(s))),$(basename $(notdir $(s))))))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(TESTDIR)/unit/%,$(UNIT_SRCS))
UNIT_LIBS_DEFAULT := $(EXP_LIB)

$(TESTDIR)/unit/%: $(OBJDIR)/tests/unit/%.o $(EXP_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $< $(or $(UNIT_LIBS_$*),$(UNIT_LIBS_DEFAULT)) $(UNIT_LDLIBS_$*)

CHECK_DEPS += $(PROG_BINS) $(UNIT_BINS)

# tests/io/progs/io_mpi.c is an MPI program.
PROG_FLAGS_io_io_mpi = $(MPI_CFLAGS)
PROG_LIBS_io_io_mpi = $(MPI_LDFLAGS)

# tests/heap/progs/heap_known.c and heap_maps.c mark sample points with include/hpcollect.h's hpc_sample
# (a weak symbol: no dlsym, whose error-buffer frees would be frees of untraced blocks).
PROG_FLAGS_heap_heap_known = -Iinclude
PROG_FLAGS_heap_heap_maps = -Iinclude
